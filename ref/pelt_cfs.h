// PELT sums moving between a sched_entity and its cfs_rq (kernel/sched/fair.c
// of 6.1 and 6.12): a task joins or leaves a runqueue's averages on
// enqueue/dequeue, on attach/detach (migration, cgroup or class change), and
// through the "removed" buffer when it left while the runqueue's lock was not
// held.  Also the start values of a new task.
//
// The arithmetic of the two releases is the same except in
// post_init_entity_util_avg(): 6.1 scales the runqueue's util_avg by the
// task's se->load.weight, which on 64-bit kernels is in the increased
// resolution (scale_load(w) = w << 10); 6.12 uses se_weight(), the user-level
// weight.  The runnable count of a cfs_rq is h_nr_running in 6.1 and
// h_nr_queued - h_nr_delayed in 6.12 (the caller supplies it).
//
// Where a sum has to be rebuilt from an average, 6.x multiplies by the
// divider (get_pelt_divider(), LOAD_AVG_MAX - 1024 + period_contrib) of the
// runqueue.  Removing a task cannot subtract the exact *_sum it once added,
// since both have decayed separately since, so every removal clamps at 0
// (sub_positive()) and then lifts the sum to the floor avg * PELT_MIN_DIVIDER,
// the least sum that can stand under that average at any position in the
// period; without that lift, removing many tasks can leave *_sum == 0 under a
// non-zero *_avg.  The lift is written max_t(u32, sum, avg * PELT_MIN_DIVIDER):
// both operands are cut to 32 bits before the comparison, also for the u64
// load_sum and runnable_sum, so the lift cuts them to 32 bits too.
//
// Not modelled: task groups (add_tg_cfs_propagate(), the propagation of
// *_sum up the hierarchy), the 32-bit last_update_time copy, tracepoints and
// cfs_rq_util_change().  Everything here runs with the runqueue lock held;
// the load-store discipline of add_positive()/sub_positive() (READ_ONCE /
// WRITE_ONCE, so a concurrent reader never sees the intermediate value) has no
// arithmetic meaning and is a plain read and write here.
#pragma once
#include "ref/pelt.h"

namespace sc::pelt {

// The part of struct cfs_rq these functions read or write.
template <class A> struct cfs_rq {
    sched_avg<A> avg;
    // Load that left while the lock was not held, folded in by the next
    // update_cfs_rq_load_avg().
    struct {
        typename A::sint nr{};
        typename A::ulong load_avg{}, util_avg{}, runnable_avg{};
    } removed;
    typename A::ulong load_weight{};   // cfs_rq->load.weight (scaled-up resolution on 64-bit)
    typename A::ulong h_nr_runnable{}; // 6.1 h_nr_running; 6.12 h_nr_queued - h_nr_delayed
    typename A::sint curr{};           // cfs_rq->curr != NULL
};

// The part of struct sched_entity they read or write.
template <class A> struct sched_entity {
    sched_avg<A> avg;
    typename A::ulong load_weight{}; // se->load.weight (scaled-up resolution on 64-bit)
    bool is_task = true;             // entity_is_task()
};

// 64-bit kernels keep weights with 10 more bits of resolution than the nice
// table; 32-bit kernels do not.  Scaling down never turns a non-zero weight
// into 0 or 1 (a weight of 1 would make the entity look like an empty group).
template <class A> typename A::ulong scale_load(typename A::ulong w) {
    if constexpr (A::long_bits == 64)
        return w << SCHED_CAPACITY_SHIFT;
    else
        return w;
}
template <class A> typename A::ulong scale_load_down(typename A::ulong w) {
    if constexpr (A::long_bits == 64) {
        if (w)
            w = kmax(typename A::ulong(2), typename A::ulong(w >> SCHED_CAPACITY_SHIFT));
        return w;
    } else {
        return w;
    }
}
// The user-level weight of an entity, as the kernel's long.
template <class A> typename A::slong se_weight(const sched_entity<A> &se) {
    return typename A::slong(scale_load_down<A>(se.load_weight));
}

// var += val, where val is signed: a negative val that would take var below
// 0 (the unsigned sum wraps above var) leaves 0 instead.
template <class T, class V> void add_positive(T &var, const V &val) {
    T res = T(var + val);
    if (val < V(0) && res > var)
        res = T(0);
    var = res;
}

// var -= val in var's own type, 0 instead of a wrap.
template <class T, class V> void sub_positive(T &var, const V &v) {
    T val = T(v);
    T res = var - val;
    if (res > var)
        res = T(0);
    var = res;
}

// The same for a local variable: subtract at most what is there.
template <class T, class V> void lsub_positive(T &var, const V &v) {
    var -= kmin(var, T(v));
}

// max_t(u32, a, b): both sides cut to 32 bits, the larger one returned.
template <class A, class X, class Y> typename A::uint max_t_u32(const X &x, const Y &y) {
    using uint = typename A::uint;
    uint a = uint(x), b = uint(y);
    return a > b ? a : b;
}

// A new entity starts with empty sums.  A task starts with the load of a
// task that was always runnable, load_avg = its weight, so that it is not
// taken for a light one before it has a history; a group starts empty.
template <version V, class A> void init_entity_runnable_average(sched_entity<A> &se) {
    static_assert(V >= version::v6_1, "modelled for the 6.x shape only");
    se.avg = sched_avg<A>{};
    if (se.is_task)
        se.avg.load_avg = scale_load_down<A>(se.load_weight);
}

// A new fair task's util_avg: the runqueue's utilisation per unit of load
// times the task's weight, util * w / (load + 1), but at most half of the
// capacity the runqueue has left, (capacity - util) / 2, so that a burst of
// forks converges (512, 256, 128, ... on an idle 1024 CPU).  When the
// runqueue has no utilisation the task gets that half outright; when it has
// no capacity left (cap <= 0) util_avg stays 0.  runnable_avg starts equal.
//
// w is se->load.weight in 6.1 (1024 times the nice weight on 64-bit, so the
// extrapolation almost always hits the cap there) and se_weight() in 6.12.
// cpu capacity is SCHED_CAPACITY_SCALE (no asymmetric capacities).
template <version V, class A> void post_init_entity_util_avg(sched_entity<A> &se, const cfs_rq<A> &rq) {
    static_assert(V >= version::v6_1, "modelled for the 6.x shape only");
    using ulong = typename A::ulong;
    using slong = typename A::slong;

    slong cpu_scale = slong(arch_scale_cpu_capacity<A>());
    slong cap = slong(ulong(cpu_scale) - rq.avg.util_avg) / slong(2);

    if (cap > slong(0)) {
        if (rq.avg.util_avg != ulong(0)) {
            if constexpr (V == version::v6_1)
                se.avg.util_avg = rq.avg.util_avg * se.load_weight;
            else
                se.avg.util_avg = rq.avg.util_avg * ulong(se_weight<A>(se));
            se.avg.util_avg /= (rq.avg.load_avg + ulong(1));

            if (se.avg.util_avg > ulong(cap))
                se.avg.util_avg = ulong(cap);
        } else {
            se.avg.util_avg = ulong(cap);
        }
    }

    se.avg.runnable_avg = se.avg.util_avg;
}

// The entity's load joins the runqueue's: load_avg as is, load_sum times
// the weight (an entity's load_sum is unweighted in 6.x, the runqueue's is
// weighted).
template <version V, class A> void enqueue_load_avg(cfs_rq<A> &rq, const sched_entity<A> &se) {
    static_assert(V >= version::v6_1, "modelled for the 6.x shape only");
    rq.avg.load_avg += se.avg.load_avg;
    rq.avg.load_sum += se_weight<A>(se) * se.avg.load_sum;
}

// And leaves it, clamped at 0, load_sum lifted to its floor (see the top).
template <version V, class A> void dequeue_load_avg(cfs_rq<A> &rq, const sched_entity<A> &se) {
    static_assert(V >= version::v6_1, "modelled for the 6.x shape only");
    sub_positive(rq.avg.load_avg, se.avg.load_avg);
    sub_positive(rq.avg.load_sum, se_weight<A>(se) * se.avg.load_sum);
    rq.avg.load_sum = max_t_u32<A>(rq.avg.load_sum, rq.avg.load_avg * PELT_MIN_DIVIDER);
}

// The entity takes the runqueue's clock and position in the period, its
// sums are rebuilt from its averages at the runqueue's divider (which
// truncates a little: the averages were floor(sum / divider) at some other
// divider), and everything is added to the runqueue.
//
// load_sum is unweighted: avg * divider / weight, rounded down.  When that
// quotient would be 0 (load_avg * divider <= weight) it is 1 instead, so
// that a non-zero load_avg never joins with a zero load_sum.
template <version V, class A> void attach_entity_load_avg(cfs_rq<A> &rq, sched_entity<A> &se) {
    static_assert(V >= version::v6_1, "modelled for the 6.x shape only");
    using u64 = typename A::u64;
    using uint = typename A::uint;

    uint divider = get_pelt_divider<V, A>(rq.avg);

    se.avg.last_update_time = rq.avg.last_update_time;
    se.avg.period_contrib = rq.avg.period_contrib;

    // unsigned long products: 32 bits wide on ilp32.
    se.avg.util_sum = uint(se.avg.util_avg * divider);
    se.avg.runnable_sum = u64(se.avg.runnable_avg * divider);

    se.avg.load_sum = u64(se.avg.load_avg * divider);
    if (u64(se_weight<A>(se)) < se.avg.load_sum)
        se.avg.load_sum = sc::div_u64(se.avg.load_sum, uint(se_weight<A>(se)));
    else
        se.avg.load_sum = u64(1);

    enqueue_load_avg<V, A>(rq, se);
    rq.avg.util_avg += se.avg.util_avg;
    rq.avg.util_sum += se.avg.util_sum;
    rq.avg.runnable_avg += se.avg.runnable_avg;
    rq.avg.runnable_sum += se.avg.runnable_sum;
}

// The reverse: every pair subtracted with a clamp at 0, each sum lifted to
// its floor.
template <version V, class A> void detach_entity_load_avg(cfs_rq<A> &rq, const sched_entity<A> &se) {
    static_assert(V >= version::v6_1, "modelled for the 6.x shape only");
    dequeue_load_avg<V, A>(rq, se);
    sub_positive(rq.avg.util_avg, se.avg.util_avg);
    sub_positive(rq.avg.util_sum, se.avg.util_sum);
    rq.avg.util_sum = max_t_u32<A>(rq.avg.util_sum, rq.avg.util_avg * PELT_MIN_DIVIDER);

    sub_positive(rq.avg.runnable_avg, se.avg.runnable_avg);
    sub_positive(rq.avg.runnable_sum, se.avg.runnable_sum);
    rq.avg.runnable_sum = max_t_u32<A>(rq.avg.runnable_sum, rq.avg.runnable_avg * PELT_MIN_DIVIDER);
}

// The runqueue's own PELT update: its load is its total weight, it is
// runnable as many times as it has runnable tasks, running when it has a
// current task; load_sum carries the weight, so the average divides by 1.
template <version V, class A> typename A::sint __update_load_avg_cfs_rq(typename A::u64 now, cfs_rq<A> &rq) {
    static_assert(V >= version::v6_1, "modelled for the 6.x shape only");
    if (___update_load_sum<V, A>(now, rq.avg, scale_load_down<A>(rq.load_weight), rq.h_nr_runnable, rq.curr)) {
        ___update_load_avg<V, A>(rq.avg, typename A::ulong(1));
        return typename A::sint(1);
    }
    return typename A::sint(0);
}

// Fold in the removed load, then bring the runqueue's sums up to now.
// Only averages were recorded for removed entities; their sums are
// estimated as avg * divider (the unsigned long product, 32 bits on ilp32),
// and util's estimate is cut to util_sum's 32 bits by sub_positive().
// Returns 1 when load was removed or the averages were recomputed.
template <version V, class A> typename A::sint update_cfs_rq_load_avg(typename A::u64 now, cfs_rq<A> &rq) {
    static_assert(V >= version::v6_1, "modelled for the 6.x shape only");
    using ulong = typename A::ulong;
    using uint = typename A::uint;
    using sint = typename A::sint;

    ulong removed_load = 0, removed_util = 0, removed_runnable = 0;
    sched_avg<A> &sa = rq.avg;
    sint decayed = 0;

    if (rq.removed.nr) {
        ulong r;
        uint divider = get_pelt_divider<V, A>(rq.avg);

        // Taken under the removed lock: the buffer is emptied.
        removed_util = rq.removed.util_avg;
        rq.removed.util_avg = ulong(0);
        removed_load = rq.removed.load_avg;
        rq.removed.load_avg = ulong(0);
        removed_runnable = rq.removed.runnable_avg;
        rq.removed.runnable_avg = ulong(0);
        rq.removed.nr = sint(0);

        r = removed_load;
        sub_positive(sa.load_avg, r);
        sub_positive(sa.load_sum, r * divider);
        sa.load_sum = max_t_u32<A>(sa.load_sum, sa.load_avg * PELT_MIN_DIVIDER);

        r = removed_util;
        sub_positive(sa.util_avg, r);
        sub_positive(sa.util_sum, r * divider);
        sa.util_sum = max_t_u32<A>(sa.util_sum, sa.util_avg * PELT_MIN_DIVIDER);

        r = removed_runnable;
        sub_positive(sa.runnable_avg, r);
        sub_positive(sa.runnable_sum, r * divider);
        sa.runnable_sum = max_t_u32<A>(sa.runnable_sum, sa.runnable_avg * PELT_MIN_DIVIDER);

        decayed = 1;
    }

    decayed |= __update_load_avg_cfs_rq<V, A>(now, rq);
    return decayed;
}

} // namespace sc::pelt
