// The legacy per-runqueue load history, rq->cpu_load[], as in v3.13
// (kernel/sched/proc.c and the load-balance helpers in kernel/sched/fair.c)
// and as changed by Alex Shi's "remove cpu_load decay" RFC series (seed 000).
//
// The functions are written once, templated on the arithmetic A (see
// ref/kernel.h) and on the patch level P, so each variant is the baseline
// plus exactly the hunks that the series applied up to that patch.
//
// cpu_load[idx] is an exponential average of the runnable load sampled at
// every tick, with weight 1/2^idx for the newest sample:
//
//   cpu_load[idx] = ((2^idx - 1) * cpu_load[idx] + this_load) / 2^idx
//
// Index 0 is the instantaneous load.  A CPU in tickless idle misses ticks;
// when it next updates, the missed ticks count as samples of load 0, so the
// old value has to be multiplied by ((2^idx - 1) / 2^idx)^missed first.
// decay_load_missed() does that in O(log missed) steps using a table of the
// factor for power-of-two tick counts, in 1/128 units.
#pragma once
#include "ref/kernel.h"

namespace sc::cpuload {

// Patch levels of seed 000, in the order the series applies them.
enum class patch_level {
    v3_13,   // baseline the series applies to
    shi_1,   // 1/4: load balancing ignores the load index (load_idx = 0)
    shi_1_3, // 2/4 + 3/4: one rq->cpu_load, no decay, no pending updates
    shi_1_4, // 4/4: nohz_full CPUs keep their cfs load on a nohz update
    shi_1_5, // follow-up: target_load() scaled by sd->imbalance_pct
};

constexpr int CPU_LOAD_IDX_MAX = 5;
constexpr int DEGRADE_SHIFT = 7; // factors are in units of 1/2^7

// After this many missed ticks the decayed value at an index is taken as 0.
constexpr unsigned char degrade_zero_ticks[CPU_LOAD_IDX_MAX] = {0, 8, 32, 64, 128};

// degrade_factor[idx][j] ~= 128 * ((2^idx - 1) / 2^idx)^(2^j), rounded the
// way v3.13 tabulates it.  Missing trailing entries are zero.  Row 1 is never
// read: halving per tick is an exact shift.
constexpr unsigned char degrade_factor[CPU_LOAD_IDX_MAX][DEGRADE_SHIFT + 1] = {
    {0, 0, 0, 0, 0, 0, 0, 0},
    {64, 32, 8, 0, 0, 0, 0, 0},
    {96, 72, 40, 12, 1, 0, 0, 0},
    {112, 98, 75, 43, 15, 1, 0, 0},
    {120, 112, 98, 76, 45, 16, 2, 0},
};

// The fields of struct rq (and of its cfs_rq) that this code reads or
// writes.  From shi-1-3 on the kernel has a single rq->cpu_load; it is
// cpu_load[0] here and the other slots are unused.  nr_load_updates is a
// statistics counter read by nobody on these paths and is not modelled.
template <class A> struct rq {
    using ulong = typename A::ulong;
    ulong cpu_load[CPU_LOAD_IDX_MAX];
    ulong last_load_update_tick;
    struct {
        ulong runnable_load_avg;             // CONFIG_SMP: the load the tick samples
        typename A::uint h_nr_running;       // runnable cfs tasks in the hierarchy
    } cfs;
};

// The per-domain load indexes: which cpu_load[] a balance pass reads.
struct sd_load_idx {
    int busy_idx, idle_idx, newidle_idx, wake_idx, forkexec_idx;
};

enum class cpu_idle_type { CPU_IDLE, CPU_NOT_IDLE, CPU_NEWLY_IDLE };

// Load index used by update_sd_lb_stats() for a balance pass.
template <patch_level P> int lb_load_idx(const sd_load_idx &sd, cpu_idle_type idle) {
    if constexpr (P >= patch_level::shi_1)
        return 0; // 1/4: the index no longer matters for periodic balancing
    switch (idle) {
    case cpu_idle_type::CPU_NOT_IDLE: return sd.busy_idx;
    case cpu_idle_type::CPU_NEWLY_IDLE: return sd.newidle_idx;
    default: return sd.idle_idx;
    }
}

// Load index wake_affine() reads: the domain's wake_idx.  Patch 2/4 drops
// the indexes altogether (source_load()/target_load() lose their type).
template <patch_level P> int wake_affine_load_idx(const sd_load_idx &sd) {
    if constexpr (P >= patch_level::shi_1_3)
        return 0;
    return sd.wake_idx;
}

// Load index select_task_rq_fair() hands to find_idlest_group():
// forkexec_idx for fork and exec balancing, wake_idx for a wake-up balance.
template <patch_level P> int idlest_group_load_idx(const sd_load_idx &sd, bool balance_wake) {
    if constexpr (P >= patch_level::shi_1_3)
        return 0;
    return balance_wake ? sd.wake_idx : sd.forkexec_idx;
}

// Decay cpu_load[idx] for missed_updates ticks without a sample (v3.13 to
// shi-1; patch 2/4 deletes it).  Write missed = sum of 2^j over its set bits;
// the decay for missed ticks is then the product of the per-2^j factors,
// each applied as (load * factor) >> 7.  Beyond degrade_zero_ticks the
// product is below 1/128 and the result is 0.
template <class A>
typename A::ulong decay_load_missed(typename A::ulong load, typename A::ulong missed_updates,
                                    int idx) {
    int j = 0;

    if (!missed_updates)
        return load;

    if (missed_updates >= degrade_zero_ticks[idx])
        return 0;

    if (idx == 1) // factor 1/2 per tick: a plain shift
        return load >> missed_updates;

    while (missed_updates) {
        if (missed_updates % 2)
            load = (load * degrade_factor[idx][j]) >> DEGRADE_SHIFT;
        missed_updates >>= 1;
        j++;
    }
    return load;
}

// Fold this_load into the history; pending_updates ticks have passed since
// the last update, the first pending_updates - 1 of them without a sample.
// From shi-1-3 on there is no history and pending_updates is gone from the
// signature; it is accepted and ignored here so one call site serves all.
template <class A, patch_level P>
void __update_cpu_load(rq<A> &this_rq, typename A::ulong this_load,
                       typename A::ulong pending_updates) {
    using ulong = typename A::ulong;

    this_rq.cpu_load[0] = this_load; // index 0 is the sample itself

    if constexpr (P >= patch_level::shi_1_3) {
        (void)pending_updates;
        return;
    } else {
        // scale is 2^i; ">> i" divides by it.
        for (int i = 1, scale = 2; i < CPU_LOAD_IDX_MAX; i++, scale += scale) {
            ulong old_load = this_rq.cpu_load[i];
            old_load = decay_load_missed<A>(old_load, pending_updates - 1, i);
            ulong new_load = this_load;
            // A rising load is rounded up: with plain truncation the
            // average of old = L-1 and new = L is L-1 again, and the
            // history would never reach L.
            if (new_load > old_load)
                new_load += scale - 1;
            this_rq.cpu_load[i] = (old_load * (scale - 1) + new_load) >> i;
        }
    }
}

template <class A> typename A::ulong get_rq_runnable_load(const rq<A> &r) {
    return r.cfs.runnable_load_avg;
}

// nohz_idle_balance() on behalf of an idle CPU: catch up the ticks it
// slept through, but only if it really has no load.
template <class A, patch_level P>
void update_idle_cpu_load(rq<A> &this_rq, typename A::ulong curr_jiffies) {
    typename A::ulong load = get_rq_runnable_load(this_rq);

    if (load || curr_jiffies == this_rq.last_load_update_tick)
        return;

    typename A::ulong pending_updates = curr_jiffies - this_rq.last_load_update_tick;
    this_rq.last_load_update_tick = curr_jiffies;

    __update_cpu_load<A, P>(this_rq, load, pending_updates);
}

// Leaving tickless mode.  Up to shi-1-3 the CPU is assumed to have been
// idle, so the sample is 0.  Patch 4/4 keeps the cfs load when tasks are
// runnable (a nohz_full CPU runs a task with the tick stopped); note that
// the patch reads it into a plain "unsigned", 32 bits on both data models.
template <class A, patch_level P>
void update_cpu_load_nohz(rq<A> &this_rq, typename A::ulong curr_jiffies) {
    if (curr_jiffies == this_rq.last_load_update_tick)
        return;

    typename A::ulong pending_updates = curr_jiffies - this_rq.last_load_update_tick;
    if (pending_updates) {
        this_rq.last_load_update_tick = curr_jiffies;
        if constexpr (P >= patch_level::shi_1_4) {
            if (this_rq.cfs.h_nr_running) {
                typename A::uint load = get_rq_runnable_load(this_rq);
                __update_cpu_load<A, P>(this_rq, load, pending_updates);
            } else {
                __update_cpu_load<A, P>(this_rq, 0, pending_updates);
            }
        } else {
            __update_cpu_load<A, P>(this_rq, 0, pending_updates);
        }
    }
}

// scheduler_tick(): one sample, one tick.
template <class A, patch_level P>
void update_cpu_load_active(rq<A> &this_rq, typename A::ulong jiffies) {
    typename A::ulong load = get_rq_runnable_load(this_rq);
    this_rq.last_load_update_tick = jiffies;
    __update_cpu_load<A, P>(this_rq, load, 1);
}

template <class A> typename A::ulong weighted_cpuload(const rq<A> &r) {
    return r.cfs.runnable_load_avg;
}

// A low estimate of a CPU's load, for a CPU tasks would be pulled from.
// type is the load index plus one; 0 means "the instantaneous load".  From
// shi-1-3 on there is one history value and no type.
template <class A, patch_level P>
typename A::ulong source_load(const rq<A> &r, int type, bool lb_bias) {
    typename A::ulong total = weighted_cpuload(r);

    if constexpr (P <= patch_level::shi_1) {
        if (type == 0 || !lb_bias)
            return total;
        return kmin(r.cpu_load[type - 1], total);
    } else {
        (void)type;
        if (!lb_bias)
            return total;
        return kmin(r.cpu_load[0], total);
    }
}

// A high estimate, for a CPU tasks would be pushed to.  The follow-up patch
// multiplies the instantaneous load by imbalance_pct/100 first, so a target
// looks busier and small imbalances stop moving tasks.  The kernel's
// imbalance_pct is an int; in the domain used here it is positive, where
// int and unsigned promote to unsigned long identically.
template <class A, patch_level P>
typename A::ulong target_load(const rq<A> &r, int type, typename A::uint imbalance_pct,
                              bool lb_bias) {
    typename A::ulong total = weighted_cpuload(r);

    if constexpr (P >= patch_level::shi_1_5)
        total = total * imbalance_pct / 100;
    else
        (void)imbalance_pct;

    if constexpr (P <= patch_level::shi_1) {
        if (type == 0 || !lb_bias)
            return total;
        return kmax(r.cpu_load[type - 1], total);
    } else {
        (void)type;
        if (!lb_bias)
            return total;
        return kmax(r.cpu_load[0], total);
    }
}

} // namespace sc::cpuload
