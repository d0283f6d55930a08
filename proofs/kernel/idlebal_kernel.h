// The idlebal invariants on a kernel oracle's own code.  The oracle holds
// the family's arithmetic, extracted from the tree: update_avg() (the
// avg_idle step), update_newidle_cost() and update_newidle_stats() (the
// per-domain cost, its decay and the NI_RANDOM statistics).  The walks that
// call them (the wake-up sample, newidle_balance(), rebalance_domains())
// are scheduler plumbing around locks and runqueues that the extractor does
// not take; here they are the reference's walks of the same release
// (ref/idle_balance.h) with the kernel's functions in place of the
// reference's own (its ref_leaves).  So an invariant over a wake-up, a
// newidle pass or a periodic rebalance checks the kernel's arithmetic in
// every place the walk uses it; the walk itself is the reference's, proved
// against the seed and the release texts by the family's own tests.
#pragma once
#include <tuple>

#include "proofs/idlebal_invariants.h"
#include "proofs/kernel/kernel_state.h"

namespace sc::proofs::idlebal_inv {

// In catalogue order (proofs/idlebal_catalogue.cpp).
using IdleBalInvariants = std::tuple<AvgIdleCapped, AvgIdleNoJump, CostDecayMonotone, Recovers, SkipSound, NoOverflow>;

// Whether oracle K can run the family's invariants: its tree held
// update_avg() and update_newidle_cost() in either form.  Without the
// backport the walks run with NI_RANDOM off, which is the upstream walk:
// with the feature off the backport's walk differs from it only in the
// success statistics, which nothing reads then.
template <template <class> class K>
constexpr bool idlebal_runs_on = K<lp64>::shim_has_idlebal && (kernel_has_ni_random<K> || kernel_has_plain_cost<K>);

// K: the oracle's kernel class template; V: the release whose walk the
// oracle's functions are called from (v6_1 or v6_12).
template <template <class> class K, version V> struct KernelIdleBal {
    static_assert(idlebal::is_6x<V>, "the kernel oracles are 6.x trees");
    static constexpr version shape = V;
    // Whether the cases throw NI_RANDOM's dice (idlebal_invariants.h).
    static constexpr bool ni_random = kernel_has_ni_random<K>;

    struct leaves {
        template <class A> static void update_avg(typename A::u64 &avg, typename A::u64 sample) {
            K<A>::update_avg(&avg, sample);
        }
        template <class A> static void update_newidle_stats(idlebal::sched_domain<A> &sd, typename A::uint success) {
            if constexpr (ni_random) {
                auto k = sd_to_kernel<typename K<A>::sched_domain>(sd);
                K<A>::update_newidle_stats(&k, success);
                sd_from_kernel(sd, k);
            } else {
                // Only the dice's skip calls it, and no case of this
                // oracle throws the dice: a reproducer that does is refused.
                (void)sd, (void)success;
                throw input_error("this oracle's tree has no NI_RANDOM newidle dice (no update_newidle_stats()): "
                                  "a case with NI_RANDOM does not apply to it");
            }
        }
        // The kernel reads jiffies and HZ through its shims; they are set
        // for the call only.
        template <class A>
        static bool update_newidle_cost(idlebal::sched_domain<A> &sd, typename A::u64 cost,
                                        typename A::uint success, typename A::ulong jiffies,
                                        const idlebal::knobs<A> &kn) {
            auto k = sd_to_kernel<typename K<A>::sched_domain>(sd);
            K<A>::shim_jiffies = &jiffies;
            K<A>::shim_HZ = kn.HZ;
            bool decayed;
            if constexpr (ni_random) {
                decayed = bool(K<A>::update_newidle_cost(&k, cost, success));
            } else {
                (void)success; // upstream: no success statistics
                decayed = bool(K<A>::update_newidle_cost(&k, cost));
            }
            K<A>::shim_jiffies = nullptr;
            sd_from_kernel(sd, k);
            return decayed;
        }
    };

    template <class A> struct on {
        // sched_init() and sd_init() are not extracted: the reference's.
        static void init_rq(idlebal::rq<A> &r, typename A::ulong jiffies, const idlebal::knobs<A> &k) {
            idlebal::init_rq<V, A>(r, jiffies, k);
        }
        static void update_rq_avg_idle(idlebal::rq<A> &r, typename A::u64 now, typename A::ulong jiffies,
                                       const idlebal::knobs<A> &k) {
            idlebal::update_rq_avg_idle<V, A, leaves>(r, now, jiffies, k);
        }
        static idlebal::newidle_result<A> idle_balance(idlebal::rq<A> &r, const idlebal::newidle_env<A> &env,
                                                      const idlebal::knobs<A> &k) {
            return idlebal::idle_balance<V, A, leaves>(r, env, k);
        }
        static void rebalance_domains(idlebal::rq<A> &r, const idlebal::rebalance_env<A> &env,
                                      const idlebal::knobs<A> &k) {
            idlebal::rebalance_domains<V, A, leaves>(r, env, k);
        }
    };
};

} // namespace sc::proofs::idlebal_inv
