// wake_affine(): should a task woken by the task running on this_cpu be
// pulled over to this_cpu, or stay near its previous CPU (seed 003, Paul
// Turner's "wake_affine fixes/improvements", and later releases)?
//
// The old rule (v2.6.x .. v4.x) compares the two CPUs' loads as they would
// be after the move, each scaled by the other CPU's compute power, with
// this_cpu given a handicap of half the domain's imbalance_pct:
//
//   this_eff = 100                        * power(prev) * (this_load + eff_load(this, +w))
//   prev_eff = (100 + (imbalance_pct-100)/2) * power(this) * (load + eff_load(prev, 0))
//
// and pulls when this_eff <= prev_eff.  With group scheduling a task's
// weight does not add 1:1 to a CPU's load: the group's shares are spread
// over the CPUs in proportion to where its weight runs, so adding weight on
// one CPU moves shares towards it from the others.  effective_load()
// estimates that change at the root, level by level up the group
// hierarchy:
//
//   s_i  = S * rw_i / sum_j rw_j                the group entity's weight on cpu i
//   s'_i = S * (rw_i + wl) / (wg + sum_j rw_j)  after adding wl here, wg in total
//   dw_i = s'_i - s_i                           what the parent level sees
//
// (at the next level up, the group entity's weight changed by dw_i but the
// parent group's total did not: wg = 0).  A sync wake-up first removes the
// waker (current) from this_cpu, which is about to sleep.
//
// The 6.1 rule (wake_affine_idle() / wake_affine_weight()) prefers an idle
// cache-affine CPU, and otherwise compares PELT loads, with the wakee's
// hierarchical load task_h_load(p) moved from prev to this:
//
//   this_eff = (cpu_load(this) [- h_load(current) if sync] + h_load(p)) * 100 * capacity(prev)
//   prev_eff = (cpu_load(prev) - h_load(p)) * (100 + (imbalance_pct-100)/2) * capacity(this) [+1 if sync]
//
// and pulls when this_eff < prev_eff (WA_BIAS off drops the two percentage
// factors).
//
// Five variants, templated on the arithmetic A (ref/kernel.h) and the
// version V:
//
//  v2_6_37  Linux v2.6.37 (read in a v2.6.37 tree): effective_load() on the
//           old per-cpu shares bookkeeping (cfs_rq->shares, cfs_rq->rq_weight,
//           the drift load.weight - rq_weight added in, ASYM_EFF_LOAD), and
//           wake_affine() computing in unsigned long, so that a sync
//           wake-up can wrap this_load below zero.
//  pjt_1    patch 1/3 "update effective_load() to use global share
//           weights", as merged for v2.6.38 (read in a
//           v2.6.38 tree): the group's global load_weight replaces the
//           per-cpu bookkeeping, the new weight is clipped at MIN_SHARES,
//           and wake_affine() computes in s64 with "this_load > 0".  The
//           posted text was not available; that the s64 loads came with
//           this patch rather than a neighbouring v2.6.38 commit is not
//           confirmed.
//  pjt_1_3  + 2/3 "clean up task_hot()" and 3/3 "introduce
//           sched_feat(NO_HOT_AFFINE)", rebuilt from the series' cover
//           letter and titles (the patches themselves were not available
//           and were never merged): with NO_HOT_AFFINE a wakee that is
//           cache-hot on its previous CPU (task_hot() against prev's
//           clock_task, as v2.6.38 computes it without its unused domain
//           argument) is never pulled.  The check is placed first in
//           wake_affine().
//  v3_13    Linux v3.13 (read in a v3.13.10 tree): effective_load() on
//           tg->load_avg / tg_load_contrib (calc_tg_weight()), MIN_SHARES now
//           an unsigned long, wake_wide() in front.
//  v6_1     Linux 6.1 (read in Debian's 6.1.192 tree): wake_affine_idle(),
//           wake_affine_weight() with s64 effective loads and task_h_load(),
//           capacity_of(), the WA_IDLE / WA_WEIGHT / WA_BIAS features.
//
// Signed arithmetic wraps as in the kernel (-fno-strict-overflow; the
// project builds with -fwrapv).  Where C converts implicitly between types
// of different width or signedness, the conversion is written out: these
// functions mix long, unsigned long and s64 freely, and the mix is where
// ilp32 and lp64 differ.
#pragma once
#include <cstdint>
#include <type_traits>

#include "ref/kernel.h"

namespace sc::wakeaffine {

enum class version { v2_6_37, pjt_1, pjt_1_3, v3_13, v6_1 };

inline const char *version_name(version v) {
    switch (v) {
    case version::v2_6_37: return "v2.6.37";
    case version::pjt_1: return "pjt-1";
    case version::pjt_1_3: return "pjt-1-3";
    case version::v3_13: return "v3.13";
    case version::v6_1: return "v6.1";
    }
    return "?";
}

template <version V> constexpr bool has_effective_load = V <= version::v3_13;
// pjt-1 on: effective_load() from the group's global weight.
template <version V> constexpr bool global_share_weights = V >= version::pjt_1 && V <= version::v3_13;
// wake_affine() loads are s64 from pjt-1 (v2.6.38) on, unsigned long before.
template <version V> constexpr bool signed_loads = V >= version::pjt_1;
template <version V> constexpr bool has_no_hot_affine = V == version::pjt_1_3;
template <version V> constexpr bool has_wake_wide = V == version::v3_13;
template <version V> constexpr bool has_wake_affine_weight = V == version::v6_1;

// The group entity weight floor.  v2.6.x: the int 2, so a negative long is
// clipped by a signed comparison; v3.13: (1UL << 1), an unsigned long, so
// the comparison is unsigned and a negative long is not clipped.
constexpr int MIN_SHARES = 2;

// One level of for_each_sched_entity(se) in effective_load(): se is the
// group's entity on the CPU, my_q the group's cfs_rq on that CPU, tg the
// group.  Level 0 is tg->se[cpu] of the task's own group; the last level is
// the entity of a top-level group (whose parent is the root).
template <class A> struct tg_level {
    typename A::ulong se_load_weight{};    // se->load.weight
    typename A::ulong my_q_load_weight{};  // se->my_q->load.weight
    typename A::ulong tg_shares{};         // se->my_q->tg->shares
    // v2.6.37: this CPU's part of the shares as last computed, and the
    // my_q weight it was computed from.
    typename A::ulong my_q_shares{};       // se->my_q->shares
    typename A::ulong my_q_rq_weight{};    // se->my_q->rq_weight
    // pjt-1 (v2.6.38): the group's global weight and this CPU's part in it.
    typename A::sint tg_load_weight{};             // atomic_read(&tg->load_weight)
    typename A::ulong my_q_load_contribution{};    // se->my_q->load_contribution
    // v3.13: the same from the PELT averages.
    typename A::slong tg_load_avg{};       // atomic_long_read(&tg->load_avg)
    typename A::ulong my_q_tg_load_contrib{};      // se->my_q->tg_load_contrib
};

constexpr int TG_MAX_DEPTH = 3;

// A task group as seen from one CPU: depth 0 is the root group (no
// cgroup), where effective_load() is the identity.
template <class A> struct tg_path {
    int depth = 0;
    tg_level<A> level[TG_MAX_DEPTH];
};

// The waker (current) or the wakee (p).
template <class A> struct task {
    typename A::ulong weight{1024};        // se.load.weight
    tg_path<A> tg_on_this;                 // task_group()->se[this_cpu] upwards
    tg_path<A> tg_on_prev;                 // task_group()->se[prev_cpu] upwards
    // pjt-1-3 task_hot():
    typename A::u64 exec_start{};          // se.exec_start: when it last ran
    bool idle_policy = false;              // policy == SCHED_IDLE
    // v3.13 wake_wide():
    typename A::ulong wakee_flips{};
    // 6.1 task_h_load(): div64_ul(load_avg * h_load, cfs_rq load_avg + 1)
    typename A::ulong load_avg{};          // se.avg.load_avg
    typename A::ulong cfs_h_load{};        // task_cfs_rq()->h_load
    typename A::ulong cfs_load_avg{};      // cfs_rq_load_avg(task_cfs_rq())
};

// One of the two CPUs.
template <class A> struct cpu {
    // The CPU's load as each release reads it: weighted_cpuload(), i.e.
    // rq->load.weight (v2.6.x) or rq->cfs.runnable_load_avg (v3.13);
    // cpu_load(), i.e. rq->cfs.avg.load_avg (6.1).  cpu_avg_load_per_task()
    // divides the same value by nr_running.
    typename A::ulong weighted_cpuload{};
    typename A::ulong cpu_load_idx{};      // rq->cpu_load[wake_idx - 1] (LB_BIAS)
    typename A::uint nr_running{};
    typename A::ulong power{1024};         // power_of() / capacity_of()
    bool idle = false;                     // 6.1 available_idle_cpu()
    typename A::u64 clock_task{};          // rq->clock_task (pjt-1-3, prev_cpu)
};

// sched_feat()s, sysctls and domain parameters.
template <class A> struct knobs {
    typename A::uint imbalance_pct{125};   // sd->imbalance_pct of the affine domain
    int wake_idx = 0;                      // sd->wake_idx (v2.6.x, v3.13)
    bool LB_BIAS = true;
    bool ASYM_EFF_LOAD = true;             // v2.6.37
    bool NO_HOT_AFFINE = true;             // pjt-1-3
    bool WA_IDLE = true, WA_WEIGHT = true, WA_BIAS = true; // 6.1
    typename A::uint sysctl_sched_migration_cost{500000u}; // pjt-1-3 task_hot()
    int sd_llc_size = 1;                   // v3.13 wake_wide() factor
    bool cpus_share_cache = true;          // 6.1: this_cpu and prev_cpu share the LLC
};

// A wake-up: prev_cpu is where p last ran, this_cpu where current runs.
// wake_affine() is only asked when they differ.
template <class A> struct wake_env {
    cpu<A> this_rq, prev_rq;
    task<A> p, curr;
    bool sync = false;                     // WF_SYNC: the waker is about to sleep
    int this_cpu = 0, prev_cpu = 1;
    int nr_cpumask_bits = 64;              // 6.1's "no preference" answer
};

// Intermediate values of one decision, for counterexamples.
template <class A> struct wa_trace {
    typename A::s64 this_load{}, load{};   // after the sync adjustment (as s64 even where
                                           // the release keeps unsigned long)
    typename A::s64 this_eff_load{}, prev_eff_load{};
    bool balanced = false;
    bool hot = false;                      // pjt-1-3
    bool wide = false;                     // v3.13
    int idle_target = -1;                  // 6.1 wake_affine_idle()
    int weight_target = -1;                // 6.1 wake_affine_weight()
    bool weighed = false;                  // 6.1: the effective loads were compared
};

namespace detail {

// The type C computes "s64 OP unsigned long" in: on lp64 both are 64 bits
// and the unsigned one wins (u64); on ilp32 s64 is wider and wins.
template <class A>
using s64_op_ulong_t = std::conditional_t<A::long_bits == 64, typename A::u64, typename A::s64>;

} // namespace detail

// A low guess at the load of the migration source (v2.6.x, v3.13).
template <version V, class A>
typename A::ulong source_load(const cpu<A> &c, int type, const knobs<A> &k) {
    typename A::ulong total = c.weighted_cpuload;
    if (type == 0 || !k.LB_BIAS)
        return total;
    return kmin(c.cpu_load_idx, total);
}

// A high guess at the load of the migration target (v2.6.x, v3.13).
template <version V, class A>
typename A::ulong target_load(const cpu<A> &c, int type, const knobs<A> &k) {
    typename A::ulong total = c.weighted_cpuload;
    if (type == 0 || !k.LB_BIAS)
        return total;
    return kmax(c.cpu_load_idx, total);
}

template <version V, class A> typename A::ulong power_of(const cpu<A> &c) { return c.power; }

// The load of an average task on the CPU (v2.6.x, v3.13): nr_running is an
// unsigned long there (v3.13 reads the unsigned int into one).
template <version V, class A> typename A::ulong cpu_avg_load_per_task(const cpu<A> &c) {
    using ulong = typename A::ulong;
    ulong nr_running = ulong(c.nr_running);

    if (nr_running)
        return c.weighted_cpuload / nr_running;

    return 0;
}

// v3.13: the group's total weight with this CPU's stale contribution
// replaced by its current weight.  C: long -= / += unsigned long is done in
// unsigned long and converted back.
template <version V, class A> typename A::slong calc_tg_weight(const tg_level<A> &se) {
    static_assert(V == version::v3_13, "calc_tg_weight() is the v3.13 form");
    using slong = typename A::slong;
    using ulong = typename A::ulong;

    slong tg_weight = se.tg_load_avg;
    tg_weight = slong(ulong(tg_weight) - se.my_q_tg_load_contrib);
    tg_weight = slong(ulong(tg_weight) + se.my_q_load_weight);

    return tg_weight;
}

// The change of the root-level load on a CPU when weight wl is added to the
// group's cfs_rq there and the group's total weight changes by wg (see the
// top).  Both may be negative (a sync wake-up removes current).
template <version V, class A>
typename A::slong effective_load(const tg_path<A> &path, typename A::slong wl, typename A::slong wg,
                                 const knobs<A> &k) {
    static_assert(has_effective_load<V>, "6.1 has no effective_load(); see wake_affine_weight()");
    using slong = typename A::slong;
    using ulong = typename A::ulong;

    if (path.depth == 0) // the trivial, non-cgroup case: !tg->parent
        return wl;

    if constexpr (V == version::v2_6_37) {
        // The shares of the other CPUs do not shrink in this estimate, so
        // a pure removal (wl == 0 on prev_cpu) is taken as no change: the
        // error then leans against affine wake-ups.
        if (k.ASYM_EFF_LOAD) {
            if (!wl)
                return wl;
        }

        for (int i = 0; i < path.depth; i++) {
            const tg_level<A> &se = path.level[i];
            slong S, rw, s, a, b;
            slong more_w;

            // The weight that arrived since the shares were last computed
            // counts as part of this change.  C: unsigned long difference,
            // stored in a long.
            more_w = slong(se.my_q_load_weight - se.my_q_rq_weight);
            wl += more_w;
            wg += more_w;

            S = slong(se.tg_shares);
            s = slong(se.my_q_shares);
            rw = slong(se.my_q_rq_weight);

            // s * ((rw + wl) / (rw + s*wg/S) - 1), written over the common
            // denominator b = S*rw + s*wg; all in long.
            a = S * (rw + wl);
            b = S * rw + s * wg;

            wl = s * (a - b);

            if (b)
                wl /= b; // truncates towards zero

            // The group already runs elsewhere: moving shares between CPUs
            // does not change its weight one level up.
            wg = 0;
        }
    } else if constexpr (V == version::v3_13) {
        for (int i = 0; i < path.depth; i++) {
            const tg_level<A> &se = path.level[i];
            slong w, W;

            // W = wg + sum_j rw_j
            W = wg + calc_tg_weight<V, A>(se);

            // w = rw_i + wl.  C: unsigned long + long, in unsigned long.
            w = slong(se.my_q_load_weight + ulong(wl));

            // wl = S * w / W, the new weight of the group entity.  C: long *
            // unsigned long and the division by the long W are unsigned
            // long operations; a negative w becomes a huge dividend.
            if (W > 0 && w < W)
                wl = slong((ulong(w) * se.tg_shares) / ulong(W));
            else
                wl = slong(se.tg_shares);

            // Clip at MIN_SHARES as calc_cfs_shares() does.  C: long <
            // unsigned long compares unsigned, so a negative wl stays.
            if (ulong(wl) < ulong(MIN_SHARES))
                wl = slong(MIN_SHARES);

            // The change against the entity's current weight.  C: long -=
            // unsigned long, in unsigned long.
            wl = slong(ulong(wl) - se.se_load_weight);

            wg = 0;
        }
    } else {
        // pjt-1 (v2.6.38).
        for (int i = 0; i < path.depth; i++) {
            const tg_level<A> &se = path.level[i];
            slong lw, w;

            w = slong(se.my_q_load_weight);

            // This CPU's instantaneous weight in place of the contribution
            // it last published to the group total.  C: int widened to long;
            // long -= unsigned long in unsigned long.
            lw = slong(se.tg_load_weight);
            lw = slong(ulong(lw) - se.my_q_load_contribution);
            lw += w + wg;

            wl += w;

            // C: as in v3.13, the product and the division are unsigned long.
            if (lw > 0 && wl < lw)
                wl = slong((ulong(wl) * se.tg_shares) / ulong(lw));
            else
                wl = slong(se.tg_shares);

            // The zero point is MIN_SHARES (an int: signed comparison).
            if (wl < slong(MIN_SHARES))
                wl = slong(MIN_SHARES);
            wl = slong(ulong(wl) - se.se_load_weight);
            wg = 0;
        }
    }

    return wl;
}

// Is the task likely to still have its data in the cache of the CPU whose
// clock reads now?  (The v2.6.38 task_hot() without its unused domain
// argument, for a fair-class task that is not a buddy: a sleeping task is
// not on any runqueue, so it is neither next nor last.)  A sysctl of -1
// means "always hot", 0 "never".  The difference is read as s64, so a clock
// behind exec_start counts as hot.
template <version V, class A> bool task_hot(const task<A> &p, typename A::u64 now, const knobs<A> &k) {
    using uint = typename A::uint;
    using s64 = typename A::s64;

    if (p.idle_policy)
        return false;

    // C: unsigned int == -1 converts the -1 to UINT_MAX.
    if (k.sysctl_sched_migration_cost == uint(0xffffffffu))
        return true;
    if (k.sysctl_sched_migration_cost == uint(0))
        return false;

    s64 delta = s64(now - p.exec_start);

    // C: (s64) of an unsigned int zero-extends.
    return bool(delta < s64(k.sysctl_sched_migration_cost));
}

// v3.13: a waker that flips between many wakees (more than the LLC has
// CPUs, and more than that many times the wakee's own flips) would drag
// them all onto its CPU: do not pull.  C: unsigned long against the int
// factor, compared and multiplied as unsigned long.
template <version V, class A> bool wake_wide(const task<A> &p, const task<A> &curr, const knobs<A> &k) {
    using ulong = typename A::ulong;
    ulong factor = ulong(k.sd_llc_size);

    if (p.wakee_flips > factor) {
        if (curr.wakee_flips > factor * p.wakee_flips)
            return true;
    }

    return false;
}

// 6.1: the task's load as seen at the root: its load_avg scaled by its
// cfs_rq's share of the hierarchy, h_load / load_avg (the + 1 keeps an
// empty cfs_rq from dividing by 0).  C: the product is an unsigned long
// (32 bits on ilp32, where it can wrap), widened to u64 for div64_ul().
template <version V, class A> typename A::ulong task_h_load(const task<A> &t) {
    static_assert(V == version::v6_1, "task_h_load() is read by the 6.1 wake_affine_weight() only");
    using u64 = typename A::u64;
    using ulong = typename A::ulong;

    u64 dividend = u64(t.load_avg * t.cfs_h_load);
    return ulong(dividend / u64(t.cfs_load_avg + 1));
}

// 6.1: decide from idleness alone when that is clear.
template <version V, class A> int wake_affine_idle(const wake_env<A> &e, const knobs<A> &k) {
    static_assert(V == version::v6_1, "wake_affine_idle() is 6.1");
    // An idle this_cpu means an interrupt woke the task: pull only within
    // the cache domain, and not if prev_cpu is idle too (its cache is as
    // good, and one busier CPU suits cpufreq better).
    if (e.this_rq.idle && k.cpus_share_cache)
        return e.prev_rq.idle ? e.prev_cpu : e.this_cpu;

    // The waker is about to sleep and is alone: take its place.
    if (e.sync) {
        if (e.this_rq.nr_running == 1)
            return e.this_cpu;
    }

    if (e.prev_rq.idle)
        return e.prev_cpu;

    return e.nr_cpumask_bits;
}

// 6.1: compare the loads after the move (see the top).  C types: the
// effective loads are s64; cpu_load(), task_h_load() and capacity_of() are
// unsigned long, so on lp64 every "s64 op unsigned long" is done in u64 (the
// prev side goes negative through a u64 wrap when the wakee's load exceeds
// prev's), on ilp32 in s64.
template <version V, class A>
int wake_affine_weight(const wake_env<A> &e, const knobs<A> &k, wa_trace<A> *tr = nullptr) {
    static_assert(has_wake_affine_weight<V>, "wake_affine_weight() is 6.1");
    using s64 = typename A::s64;
    using ulong = typename A::ulong;
    using so = detail::s64_op_ulong_t<A>;

    s64 this_eff_load, prev_eff_load;
    ulong task_load;

    this_eff_load = s64(e.this_rq.weighted_cpuload);

    if (e.sync) {
        ulong current_load = task_h_load<V, A>(e.curr);

        // The waker alone outweighs its CPU's load: pull at once.
        if (so(current_load) > so(this_eff_load))
            return e.this_cpu;

        this_eff_load = s64(so(this_eff_load) - so(current_load));
    }

    task_load = task_h_load<V, A>(e.p);

    this_eff_load = s64(so(this_eff_load) + so(task_load));
    if (k.WA_BIAS)
        this_eff_load *= 100;
    this_eff_load = s64(so(this_eff_load) * so(e.prev_rq.power));

    prev_eff_load = s64(e.prev_rq.weighted_cpuload);
    prev_eff_load = s64(so(prev_eff_load) - so(task_load));
    if (k.WA_BIAS) {
        // C: 100 + (unsigned int - 100) / 2 is an unsigned int; s64 * it
        // stays s64 on both data models.
        prev_eff_load *= s64(100 + (k.imbalance_pct - 100) / 2);
    }
    prev_eff_load = s64(so(prev_eff_load) * so(e.this_rq.power));

    // On a tie a sync wake-up stacks the wakee on the waker's CPU.
    if (e.sync)
        prev_eff_load += 1;

    if (tr) {
        tr->this_eff_load = this_eff_load;
        tr->prev_eff_load = prev_eff_load;
        tr->weighed = true;
    }

    return this_eff_load < prev_eff_load ? e.this_cpu : e.nr_cpumask_bits;
}

// The v2.6.37 decision, all in unsigned long.
template <version V, class A>
int wake_affine_ulong(const wake_env<A> &e, const knobs<A> &k, wa_trace<A> *tr) {
    using ulong = typename A::ulong;
    using slong = typename A::slong;

    ulong this_load, load;
    ulong tl_per_task;
    ulong weight;
    bool balanced;
    int idx = k.wake_idx;

    load = source_load<V, A>(e.prev_rq, idx, k);
    this_load = target_load<V, A>(e.this_rq, idx, k);

    // A sync waker is about to sleep: take its (largest possible) effect off
    // this_cpu.  C: -weight is the unsigned negation, passed as a long;
    // unsigned long += long is done in unsigned long, so this_load wraps
    // when current weighs more than this_cpu's load.
    if (e.sync) {
        weight = e.curr.weight;

        this_load = this_load + ulong(effective_load<V, A>(e.curr.tg_on_this, slong(-weight), slong(-weight), k));
        load = load + ulong(effective_load<V, A>(e.curr.tg_on_prev, slong(0), slong(-weight), k));
    }

    weight = e.p.weight;

    // With this_load at 0 (idle, or the sync waker was all of it) there is
    // always an imbalance, and pulling is fine.
    if (this_load) {
        ulong this_eff_load, prev_eff_load;

        this_eff_load = 100;
        this_eff_load *= power_of<V, A>(e.prev_rq);
        this_eff_load *= this_load + ulong(effective_load<V, A>(e.p.tg_on_this, slong(weight), slong(weight), k));

        // C: unsigned int arithmetic, widened.
        prev_eff_load = ulong(100 + (k.imbalance_pct - 100) / 2);
        prev_eff_load *= power_of<V, A>(e.this_rq);
        prev_eff_load *= load + ulong(effective_load<V, A>(e.p.tg_on_prev, slong(0), slong(weight), k));

        balanced = bool(this_eff_load <= prev_eff_load);
        if (tr) {
            tr->this_eff_load = typename A::s64(this_eff_load);
            tr->prev_eff_load = typename A::s64(prev_eff_load);
        }
    } else {
        balanced = true;
    }
    if (tr) {
        tr->this_load = typename A::s64(this_load);
        tr->load = typename A::s64(load);
        tr->balanced = balanced;
    }

    // The waker sleeps soon: pull the wakee to it.
    if (e.sync) {
        if (balanced)
            return 1;
    }

    tl_per_task = cpu_avg_load_per_task<V, A>(e.this_rq);

    if (balanced)
        return 1;
    // Not balanced, but this_cpu is the lighter one and would stay within
    // one average task of prev's load: pull.
    if (this_load <= load) {
        if (this_load + target_load<V, A>(e.prev_rq, idx, k) <= tl_per_task)
            return 1;
    }
    return 0;
}

// The pjt-1 .. v3.13 decision, in s64.
template <version V, class A>
int wake_affine_s64(const wake_env<A> &e, const knobs<A> &k, wa_trace<A> *tr) {
    using ulong = typename A::ulong;
    using slong = typename A::slong;
    using s64 = typename A::s64;
    using so = detail::s64_op_ulong_t<A>;

    s64 this_load, load;
    ulong tl_per_task;
    ulong weight;
    bool balanced;
    int idx = k.wake_idx;

    load = s64(source_load<V, A>(e.prev_rq, idx, k));
    this_load = s64(target_load<V, A>(e.this_rq, idx, k));

    // C: -weight is the unsigned negation, passed as a long; s64 += long.
    if (e.sync) {
        weight = e.curr.weight;

        this_load += s64(effective_load<V, A>(e.curr.tg_on_this, slong(-weight), slong(-weight), k));
        load += s64(effective_load<V, A>(e.curr.tg_on_prev, slong(0), slong(-weight), k));
    }

    weight = e.p.weight;

    if (this_load > 0) {
        s64 this_eff_load, prev_eff_load;

        // C: s64 *= unsigned long is a u64 product on lp64, s64 on ilp32.
        this_eff_load = 100;
        this_eff_load = s64(so(this_eff_load) * so(power_of<V, A>(e.prev_rq)));
        this_eff_load *= this_load + s64(effective_load<V, A>(e.p.tg_on_this, slong(weight), slong(weight), k));

        // C: unsigned int arithmetic, widened to s64.
        prev_eff_load = s64(100 + (k.imbalance_pct - 100) / 2);
        prev_eff_load = s64(so(prev_eff_load) * so(power_of<V, A>(e.this_rq)));
        prev_eff_load *= load + s64(effective_load<V, A>(e.p.tg_on_prev, slong(0), slong(weight), k));

        balanced = bool(this_eff_load <= prev_eff_load);
        if (tr) {
            tr->this_eff_load = this_eff_load;
            tr->prev_eff_load = prev_eff_load;
        }
    } else {
        balanced = true;
    }
    if (tr) {
        tr->this_load = this_load;
        tr->load = load;
        tr->balanced = balanced;
    }

    if (e.sync) {
        if (balanced)
            return 1;
    }

    tl_per_task = cpu_avg_load_per_task<V, A>(e.this_rq);

    if (balanced)
        return 1;
    if (this_load <= load) {
        // C: s64 + unsigned long, compared with an unsigned long: on lp64
        // both in u64, on ilp32 in s64.
        if (so(this_load) + so(target_load<V, A>(e.prev_rq, idx, k)) <= so(tl_per_task))
            return 1;
    }
    return 0;
}

// wake_affine(): v2.6.x and v3.13 return 1 to pull the wakee to this_cpu
// and 0 to leave it; 6.1 returns the CPU to use (this_cpu or prev_cpu).
// See affine() for a uniform answer.
template <version V, class A>
int wake_affine(const wake_env<A> &e, const knobs<A> &k, wa_trace<A> *tr = nullptr) {
    if constexpr (V == version::v6_1) {
        int target = e.nr_cpumask_bits;

        if (k.WA_IDLE)
            target = wake_affine_idle<V, A>(e, k);
        if (tr)
            tr->idle_target = target;

        if (k.WA_WEIGHT && target == e.nr_cpumask_bits) {
            target = wake_affine_weight<V, A>(e, k, tr);
            if (tr)
                tr->weight_target = target;
        }

        if (target != e.this_cpu)
            return e.prev_cpu;

        return target;
    } else {
        if constexpr (has_no_hot_affine<V>) {
            // NO_HOT_AFFINE: a wakee whose data is still in prev_cpu's
            // cache stays there.
            if (k.NO_HOT_AFFINE) {
                bool hot = task_hot<V, A>(e.p, e.prev_rq.clock_task, k);
                if (tr)
                    tr->hot = hot;
                if (hot)
                    return 0;
            }
        }
        if constexpr (has_wake_wide<V>) {
            // A waker of many wakees: do not bounce them all onto it.
            bool wide = wake_wide<V, A>(e.p, e.curr, k);
            if (tr)
                tr->wide = wide;
            if (wide)
                return 0;
        }
        if constexpr (signed_loads<V>)
            return wake_affine_s64<V, A>(e, k, tr);
        else
            return wake_affine_ulong<V, A>(e, k, tr);
    }
}

// True when the wakee is pulled to this_cpu, in every version.
template <version V, class A> bool affine(const wake_env<A> &e, const knobs<A> &k, wa_trace<A> *tr = nullptr) {
    int r = wake_affine<V, A>(e, k, tr);
    if constexpr (V == version::v6_1)
        return r == e.this_cpu;
    else
        return r != 0;
}

} // namespace sc::wakeaffine
