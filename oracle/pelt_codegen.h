// From a kernel's PELT and util_est text to a C++ class template that
// compiles against any arithmetic A (ref/kernel.h, model/sym.h).
//
// The generated namespace carries the oracle's name (sc::oracle_gen::
// linux_6_1, ...), so the symbols of several kernel versions link into one
// binary side by side.  The class holds the shims the extracted text
// expects, written here and not taken from any kernel:
//   - struct sched_avg reduced to the fields PELT and util_est use, in the
//     version's layout (util_est as {enqueued, ewma} or as one word);
//     sched_entity, task_struct and cfs_rq reduced to their sched_avg;
//   - READ_ONCE / WRITE_ONCE as plain accesses, likely / unlikely as the
//     bare condition, __always_inline / __maybe_unused as nothing;
//   - mul_u64_u32_shr and div_u64 (ref/kernel.h), min / max / min_t;
//   - sched_feat(X) as a per-thread input, the CPU's capacity as an input;
//   - every trace_* hook the text calls, as a no-op.
// Then the extracted macros, the decay table and the functions, with every
// integer type and L-suffixed literal rewritten to A's (oracle/rewrite.h).
#pragma once
#include <map>
#include <string>
#include <vector>

#include "oracle/patch.h"

namespace sc::oracle {

struct KernelOracleSpec {
    std::string name;        // C++ identifier, e.g. "linux_6_1"
    std::string id;          // user-facing, e.g. "linux-6.1"
    std::string version;     // "6.1.192", used in messages
    std::string description; // where the text comes from
    Image image;
};

// Which half of the oracle a definition belongs to.  PELT is what every
// oracle must have; util_est (Linux 4.17 and later) may be missing, and an
// oracle without it is still built, for the PELT proofs.
// The moves of PELT sums between a task and its cfs_rq (attach/detach and
// friends, fair.c) are a third, optional part: an oracle whose tree lacks
// one of them holds PELT (and util_est) without them.
// The newidle balance cost helpers (update_avg(), update_newidle_cost(),
// 6.x) are a fourth optional part, for the idlebal family's equivalence.
enum class PeltPart { pelt, util_est, cfs_moves, idlebal, wakeaffine };

struct KernelWanted {
    // The files trees have kept it in, the usual one first: the first that
    // holds a whole definition of it (an empty !CONFIG_SMP stub does not
    // count) is where it is taken from.  Every one is in oracle_files().
    std::vector<std::string> paths;
    std::string name;
    PeltPart part;
    bool required;  // false: not every release has it (6.12 has no within_margin)
    bool function;  // a function, not a macro or a table
};
// The PELT and util_est definitions looked for.
const std::vector<KernelWanted> &pelt_wanted();

// What generate_pelt_oracle() made of a kernel's text.
struct PeltOracle {
    std::string code;                  // the generated namespace
    std::vector<std::string> found;    // the definitions in the code, in pelt_wanted() order
    std::vector<std::string> found_in; // the file each one was taken from (parallel to found)
    // Every required definition that was not found, one entry each:
    // "util_est_update not found in kernel/sched/fair.c, kernel/sched/sched.h".
    std::vector<std::string> lacking;
    bool has_util_est = false; // util_est complete and in the code (else the code is PELT only)
    bool has_cfs_moves = false; // the entity <-> cfs_rq moves complete and in the code
    bool has_idlebal = false;   // update_avg() and update_newidle_cost() in the code
    bool has_wakeaffine = false; // wake_affine() and the helpers it calls in the code
    // What invariants read, each with every definition of the code it
    // names, transitively, token by token: two images with the same text
    // under a key have the same code under those invariants, so the same
    // verdicts.  Keyed by family ("pelt": the PELT and cfs_rq-move
    // definitions; "utilest": the util_est ones) and by the id of an
    // invariant that calls less than its family ("pelt.decay_monotone":
    // decay_load() alone, so a patch to the rest of PELT leaves its
    // verdicts as they were).
    std::map<std::string, std::string> reads;
    // One line for the user when something was left out, else empty:
    // "linux-4.14 (4.14.3): util_est left out, the oracle holds PELT only: ...".
    std::string note;
};

// Finds every wanted definition in the spec's image and generates the
// oracle's namespace.  The generated namespace says what it holds:
// `has_util_est` (also kernel<A>::shim_has_util_est, for code that gets the
// class only) and `lacks[]`, the names left out.
//
// Throws one extract_error listing everything that is missing when a PELT
// definition is missing: the message names the oracle, the version, each
// definition and the files searched.  When only util_est is incomplete, the
// util_est half is left out and `note` says so.
//
// `partial`: the image was rebuilt from a patch's hunks alone, named
// `origin` in messages.  Then a text that holds no whole definition of any
// wanted function is an error saying so in one line, with the advice to
// give the tree.
PeltOracle generate_pelt_oracle(const KernelOracleSpec &spec, bool partial = false, const std::string &origin = "");

// The strict form, for the built-in oracles: anything required missing,
// util_est included, is an extract_error (listing all of it).  With
// `partial`, as generate_pelt_oracle().  `found` lists what was taken.
std::string generate_pelt(const KernelOracleSpec &spec, std::vector<std::string> &found, bool partial = false);

// The oracle's code with its own names (namespace, id, description) taken
// out: two images with the same neutral code compute the same things, and
// an image whose neutral code is a built-in oracle's can use that oracle.
std::string neutral_code(KernelOracleSpec spec, bool partial = false, const std::string &origin = "");

} // namespace sc::oracle
