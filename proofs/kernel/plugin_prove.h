// The bodies of an oracle plug-in's invariant entry points
// (proofs/kernel/oracle_plugin.h), instantiated with the plug-in's kernel class K
// (its task keeps util_est as {enqueued, ewma} when Split).  The invariant
// texts are those the built-in subjects use (proofs/kernel/kernel_entries.h).  A
// PELT-only oracle (its tree lacks util_est) answers "does not apply" for
// the util_est invariants.
#pragma once
#include <string>

#include "proofs/kernel/kernel_entries.h"
#include "proofs/kernel/oracle_plugin.h"
#include "proofs/task_trace.h"

namespace sc::proofs {

template <template <class> class K, bool Split> struct PluginImpl {
    using Pelt = iface::KernelPelt<K>;
    using UtilEst = iface::KernelUtilEst<K, Split ? utilest::version::v6_1 : utilest::version::v6_12>;
    static constexpr bool has_util_est = K<lp64>::shim_has_util_est;

    // Calls f.template operator()<P, I>() for the invariant named id when
    // it applies to this oracle: 0 when called, 1 when not.
    template <class F> static int with(const char *id, F &&f) {
        int rc = 1;
        kentry::with_invariant<kentry::PeltInvariants>(id, [&]<class P>() {
            if (P::template applies<Pelt>()) {
                f.template operator()<P, Pelt>();
                rc = 0;
            }
        });
        kentry::with_invariant<kentry::PeltCfsRqInvariants>(id, [&]<class P>() {
            if (P::template applies<Pelt>()) {
                f.template operator()<P, Pelt>();
                rc = 0;
            }
        });
        if constexpr (has_util_est)
            kentry::with_invariant<kentry::UtilEstInvariants>(id, [&]<class P>() {
                if (P::template applies<UtilEst>()) {
                    f.template operator()<P, UtilEst>();
                    rc = 0;
                }
            });
        return rc;
    }

    static int applies(const char *id) {
        return with(id, []<class P, class I>() {}) == 0 ? 1 : 0;
    }
    static int prove(ProofResult *res, const Variant *v, const char *id, Arch a, const ProveOptions *o,
                     std::string *error) {
        return plugin_guarded(error, [&] {
            return with(id, [&]<class P, class I>() { *res = kentry::prove<P, I>(*v, a, *o); });
        });
    }
    static int replay(ReplayResult *res, const char *id, Arch a, const nlohmann::json *doc, std::string *error) {
        return plugin_guarded(error, [&] {
            return with(id, [&]<class P, class I>() { *res = kentry::replay<P, I>(a, *doc); });
        });
    }
    static int run(const TaskRun *r, std::vector<TaskSnapshot> *out, std::string *error) {
        return plugin_guarded(error, [&] {
            *out = r->lp64 ? run_task<Pelt, UtilEst, has_util_est, lp64>(*r)
                           : run_task<Pelt, UtilEst, has_util_est, ilp32>(*r);
            return 0;
        });
    }
};

} // namespace sc::proofs
