// The schedcheck subcommands.  Each returns the process exit code:
//   0 ok (for prove: the verdicts match the expected file; for replay: the
//     reproducer behaves as recorded)
//   1 a verdict differs from the expected file; replay: not as recorded
//   2 bad usage or input
//   3 internal error
#pragma once
#include <functional>
#include <map>
#include <string>
#include <vector>

namespace sc::cli {

struct ProveArgs {
    std::vector<std::string> families, variants, invariants;
    std::vector<std::string> oracles; // kernel oracles as subjects: built in, or plug-ins in oracle_dir
    std::string oracle_dir = "oracles";
    std::string arch = "all";
    unsigned timeout_ms = 10000;
    unsigned jobs = 0; // 0: one per core
    bool json = false;
    std::string out;      // write reports and reproducers here
    std::string corpus;   // also store reproducers here (never overwriting)
    std::string expected; // an expected-verdict file instead of the built-in one
    std::string shard;    // "I/N": run only part I of N (proofs/report/shard.h)
    std::string junit, sarif; // write JUnit XML / SARIF 2.1.0 here
    std::string write_timings; // write each proof's seconds as a timing file here
    bool direct = false;       // prove every job, carrying none over (proofs/equiv/carry_over.h)
};

struct ReviewArgs {
    std::string patch, kernel, out, reply_to;
    unsigned fuzz_seconds = 0;
    std::uint64_t fuzz_seed = 1;
    unsigned timeout_ms = 10000;
    unsigned jobs = 0;
    bool json = false;
    bool all_invariants = false; // also those too slow for a review (pelt.load_bounded)
};
// cli/review.cpp
int cmd_review(const ReviewArgs &a);

// Fails (input_error, exit 2) unless dir can be created or written, and
// none of its entries has the wrong kind (name, is a directory).
void check_output_dir(const std::string &opt, const std::string &dir,
                      const std::vector<std::pair<std::string, bool>> &entries = {});
// `merge`: shard results (results.json of `prove --out`, or `prove --json`)
// put back together into what one whole run gives.
struct MergeArgs {
    std::vector<std::string> files;
    std::string out, junit, sarif, expected;
    bool json = false;
};
int cmd_merge(const MergeArgs &a);

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

// One oracle made by `oracle build` (cli/oracle_build.cpp).
struct BuiltOracle {
    std::string name;
    std::vector<std::string> found;
    std::string fuzzer;      // the differential fuzzer's file name, if built
    std::string fuzzer_note; // why not
    std::string note;        // what the source lacks and was left out (util_est), or empty
    std::string code;        // the generated code with the oracle's own names taken out
    // What invariants read, by family and by invariant id
    // (oracle::PeltOracle::reads).
    std::map<std::string, std::string> reads;
    // With BuildOptions::reuse_builtin: the built-in oracle (linux-6.1,
    // linux-6.12) whose code this image has, text for text, used instead of
    // a plug-in; nothing was compiled or written for the image.
    std::string builtin;
    // The oracle name that `equiv`, the invariants and replay take.
    const std::string &oracle() const { return builtin.empty() ? name : builtin; }
};
struct BuildOptions {
    bool with_library = true; // libschedcheck-oracle-NAME.a
    bool with_fuzzer = true;  // NAME-differential (when clang++ is there)
    bool reuse_builtin = false;
    // The plug-in at -O0 instead of -O1: about half the compile time, for a
    // plug-in that only the solver's proofs will use (their time is the
    // solver's; the concrete code runs a few thousand replays).
    bool quick_plugin = false;
    // Called once every image's code is generated (BuiltOracle's name,
    // found, note, code, reads and builtin set), before anything is
    // compiled: `review` starts proving a built-in image there.
    std::function<void(const std::vector<BuiltOracle> &)> prepared;
};
struct OracleBuild {
    std::vector<BuiltOracle> built; // one, or NAME-pre and NAME-post
    std::string version;            // the kernel's version, when known
};
// What `oracle build` does, without printing: NAME.h, .so, .json (and the
// library and the differential fuzzer when asked) for each oracle, in
// out_dir.  Throws input_error; a failure leaves nothing behind.
OracleBuild build_oracles(const std::string &kernel, const std::string &patch, const std::string &name,
                          const std::string &out_dir, const BuildOptions &opt);
int cmd_oracle_extract(const std::string &patch, bool json);
// Extract, generate and compile an oracle library (cli/oracle_build.cpp).
int cmd_oracle_build(const std::string &kernel, const std::string &patch, const std::string &name,
                     const std::string &out_dir);

} // namespace sc::cli
