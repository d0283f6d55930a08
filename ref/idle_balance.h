// Limiting newly-idle balancing: the average idle time of a runqueue, the
// per-domain cost of a newidle balance, and the decay of that cost (seed 002,
// Jason Low's "sched: Limiting idle balance", and its 6.x descendants).
//
// A CPU that runs out of work tries to pull a task from a busier CPU before
// it goes idle (idle_balance(), later newidle_balance() and
// sched_balance_newidle()).  That search costs time.  If the CPU would have
// been woken again before the search could finish, the search is pure
// overhead and delays the wake-up.  So the scheduler keeps:
//
//   rq->avg_idle            an average of how long this CPU stays idle,
//                           sampled at every wake-up of an idle runqueue;
//   sd->max_newidle_lb_cost the longest newidle balance seen in this
//                           domain, decayed slowly so that it can forget;
//   rq->max_idle_balance_cost  the longest whole newidle pass; it also caps
//                           avg_idle, so that one long idle period cannot make
//                           the CPU believe it has time for everything.
//
// and skips a balance (or stops walking up the domains) when the expected
// idle time is shorter than what the balance is expected to cost.
//
// The average is the kernel's update_avg(): one eighth of the way towards
// the new sample,
//
//   avg' = avg + (sample - avg) / 8
//
// where the difference is taken as a signed 64-bit value.  Up to v3.13 the
// division is an arithmetic shift, diff >> 3, which rounds towards minus
// infinity (-1 >> 3 == -1); from v5.x on it is diff / 8, which rounds towards
// zero (-1 / 8 == 0).  So a falling average reaches its sample in the old
// kernels but stays up to 7ns above it in the new ones.
//
// The per-domain cost decays by 253/256 (about 1.2%) at most once per HZ+1
// jiffies, i.e. roughly 1% per second; it halves after about 59 decays.
//
// Six variants, written once and templated on the arithmetic A (see
// ref/kernel.h) and on the version V:
//
//  v3_11    before the series (read in a v3.11/v3.12-era core.c and in
//           v3.11-rc excerpts of fair.c): a wake-up sample above
//           2*sysctl_sched_migration_cost sets avg_idle to that cap outright,
//           a smaller one is averaged in; idle_balance() skips when avg_idle
//           < sysctl_sched_migration_cost and otherwise balances every domain
//           until a task is pulled.
//  low_1    + patch 1/3 "Reduce overestimating rq->avg_idle" (abfafa54db9a):
//           every sample is averaged in first, and only the average is
//           capped.  The v4 posting was not available: patches 1-3 follow
//           the commits as merged for v3.13 (read in a v3.13.10 tree), with
//           the hunks of the later patches taken out for low_1 and low_1_2.
//  low_1_2  + patch 2/3 "Consider max cost of idle balance per sched domain"
//           (9bd721c55c8a):
//           sd->max_newidle_lb_cost, and the walk up the domains stops once
//           avg_idle < curr_cost + sd->max_newidle_lb_cost.
//  low_1_3  + patch 3/3 "Periodically decay max cost of idle balance"
//           (f48627e686a6):
//           rebalance_domains() decays each domain's cost by 253/256 when
//           jiffies passes sd->next_decay_max_lb_cost (then HZ jiffies
//           later), rq->max_idle_balance_cost = max(sysctl, sum of the
//           domain costs), and the wake-up cap becomes
//           2*rq->max_idle_balance_cost.  This is the v3.13 code.
//  v6_1,    Linux 6.1 and 6.12 as shipped in Debian's linux-source-6.1
//  v6_12    (6.1.192) and linux-source-6.12 (6.12.117), the trees the kernel
//           oracles are extracted from: update_avg() with "/ 8",
//           update_newidle_cost() (a new maximum restarts the decay clock;
//           a decay needs jiffies > last_decay_max_lb_cost + HZ, in both the
//           periodic and the newidle path), the early skip
//           !overload || avg_idle < sd->max_newidle_lb_cost, and
//           update_blocked_averages() counted into the first balanced
//           domain's cost.  Both trees carry the stable backport of the
//           NI_RANDOM "proportional newidle balance" dice (sched_feat
//           NI_RANDOM, default on, knob below); with it off the cost
//           arithmetic is that of the upstream v6.1 release (whose
//           update_newidle_cost() has no success argument; the upstream
//           v6.12 text was not compared).  6.1 still
//           keeps rq->wake_avg_idle (for SIS_PROP); 6.12 has no such field.
//           The two differ in when the domain walk stops after a balance
//           (see newidle_env::stop_after).
//
// Times: rq_clock() and sched_clock_cpu() readings and costs are u64
// nanoseconds; jiffies and HZ are the tick counter and its rate.  The
// sysctl is the kernel's const_debug unsigned int, so 2*sysctl is a 32-bit
// product on both data models.
//
// Not modelled: which tasks load_balance() moves and how long it takes (both
// are inputs), next_balance bookkeeping, ttwu_pending / cpu_active early
// exits, SD_LOAD_BALANCE / SD_BALANCE_NEWIDLE (every domain is taken to have
// both), the nohz blocked-load kick, and the "higher class task present"
// -1 return of 6.x.
//
// Signed arithmetic wraps as in the kernel (-fno-strict-overflow; the
// project is built with -fwrapv).  Where C converts implicitly between types
// of different width or signedness, the conversion is written out.
#pragma once
#include <cstdint>
#include <stdexcept>
#include <string>
#include <string_view>
#include <type_traits>
#include <vector>

#include "ref/kernel.h"

namespace sc::idlebal {

enum class version { v3_11, low_1, low_1_2, low_1_3, v6_1, v6_12 };

inline const char *version_name(version v) {
    switch (v) {
    case version::v3_11: return "v3.11";
    case version::low_1: return "low-1";
    case version::low_1_2: return "low-1-2";
    case version::low_1_3: return "low-1-3";
    case version::v6_1: return "v6.1";
    case version::v6_12: return "v6.12";
    }
    return "?";
}

// What each version has, fixed at compile time.
template <version V> constexpr bool is_6x = V >= version::v6_1;
// update_avg() rounds with ">> 3" up to v3.13, with "/ 8" in 6.x.
template <version V> constexpr bool update_avg_shifts = V <= version::low_1_3;
// Patch 1/3: average first, cap afterwards.
template <version V> constexpr bool caps_after_average = V >= version::low_1;
// Patch 2/3: sd->max_newidle_lb_cost and the cost-bounded domain walk.
template <version V> constexpr bool has_max_newidle_lb_cost = V >= version::low_1_2;
// Patch 3/3: decay of the domain cost, rq->max_idle_balance_cost.
template <version V> constexpr bool has_decay = V >= version::low_1_3;
// 6.x: update_newidle_cost() and update_newidle_stats().
template <version V> constexpr bool has_update_newidle_cost = is_6x<V>;

// The domain levels modelled (SMT, MC, PKG, NUMA).
constexpr int SD_MAX = 4;

// ~1% per second: the cost keeps 253/256 of itself at each decay.
constexpr unsigned DECAY_MUL = 253;
constexpr unsigned DECAY_DIV = 256;

// The fields of struct sched_domain that this code reads or writes.
template <class A> struct sched_domain {
    typename A::u64 max_newidle_lb_cost{};      // low-1-2 on
    typename A::ulong next_decay_max_lb_cost{}; // low-1-3: jiffies of the next decay
    typename A::ulong last_decay_max_lb_cost{}; // 6.x: jiffies of the last decay or new max
    // 6.x (Debian trees, NI_RANDOM): newidle balance success statistics.
    typename A::uint newidle_call{};
    typename A::uint newidle_success{};
    typename A::uint newidle_ratio{};
};

// The fields of struct rq, and its domains (sd[0] is this_rq->sd, the
// lowest level; for_each_domain() walks sd[0], sd[1], ...).
template <class A> struct rq {
    typename A::u64 avg_idle{};
    typename A::u64 idle_stamp{};            // 0: not idle since the last wake-up
    typename A::u64 max_idle_balance_cost{}; // low-1-3 on
    typename A::u64 wake_avg_idle{};         // 6.1 only (SIS_PROP)
    typename A::ulong wake_stamp{};          // 6.1 only
    int nr_domains = 1;                      // 0..SD_MAX levels
    sched_domain<A> sd[SD_MAX];
};

// Tunables.  The sysctl is an input; HZ is a kernel configuration constant
// (100, 250, 300 or 1000); NI_RANDOM is a sched_feat of the 6.x trees.
template <class A> struct knobs {
    typename A::uint sysctl_sched_migration_cost{500000u};
    int HZ = 250;
    bool NI_RANDOM = true;
};

// One newly-idle balance: what happens around it.
template <class A> struct newidle_env {
    typename A::u64 now{};         // rq_clock(this_rq) as the CPU goes idle: the new idle_stamp
    typename A::ulong jiffies{};   // 6.x: read by update_newidle_cost()
    bool overload = true;          // 6.x: this_rq->rd->overload (some CPU has more than one task)
    typename A::u64 sched_clock{}; // sched_clock_cpu() when the balancing starts
    typename A::u64 blocked_cost{};    // 6.x: time spent in update_blocked_averages()
    typename A::u64 lb_cost[SD_MAX]{}; // time spent in load_balance() at each level
    int pulled_at = -1;            // the level whose load_balance() pulls a task (-1: none)
    // The walk stops right after balancing this level (-1: never):
    //   6.1:  this_rq->nr_running > 0 or ttwu_pending after that level;
    //   6.12: load_balance() cleared continue_balancing there.
    // Ignored before 6.x (only a pulled task stops the walk there).
    int stop_after = -1;
    typename A::uint rng[SD_MAX]{}; // 6.x NI_RANDOM: sched_rng() at each level
    bool enqueued = false;          // 6.x: cfs.h_nr_running != 0 after the walk (a task
                                    // arrived while the lock was dropped)
};

// What happened at each level of one newidle balance.
enum class level_outcome : unsigned char {
    not_visited, // the walk ended before this level (or the balance was skipped)
    cost_break,  // avg_idle < curr_cost + sd->max_newidle_lb_cost: the walk ended here
    dice_skip,   // 6.x NI_RANDOM: the dice said no; the walk goes on
    balanced,    // load_balance() ran here
};

template <class A> struct newidle_result {
    int pulled_task = 0;    // the return value (0 or 1; the -1 case is not modelled)
    bool early_skip = false; // returned before the domain walk
    level_outcome level[SD_MAX]{};
    typename A::u64 curr_cost{}; // the whole pass, as compared with max_idle_balance_cost
};

// One periodic rebalance_domains() pass.
template <class A> struct rebalance_env {
    typename A::ulong jiffies{};
    int stop_at = -1; // load_balance() at this level clears continue_balancing (-1: never)
};

// time_after(a, b): a is after b, told from the sign of the wrapped
// difference, so it stays right across a wrap of jiffies (as long as the two
// are less than LONG_MAX apart).
template <class A> bool time_after(typename A::ulong a, typename A::ulong b) {
    using slong = typename A::slong;
    return bool(slong(b - a) < 0);
}

// avg += (sample - avg) / 8.  The u64 difference wraps when the sample is
// below the average and is then read as a negative s64.  Up to v3.13 the
// eighth is an arithmetic right shift (rounds down: -1 >> 3 == -1); 6.x
// divides (rounds towards zero: -1 / 8 == 0).  Adding the s64 back to the
// u64 converts it to u64 first, i.e. it subtracts modulo 2^64.
template <version V, class A> void update_avg(typename A::u64 &avg, typename A::u64 sample) {
    using u64 = typename A::u64;
    using s64 = typename A::s64;

    s64 diff = s64(sample - avg);
    if constexpr (update_avg_shifts<V>)
        avg = avg + u64(diff >> 3);
    else
        avg = avg + u64(diff / 8);
}

template <version V, class A> void update_newidle_stats(sched_domain<A> &sd, typename A::uint success);
template <version V, class A>
bool update_newidle_cost(sched_domain<A> &sd, typename A::u64 cost, typename A::uint success,
                         typename A::ulong jiffies, const knobs<A> &k);

// The leaf functions the walks below call (update_rq_avg_idle(),
// idle_balance(), rebalance_domains()): by default this file's own.  A walk
// takes another set as its last template argument; proofs/kernel/idlebal_kernel.h
// passes an extracted kernel's update_avg() and update_newidle_cost(), so
// that an invariant stated over the walk runs on the kernel's arithmetic.
template <version V> struct ref_leaves {
    template <class A> static void update_avg(typename A::u64 &avg, typename A::u64 sample) {
        idlebal::update_avg<V, A>(avg, sample);
    }
    template <class A> static void update_newidle_stats(sched_domain<A> &sd, typename A::uint success) {
        idlebal::update_newidle_stats<V, A>(sd, success);
    }
    template <class A>
    static bool update_newidle_cost(sched_domain<A> &sd, typename A::u64 cost, typename A::uint success,
                                    typename A::ulong jiffies, const knobs<A> &k) {
        return idlebal::update_newidle_cost<V, A>(sd, cost, success, jiffies, k);
    }
};

// sched_init() and sd_init(): a fresh runqueue and its domains at jiffies.
template <version V, class A> void init_rq(rq<A> &r, typename A::ulong jiffies, const knobs<A> &k) {
    using u64 = typename A::u64;
    using uint = typename A::uint;

    r.idle_stamp = 0;
    // C: 2 * unsigned int is an unsigned int product (it wraps at 2^32 on
    // both data models) before it is widened to u64.
    r.avg_idle = u64(uint(2 * k.sysctl_sched_migration_cost));
    if constexpr (V == version::v6_1) {
        r.wake_stamp = jiffies;
        r.wake_avg_idle = r.avg_idle;
    }
    if constexpr (has_decay<V>)
        r.max_idle_balance_cost = u64(k.sysctl_sched_migration_cost);
    for (int i = 0; i < SD_MAX; i++) {
        sched_domain<A> &sd = r.sd[i];
        sd.max_newidle_lb_cost = 0;
        if constexpr (V == version::low_1_3)
            sd.next_decay_max_lb_cost = jiffies;
        if constexpr (is_6x<V>) {
            sd.last_decay_max_lb_cost = jiffies;
            // "50% success rate" to start with.
            sd.newidle_call = 512;
            sd.newidle_success = 256;
            sd.newidle_ratio = 512;
        }
    }
}

// The idle-time sample taken when a task wakes on a runqueue that was idle
// (the idle_stamp block of ttwu_do_wakeup(), ttwu_do_activate() in 6.12;
// later kernels call it update_rq_avg_idle()).  now is rq_clock(rq).
template <version V, class A, class L = ref_leaves<V>>
void update_rq_avg_idle(rq<A> &r, typename A::u64 now, typename A::ulong jiffies, const knobs<A> &k) {
    using u64 = typename A::u64;
    using uint = typename A::uint;

    if (!r.idle_stamp)
        return;

    u64 delta = now - r.idle_stamp;
    u64 max;
    if constexpr (has_decay<V>) {
        // Twice the longest recent newidle pass: enough room for a balance.
        max = 2 * r.max_idle_balance_cost;
    } else {
        // C: an unsigned int product, widened afterwards (see init_rq()).
        max = u64(uint(2 * k.sysctl_sched_migration_cost));
    }

    if constexpr (caps_after_average<V>) {
        // Average the sample in, then cap the average: one long idle period
        // moves avg_idle by an eighth of it at most.
        L::template update_avg<A>(r.avg_idle, delta);

        if (r.avg_idle > max)
            r.avg_idle = max;
    } else {
        // v3.11: a long sample throws the history away and sets the cap.
        if (delta > max)
            r.avg_idle = max;
        else
            L::template update_avg<A>(r.avg_idle, delta);
    }

    if constexpr (V == version::v6_1) {
        // SIS_PROP's budget: half the idle average, aged per jiffy elsewhere.
        r.wake_stamp = jiffies;
        r.wake_avg_idle = r.avg_idle / 2;
    } else {
        (void)jiffies;
    }

    r.idle_stamp = 0;
}

// 6.x NI_RANDOM statistics: calls and successes of newidle balancing at
// this level, both halved every 1024 calls so that they age; the ratio
// (successes per 1024 calls, weighted) is refreshed at each halving.
template <version V, class A> void update_newidle_stats(sched_domain<A> &sd, typename A::uint success) {
    static_assert(has_update_newidle_cost<V>, "update_newidle_stats() is 6.x only");
    sd.newidle_call += 1;
    sd.newidle_success += success;

    if (sd.newidle_call >= 1024) {
        sd.newidle_ratio = sd.newidle_success;
        sd.newidle_call /= 2;
        sd.newidle_success /= 2;
    }
}

// 6.x: track the largest newidle balance cost of a domain, or decay it.  A
// new maximum restarts the decay clock, so a decay happens only after more
// than HZ jiffies without a new maximum.  Called with cost 0 from the
// periodic balance, where it can only decay.  Returns true when it decayed.
template <version V, class A>
bool update_newidle_cost(sched_domain<A> &sd, typename A::u64 cost, typename A::uint success,
                         typename A::ulong jiffies, const knobs<A> &k) {
    static_assert(has_update_newidle_cost<V>, "update_newidle_cost() is 6.x only");
    using ulong = typename A::ulong;

    ulong next_decay = sd.last_decay_max_lb_cost + ulong(k.HZ);
    ulong now = jiffies;

    if (cost)
        update_newidle_stats<V, A>(sd, success);

    if (cost > sd.max_newidle_lb_cost) {
        // A new maximum: a balance here can take this long.
        sd.max_newidle_lb_cost = cost;
        sd.last_decay_max_lb_cost = now;
    } else if (time_after<A>(now, next_decay)) {
        // Keep 253/256 of it: ~1% per second, so that a cost measured once
        // under unusual conditions is eventually forgotten.
        sd.max_newidle_lb_cost = (sd.max_newidle_lb_cost * DECAY_MUL) / DECAY_DIV;
        sd.last_decay_max_lb_cost = now;
        return true;
    }

    return false;
}

// The part of rebalance_domains() (sched_balance_domains() in 6.12) that
// looks after the newidle costs; the balancing itself is an input
// (stop_at).  Before low-1-3 there is nothing to do.
//
// low-1-3: a domain whose next_decay_max_lb_cost has passed decays and is
// due again HZ jiffies later; need_decay, once set, stays set for the pass.
// 6.x: need_decay is what update_newidle_cost() said for the domain just
// visited, so only a decay of the last domain the pass reaches refreshes
// rq->max_idle_balance_cost.
//
// Once a level's load_balance() clears continue_balancing, the walk goes on
// only while domains are decaying (to collect their costs), and stops at
// the first one that is not.
template <version V, class A, class L = ref_leaves<V>>
void rebalance_domains(rq<A> &r, const rebalance_env<A> &env, const knobs<A> &k) {
    using u64 = typename A::u64;
    using ulong = typename A::ulong;

    if constexpr (!has_decay<V>) {
        (void)r;
        (void)env;
        (void)k;
        return;
    } else {
        int continue_balancing = 1;
        bool need_decay = false;
        u64 max_cost = 0;

        for (int i = 0; i < r.nr_domains; i++) {
            sched_domain<A> &sd = r.sd[i];

            if constexpr (is_6x<V>) {
                need_decay = L::template update_newidle_cost<A>(sd, u64(0), typename A::uint(0), env.jiffies, k);
            } else {
                if (time_after<A>(env.jiffies, sd.next_decay_max_lb_cost)) {
                    sd.max_newidle_lb_cost = (sd.max_newidle_lb_cost * DECAY_MUL) / DECAY_DIV;
                    sd.next_decay_max_lb_cost = env.jiffies + ulong(k.HZ);
                    need_decay = true;
                }
            }
            max_cost += sd.max_newidle_lb_cost;

            if (!continue_balancing) {
                if (need_decay)
                    continue;
                break;
            }

            // load_balance() at this level (not modelled) may tell us that
            // another CPU of the group balances the levels above.
            if (i == env.stop_at)
                continue_balancing = 0;
        }

        if (need_decay) {
            // The runqueue-wide cost decays with its domains, but never
            // below the sysctl, so that avg_idle's cap stays sensible.
            r.max_idle_balance_cost = kmax(u64(k.sysctl_sched_migration_cost), max_cost);
        }
    }
}

// A newly-idle balance (idle_balance() up to v3.13, newidle_balance() /
// sched_balance_newidle() in 6.x) as far as the costs and avg_idle go.
//
// The CPU's idle time starts now (idle_stamp), so the time spent balancing
// counts as idle time in the next wake-up sample.
//
// Skips: v3.x returns at once when avg_idle < sysctl_sched_migration_cost;
// 6.x when no CPU is overloaded or avg_idle < the lowest domain's cost.
// Then each level, lowest first:
//   low-1-2 on: stop when avg_idle < curr_cost + sd->max_newidle_lb_cost,
//     i.e. when the time used so far plus what this level may take exceeds
//     the expected idle time;
//   6.x NI_RANDOM: a 1024-sided dice against 1 + newidle_ratio skips the
//     level (weighting the success statistics by the odds it was given);
//   load_balance(); its cost is the sched_clock time since the previous
//     reading (6.x takes the first reading before update_blocked_averages(),
//     and a dice skip takes none, so that time goes to the next balanced
//     level); curr_cost adds it up; the domain keeps its maximum;
//   a pulled task ends the walk (and, 6.x, so does stop_after).
// low-1-3 and 6.x finally raise rq->max_idle_balance_cost to curr_cost.
// A pulled task clears idle_stamp: the CPU did not go idle after all.
template <version V, class A, class L = ref_leaves<V>>
newidle_result<A> idle_balance(rq<A> &r, const newidle_env<A> &env, const knobs<A> &k) {
    using u64 = typename A::u64;
    using uint = typename A::uint;

    newidle_result<A> res;
    int pulled_task = 0;
    u64 curr_cost = 0;
    // sched_clock_cpu() readings around each load_balance() (low-1-2 on).
    [[maybe_unused]] u64 t0 = 0, t1 = 0, domain_cost = 0;

    r.idle_stamp = env.now;

    if constexpr (!is_6x<V>) {
        // Will wake up very soon: no time for a balance.  (The u32 sysctl
        // is widened to u64 for the comparison.)
        if (r.avg_idle < u64(k.sysctl_sched_migration_cost)) {
            res.early_skip = true;
            return res;
        }

        for (int i = 0; i < r.nr_domains; i++) {
            sched_domain<A> &sd = r.sd[i];

            if constexpr (has_max_newidle_lb_cost<V>) {
                if (r.avg_idle < curr_cost + sd.max_newidle_lb_cost) {
                    res.level[i] = level_outcome::cost_break;
                    break;
                }
                t0 = env.sched_clock;
            }

            if (i == env.pulled_at)
                pulled_task = 1;
            res.level[i] = level_outcome::balanced;

            if constexpr (has_max_newidle_lb_cost<V>) {
                t1 = t0 + env.lb_cost[i]; // sched_clock_cpu() after load_balance()
                domain_cost = t1 - t0;
                if (domain_cost > sd.max_newidle_lb_cost)
                    sd.max_newidle_lb_cost = domain_cost;

                curr_cost += domain_cost;
            }

            if (pulled_task) {
                r.idle_stamp = 0;
                break;
            }
        }

        if constexpr (has_decay<V>) {
            if (curr_cost > r.max_idle_balance_cost)
                r.max_idle_balance_cost = curr_cost;
        }
    } else {
        if (r.nr_domains == 0)
            goto out;

        // Nothing to pull, or not even the lowest level would finish in
        // time: skip the blocked-load update and the walk.  (C's "||",
        // short-circuit included, as two tests.)
        if (!env.overload) {
            res.early_skip = true;
            goto out;
        }
        if (r.avg_idle < r.sd[0].max_newidle_lb_cost) {
            res.early_skip = true;
            goto out;
        }

        t0 = env.sched_clock;
        t1 = t0 + env.blocked_cost; // the clock after update_blocked_averages()

        for (int i = 0; i < r.nr_domains; i++) {
            sched_domain<A> &sd = r.sd[i];

            if (r.avg_idle < curr_cost + sd.max_newidle_lb_cost) {
                res.level[i] = level_outcome::cost_break;
                break;
            }

            uint weight = 1;

            if (k.NI_RANDOM) {
                // Throw a 1024-sided dice and balance with the odds of the
                // recent success rate; a success then counts for the
                // inverse of those odds, (1024 + w/2) / w rounded.
                uint d1k = env.rng[i] % 1024;
                weight = 1 + sd.newidle_ratio;
                if (d1k > weight) {
                    L::template update_newidle_stats<A>(sd, uint(0));
                    res.level[i] = level_outcome::dice_skip;
                    continue;
                }
                weight = (1024 + weight / 2) / weight;
            }

            if (i == env.pulled_at)
                pulled_task = 1;
            res.level[i] = level_outcome::balanced;

            t1 = t1 + env.lb_cost[i]; // sched_clock_cpu() after load_balance()
            domain_cost = t1 - t0;
            curr_cost += domain_cost;
            t0 = t1;

            // C: weight * !!pulled_task, an unsigned int.
            uint success = 0;
            if (pulled_task)
                success = weight;
            L::template update_newidle_cost<A>(sd, domain_cost, success, env.jiffies, k);

            if (pulled_task || i == env.stop_after)
                break;
        }

        if (curr_cost > r.max_idle_balance_cost)
            r.max_idle_balance_cost = curr_cost;

        // A task arrived while the lock was dropped: not going idle.
        if (env.enqueued && !pulled_task)
            pulled_task = 1;

    out:
        if (pulled_task)
            r.idle_stamp = 0;
    }

    res.pulled_task = pulled_task;
    res.curr_cost = curr_cost;
    return res;
}

// ---------------------------------------------------------------------------
// A timeline: a runqueue, its knobs, and a list of events.  Proofs build
// scenarios with symbolic holes, reproducers store concrete ones, fuzzers
// generate them; simulate() runs one on any arithmetic.
// ---------------------------------------------------------------------------

enum class op : unsigned char {
    wakeup,    // update_rq_avg_idle() at rq_clock now, jiffies
    newidle,   // idle_balance() with ni
    rebalance, // rebalance_domains() at jiffies, stop_at
};
constexpr int op_count = 3;

inline std::string_view op_name(op o) {
    constexpr std::string_view names[op_count] = {"wakeup", "newidle", "rebalance"};
    return names[static_cast<int>(o)];
}

template <class A> struct step {
    op kind = op::wakeup;
    typename A::u64 now{};       // wakeup
    typename A::ulong jiffies{}; // wakeup, rebalance
    int stop_at = -1;            // rebalance
    newidle_env<A> ni;           // newidle
};

template <class A> struct scenario {
    rq<A> init;
    knobs<A> kn;
    std::vector<step<A>> steps;
};

template <class A> struct record {
    rq<A> after;
    newidle_result<A> ni; // newidle steps only
};

template <class A> struct trace {
    std::vector<record<A>> recs;
};

// A runqueue as sched_init()/sd_init() leave it, with nr_domains levels.
template <version V, class A> rq<A> fresh_rq(int nr_domains, typename A::ulong jiffies, const knobs<A> &k) {
    if (nr_domains < 0 || nr_domains > SD_MAX)
        throw std::invalid_argument("idlebal: nr_domains must be 0.." + std::to_string(SD_MAX));
    rq<A> r;
    r.nr_domains = nr_domains;
    init_rq<V, A>(r, jiffies, k);
    return r;
}

template <version V, class A> trace<A> simulate(const scenario<A> &s) {
    if (s.init.nr_domains < 0 || s.init.nr_domains > SD_MAX)
        throw std::invalid_argument("idlebal: nr_domains must be 0.." + std::to_string(SD_MAX));
    trace<A> t;
    rq<A> r = s.init;
    t.recs.reserve(s.steps.size());
    for (const step<A> &st : s.steps) {
        record<A> rec;
        switch (st.kind) {
        case op::wakeup: update_rq_avg_idle<V, A>(r, st.now, st.jiffies, s.kn); break;
        case op::newidle: rec.ni = idle_balance<V, A>(r, st.ni, s.kn); break;
        case op::rebalance: {
            rebalance_env<A> env;
            env.jiffies = st.jiffies;
            env.stop_at = st.stop_at;
            rebalance_domains<V, A>(r, env, s.kn);
            break;
        }
        }
        rec.after = r;
        t.recs.push_back(rec);
    }
    return t;
}

// The version behind a registry code (Variant::code), for concrete runs.
template <class A> trace<A> simulate(version v, const scenario<A> &s) {
    switch (v) {
    case version::v3_11: return simulate<version::v3_11, A>(s);
    case version::low_1: return simulate<version::low_1, A>(s);
    case version::low_1_2: return simulate<version::low_1_2, A>(s);
    case version::low_1_3: return simulate<version::low_1_3, A>(s);
    case version::v6_1: return simulate<version::v6_1, A>(s);
    case version::v6_12: return simulate<version::v6_12, A>(s);
    }
    throw std::invalid_argument("idlebal: unknown version");
}

} // namespace sc::idlebal
