// util_est: the per-task utilization estimate kept on top of PELT, and the
// per-runqueue sum of the estimates of the enqueued tasks (seed 004).
//
// PELT's util_avg decays while a task sleeps, so a task that wakes after a
// long sleep looks small although it ran long before.  util_est samples
// util_avg when the task goes to sleep (the end of an activation) and keeps
// an exponentially weighted moving average of those samples, weight 1/4:
//
//   ewma(t) = ewma(t-1) + (sample - ewma(t-1)) / 4
//
// computed in the shift form (4 * ewma(t-1) + diff) >> 2, so the result is
// floor((3 * ewma(t-1) + sample) / 4).  The estimate of a task is the larger
// of its util_avg and these remembered values; the runqueue keeps the sum of
// the estimates of its enqueued tasks.
//
// Four variants, written once and templated on the arithmetic A (see
// ref/kernel.h) and on the version V:
//
//  bellasi_v3        The series of seed 004 ("sched/fair: add util_est on
//                    top of PELT").  The text of the v3 posting itself was
//                    not available; this follows the code the series merged
//                    as (read in a v4.19 tree), without the later
//                    "update only on util_avg updates" flag, which is a
//                    separate follow-up patch.  struct util_est is
//                    {enqueued, ewma}, both unsigned int.  util_est_dequeue()
//                    both removes the task from the runqueue sum and, on a
//                    sleep, folds the new sample into the task's EWMA.  The
//                    update is skipped when the sample is within ~1% of the
//                    EWMA.  No fast ramp-up, no capacity check.
//  bellasi_v3_uncond The same with the ~1% skip removed: every sleep updates
//                    the EWMA (the change Peter Zijlstra asked for in review
//                    of the series; v3 kept the skip for its lower cost).
//  v6_1              Linux 6.1: util_est_update() split from the dequeue,
//                    the UTIL_AVG_UNCHANGED flag in util_est.enqueued, the
//                    UTIL_EST_FASTUP reset on increases, a ~1% skip on both
//                    members, and no update when util_avg exceeds the CPU's
//                    original capacity.
//  v6_12             Linux 6.12: util_est is one unsigned int (the EWMA plus
//                    the flag), the EWMA follows increases at once, only
//                    decreases are averaged, and a task that did not get
//                    all the CPU time it wanted (runnable_avg above
//                    util_avg by more than the margin) keeps its estimate.
//
// Which fields each version uses:
//  task::util_avg      all
//  task::runnable_avg  v6_12 only
//  task::enqueued      bellasi_*, v6_1 (v6_1 keeps the flag in bit 31)
//  task::ewma          bellasi_*, v6_1: util_est.ewma;
//                      v6_12: the single util_est word (EWMA | flag)
//  cfs_rq::util_est_enqueued  all (cfs_rq->avg.util_est.enqueued, or
//                      cfs_rq->avg.util_est in v6_12)
//  cfs_rq::nr_running  none (see the note at util_est_dequeue())
//
// Functions a version does not have fail to compile for it (static_assert):
// util_est_update() and cfs_se_util_change() exist only in 6.x,
// within_margin() only in bellasi_v3 and v6_1.
//
// Integer types follow the kernel: A::uint for unsigned int, A::sint for
// int, A::slong / A::ulong for long / unsigned long.  Where C converts
// implicitly between types of different width or signedness, the
// conversion is written out, with a comment.
#pragma once
#include <cstdint>
#include <type_traits>

#include "ref/kernel.h"

namespace sc::utilest {

enum class version { bellasi_v3, bellasi_v3_uncond, v6_1, v6_12 };

inline const char *version_name(version v) {
    switch (v) {
    case version::bellasi_v3: return "bellasi-v3";
    case version::bellasi_v3_uncond: return "bellasi-v3-uncond";
    case version::v6_1: return "v6.1";
    case version::v6_12: return "v6.12";
    }
    return "?";
}

// New samples weigh 1/2^2 in the EWMA.
constexpr unsigned UTIL_EST_WEIGHT_SHIFT = 2;

// 6.x: bit 31 of the task's util_est word says "util_avg has not changed
// since the last update", so a dequeue that follows an enqueue without a
// PELT update in between does not feed the same sample twice.
constexpr std::uint32_t UTIL_AVG_UNCHANGED = 0x80000000u;

// SCHED_CAPACITY_SCALE is (1L << 10): a long in the kernel, so the margin
// below is a long too.  Each use converts it the way C does.
constexpr int SCHED_CAPACITY_SCALE = 1024;
// ~1% of the capacity scale: 1024 / 100 = 10.
constexpr int UTIL_EST_MARGIN = SCHED_CAPACITY_SCALE / 100;

template <version V>
constexpr bool is_bellasi = V == version::bellasi_v3 || V == version::bellasi_v3_uncond;
template <version V> constexpr bool has_within_margin = V == version::bellasi_v3 || V == version::v6_1;
template <version V> constexpr bool has_util_est_update = !is_bellasi<V>;
template <version V> constexpr bool has_cfs_se_util_change = !is_bellasi<V>;

// A task's state as util_est sees it (see the table above for which
// version uses which field).
template <class A> struct task {
    typename A::ulong util_avg{};     // p->se.avg.util_avg
    typename A::ulong runnable_avg{}; // p->se.avg.runnable_avg (6.12 task_runnable)
    typename A::uint enqueued{};      // util_est.enqueued (bellasi, 6.1); unused in 6.12
    typename A::uint ewma{};          // util_est.ewma (bellasi, 6.1); the util_est word in 6.12
};

// The root cfs_rq of the task's CPU.
template <class A> struct cfs_rq {
    typename A::uint util_est_enqueued{}; // cfs_rq->avg.util_est(.enqueued)
    typename A::uint nr_running{};        // read by no modelled version
};

// sched_feat() inputs.  UTIL_EST_FASTUP exists only in 6.1.
struct knobs {
    bool UTIL_EST = true;
    bool UTIL_EST_FASTUP = true;
};

namespace detail {

// The type C computes "long OP unsigned int" in: long where long is wider
// than int (lp64), unsigned long where they have the same width (ilp32).
template <class A>
using long_op_uint_t =
    std::conditional_t<A::long_bits == 64, typename A::slong, typename A::ulong>;

// int arithmetic that may overflow.  The kernel is built with
// -fno-strict-overflow, so there it wraps in two's complement; C++ leaves it
// undefined for machine ints, so those go through their unsigned type.  Any
// other arithmetic keeps its own operator (a symbolic one records the
// overflow as an obligation).
template <class T> T int_add(T a, T b) {
    if constexpr (std::is_integral_v<T>) {
        using U = std::make_unsigned_t<T>;
        return T(U(a) + U(b));
    } else {
        return a + b;
    }
}
template <class T> T int_sub(T a, T b) {
    if constexpr (std::is_integral_v<T>) {
        using U = std::make_unsigned_t<T>;
        return T(U(a) - U(b));
    } else {
        return a - b;
    }
}
template <class T> T int_mul(T a, T b) {
    if constexpr (std::is_integral_v<T>) {
        using U = std::make_unsigned_t<T>;
        return T(U(a) * U(b));
    } else {
        return a * b;
    }
}

} // namespace detail

// |value| < margin, tested with one unsigned comparison: shifting the open
// interval (-margin, margin) up by margin - 1 maps it onto [0, 2*margin - 1),
// and every value outside it lands at or above 2*margin - 1 once read as
// unsigned.  Holds while value + margin - 1 does not overflow int.
template <version V, class A>
typename A::boolean within_margin(typename A::sint value, typename A::sint margin) {
    static_assert(has_within_margin<V>, "within_margin() exists only in bellasi-v3 and v6.1");
    using sint = typename A::sint;
    using uint = typename A::uint;
    sint shifted = detail::int_sub(detail::int_add(value, margin), sint(1));
    sint width = detail::int_sub(detail::int_mul(sint(2), margin), sint(1));
    // C: (unsigned int)(...) < (2 * margin - 1); the int on the right is
    // converted to unsigned int as well.
    return uint(shifted) < uint(width);
}

template <version V, class A> typename A::ulong task_util(const task<A> &p) {
    return p.util_avg;
}

// 6.12 task_runnable(): the task's runnable_avg.
template <version V, class A> typename A::ulong task_runnable(const task<A> &p) {
    static_assert(V == version::v6_12, "task_runnable() is read only by v6.12");
    return p.runnable_avg;
}

// The remembered part of the estimate, without the synchronisation flag.
template <version V, class A> typename A::ulong _task_util_est(const task<A> &p) {
    using uint = typename A::uint;
    using ulong = typename A::ulong;
    if constexpr (V == version::v6_12) {
        return ulong(p.ewma & uint(~UTIL_AVG_UNCHANGED));
    } else if constexpr (V == version::v6_1) {
        return ulong(kmax(p.ewma, uint(p.enqueued & uint(~UTIL_AVG_UNCHANGED))));
    } else {
        // No flag exists yet: both members are plain utilization values.
        return ulong(kmax(p.ewma, p.enqueued));
    }
}

template <version V, class A> typename A::ulong task_util_est(const task<A> &p) {
    return kmax(task_util<V, A>(p), _task_util_est<V, A>(p));
}

// Add the task's estimate to its runqueue's sum (enqueue_task_fair()).
template <version V, class A> void util_est_enqueue(cfs_rq<A> &rq, const task<A> &p, const knobs &k) {
    using uint = typename A::uint;
    using ulong = typename A::ulong;

    if (!k.UTIL_EST)
        return;

    uint enqueued = rq.util_est_enqueued;
    // C: unsigned int += unsigned long is done in unsigned long and
    // narrowed back, i.e. the sum wraps at 32 bits on both data models.
    enqueued = uint(ulong(enqueued) + _task_util_est<V, A>(p));
    rq.util_est_enqueued = enqueued;
}

namespace detail {

// Remove the task's estimate from the runqueue's sum, never below 0
// (min_t(unsigned int, ...): both sides are taken as unsigned int).
template <version V, class A> void util_est_rq_remove(cfs_rq<A> &rq, const task<A> &p) {
    using uint = typename A::uint;
    uint enqueued = rq.util_est_enqueued;
    enqueued -= kmin(enqueued, uint(_task_util_est<V, A>(p)));
    rq.util_est_enqueued = enqueued;
}

// The bellasi-v3 EWMA update at the end of an activation.  ue.enqueued is
// replaced by the sample; ue.ewma moves a quarter of the way towards it.
template <version V, class A> void bellasi_task_update(task<A> &p) {
    using uint = typename A::uint;
    using slong = typename A::slong;
    using lu = long_op_uint_t<A>;

    uint enqueued = uint(task_util<V, A>(p)); // unsigned long -> unsigned int
    uint ewma = p.ewma;

    // C: the unsigned int difference wraps, then becomes a long: on lp64
    // it is zero-extended, so a decrease is a large positive long; the
    // int conversion in within_margin() and the 32-bit EWMA arithmetic
    // below only look at its low 32 bits, where it is the negative step.
    slong last_ewma_diff = slong(enqueued - ewma);

    if constexpr (V == version::bellasi_v3) {
        // Skip the update (and keep the old members) when the sample is
        // within ~1% of the EWMA.  The margin is a long, passed as int.
        if (within_margin<V, A>(typename A::sint(last_ewma_diff), typename A::sint(UTIL_EST_MARGIN)))
            return;
    }

    // ewma = (4 * ewma + (sample - ewma)) / 4, all in 32-bit unsigned.
    ewma <<= UTIL_EST_WEIGHT_SHIFT;
    // C: unsigned int += long is done in long_op_uint_t and narrowed back.
    ewma = uint(lu(ewma) + lu(last_ewma_diff));
    ewma >>= UTIL_EST_WEIGHT_SHIFT;

    p.enqueued = enqueued;
    p.ewma = ewma;
}

} // namespace detail

// dequeue_task_fair()'s util_est step.  In 6.x only the runqueue sum
// changes (the task's own update is util_est_update()); task_sleep is
// ignored there.  In bellasi-v3 the same call also updates the task's EWMA
// when the task goes to sleep (task_sleep), but not when it is, e.g.,
// migrated, since the activation has not finished.
//
// Note: a 2018 vendor derivative of the series also zeroes the runqueue
// sum when cfs_rq->nr_running is 0 ("the last task leaves"); that branch
// could not be traced to the posting or to a release and is not modelled.
template <version V, class A>
void util_est_dequeue(cfs_rq<A> &rq, task<A> &p, typename A::boolean task_sleep, const knobs &k) {
    if (!k.UTIL_EST)
        return;

    detail::util_est_rq_remove<V, A>(rq, p);

    if constexpr (is_bellasi<V>) {
        if (!task_sleep)
            return;
        detail::bellasi_task_update<V, A>(p);
    } else {
        (void)task_sleep;
    }
}

// 6.x: fold the utilization at the end of an activation into the task's
// estimate.  capacity is capacity_orig_of() (6.1) or
// arch_scale_cpu_capacity() (6.12) of the runqueue's CPU.
template <version V, class A>
void util_est_update(cfs_rq<A> &rq, task<A> &p, typename A::boolean task_sleep,
                     typename A::ulong capacity, const knobs &k) {
    static_assert(has_util_est_update<V>,
                  "bellasi-v3 has no util_est_update(): its util_est_dequeue() updates the task");
    using uint = typename A::uint;
    using ulong = typename A::ulong;
    using slong = typename A::slong;
    using sint = typename A::sint;
    using lu = detail::long_op_uint_t<A>;
    (void)rq; // only its CPU's capacity is read, passed as capacity

    if (!k.UTIL_EST)
        return;

    // A task that is not going to sleep (a migration, a priority change)
    // has not finished its activation: no sample.
    if (!task_sleep)
        return;

    if constexpr (V == version::v6_1) {
        uint enqueued = p.enqueued;
        uint ewma = p.ewma;

        // util_avg not updated since the enqueue: nothing new to learn.
        if (enqueued & UTIL_AVG_UNCHANGED)
            return;

        // The previous sample (bit 31 is clear here, so the unsigned int
        // converts to long without change on both data models).
        slong last_enqueued_diff = slong(enqueued);

        enqueued = uint(task_util<V, A>(p)); // unsigned long -> unsigned int

        // done: store both members, with the flag set in enqueued.
        bool done = false;

        // FASTUP: an increase replaces the EWMA; only decreases are
        // smoothed.
        if (k.UTIL_EST_FASTUP) {
            if (ewma < enqueued) {
                ewma = enqueued;
                done = true;
            }
        }

        if (!done) {
            // As in bellasi-v3: the 32-bit difference becomes a long
            // (zero-extended on lp64); only its low 32 bits matter below.
            slong last_ewma_diff = slong(enqueued - ewma);
            // C: long -= unsigned int, computed in long_op_uint_t: a
            // signed difference on lp64, a wrapping 32-bit one on ilp32;
            // both have the same low 32 bits.
            last_enqueued_diff = slong(lu(last_enqueued_diff) - lu(enqueued));

            // The sample is within ~1% of the EWMA: keep the EWMA.  Store
            // the new sample only if it moved by 1% or more from the
            // previous one; otherwise store nothing at all (the flag stays
            // clear).
            if (within_margin<V, A>(sint(last_ewma_diff), sint(UTIL_EST_MARGIN))) {
                if (!within_margin<V, A>(sint(last_enqueued_diff), sint(UTIL_EST_MARGIN)))
                    done = true;
                else
                    return;
            }

            if (!done) {
                // util_avg above the CPU's original capacity: there was no
                // idle time on this CPU, so the sample cannot be told apart
                // from a task that would take even more; learning from it
                // would overestimate.  Compared as the full unsigned long.
                if (task_util<V, A>(p) > capacity)
                    return;

                // ewma = (4 * ewma + (sample - ewma)) >> 2 in 32 bits.
                ewma <<= UTIL_EST_WEIGHT_SHIFT;
                // C: unsigned int += long, in long_op_uint_t, narrowed.
                ewma = uint(lu(ewma) + lu(last_ewma_diff));
                ewma >>= UTIL_EST_WEIGHT_SHIFT;
            }
        }

        enqueued |= UTIL_AVG_UNCHANGED;
        p.enqueued = enqueued;
        p.ewma = ewma;
    } else {
        uint ewma = p.ewma;

        if (ewma & UTIL_AVG_UNCHANGED)
            return;

        uint dequeued = uint(task_util<V, A>(p)); // unsigned long -> unsigned int

        bool done = false;

        // An increase (or no change) replaces the EWMA.
        if (ewma <= dequeued) {
            ewma = dequeued;
            done = true;
        }

        if (!done) {
            // Here ewma > dequeued: the decrease, as an unsigned int.
            uint last_ewma_diff = ewma - dequeued;
            // C: unsigned int < long (the margin), compared in
            // long_op_uint_t; both are non-negative either way.
            if (lu(last_ewma_diff) < lu(UTIL_EST_MARGIN))
                done = true;

            if (!done) {
                // As in 6.1, but with the sample already truncated to 32
                // bits: above the CPU's capacity, no idle time was seen.
                // C: unsigned int > unsigned long, in unsigned long.
                if (ulong(dequeued) > capacity)
                    return;

                // The task was runnable for longer than it ran (by more
                // than the margin): it did not get the CPU time it wanted,
                // so the sample understates it.  Keep the EWMA.
                // C: (unsigned int + long) < unsigned long: the sum is in
                // long_op_uint_t, the comparison in unsigned long.
                if (ulong(lu(dequeued) + lu(UTIL_EST_MARGIN)) < task_runnable<V, A>(p))
                    done = true;
            }

            if (!done) {
                // ewma = (4 * ewma - (ewma - sample)) >> 2, no wrap: the
                // middle value is 3 * ewma + sample.
                ewma <<= UTIL_EST_WEIGHT_SHIFT;
                ewma -= last_ewma_diff;
                ewma >>= UTIL_EST_WEIGHT_SHIFT;
            }
        }

        ewma |= UTIL_AVG_UNCHANGED;
        p.ewma = ewma;
    }
}

// PELT side (kernel/sched/pelt.h), 6.x: util_avg of the task has just been
// updated, so clear the flag and let the next dequeue take a sample.
template <version V, class A> void cfs_se_util_change(task<A> &p, const knobs &k) {
    static_assert(has_cfs_se_util_change<V>,
                  "bellasi-v3 has no UTIL_AVG_UNCHANGED flag and no cfs_se_util_change()");
    using uint = typename A::uint;

    if (!k.UTIL_EST)
        return;

    uint enqueued;
    if constexpr (V == version::v6_1)
        enqueued = p.enqueued;
    else
        enqueued = p.ewma;

    // Already clear: skip the store.
    if (!(enqueued & UTIL_AVG_UNCHANGED))
        return;

    enqueued &= uint(~UTIL_AVG_UNCHANGED);
    if constexpr (V == version::v6_1)
        p.enqueued = enqueued;
    else
        p.ewma = enqueued;
}

} // namespace sc::utilest
