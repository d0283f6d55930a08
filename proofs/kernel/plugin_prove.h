// The bodies of an oracle plug-in's invariant entry points
// (proofs/kernel/oracle_plugin.h), instantiated with the plug-in's kernel class K
// (its task keeps util_est as {enqueued, ewma} when Split).  The invariant
// texts are those the built-in subjects use (proofs/kernel/kernel_entries.h
// for pelt and utilest, proofs/balance_entry.h for idlebal and wakeaffine).
// A PELT-only oracle (its tree lacks util_est) answers "does not apply" for
// the util_est invariants, one whose tree lacks the idle-balance functions
// the walks call for the idlebal ones, and one without wake_affine() for
// the wakeaffine ones.
//
// The idlebal walk is that of 6.1 for a tree whose util_est is the
// {enqueued, ewma} pair (Split), else that of 6.12.  The two walks differ in
// SIS_PROP's wake_avg_idle, which no invariant reads, and in what stops a
// domain walk, an input of every case either way.
#pragma once
#include <string>
#include <type_traits>

#include "proofs/balance_entry.h"
#include "proofs/kernel/idlebal_kernel.h"
#include "proofs/kernel/kernel_entries.h"
#include "proofs/kernel/oracle_plugin.h"
#include "proofs/kernel/wakeaffine_kernel.h"
#include "proofs/task_trace.h"

namespace sc::proofs {

template <template <class> class K, bool Split> struct PluginImpl {
    using Pelt = iface::KernelPelt<K>;
    using UtilEst = iface::KernelUtilEst<K, Split ? utilest::version::v6_1 : utilest::version::v6_12>;
    using IdleBal = idlebal_inv::KernelIdleBal<K, Split ? idlebal::version::v6_1 : idlebal::version::v6_12>;
    using WakeAffine = wakeaffine_inv::KernelWakeAffine<K>;
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
        if constexpr (idlebal_inv::idlebal_runs_on<K>)
            kentry::with_invariant<idlebal_inv::IdleBalInvariants>(id, [&]<class P>() {
                if (P::template applies<IdleBal>()) {
                    f.template operator()<P, IdleBal>();
                    rc = 0;
                }
            });
        if constexpr (wakeaffine_inv::wakeaffine_runs_on<K>)
            kentry::with_invariant<wakeaffine_inv::WakeAffineInvariants>(id, [&]<class P>() {
                if (P::template applies<WakeAffine>()) {
                    f.template operator()<P, WakeAffine>();
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
            return with(id, [&]<class P, class I>() {
                if constexpr (std::is_same_v<I, IdleBal> || std::is_same_v<I, WakeAffine>)
                    *res = balance_detail::prove_on<P, I>(*v, a, *o);
                else
                    *res = kentry::prove<P, I>(*v, a, *o);
            });
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
