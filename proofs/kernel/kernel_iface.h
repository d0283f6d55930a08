// The kernel-shaped interface a pelt or utilest invariant is written
// against, and its two implementations:
//   - a reference variant (ref/pelt.h, ref/util_est.h) at version V;
//   - a kernel oracle class K (extracted by oracle/pelt_codegen.cpp, built in
//     or loaded as a plug-in), whose functions run on the kernel's own
//     shim structs.
// An invariant states its property over the reference's state structs;
// the kernel implementation copies them into the kernel's structs, calls
// the kernel's functions, and copies the results back (field for field:
// proofs/kernel/kernel_state.h).  So one invariant text proves a variant and a
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
#include "model/sym.h"
#include "proofs/kernel/iface_uses.h"
#include "proofs/kernel/kernel_state.h"
#include "ref/pelt.h"
#include "ref/pelt_cfs.h"
#include "ref/util_est.h"

namespace sc::proofs::iface {

// ---- PELT ----------------------------------------------------------------

template <pelt::version V> struct RefPelt {
    static constexpr pelt::version shape = V;
    static constexpr bool cfs_moves = V >= pelt::version::v6_1;
    // The name a use is noted by: the kernel function's for 6.x, whose
    // functions `equiv` compares; for an older release, whose entry points
    // and halves have other shapes, a name no kernel function has.
    static std::string use_name(const char *fn) {
        return V >= pelt::version::v6_1 ? std::string(fn) : std::string(fn) + " (" + pelt::version_name(V) + ")";
    }
    template <class A> struct on {
        using u64 = typename A::u64;
        using ulong = typename A::ulong;
        using sint = typename A::sint;
        // A state handed to the sums' or averages' half while uses are
        // noted: `equiv` compares those halves on states with
        // period_contrib < 1024 (the kernel never stores more), so the proof
        // that is to be carried over shows that it never passes another.
        static void note_state(const pelt::sched_avg<A> &sa) {
            if constexpr (requires { sa.period_contrib.e; })
                if (noting_uses())
                    model::record_obligation((sa.period_contrib < typename A::uint(1024)).e,
                                             "period_contrib < 1024 at a call (the equivalence's domain)");
        }
        static sint update_load_avg(u64 now, pelt::sched_avg<A> &sa, ulong load, ulong runnable, sint running,
                                    ulong weight) {
            // 6.x's is the composite of the two halves, as the kernel's
            // callers make it (see above); older releases have their own.
            if constexpr (V >= pelt::version::v6_1) {
                note_use("___update_load_sum");
                note_use("___update_load_avg");
            } else {
                note_use(use_name("update_load_avg"));
            }
            note_state(sa);
            return pelt::update_load_avg<V, A>(now, sa, load, runnable, running, weight);
        }
        static u64 decay_load(u64 val, u64 n) {
            // The very function `equiv` compares for every release.
            note_use("decay_load");
            return pelt::decay_load<V, A>(val, n);
        }
        // v4.12 and 6.x: the two halves of update_load_avg(), for proofs
        // that take them one at a time (the averages' division is costly to
        // prove through the sums' decay).  v4.12's load argument is the
        // weight (its load_sum is weighted), and its averages ignore weight.
        static sint ___update_load_sum(u64 now, pelt::sched_avg<A> &sa, ulong load, ulong runnable, sint running) {
            static_assert(V >= pelt::version::v4_12);
            note_use(use_name("___update_load_sum"));
            note_state(sa);
            return pelt::___update_load_sum<V, A>(now, sa, load, runnable, running);
        }
        static void ___update_load_avg(pelt::sched_avg<A> &sa, ulong weight) {
            static_assert(V >= pelt::version::v4_12);
            note_use(use_name("___update_load_avg"));
            note_state(sa);
            if constexpr (V >= pelt::version::v6_1)
                pelt::___update_load_avg<V, A>(sa, weight);
            else
                pelt::averages_v4_12<V, A>(sa);
        }

        // The moves between an entity and its cfs_rq (ref/pelt_cfs.h), 6.x
        // only (cfs_moves); elsewhere they do nothing and the invariants
        // that use them do not apply.
        static void attach_entity_load_avg(pelt::cfs_rq<A> &rq, pelt::sched_entity<A> &se) {
            note_use(use_name("attach_entity_load_avg"));
            if constexpr (cfs_moves)
                pelt::attach_entity_load_avg<V, A>(rq, se);
        }
        static void detach_entity_load_avg(pelt::cfs_rq<A> &rq, pelt::sched_entity<A> &se) {
            note_use(use_name("detach_entity_load_avg"));
            if constexpr (cfs_moves)
                pelt::detach_entity_load_avg<V, A>(rq, se);
        }
        static void enqueue_load_avg(pelt::cfs_rq<A> &rq, pelt::sched_entity<A> &se) {
            note_use(use_name("enqueue_load_avg"));
            if constexpr (cfs_moves)
                pelt::enqueue_load_avg<V, A>(rq, se);
        }
        static void dequeue_load_avg(pelt::cfs_rq<A> &rq, pelt::sched_entity<A> &se) {
            note_use(use_name("dequeue_load_avg"));
            if constexpr (cfs_moves)
                pelt::dequeue_load_avg<V, A>(rq, se);
        }
        static sint update_cfs_rq_load_avg(u64 now, pelt::cfs_rq<A> &rq) {
            note_use(use_name("update_cfs_rq_load_avg"));
            if constexpr (cfs_moves)
                return pelt::update_cfs_rq_load_avg<V, A>(now, rq);
            else
                return sint(0);
        }
        // A new task: init_entity_runnable_average(), then
        // post_init_entity_util_avg() against rq (a fair task).
        static void init_new_task(pelt::sched_entity<A> &se, const pelt::cfs_rq<A> &rq) {
            note_use(use_name("init_entity_runnable_average"));
            note_use(use_name("post_init_entity_util_avg"));
            if constexpr (cfs_moves) {
                pelt::init_entity_runnable_average<V, A>(se);
                pelt::post_init_entity_util_avg<V, A>(se, rq);
            }
        }
    };
};

template <template <class> class K> struct KernelPelt {
    static constexpr pelt::version shape = pelt::version::v6_1; // the 6.x shape: divider, runnable
    // The oracle holds the entity <-> cfs_rq moves (a tree from 6.x on).
    static constexpr bool cfs_moves = [] {
        if constexpr (requires { K<lp64>::shim_has_cfs_moves; })
            return K<lp64>::shim_has_cfs_moves;
        else
            return false;
    }();
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

        // The moves on the kernel's own structs: the reference's cfs_rq and
        // entity copied in field for field, the kernel function called, the
        // results copied back.  The cfs_rq's runnable count goes to the
        // field the release reads (h_nr_running, or h_nr_queued with no
        // delayed entity); its curr points to the entity when set.
        using KK = K<A>;
        struct Kstate {
            typename KK::cfs_rq rq{};
            typename KK::sched_entity se{};
            typename KK::sched_entity cur{};
        };
        static void put(Kstate &k, const pelt::cfs_rq<A> &rq, const pelt::sched_entity<A> &se) {
            put_avg(k.rq.avg, rq.avg);
            k.rq.removed.nr = rq.removed.nr;
            k.rq.removed.load_avg = rq.removed.load_avg;
            k.rq.removed.util_avg = rq.removed.util_avg;
            k.rq.removed.runnable_avg = rq.removed.runnable_avg;
            k.rq.load.weight = rq.load_weight;
            k.rq.h_nr_running = typename A::uint(rq.h_nr_runnable);
            k.rq.h_nr_queued = typename A::uint(rq.h_nr_runnable);
            k.rq.curr = rq.curr ? &k.cur : nullptr;
            put_avg(k.se.avg, se.avg);
            k.se.load.weight = se.load_weight;
            k.se.shim_is_task = se.is_task;
        }
        static void get(const Kstate &k, pelt::cfs_rq<A> &rq, pelt::sched_entity<A> &se) {
            rq.avg = from_kernel<A>(k.rq.avg);
            rq.removed.nr = k.rq.removed.nr;
            rq.removed.load_avg = k.rq.removed.load_avg;
            rq.removed.util_avg = k.rq.removed.util_avg;
            rq.removed.runnable_avg = k.rq.removed.runnable_avg;
            se.avg = from_kernel<A>(k.se.avg);
        }
        template <class F> static void with_state(pelt::cfs_rq<A> &rq, pelt::sched_entity<A> &se, F &&f) {
            if constexpr (cfs_moves) {
                Kstate k;
                put(k, rq, se);
                f(k);
                get(k, rq, se);
            }
        }
        static void attach_entity_load_avg(pelt::cfs_rq<A> &rq, pelt::sched_entity<A> &se) {
            if constexpr (cfs_moves)
                with_state(rq, se, [](Kstate &k) { KK::attach_entity_load_avg(&k.rq, &k.se); });
        }
        static void detach_entity_load_avg(pelt::cfs_rq<A> &rq, pelt::sched_entity<A> &se) {
            if constexpr (cfs_moves)
                with_state(rq, se, [](Kstate &k) { KK::detach_entity_load_avg(&k.rq, &k.se); });
        }
        static void enqueue_load_avg(pelt::cfs_rq<A> &rq, pelt::sched_entity<A> &se) {
            if constexpr (cfs_moves)
                with_state(rq, se, [](Kstate &k) { KK::enqueue_load_avg(&k.rq, &k.se); });
        }
        static void dequeue_load_avg(pelt::cfs_rq<A> &rq, pelt::sched_entity<A> &se) {
            if constexpr (cfs_moves)
                with_state(rq, se, [](Kstate &k) { KK::dequeue_load_avg(&k.rq, &k.se); });
        }
        static sint update_cfs_rq_load_avg(u64 now, pelt::cfs_rq<A> &rq) {
            sint r = 0;
            pelt::sched_entity<A> none;
            if constexpr (cfs_moves)
                with_state(rq, none, [&](Kstate &k) { r = sint(KK::update_cfs_rq_load_avg(now, &k.rq)); });
            return r;
        }
        static void init_new_task(pelt::sched_entity<A> &se, const pelt::cfs_rq<A> &rq) {
            pelt::cfs_rq<A> copy = rq;
            if constexpr (cfs_moves)
                with_state(copy, se, [](Kstate &k) {
                    typename KK::task_struct p{};
                    p.se = k.se;
                    KK::init_entity_runnable_average(&p.se);
                    KK::shim_cfs_rq = &k.rq;
                    KK::post_init_entity_util_avg(&p);
                    KK::shim_cfs_rq = nullptr;
                    k.se = p.se;
                });
        }
    };
};

// ---- util_est ------------------------------------------------------------

template <utilest::version V> struct RefUtilEst {
    static constexpr utilest::version shape = V;
    // Noted under names that no equivalence carries over (no util_est proof
    // is carried to a kernel): a proof that reaches one is not carried.
    static void note(const char *fn) { note_use(std::string("util_est: ") + fn); }
    template <class A> struct on {
        using ulong = typename A::ulong;
        static ulong _task_util_est(const utilest::task<A> &p) {
            note("_task_util_est");
            return utilest::_task_util_est<V, A>(p);
        }
        static ulong task_util_est(const utilest::task<A> &p) {
            note("task_util_est");
            return utilest::task_util_est<V, A>(p);
        }
        static void util_est_enqueue(utilest::cfs_rq<A> &rq, utilest::task<A> &p, const utilest::knobs &k) {
            note("util_est_enqueue");
            utilest::util_est_enqueue<V, A>(rq, p, k);
        }
        // The dequeue of a task; bellasi-v3 also folds the sample into the
        // task's estimate here when it goes to sleep.
        static void util_est_dequeue(utilest::cfs_rq<A> &rq, utilest::task<A> &p, bool sleep,
                                     const utilest::knobs &k) {
            note("util_est_dequeue");
            utilest::util_est_dequeue<V, A>(rq, p, typename A::boolean(sleep), k);
        }
        // 6.x only: the update at the end of an activation.
        static void util_est_update(utilest::cfs_rq<A> &rq, utilest::task<A> &p, bool sleep, ulong cap,
                                    const utilest::knobs &k) {
            note("util_est_update");
            if constexpr (utilest::has_util_est_update<V>)
                utilest::util_est_update<V, A>(rq, p, typename A::boolean(sleep), cap, k);
        }
        // 6.x only: after a PELT update that changed util_avg.
        static void cfs_se_util_change(utilest::task<A> &p, const utilest::knobs &k) {
            note("cfs_se_util_change");
            if constexpr (utilest::has_cfs_se_util_change<V>)
                utilest::cfs_se_util_change<V, A>(p, k);
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
        static void cfs_se_util_change(utilest::task<A> &p, const utilest::knobs &k) {
            auto kp = task_to_kernel<K<A>>(p);
            knobs(k);
            K<A>::cfs_se_util_change(&kp.se.avg);
            task_from_kernel(p, kp);
        }
    };
};

} // namespace sc::proofs::iface
