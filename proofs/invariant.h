// Invariants, verdicts, and the items a property is made of.
#pragma once
#include <atomic>
#include <cstdint>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include <nlohmann/json.hpp>

#include "ref/kernel.h"
#include "ref/variants.h"

namespace sc::proofs {

// One comparison of a property.  The property holds on a trace when every
// check whose guard is true has lhs OP rhs.  Both sides keep their names so
// a failed check can be shown the way a reviewer reads it.
enum class cmp {
    le,       // lhs <= rhs
    eq,       // lhs == rhs
    ne,       // lhs != rhs
    contracts // |lhs - target| * 2^shift <= |rhs - target| * (2^shift - 1)
};

template <class A> struct Check {
    std::string what;
    typename A::boolean guard;
    std::string lhs_name;
    typename A::ulong lhs;
    cmp op;
    std::string rhs_name;
    typename A::ulong rhs;
    typename A::ulong target{0};
    int shift = 0;
};

enum class Verdict { PROVED, COUNTEREXAMPLE, UNKNOWN };
inline const char *verdict_name(Verdict v) {
    return v == Verdict::PROVED ? "PROVED" : v == Verdict::COUNTEREXAMPLE ? "COUNTEREXAMPLE" : "UNKNOWN";
}

struct Counterexample {
    std::vector<std::pair<std::string, std::uint64_t>> inputs; // named, in declaration order
    nlohmann::json reproducer;                                 // the scenario file's content
    std::string reproducer_path;                               // where it was written, if anywhere
};

struct ProofResult {
    std::string variant, invariant;
    Arch arch;
    Verdict verdict = Verdict::UNKNOWN;
    double seconds = 0;
    std::size_t paths = 0;
    std::size_t queries = 0;
    std::string domain;
    std::string reason; // why UNKNOWN, what failed, or what was established
    std::optional<std::uint64_t> bound; // converges: ticks; no_overflow: largest safe load; recovers: ms
    std::string bound_kind;             // "ticks", "ms" or "largest safe load"
    std::optional<Counterexample> cex;
};

struct ProveOptions {
    unsigned timeout_ms = 10000; // per solver query
    // When set and true, a proof stops before its next case (UNKNOWN,
    // "cancelled") and run_matrix() starts no further job: a caller that
    // fails while proofs run in the background need not wait for them.
    const std::atomic<bool> *cancel = nullptr;
    bool cancelled() const { return cancel && cancel->load(std::memory_order_relaxed); }
    // run_matrix() carries a built-in kernel's pelt proof over from its
    // release's variant when both are jobs (proofs/equiv/carry_over.h);
    // false proves every job directly (`prove --direct`).
    bool carry_over = true;
    // Tests only, in the first `attempts` attempts of a proof and at its
    // case `case_no` (1-based): the incremental solver's domain answer is
    // taken as "empty", or its base (the path explorer's, with `explorer`)
    // gets an assertion of false after the case, as a solver in a wrong
    // state would answer.
    struct Fault {
        std::uint64_t case_no = 0;
        unsigned attempts = 0;
        bool explorer = false;
        bool at(std::uint64_t case_no_now, unsigned attempt) const {
            return case_no == case_no_now && attempt <= attempts;
        }
    };
    Fault fault_empty_domain, fault_false_base;
};

// A counterexample that does not replay, or anything else that means the
// tool itself is wrong.  Exit code 3.
struct internal_error : std::runtime_error {
    using std::runtime_error::runtime_error;
};

// Bad user input: a file, a value, an option.  Exit code 2.
struct input_error : std::runtime_error {
    using std::runtime_error::runtime_error;
};

// One step of a replay's trace: what it did, and the named values after it.
struct ReplayStep {
    std::string label;
    std::vector<std::pair<std::string, std::uint64_t>> values;
};

struct ReplayResult {
    bool violated = false;
    std::string failed;    // the check or wrap that failed, in words
    std::string lhs_name, rhs_name, op;
    std::uint64_t lhs = 0, rhs = 0;
    std::string trace;     // step-by-step text
    std::vector<ReplayStep> steps; // the same, structured, every step (pelt and utilest)
    std::vector<std::string> wraps;
};

// One case of a proof: its label, whether it is a search (concrete traces
// from the initial state, never explored symbolically), and its inputs.
struct CaseInputs {
    std::string label;
    bool search = false;
    struct Input {
        std::string name;
        std::uint64_t lo, hi;
    };
    std::vector<Input> inputs;
};

struct InvariantInfo {
    std::string id;
    std::string family;
    std::string statement;
    bool (*applies)(const Variant &);
    ProofResult (*prove)(const Variant &, Arch, const ProveOptions &);
    ReplayResult (*replay)(const Variant &, Arch, const nlohmann::json &repro);
    // Proved by `schedcheck review` on both images of a patch.  False for
    // an invariant whose proof costs minutes per image (pelt.load_bounded):
    // the review names it as not proved there and leaves it to `prove`.
    bool in_review = true;
    // The cases a proof of it on (variant, arch) explores, each with the
    // inputs it declares and their ranges (proofs/engine/case_points.h), or null
    // where none can be listed (an oracle plug-in).
    std::vector<CaseInputs> (*cases)(const Variant &, Arch) = nullptr;
    // Its text reads no release shape (I::shape): it runs the same code on
    // every implementation, so a proof of it may be carried between
    // releases of different shapes (proofs/equiv/carry_over.h).
    bool shape_blind = false;
};


const std::vector<InvariantInfo> &invariants();
const InvariantInfo *find_invariant(const std::string &id);

} // namespace sc::proofs
