// The schedcheck subcommands.  Each returns the process exit code:
//   0 ok (for prove: the verdicts match the expected file; for replay: the
//     reproducer behaves as recorded)
//   1 a verdict differs from the expected file; replay: not as recorded
//   2 bad usage or input
//   3 internal error
#pragma once
#include <string>
#include <vector>

namespace sc::cli {

struct ProveArgs {
    std::vector<std::string> families, variants, invariants;
    std::vector<std::string> oracles; // built-in kernel oracles as subjects
    std::string arch = "all";
    unsigned timeout_ms = 10000;
    unsigned jobs = 0; // 0: one per core
    bool json = false;
    std::string out;      // write reports and reproducers here
    std::string corpus;   // also store reproducers here (never overwriting)
    std::string expected; // an expected-verdict file instead of the built-in one
};

int cmd_variants(bool json);
int cmd_invariants(bool json);
int cmd_prove(const ProveArgs &a);
int cmd_replay(const std::string &file, bool json);
int cmd_explain(const std::string &file, const std::string &svg);

struct EquivArgs {
    std::string variant, oracle;
    std::string oracle_dir = "oracles"; // where `oracle build` put its plug-ins
    std::string arch = "all";
    unsigned timeout_ms = 10000;
    bool json = false;
};
int cmd_equiv(const EquivArgs &a);
int cmd_oracle_list(bool json, const std::string &oracle_dir);
int cmd_oracle_extract(const std::string &patch, bool json);
// Extract, generate and compile an oracle library (cli/oracle_build.cpp).
int cmd_oracle_build(const std::string &kernel, const std::string &patch, const std::string &name,
                     const std::string &out_dir);

} // namespace sc::cli
