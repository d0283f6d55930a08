// Reproducer files: a versioned JSON scenario (variant, arch, invariant,
// initial runqueue, knobs, steps) that `schedcheck replay` re-runs on the
// concrete reference and the fuzzers take as a seed.  The format is
// documented in README.md ("Reproducer files").
#pragma once
#include <cstdint>
#include <string>
#include <utility>
#include <vector>

#include <nlohmann/json.hpp>

#include "proofs/report/input_file.h"
#include "proofs/invariant.h"
#include "ref/cpuload_scenario.h"

namespace sc::proofs {

constexpr const char *reproducer_format = "schedcheck-reproducer";
constexpr int reproducer_version = 1;

// A parsed, validated reproducer: its header, and its scenario checked for
// its arch (so a reproducer that loads also replays without input errors).
// The scenario is parsed again per arch by scenario_from_json.
struct Reproducer {
    const Variant *variant;
    Arch arch;
    const InvariantInfo *invariant;
    nlohmann::json doc;
};

// Both throw input_error naming `origin` (the file): not JSON, nested more
// than json_max_depth, a NUL byte or other trailing content, a missing field,
// a value its field cannot hold.  Values are echoed as written, cut to
// echo_max characters.  load_reproducer reads at most reproducer_max_bytes
// of a regular file (proofs/report/input_file.h).
Reproducer parse_reproducer(const std::string &text, const std::string &origin);
Reproducer load_reproducer(const std::string &path);

nlohmann::json make_reproducer(const Variant &v, Arch a, const std::string &invariant,
                               const std::vector<std::pair<std::string, std::uint64_t>> &inputs,
                               const nlohmann::json &scenario, const nlohmann::json &claim);

// write_file_atomic() is declared in proofs/report/input_file.h.

// Store a reproducer under dir, named by variant, invariant, arch and a hash
// of its content.  An existing file with that name is never overwritten.
// Returns the path.
std::string store_reproducer(const std::string &dir, const nlohmann::json &doc);

// Scenario <-> JSON for a concrete arithmetic A (ref/kernel.h or
// ref/checked.h).  Parsing checks every field's type and range (the range
// of the kernel type it stands for) and throws input_error naming the field.
template <class A> nlohmann::json scenario_to_json(const cpuload::scenario<A> &s);
template <class A> cpuload::scenario<A> scenario_from_json(const nlohmann::json &doc, unsigned long_bits);

} // namespace sc::proofs
