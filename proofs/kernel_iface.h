// The kernel-shaped interface a pelt or utilest invariant is written
// against, and its two implementations:
//   - a reference variant (ref/pelt.h, ref/util_est.h) at version V;
//   - a kernel oracle class K (extracted by oracle/pelt_codegen.cpp, built in
//     or loaded as a plug-in), whose functions run on the kernel's own
//     shim structs.
// An invariant states its property over the reference's state structs;
// the kernel implementation copies them into the kernel's structs, calls
// the kernel's functions, and copies the results back (field for field:
// proofs/kernel_state.h).  So one invariant text proves a variant and a
// kernel alike, and a counterexample replays on whichever code it came from.
//
// PELT, for an entity or a cfs_rq, is the composite the kernel's callers
// use (__update_load_avg_se(), __update_load_avg_cfs_rq()):
//
//   if (___update_load_sum(now, sa, load, runnable, running))
//       ___update_load_avg(sa, weight);
//
// which is what the reference's update_load_avg() is for 6.x; for older
// releases the reference's update_load_avg() is that release's entry point.
#pragma once
#include "proofs/kernel_state.h"
#include "ref/pelt.h"
#include "ref/util_est.h"

namespace sc::proofs::iface {

// ---- PELT ----------------------------------------------------------------

template <pelt::version V> struct RefPelt {
    static constexpr pelt::version shape = V;
    template <class A> struct on {
        using u64 = typename A::u64;
        using ulong = typename A::ulong;
        using sint = typename A::sint;
        static sint update_load_avg(u64 now, pelt::sched_avg<A> &sa, ulong load, ulong runnable, sint running,
                                    ulong weight) {
            return pelt::update_load_avg<V, A>(now, sa, load, runnable, running, weight);
        }
        static u64 decay_load(u64 val, u64 n) { return pelt::decay_load<V, A>(val, n); }
        // v4.12 and 6.x: the two halves of update_load_avg(), for proofs
        // that take them one at a time (the averages' division is costly to
        // prove through the sums' decay).  v4.12's load argument is the
        // weight (its load_sum is weighted), and its averages ignore weight.
        static sint ___update_load_sum(u64 now, pelt::sched_avg<A> &sa, ulong load, ulong runnable, sint running) {
            static_assert(V >= pelt::version::v4_12);
            return pelt::___update_load_sum<V, A>(now, sa, load, runnable, running);
        }
        static void ___update_load_avg(pelt::sched_avg<A> &sa, ulong weight) {
            static_assert(V >= pelt::version::v4_12);
            if constexpr (V >= pelt::version::v6_1)
                pelt::___update_load_avg<V, A>(sa, weight);
            else
                pelt::averages_v4_12<V, A>(sa);
        }
    };
};

template <template <class> class K> struct KernelPelt {
    static constexpr pelt::version shape = pelt::version::v6_1; // the 6.x shape: divider, runnable
    template <class A> struct on {
        using u64 = typename A::u64;
        using ulong = typename A::ulong;
        using sint = typename A::sint;
        static sint update_load_avg(u64 now, pelt::sched_avg<A> &sa, ulong load, ulong runnable, sint running,
                                    ulong weight) {
            auto k = to_kernel<K<A>>(sa);
            sint r = 0;
            if (K<A>::___update_load_sum(now, &k, load, runnable, running)) {
                K<A>::___update_load_avg(&k, weight);
                r = 1;
            }
            sa = from_kernel<A>(k);
            return r;
        }
        static u64 decay_load(u64 val, u64 n) { return K<A>::decay_load(val, n); }
        static sint ___update_load_sum(u64 now, pelt::sched_avg<A> &sa, ulong load, ulong runnable, sint running) {
            auto k = to_kernel<K<A>>(sa);
            sint r = K<A>::___update_load_sum(now, &k, load, runnable, running) ? sint(1) : sint(0);
            sa = from_kernel<A>(k);
            return r;
        }
        static void ___update_load_avg(pelt::sched_avg<A> &sa, ulong weight) {
            auto k = to_kernel<K<A>>(sa);
            K<A>::___update_load_avg(&k, weight);
            sa = from_kernel<A>(k);
        }
    };
};

// ---- util_est ------------------------------------------------------------

template <utilest::version V> struct RefUtilEst {
    static constexpr utilest::version shape = V;
    template <class A> struct on {
        using ulong = typename A::ulong;
        static ulong _task_util_est(const utilest::task<A> &p) { return utilest::_task_util_est<V, A>(p); }
        static ulong task_util_est(const utilest::task<A> &p) { return utilest::task_util_est<V, A>(p); }
        static void util_est_enqueue(utilest::cfs_rq<A> &rq, utilest::task<A> &p, const utilest::knobs &k) {
            utilest::util_est_enqueue<V, A>(rq, p, k);
        }
        // The dequeue of a task; bellasi-v3 also folds the sample into the
        // task's estimate here when it goes to sleep.
        static void util_est_dequeue(utilest::cfs_rq<A> &rq, utilest::task<A> &p, bool sleep,
                                     const utilest::knobs &k) {
            utilest::util_est_dequeue<V, A>(rq, p, typename A::boolean(sleep), k);
        }
        // 6.x only: the update at the end of an activation.
        static void util_est_update(utilest::cfs_rq<A> &rq, utilest::task<A> &p, bool sleep, ulong cap,
                                    const utilest::knobs &k) {
            if constexpr (utilest::has_util_est_update<V>)
                utilest::util_est_update<V, A>(rq, p, typename A::boolean(sleep), cap, k);
        }
    };
};

template <template <class> class K, utilest::version V> struct KernelUtilEst {
    static constexpr utilest::version shape = V; // v6_1 ({enqueued, ewma}) or v6_12 (one word)
    template <class A> struct on {
        using ulong = typename A::ulong;
        static void knobs(const utilest::knobs &k) {
            K<A>::shim_feat_UTIL_EST = k.UTIL_EST;
            if constexpr (requires { K<A>::shim_feat_UTIL_EST_FASTUP; })
                K<A>::shim_feat_UTIL_EST_FASTUP = k.UTIL_EST_FASTUP;
        }
        static ulong _task_util_est(const utilest::task<A> &p) {
            auto kp = task_to_kernel<K<A>>(p);
            return K<A>::_task_util_est(&kp);
        }
        static ulong task_util_est(const utilest::task<A> &p) {
            auto kp = task_to_kernel<K<A>>(p);
            return K<A>::task_util_est(&kp);
        }
        static void util_est_enqueue(utilest::cfs_rq<A> &rq, utilest::task<A> &p, const utilest::knobs &k) {
            auto kp = task_to_kernel<K<A>>(p);
            auto kr = rq_to_kernel<K<A>>(rq);
            knobs(k);
            K<A>::util_est_enqueue(&kr, &kp);
            task_from_kernel(p, kp);
            rq_from_kernel(rq, kr);
        }
        static void util_est_dequeue(utilest::cfs_rq<A> &rq, utilest::task<A> &p, bool, const utilest::knobs &k) {
            auto kp = task_to_kernel<K<A>>(p);
            auto kr = rq_to_kernel<K<A>>(rq);
            knobs(k);
            K<A>::util_est_dequeue(&kr, &kp);
            task_from_kernel(p, kp);
            rq_from_kernel(rq, kr);
        }
        static void util_est_update(utilest::cfs_rq<A> &rq, utilest::task<A> &p, bool sleep, ulong cap,
                                    const utilest::knobs &k) {
            auto kp = task_to_kernel<K<A>>(p);
            auto kr = rq_to_kernel<K<A>>(rq);
            knobs(k);
            K<A>::shim_capacity = &cap;
            K<A>::util_est_update(&kr, &kp, typename A::boolean(sleep));
            K<A>::shim_capacity = nullptr;
            task_from_kernel(p, kp);
            rq_from_kernel(rq, kr);
        }
    };
};

} // namespace sc::proofs::iface
