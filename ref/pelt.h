// Per-entity load tracking (PELT): the geometric series behind load_avg,
// runnable_avg and util_avg, in five released shapes.
//
//   v3.8   Paul Turner's per-entity runnable average, kernel/sched/fair.c of
//          v3.8 (read from a v3.8.13 tree): __update_entity_runnable_avg()
//          keeps runnable_avg_sum over runnable_avg_period, and the task's
//          load_avg_contrib is weight * sum / (period + 1).
//   v4.3   Yuyang Du's rewrite, fair.c of v4.3: __update_load_avg() folds the
//          weight into a 64-bit load_sum, keeps the partial period in
//          period_contrib and divides by the constant LOAD_AVG_MAX.
//   v4.12  fair.c of v4.12 (read from a v4.12.4 tree): the update is split
//          into decay (Step 1) and a closed-form three-segment sum (Step 2),
//          accumulate_sum() + __accumulate_pelt_segments(); last_update_time
//          only advances by whole 1024ns units.
//   v6.1,  kernel/sched/pelt.c, pelt.h and sched-pelt.h of those releases:
//   v6.12  ___update_load_sum() / ___update_load_avg() with a runnable
//          signal and the position-dependent divider get_pelt_divider().
//          The arithmetic of the two releases is identical; they are kept
//          apart so that a later divergence has somewhere to go.
//
// Time is counted in 1024ns units ("us").  A period is 1024us.  With
// y^32 = 1/2, a signal that contributed u_i in the period i periods ago is
//
//   sum = u_0 + u_1 y + u_2 y^2 + ...
//
// and an always-busy signal converges to 1024 / (1 - y), which the integer
// implementation reaches at LOAD_AVG_MAX = 47742.
//
// Written once for any arithmetic A (see ref/kernel.h): every value has the
// kernel's C type in A, including the 32-bit products of unsigned long on
// ilp32 and the int temporaries of v3.8 and v4.3.
//
// Where the old releases were read: v3.8 from a v3.8.13 tree
// (opennetworklinux/linux-3.8.13, kernel/sched/fair.c); v4.12 from a
// v4.12.4 tree (AnnyFigueira/linux-4.12.4, kernel/sched/fair.c); v4.3's
// struct sched_avg from a v4.3.0 tree (fun1355/linux_4.3.0_comment).  No
// copy of v4.3's fair.c was available, so __update_load_avg() of v4.3
// follows the rewrite's structure as seen in trees derived from it, and two
// details are unconfirmed: that decay_load() already used
// mul_u64_u32_shr() (it does in later v4.x trees; v3.8 did not), and the
// exact form of the frequency scaling of util_sum (the identity at the
// default scale modelled here, so it cannot change a result).
//
// Not modelled: frequency and CPU invariance.  arch_scale_freq_capacity()
// and arch_scale_cpu_capacity() are the kernel's defaults for an
// architecture without invariance, SCHED_CAPACITY_SCALE, so every cap_scale()
// is exact.  The cfs_rq side of v4.3/v4.12 (runnable_load_sum/avg, which the
// kernel only updates when the cfs_rq pointer is not NULL) is not modelled:
// these are entity updates, cfs_rq == NULL.
#pragma once
#include <cstdint>

#include "ref/kernel.h"

namespace sc::pelt {

enum class version { v3_8, v4_3, v4_12, v6_1, v6_12 };

inline const char *version_name(version v) {
    switch (v) {
    case version::v3_8: return "v3.8";
    case version::v4_3: return "v4.3";
    case version::v4_12: return "v4.12";
    case version::v6_1: return "v6.1";
    case version::v6_12: return "v6.12";
    }
    return "?";
}

// y^LOAD_AVG_PERIOD = 1/2: a contribution halves every 32 periods.
constexpr unsigned LOAD_AVG_PERIOD = 32;
// The integer fixed point of max = max*y + 1024 (every release, v3.8 on).
constexpr unsigned LOAD_AVG_MAX = 47742;
// v3.8..v4.11: after this many full periods the partial sum of 1024 y^k has
// reached LOAD_AVG_MAX and __compute_runnable_contrib() stops computing.
constexpr unsigned LOAD_AVG_MAX_N = 345;
// 6.x: LOAD_AVG_MAX * y, i.e. the largest sum right after a period boundary.
constexpr unsigned PELT_MIN_DIVIDER = LOAD_AVG_MAX - 1024;

constexpr unsigned SCHED_CAPACITY_SHIFT = 10;
constexpr unsigned SCHED_CAPACITY_SCALE = 1u << SCHED_CAPACITY_SHIFT;
// v4.3: SCHED_LOAD_SHIFT = 10 + SCHED_LOAD_RESOLUTION, and the resolution
// is 0 in that release (the increased resolution was compiled out).
constexpr unsigned SCHED_LOAD_SHIFT = 10;

// runnable_avg_yN_inv[k] ~= 2^32 y^k: y^k as a 0.32 fixed-point multiplier.
// The generator truncates (2^32 - 1) * y^k, so entry 0 is 0xffffffff and a
// multiplication by it loses one unit.  Same values in every release.
inline constexpr sc::ktable<std::uint32_t, 32> runnable_avg_yN_inv = {{
    0xffffffff, 0xfa83b2da, 0xf5257d14, 0xefe4b99a, 0xeac0c6e6, 0xe5b906e6,
    0xe0ccdeeb, 0xdbfbb796, 0xd744fcc9, 0xd2a81d91, 0xce248c14, 0xc9b9bd85,
    0xc5672a10, 0xc12c4cc9, 0xbd08a39e, 0xb8fbaf46, 0xb504f333, 0xb123f581,
    0xad583ee9, 0xa9a15ab4, 0xa5fed6a9, 0xa2704302, 0x9ef5325f, 0x9b8d39b9,
    0x9837f050, 0x94f4efa8, 0x91c3d373, 0x8ea4398a, 0x8b95c1e3, 0x88980e80,
    0x85aac367, 0x82cd8698,
}};

// v3.8..v4.11: runnable_avg_yN_sum[n] = floor(sum_{k=1..n} 1024 y^k), built
// by the recurrence s = s*y + 1024*y truncated at every step, so that
// recombining partial sums never overshoots.
inline constexpr sc::ktable<std::uint32_t, 33> runnable_avg_yN_sum = {{
    0,     1002,  1982,  2941,  3880,  4798,  5697,  6576,  7437,  8279,  9103,
    9909,  10698, 11470, 12226, 12966, 13690, 14398, 15091, 15769, 16433, 17082,
    17718, 18340, 18949, 19545, 20128, 20698, 21256, 21802, 22336, 22859, 23371,
}};

// The fields of struct sched_avg that some release uses.
//   v3.8:        last_update_time (the release's last_runnable_update),
//                runnable_avg_sum, runnable_avg_period (u32), load_avg_contrib.
//                (decay_count belongs to the blocked-load code, not modelled.)
//   v4.3, v4.12: last_update_time, load_sum, util_sum, period_contrib,
//                load_avg, util_avg.
//   v6.1, v6.12: the v4.x set plus runnable_sum and runnable_avg.
//                (util_est is not part of the series and not modelled.)
template <class A> struct sched_avg {
    typename A::u64 last_update_time{};
    typename A::u64 load_sum{};
    typename A::u64 runnable_sum{};
    typename A::uint util_sum{};
    typename A::uint period_contrib{};
    typename A::ulong load_avg{};
    typename A::ulong runnable_avg{};
    typename A::ulong util_avg{};
    // v3.8 only:
    typename A::uint runnable_avg_sum{}, runnable_avg_period{};
    typename A::ulong load_avg_contrib{};
};

// The kernel's defaults when the architecture provides no invariance.
template <class A> typename A::ulong arch_scale_freq_capacity() {
    return typename A::ulong(SCHED_CAPACITY_SCALE);
}
template <class A> typename A::ulong arch_scale_cpu_capacity() {
    return typename A::ulong(SCHED_CAPACITY_SCALE);
}

// val * y^n.  Write n = 32q + r: y^n = 2^-q * y^r, so shift by q and
// multiply by the 0.32 table entry for r.  Past 63 halvings (n > 2016)
// nothing of a 64-bit value is left, so the answer is 0 without looking.
//
// v3.8 and v4.3 return val untouched for n == 0; from v4.12 on there is no
// such shortcut and n == 0 multiplies by 0xffffffff, which takes one unit
// off any val in 1..2^32.  v3.8 multiplies in plain 64 bits, so for val
// above about 2^32 the product wraps before the shift; later releases form
// the product without loss (mul_u64_u32_shr; for v4.3 see the top).
template <version V, class A>
typename A::u64 decay_load(typename A::u64 val, typename A::u64 n) {
    using uint = typename A::uint;

    if constexpr (V <= version::v4_3) {
        if (!n)
            return val;
    }
    if (n > LOAD_AVG_PERIOD * 63)
        return typename A::u64(0);

    // n <= 2016 now, so 32 bits hold it.
    uint local_n = uint(n);

    if (local_n >= LOAD_AVG_PERIOD) {
        val >>= local_n / LOAD_AVG_PERIOD;
        local_n = local_n % LOAD_AVG_PERIOD;
    }

    if constexpr (V == version::v3_8) {
        val *= runnable_avg_yN_inv[local_n]; // modulo 2^64
        return val >> 32;                    // rounds down, by design
    } else {
        return sc::mul_u64_u32_shr(val, runnable_avg_yN_inv[local_n], 32);
    }
}

// v3.8..v4.3: sum_{k=1..n} 1024 y^k for n full periods.  Up to 32 periods
// it is the table; from LOAD_AVG_MAX_N on it is the limit.  In between,
// whole blocks of 32 periods are folded in from the oldest: every block
// halves what came before it (y^32 = 1/2) and adds a full table row, and
// the leftover n <= 32 periods decay the result once more and add their
// own row.  At most ten trips around the loop, since n < 345.
template <version V, class A> typename A::uint __compute_runnable_contrib(typename A::u64 n) {
    static_assert(V <= version::v4_3,
                  "__compute_runnable_contrib() exists in v3.8..v4.11 only; "
                  "later releases use __accumulate_pelt_segments()");
    using uint = typename A::uint;

    uint contrib = 0;

    if (n <= LOAD_AVG_PERIOD)
        return uint(runnable_avg_yN_sum[n]);
    else if (n >= LOAD_AVG_MAX_N)
        return uint(LOAD_AVG_MAX);

    do {
        contrib = contrib / 2; // y^LOAD_AVG_PERIOD
        contrib += runnable_avg_yN_sum[LOAD_AVG_PERIOD];
        n -= LOAD_AVG_PERIOD;
    } while (n > LOAD_AVG_PERIOD);

    contrib = uint(decay_load<V, A>(typename A::u64(contrib), n));
    return contrib + runnable_avg_yN_sum[n];
}

// v4.12+: the new contribution of an update that crossed p >= 1 period
// boundaries, in three pieces:
//   c1 = d1 y^p         the tail of the period that was open before,
//   c2 = 1024 sum_{k=1..p-1} y^k   the full periods in between,
//   c3 = d3             the head of the period that is open now.
// c2 needs no loop: the whole series is LOAD_AVG_MAX, its part from k = p
// on is LOAD_AVG_MAX y^p, and the k = 0 term is 1024.  In integers
// LOAD_AVG_MAX y rounds to exactly LOAD_AVG_MAX - 1024, so c2 is 0 for p = 1.
template <version V, class A>
typename A::uint __accumulate_pelt_segments(typename A::u64 periods, typename A::uint d1,
                                            typename A::uint d3) {
    static_assert(V >= version::v4_12,
                  "__accumulate_pelt_segments() first appears in v4.12; "
                  "v3.8/v4.3 use __compute_runnable_contrib()");
    using u64 = typename A::u64;
    using uint = typename A::uint;

    uint c1, c2, c3 = d3; // y^0 == 1

    c1 = uint(decay_load<V, A>(u64(d1), periods));
    c2 = uint(LOAD_AVG_MAX - decay_load<V, A>(u64(LOAD_AVG_MAX), periods) - 1024);

    return c1 + c2 + c3;
}

// Advance the sums of sa by delta us (v4.12 and 6.x).
//
//   u' = u y^p + (d1 y^p + 1024 sum_{k=1..p-1} y^k + d3)
//        Step 1   Step 2
//
// where d1 completes the period left open by the last update, p is the
// number of boundaries crossed and d3 is the start of the new open period.
// Returns p, truncated to 32 bits as the kernel's return type does: only
// whether it is non-zero matters to callers, and a crossing of exactly a
// multiple of 2^32 periods reads as "no crossing".
//
// Parameters are the 6.x ones.  For v4.12, whose accumulate_sum() takes
// (delta, cpu, sa, weight, running, cfs_rq): load is that release's weight,
// runnable is unused, cpu only selects the default scale factors and
// cfs_rq is NULL.
//
// 6.x only computes the segments when load != 0: ___update_load_sum() has
// already cleared runnable and running in that case, so contrib would be
// unused.  Called directly with load == 0 and running != 0, 6.x therefore
// adds the raw delta, not the split one; v4.12 always splits.
template <version V, class A>
typename A::uint accumulate_sum(typename A::u64 delta, sched_avg<A> &sa, typename A::ulong load,
                                typename A::ulong runnable, typename A::sint running) {
    static_assert(V >= version::v4_12,
                  "accumulate_sum() first appears in v4.12; use the release's own "
                  "__update_load_avg() / __update_entity_runnable_avg()");
    using u64 = typename A::u64;
    using uint = typename A::uint;
    using ulong = typename A::ulong;

    uint contrib = uint(delta); // no boundary crossed: delta < 1024
    u64 periods;

    delta += sa.period_contrib;
    periods = delta / 1024;

    // Step 1: age the old sums by the boundaries crossed.
    if (periods) {
        sa.load_sum = decay_load<V, A>(sa.load_sum, periods);
        if constexpr (V >= version::v6_1)
            sa.runnable_sum = decay_load<V, A>(sa.runnable_sum, periods);
        sa.util_sum = uint(decay_load<V, A>(u64(sa.util_sum), periods));

        // Step 2: what this update adds, split at the boundaries.
        delta = delta % 1024;
        if constexpr (V >= version::v6_1) {
            if (load)
                contrib = __accumulate_pelt_segments<V, A>(periods, 1024 - sa.period_contrib,
                                                           uint(delta));
        } else {
            contrib = __accumulate_pelt_segments<V, A>(periods, 1024 - sa.period_contrib,
                                                       uint(delta));
        }
    }
    sa.period_contrib = uint(delta);

    if constexpr (V >= version::v6_1) {
        // load * contrib and runnable * contrib are unsigned long products:
        // 32 bits wide on ilp32, widened to 64 only by the addition.
        if (load)
            sa.load_sum += load * contrib;
        if (runnable)
            sa.runnable_sum += (runnable * contrib) << SCHED_CAPACITY_SHIFT;
        if (running)
            sa.util_sum += contrib << SCHED_CAPACITY_SHIFT;
    } else {
        // v4.12: cap_scale(contrib, scale_freq) = contrib * scale_freq >> 10
        // in unsigned long, stored back into the u32; util is kept in
        // capacity units (times scale_cpu).
        ulong scale_freq = arch_scale_freq_capacity<A>();
        ulong scale_cpu = arch_scale_cpu_capacity<A>();

        contrib = uint((contrib * scale_freq) >> SCHED_CAPACITY_SHIFT);
        if (load)
            sa.load_sum += load * contrib;
        if (running)
            sa.util_sum = uint(sa.util_sum + contrib * scale_cpu);
    }

    return uint(periods);
}

// 6.x: bring the sums of sa up to now (ns).  Returns 1 when a period
// boundary was crossed and the averages are due for recomputation.
//
// Only whole 1024ns units are consumed: last_update_time moves by
// delta << 10, and the sub-unit remainder waits for the next update (v4.12
// on; v3.8 and v4.3 set it to now and lose the remainder).  A clock that
// runs backwards resynchronises and accounts nothing.
//
// Something that is not runnable cannot be running or contributing
// runnable time, whatever the caller says; hence the clearing when
// load == 0 (a dequeued current entity is the usual case).
//
// v4.12 has the same time handling inside its ___update_load_avg(), which
// is built on this; it lacks the clearing (and a runnable signal).
template <version V, class A>
typename A::sint ___update_load_sum(typename A::u64 now, sched_avg<A> &sa, typename A::ulong load,
                                    typename A::ulong runnable, typename A::sint running) {
    static_assert(V >= version::v4_12,
                  "before v4.12 the time handling is part of __update_load_avg() / "
                  "__update_entity_runnable_avg()");
    using u64 = typename A::u64;

    u64 delta = now - sa.last_update_time;
    if (typename A::s64(delta) < 0) {
        sa.last_update_time = now;
        return 0;
    }

    delta >>= 10;
    if (!delta)
        return 0;

    sa.last_update_time += delta << 10;

    if constexpr (V >= version::v6_1) {
        if (!load) {
            runnable = 0;
            running = 0;
        }
    }

    if (!accumulate_sum<V, A>(delta, sa, load, runnable, running))
        return 0;

    return 1;
}

// 6.x: the largest value a sum can hold at the current position in the
// period.  Right after a boundary an always-busy sum is LOAD_AVG_MAX y =
// LOAD_AVG_MAX - 1024; it grows by one per us of the open period.
template <version V, class A> typename A::uint get_pelt_divider(const sched_avg<A> &sa) {
    static_assert(V >= version::v6_1,
                  "get_pelt_divider() is 6.x; v4.3/v4.12 divide by LOAD_AVG_MAX, "
                  "v3.8 by runnable_avg_period + 1");
    return PELT_MIN_DIVIDER + sa.period_contrib;
}

// 6.x: averages from sums.  Dividing by the position-dependent maximum
// rather than by LOAD_AVG_MAX keeps a busy signal at ~1024 instead of
// dipping by up to 1024/47742 of itself at every boundary.  load is the
// entity's weight (se_weight()) for load_avg; load_sum itself is unweighted
// in these releases.
template <version V, class A> void ___update_load_avg(sched_avg<A> &sa, typename A::ulong load) {
    static_assert(V >= version::v6_1,
                  "this is the 6.x ___update_load_avg(sa, load); v4.12 has "
                  "___update_load_avg(now, sa, weight, running)");
    using ulong = typename A::ulong;

    typename A::uint divider = get_pelt_divider<V, A>(sa);

    // load * load_sum is formed in 64 bits on both data models; the
    // quotient is cut to unsigned long.
    sa.load_avg = ulong(sc::div_u64(load * sa.load_sum, divider));
    sa.runnable_avg = ulong(sc::div_u64(sa.runnable_sum, divider));
    sa.util_avg = ulong(sa.util_sum / divider);
}

// v4.12: the averages, recomputed once a boundary was crossed (the second
// half of the release's ___update_load_avg()); load_sum is weighted already.
template <version V, class A> void averages_v4_12(sched_avg<A> &sa) {
    static_assert(V == version::v4_12, "6.x divides by get_pelt_divider(): ___update_load_avg(sa, load)");
    using ulong = typename A::ulong;
    sa.load_avg = ulong(sc::div_u64(sa.load_sum, LOAD_AVG_MAX));
    sa.util_avg = ulong(sa.util_sum / LOAD_AVG_MAX);
}

// v4.12: the whole update of one sched_avg, the release's
// ___update_load_avg(now, cpu, sa, weight, running, cfs_rq) with cfs_rq ==
// NULL and the cpu's default scale factors.  weight is what the caller
// passes for an entity, se->on_rq * scale_load_down(se->load.weight).
// Averages divide by the constant LOAD_AVG_MAX.
template <version V, class A>
typename A::sint ___update_load_avg(typename A::u64 now, sched_avg<A> &sa, typename A::ulong weight,
                                    typename A::sint running) {
    static_assert(V == version::v4_12,
                  "this is the v4.12 ___update_load_avg(now, sa, weight, running)");
    using ulong = typename A::ulong;

    // No "not runnable, so not running" clause in this release: a running
    // entity of weight 0 still accrues util_sum.
    if (!___update_load_sum<V, A>(now, sa, weight, ulong(0), running))
        return 0;

    averages_v4_12<V, A>(sa);
    return 1;
}

// v3.8, v4.3: the whole 1024ns units since the last update, with the clock
// moved to now (the sub-unit remainder is lost).  0 when less than a unit
// passed, or when time ran backwards (the clock then resynchronises).
template <class A> typename A::u64 units_since(typename A::u64 now, sched_avg<A> &sa) {
    typename A::u64 delta = now - sa.last_update_time;
    if (typename A::s64(delta) < 0) {
        sa.last_update_time = now;
        return 0;
    }
    delta >>= 10;
    if (delta)
        sa.last_update_time = now;
    return delta;
}

// v4.3: the release's __update_load_avg(now, cpu, sa, weight, running,
// cfs_rq) with cfs_rq == NULL and the default frequency scale.
//
// One pass, oldest first: top up the open period (delta_w of it), decay
// everything by the p + 1 boundaries crossed, add the p full periods from
// the table, then the start of the new period.  Rounding happens after
// each piece, so results can differ by a unit from the closed form of
// v4.12.  last_update_time is set to now, dropping the sub-1024ns part.
//
// delta_w is an int in the kernel, as it was in v3.8; the conversions
// below are the C ones (sign extension into 64 bits, wrap-around
// arithmetic) and only matter for a period_contrib that no kernel state
// reaches (>= 2^31).  util_sum counts plain us here: the frequency scale
// is applied as delta * scale_freq >> SCHED_CAPACITY_SHIFT (form not
// confirmed against v4.3 itself, see the top of the file), which is the
// identity for the default scale, and util_avg is util_sum << 10 over
// LOAD_AVG_MAX.
template <version V, class A>
typename A::sint __update_load_avg(typename A::u64 now, sched_avg<A> &sa, typename A::ulong weight,
                                   typename A::sint running) {
    static_assert(V == version::v4_3, "this is the v4.3 __update_load_avg()");
    using u64 = typename A::u64;
    using uint = typename A::uint;
    using ulong = typename A::ulong;
    using sint = typename A::sint;

    u64 delta, periods;
    uint contrib;
    sint delta_w, decayed = 0;
    ulong scale_freq = arch_scale_freq_capacity<A>();

    delta = units_since<A>(now, sa);
    if (!delta)
        return 0;

    // What the open period already holds.
    delta_w = sint(sa.period_contrib);
    if (delta + u64(delta_w) >= 1024) {
        decayed = 1;

        // The next open period starts empty; its share is added below.
        sa.period_contrib = 0;

        // Complete the open period: 1024 - delta_w more us of it.
        delta_w = sint(1024 - uint(delta_w));
        if (weight)
            sa.load_sum += weight * ulong(delta_w);
        if (running)
            sa.util_sum =
                uint(sa.util_sum + ((ulong(delta_w) * scale_freq) >> SCHED_CAPACITY_SHIFT));

        delta -= u64(delta_w);

        // Full periods beyond that one, and the start of the new one.
        periods = delta / 1024;
        delta = delta % 1024;

        sa.load_sum = decay_load<V, A>(sa.load_sum, periods + 1);
        sa.util_sum = uint(decay_load<V, A>(u64(sa.util_sum), periods + 1));

        // sum_{k=1..periods} 1024 y^k
        contrib = __compute_runnable_contrib<V, A>(periods);
        if (weight)
            sa.load_sum += weight * contrib;
        if (running)
            sa.util_sum = uint(sa.util_sum + ((contrib * scale_freq) >> SCHED_CAPACITY_SHIFT));
    }

    // The part of the open period covered by this update: y^0.
    if (weight)
        sa.load_sum += weight * delta;
    if (running)
        sa.util_sum = uint(sa.util_sum + ((delta * scale_freq) >> SCHED_CAPACITY_SHIFT));

    sa.period_contrib = uint(sa.period_contrib + delta);

    if (decayed) {
        sa.load_avg = ulong(sc::div_u64(sa.load_sum, LOAD_AVG_MAX));
        sa.util_avg = ulong((sa.util_sum << SCHED_LOAD_SHIFT) / LOAD_AVG_MAX);
    }

    return decayed;
}

// v3.8: bring runnable_avg_sum/runnable_avg_period up to now.  Both sums
// are series of the same shape; the period one counts every us, runnable
// or not, so their ratio is the runnable fraction.  The position in the
// open period is taken as runnable_avg_period % 1024 (not stored apart).
// Returns 1 when a boundary was crossed.  last_update_time stands for the
// release's last_runnable_update and is set to now.
template <version V, class A>
typename A::sint __update_entity_runnable_avg(typename A::u64 now, sched_avg<A> &sa,
                                              typename A::sint runnable) {
    static_assert(V == version::v3_8, "__update_entity_runnable_avg() is the v3.8 update");
    using u64 = typename A::u64;
    using uint = typename A::uint;
    using sint = typename A::sint;

    u64 delta, periods;
    uint runnable_contrib;
    sint delta_w, decayed = 0;

    delta = units_since<A>(now, sa);
    if (!delta)
        return 0;

    delta_w = sint(sa.runnable_avg_period % 1024);
    if (delta + u64(delta_w) >= 1024) {
        decayed = 1;

        // Finish the open period first (0 <= delta_w < 1024 here).
        delta_w = 1024 - delta_w;
        if (runnable)
            sa.runnable_avg_sum += uint(delta_w);
        sa.runnable_avg_period += uint(delta_w);

        delta -= u64(delta_w);

        periods = delta / 1024;
        delta = delta % 1024;

        // The u32 sums go through the 64-bit decay and come back intact.
        sa.runnable_avg_sum = uint(decay_load<V, A>(u64(sa.runnable_avg_sum), periods + 1));
        sa.runnable_avg_period =
            uint(decay_load<V, A>(u64(sa.runnable_avg_period), periods + 1));

        runnable_contrib = __compute_runnable_contrib<V, A>(periods);
        if (runnable)
            sa.runnable_avg_sum += runnable_contrib;
        sa.runnable_avg_period += runnable_contrib;
    }

    if (runnable)
        sa.runnable_avg_sum = uint(sa.runnable_avg_sum + delta);
    sa.runnable_avg_period = uint(sa.runnable_avg_period + delta);

    return decayed;
}

// v3.8: a task's share of its cfs_rq load, weight scaled by the runnable
// fraction.  The product is taken in unsigned long and cut to 32 bits
// before the division (on lp64 the upper half is simply dropped), and the
// + 1 keeps a fresh entity from dividing by zero.  weight is
// scale_load_down(se->load.weight); scale_load() and scale_load_down() are
// the identity in this release.  A runnable_avg_period of 0xffffffff, which
// no kernel state reaches, would divide by zero exactly as the kernel would.
template <version V, class A>
void __update_task_entity_contrib(sched_avg<A> &sa, typename A::ulong weight) {
    static_assert(V == version::v3_8, "__update_task_entity_contrib() is the v3.8 update");
    using uint = typename A::uint;

    uint contrib;

    contrib = uint(sa.runnable_avg_sum * weight);
    contrib = contrib / (sa.runnable_avg_period + 1);
    sa.load_avg_contrib = typename A::ulong(contrib);
}

// One update step in every release, for simulation and fuzzing.  Returns 1
// when the averages were recomputed, 0 otherwise.
//
// Inputs are the 6.x ones for a sched_entity: load = !!se->on_rq, runnable
// = se_runnable(), running = (cfs_rq->curr == se), weight = se_weight().
// Older releases read them as follows:
//   v4.12, v4.3: the release's weight argument is se->on_rq * weight, i.e.
//                weight when load != 0 and 0 otherwise; running as given;
//                runnable unused (no such signal); cfs_rq NULL.
//   v3.8:        __update_entity_runnable_avg(now, sa, !!runnable), then,
//                when a boundary was crossed, __update_task_entity_contrib()
//                with weight (the task path of update_entity_load_avg());
//                load and running unused.
template <version V, class A>
typename A::sint update_load_avg(typename A::u64 now, sched_avg<A> &sa, typename A::ulong load,
                                 typename A::ulong runnable, typename A::sint running,
                                 typename A::ulong weight) {
    using ulong = typename A::ulong;
    using sint = typename A::sint;

    if constexpr (V >= version::v6_1) {
        if (___update_load_sum<V, A>(now, sa, load, runnable, running)) {
            ___update_load_avg<V, A>(sa, weight);
            return 1;
        }
        return 0;
    } else if constexpr (V == version::v4_12) {
        ulong w = 0;
        if (load)
            w = weight;
        return ___update_load_avg<V, A>(now, sa, w, running);
    } else if constexpr (V == version::v4_3) {
        ulong w = 0;
        if (load)
            w = weight;
        return __update_load_avg<V, A>(now, sa, w, running);
    } else {
        sint on_rq = 0;
        if (runnable)
            on_rq = 1;
        if (!__update_entity_runnable_avg<V, A>(now, sa, on_rq))
            return 0;
        __update_task_entity_contrib<V, A>(sa, weight);
        return 1;
    }
}

} // namespace sc::pelt
