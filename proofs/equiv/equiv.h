// Equivalence of a reference variant and a kernel-extracted oracle: for
// every input in the stated domain, the same outputs and the same state.
#pragma once
#include <cstdint>
#include <string>
#include <utility>
#include <vector>

#include <nlohmann/json.hpp>

#include "ref/kernel.h"
#include "ref/variants.h"

namespace sc::proofs {

enum class EquivVerdict { EQUIVALENT, DIFFERENT, UNKNOWN };
const char *equiv_name(EquivVerdict v);

struct OracleInfo {
    std::string id;          // e.g. "seed000-pre"
    std::string description; // where its text comes from
    bool available;
    std::string reason;      // why not, when unavailable
    std::vector<std::string> definitions;
    std::string same_as;     // the variant it is meant to equal
    // Kernel oracles: the decay table and LOAD_AVG_MAX regenerated from their
    // definitions (proofs/decay_table.h); what differs, empty when all agree.
    bool self_checked = false;
    std::vector<std::string> self_check;
};

// A generated header's null-terminated list of extracted definitions.
std::vector<std::string> definition_list(const char *const *names);

// The oracles built into this binary (generated at build time).
std::vector<OracleInfo> oracles();

// A function whose two sides differ: a distinguishing input, replayed on
// both sides.
struct EquivDifference {
    std::string function;
    std::vector<std::pair<std::string, std::uint64_t>> inputs;
    std::vector<std::pair<std::string, std::pair<std::uint64_t, std::uint64_t>>> outputs; // name -> (ref, oracle)
};

struct EquivResult {
    std::string variant, oracle;
    Arch arch;
    EquivVerdict verdict = EquivVerdict::UNKNOWN;
    double seconds = 0;
    std::size_t paths = 0, queries = 0;
    std::string domain;
    std::string reason;
    std::vector<std::string> compared; // functions compared
    std::vector<std::string> skipped;  // functions only one side has
    // DIFFERENT: every differing function (differences), and the first of
    // them again in function / inputs / outputs.
    std::vector<EquivDifference> differences;
    std::string function;
    std::vector<std::pair<std::string, std::uint64_t>> inputs;
    std::vector<std::pair<std::string, std::pair<std::uint64_t, std::uint64_t>>> outputs; // name -> (ref, oracle)
};

// Throws input_error for an unknown or unavailable oracle.  An oracle that
// is not built in is looked for as a plug-in, oracle_dir/ORACLE.so, made by
// `schedcheck oracle build` (proofs/kernel/oracle_plugin.h).
EquivResult prove_equivalence(const Variant &v, const std::string &oracle, Arch a, unsigned timeout_ms,
                              const std::string &oracle_dir = "oracles");

std::string equiv_text(const EquivResult &r);
nlohmann::json equiv_json(const EquivResult &r);

} // namespace sc::proofs
