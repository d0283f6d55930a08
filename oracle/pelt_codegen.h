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

struct KernelWanted {
    std::string path, name;
    bool required;
};
// The PELT and util_est definitions looked for, by file.
const std::vector<KernelWanted> &pelt_wanted();

// Throws extract_error naming the oracle, version, file and definition
// when a required definition is missing.  `found` lists what was taken.
// With `partial` (an image rebuilt from a patch's hunks alone), what is
// missing is left out instead, and only finding nothing at all is an error.
std::string generate_pelt(const KernelOracleSpec &spec, std::vector<std::string> &found, bool partial = false);

} // namespace sc::oracle
