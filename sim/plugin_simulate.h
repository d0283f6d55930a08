// The body of an oracle plug-in's simulate entry point
// (proofs/kernel/oracle_plugin.h): `schedcheck simulate --oracle NAME
// --oracle-dir DIR` runs the workload on the plug-in's own kernel class,
// through the same event loop as a built-in oracle (sim/run_model.h).
// Exceptions do not cross the plug-in boundary: 0 done, 2 bad input, 3
// internal error, with *error saying why.
#pragma once
#include <string>

#include "proofs/kernel/oracle_plugin.h"
#include "sim/run_model.h"

namespace sc::sim {

template <template <class> class K>
int plugin_simulate(const Workload *wl, const Impl *impl, Arch arch, bool record, int start, Result *out,
                    std::string *error) {
    return proofs::plugin_guarded(error, [&] {
        if (arch == Arch::lp64) {
            KernelModel<K, lp64> m;
            *out = run_any<KernelModel<K, lp64>, lp64>(m, *wl, *impl, record, static_cast<Start>(start));
        } else {
            KernelModel<K, ilp32> m;
            *out = run_any<KernelModel<K, ilp32>, ilp32>(m, *wl, *impl, record, static_cast<Start>(start));
        }
        return 0;
    });
}

} // namespace sc::sim
