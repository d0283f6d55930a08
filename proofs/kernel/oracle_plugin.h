// Oracles built at run time (`schedcheck oracle build`) are compiled into a
// plug-in, NAME.so, next to their library.  `schedcheck equiv --oracle
// NAME` loads it and calls its entry point, which runs the same
// equivalence cases as the built-in oracles (proofs/equiv/equiv_kernel_cases.h)
// with the plug-in's own kernel class.  The plug-in is compiled from this
// source tree's headers, so both sides share the layout of EquivResult and
// Variant; the ABI stamp catches a plug-in built from other headers.
#pragma once
#include <string>

#include "proofs/equiv/equiv.h"
#include "proofs/invariant.h"
#include "proofs/task_trace.h"
#include "ref/variants.h"
#include "sim/simulate.h"

namespace sc::proofs {

// Return codes of the entry points: 0 done (res filled), 1 the invariant
// does not apply to this oracle (prove, replay), 2 bad input, 3 internal
// error; *error says why.  Exceptions do not cross the boundary.
using plugin_equiv_fn = int (*)(EquivResult *res, const Variant *v, unsigned timeout_ms, std::string *error);
using plugin_abi_fn = unsigned (*)();
// The pelt and utilest invariants (proofs/kernel/kernel_entries.h) on the
// plug-in's own kernel class.
using plugin_applies_fn = int (*)(const char *invariant);
using plugin_prove_fn = int (*)(ProofResult *res, const Variant *subject, const char *invariant, Arch a,
                                const ProveOptions *opt, std::string *error);
using plugin_replay_fn = int (*)(ReplayResult *res, const char *invariant, Arch a, const nlohmann::json *doc,
                                 std::string *error);
// One task's calls run on the plug-in's code (proofs/task_trace.h): the
// concrete side of `review --fuzz-seconds`.
using plugin_run_fn = int (*)(const TaskRun *run, std::vector<TaskSnapshot> *out, std::string *error);
// A workload run on the plug-in's code (sim/plugin_simulate.h): `simulate
// --oracle NAME --oracle-dir DIR`.  start is a sim::Start.
using plugin_simulate_fn = int (*)(const sim::Workload *wl, const sim::Impl *impl, Arch a, bool record, int start,
                                   sim::Result *out, std::string *error);
inline constexpr const char *plugin_equiv_symbol = "schedcheck_oracle_equiv_v1";
inline constexpr const char *plugin_abi_symbol = "schedcheck_oracle_abi_v1";
inline constexpr const char *plugin_applies_symbol = "schedcheck_oracle_applies_v1";
inline constexpr const char *plugin_prove_symbol = "schedcheck_oracle_prove_v1";
inline constexpr const char *plugin_replay_symbol = "schedcheck_oracle_replay_v1";
inline constexpr const char *plugin_run_symbol = "schedcheck_oracle_run_v1";
inline constexpr const char *plugin_simulate_symbol = "schedcheck_oracle_simulate_v1";

// An entry point's body: what f returns, or 2 for an input_error and 3
// for any other exception, with *error saying why.
template <class F> int plugin_guarded(std::string *error, F &&f) {
    try {
        return f();
    } catch (const input_error &e) {
        *error = e.what();
        return 2;
    } catch (const std::exception &e) {
        *error = e.what();
        return 3;
    }
}

inline unsigned plugin_abi() {
    return static_cast<unsigned>(sizeof(EquivResult) ^ (sizeof(Variant) << 12) ^ (sizeof(OracleInfo) << 20) ^
                                 (sizeof(ProofResult) << 4) ^ (sizeof(ReplayResult) << 16) ^
                                 (sizeof(ProveOptions) << 24) ^ (sizeof(TaskRun) << 8) ^ (sizeof(TaskOp) << 28) ^
                                 (sizeof(sim::Workload) << 6) ^ (sizeof(sim::Result) << 14) ^
                                 (sizeof(sim::Impl) << 22) ^ (sizeof(sim::Row) << 26));
}

// A loaded plug-in's entry points.
struct Plugin {
    std::string path, oracle;
    std::string version; // the tree's, from the manifest; empty if unknown
    plugin_equiv_fn equiv = nullptr;
    plugin_applies_fn applies = nullptr;
    plugin_prove_fn prove = nullptr;
    plugin_replay_fn replay = nullptr;
    plugin_run_fn run = nullptr;
    plugin_simulate_fn simulate = nullptr;
};

// Loads DIR/NAME.so once per process (later calls return the same), after
// checking it against its manifest.  Throws input_error when there is no
// such plug-in, it does not match its manifest, or it lacks an entry point
// (made by an older schedcheck: rebuild it).
const Plugin &load_plugin(const std::string &so_path, const std::string &oracle);

// An oracle name becomes file names (NAME.so, NAME.json) inside the oracle
// directory and an #include in generated code, so it is held to a safe
// alphabet: letters, digits, '.', '_', '+', '-', not starting with '.'.
// Anything else is bad input (exit 2): no "../x", no quotes, no spaces.
bool valid_oracle_name(const std::string &name);
// Throws input_error naming `what` ("--name", "--oracle", "the patch file's
// name") when the name is not valid.
void check_oracle_name(const std::string &name, const std::string &what);

// FNV-1a (64 bits) of a file's bytes, as 16 hex digits: the checksum
// `oracle build` records for its plug-in and checks before loading it.
std::string file_fnv1a64(const std::string &path);

// Runs an equivalence in a plug-in.  The plug-in must match the size and
// checksum its manifest (NAME.json beside NAME.so) records: a truncated or
// altered file is refused before dlopen(), which would otherwise fault
// (SIGBUS) on the missing pages.  Throws input_error when there is no
// such plug-in or it cannot be loaded, and passes on the plug-in's errors.
EquivResult prove_with_plugin(const std::string &so_path, const Variant &v, const std::string &oracle, Arch a,
                              unsigned timeout_ms);

// Runs one task's calls in a loaded plug-in; throws as prove_with_plugin().
std::vector<TaskSnapshot> run_with_plugin(const Plugin &pl, const TaskRun &run);

} // namespace sc::proofs
