// The idlebal invariants inside an oracle plug-in (proofs/kernel/oracle_plugin.h),
// on the plug-in's own update_avg(), update_newidle_cost() and
// update_newidle_stats(), called from the reference's walks as for the
// built-in oracles (proofs/kernel/idlebal_kernel.h).  The plug-in's entry
// points hand on to these what plugin_prove.h's do not know.
//
// The walk is that of 6.1 for a tree whose util_est is the {enqueued, ewma}
// pair (Split), else that of 6.12.  The two walks differ in SIS_PROP's
// wake_avg_idle, which no invariant reads, and in what stops a domain walk,
// an input of every case either way.
#pragma once
#include <string>

#include "proofs/balance_entry.h"
#include "proofs/kernel/idlebal_kernel.h"
#include "proofs/kernel/kernel_entries.h"
#include "proofs/kernel/oracle_plugin.h"

namespace sc::proofs {

template <template <class> class K, bool Split> struct PluginIdleBal {
    using I = idlebal_inv::KernelIdleBal<K, Split ? idlebal::version::v6_1 : idlebal::version::v6_12>;

    // Calls f.template operator()<P>() for the invariant named id when it
    // applies to this oracle: 0 when called, 1 when not.
    template <class F> static int with(const char *id, F &&f) {
        int rc = 1;
        if constexpr (idlebal_inv::idlebal_runs_on<K>)
            kentry::with_invariant<idlebal_inv::IdleBalInvariants>(id, [&]<class P>() {
                if (P::template applies<I>()) {
                    f.template operator()<P>();
                    rc = 0;
                }
            });
        return rc;
    }

    static int applies(const char *id) {
        return with(id, []<class P>() {}) == 0 ? 1 : 0;
    }
    static int prove(ProofResult *res, const Variant *v, const char *id, Arch a, const ProveOptions *o,
                     std::string *error) {
        return plugin_guarded(error, [&] {
            return with(id, [&]<class P>() { *res = balance_detail::prove_on<P, I>(*v, a, *o); });
        });
    }
    static int replay(ReplayResult *res, const char *id, Arch a, const nlohmann::json *doc, std::string *error) {
        return plugin_guarded(error, [&] {
            return with(id, [&]<class P>() { *res = balance_detail::replay_on<P, I>(a, *doc); });
        });
    }
};

} // namespace sc::proofs
