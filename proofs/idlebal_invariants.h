// The idle-balance invariants (seed 002): avg_idle, its cap, the newidle
// cost per domain, its decay, and the skip tests, written once against the
// kernel-shaped entry points of ref/idle_balance.h (the wake-up sample
// update_rq_avg_idle(), the newly-idle balance idle_balance(), the periodic
// rebalance_domains(), and sched_init()'s init_rq()), so that a kernel
// oracle of the family can supply the same four later.
//
// State invariants are proved by induction over one step: the base case is
// the runqueue sched_init() leaves (every sysctl, every jiffies), and the
// step takes ANY state that satisfies the invariant and its auxiliaries
// through one wake-up, one newidle balance or one periodic rebalance, with
// every input symbolic except the shape of the domain walk (how many
// levels, where a task is pulled, where the walk is told to stop, the
// NI_RANDOM and overload bits), which is split into concrete cases.  The
// step's checks restate the whole hypothesis, so PROVED covers every trace
// of any length.  A counterexample of the step is one step from a state
// that satisfies the hypothesis; the tests rebuild each one from the
// initial state to show that it is reached.
//
// Domain (part of every verdict's text): times are u64 nanoseconds; clock
// readings (rq_clock, sched_clock, idle_stamp) stay below 2^63; one measured
// duration (a load_balance(), update_blocked_averages()) is at most 2^40 ns
// (18 minutes); so a domain's max cost stays <= 2^42, the runqueue's max
// cost <= 2^45 and avg_idle <= 2^46 (the step checks that these bounds are
// kept); sysctl_sched_migration_cost is any unsigned int; jiffies and the
// decay stamps are any unsigned long (so any HZ gives the same one-step
// behaviours; HZ = 250 unless a case says otherwise).
#pragma once
#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <string>
#include <vector>

#include "proofs/engine/kprop_engine.h"
#include "proofs/pelt_invariants.h"
#include "ref/idle_balance.h"

namespace sc::proofs::idlebal_inv {

using idlebal::level_outcome;
using idlebal::version;
using pelt_inv::eq;
using pelt_inv::le;

// The reference variant at version V, as the invariants call it.
template <version V> struct RefIdleBal {
    static constexpr version shape = V;
    static constexpr bool ni_random = idlebal::is_6x<V>; // the Debian trees' dice, a knob of the cases
    using leaves = idlebal::ref_leaves<V>;
    template <class A> struct on {
        static void init_rq(idlebal::rq<A> &r, typename A::ulong jiffies, const idlebal::knobs<A> &k) {
            idlebal::init_rq<V, A>(r, jiffies, k);
        }
        static void update_rq_avg_idle(idlebal::rq<A> &r, typename A::u64 now, typename A::ulong jiffies,
                                       const idlebal::knobs<A> &k) {
            idlebal::update_rq_avg_idle<V, A>(r, now, jiffies, k);
        }
        static idlebal::newidle_result<A> idle_balance(idlebal::rq<A> &r, const idlebal::newidle_env<A> &env,
                                                      const idlebal::knobs<A> &k) {
            return idlebal::idle_balance<V, A>(r, env, k);
        }
        static void rebalance_domains(idlebal::rq<A> &r, const idlebal::rebalance_env<A> &env,
                                      const idlebal::knobs<A> &k) {
            idlebal::rebalance_domains<V, A>(r, env, k);
        }
    };
};

constexpr std::uint64_t U64_MAX = ~std::uint64_t(0);
constexpr std::uint64_t U32_MAX = 0xffffffffu;
constexpr std::uint64_t CLOCK_MAX = (std::uint64_t(1) << 63) - 1;
constexpr std::uint64_t COST_MAX = std::uint64_t(1) << 40;    // one measured duration
constexpr std::uint64_t SD_COST_MAX = std::uint64_t(1) << 42; // sd->max_newidle_lb_cost
constexpr std::uint64_t RQ_COST_MAX = std::uint64_t(1) << 45; // rq->max_idle_balance_cost
constexpr std::uint64_t AVG_MAX = std::uint64_t(1) << 46;     // rq->avg_idle
constexpr std::uint64_t SYSCTL_DEFAULT = 500000;              // sysctl_sched_migration_cost at boot
constexpr int HZ_VALUES[] = {100, 250, 300, 1000};

template <class I> constexpr version V_of = I::shape;
template <class I> constexpr bool six = idlebal::is_6x<I::shape>;
template <class I> constexpr bool has_cost = idlebal::has_max_newidle_lb_cost<I::shape>;
template <class I> constexpr bool has_decay = idlebal::has_decay<I::shape>;
// Whether the cases throw NI_RANDOM's dice: the 6.x references and the
// oracles of trees with the backport (an upstream tree has no dice).
template <class I> constexpr bool dice = six<I> && I::ni_random;

template <class I> std::string domain_text() {
    return std::string("times u64 ns: clock readings < 2^63, one measured duration <= 2^40, domain costs <= 2^42, "
                       "rq->max_idle_balance_cost <= 2^45, avg_idle <= 2^46; any unsigned int "
                       "sysctl_sched_migration_cost; any jiffies and decay stamps; HZ 250; ") +
           (!six<I>   ? "every walk shape of 0..4 domain levels"
            : dice<I> ? "newidle walks over 0..1 domain levels only (NI_RANDOM on and off), periodic rebalances over 0..4"
                      : "newidle walks over 0..1 domain levels only (no NI_RANDOM dice in this tree), periodic "
                        "rebalances over 0..4");
}

// ---------------------------------------------------------------------------
// The cases: which step, and the concrete shape of its domain walk.

enum class stepk { init, wakeup, newidle, rebalance, progress, allowed };

struct StepCase {
    stepk k = stepk::wakeup;
    int nr = 1;          // rq->nr_domains
    int pulled_at = -1;  // newidle: load_balance() pulls a task at this level
    int stop_after = -1; // newidle, 6.x: the walk is told to stop after this level
    bool ni_random = false, overload = true, enqueued = false;
    int stop_at = -1;    // rebalance: continue_balancing cleared at this level
    int hz = 250;
};

// A case's fields travel in KCase::kind (bit fields) so that a reproducer
// names its case by label and the label decodes back to the same walk.
inline int encode(const StepCase &s) {
    int hz_idx = 0;
    for (int i = 0; i < 4; ++i)
        if (HZ_VALUES[i] == s.hz)
            hz_idx = i;
    return static_cast<int>(s.k) | s.nr << 3 | (s.pulled_at + 1) << 6 | (s.stop_after + 1) << 9 |
           int(s.ni_random) << 12 | int(s.overload) << 13 | int(s.enqueued) << 14 | (s.stop_at + 1) << 15 |
           hz_idx << 18;
}
inline StepCase decode(int kind) {
    StepCase s;
    s.k = static_cast<stepk>(kind & 7);
    s.nr = (kind >> 3) & 7;
    s.pulled_at = ((kind >> 6) & 7) - 1;
    s.stop_after = ((kind >> 9) & 7) - 1;
    s.ni_random = (kind >> 12) & 1;
    s.overload = (kind >> 13) & 1;
    s.enqueued = (kind >> 14) & 1;
    s.stop_at = ((kind >> 15) & 7) - 1;
    s.hz = HZ_VALUES[(kind >> 18) & 3];
    return s;
}
inline std::string level_text(int l) { return l < 0 ? "-" : std::to_string(l); }
inline KCase make_case(const StepCase &s) {
    std::string label;
    switch (s.k) {
    case stepk::init: label = "initial state"; break;
    case stepk::wakeup: label = "wakeup"; break;
    case stepk::newidle:
        label = fmt::format("newidle, nr_domains {}, pulls at {}", s.nr, level_text(s.pulled_at));
        break;
    case stepk::rebalance: label = fmt::format("rebalance, nr_domains {}, stop at {}", s.nr, level_text(s.stop_at)); break;
    case stepk::progress:
        label = fmt::format("decay due, HZ {}, nr_domains {}, stop at {}", s.hz, s.nr, level_text(s.stop_at));
        break;
    case stepk::allowed: label = fmt::format("newidle after recovery, nr_domains {}", s.nr); break;
    }
    if (s.k == stepk::newidle || s.k == stepk::allowed) {
        if (s.stop_after >= 0)
            label += fmt::format(", stops after {}", s.stop_after);
        if (s.ni_random)
            label += ", NI_RANDOM";
        if (!s.overload)
            label += ", not overloaded";
        if (s.enqueued)
            label += ", task enqueued meanwhile";
    }
    std::vector<std::pair<std::string, std::uint64_t>> fixed;
    if (s.k != stepk::init && s.k != stepk::wakeup)
        fixed.push_back({"nr_domains", std::uint64_t(s.nr)});
    if (s.k == stepk::progress)
        fixed.push_back({"HZ", std::uint64_t(s.hz)});
    return KCase{label, -1, encode(s), fixed};
}

// Every newidle walk shape: 0..SD_MAX levels, the pulling level, and in
// 6.x the level after which the walk is told to stop, NI_RANDOM on and
// off, no overload, and a task enqueued while the lock was dropped.
// 6.x walks are limited to SIX_NEWIDLE_LEVELS levels: each level there
// multiplies the paths by about ten (the cost test, the dice, a new
// maximum or a due decay, the statistics), and two levels already cost
// more than the family's time budget.  The domain text says so.
constexpr int SIX_NEWIDLE_LEVELS = 1;
template <class I> std::vector<StepCase> newidle_shapes() {
    std::vector<StepCase> out;
    for (int nr = 0; nr <= (six<I> ? SIX_NEWIDLE_LEVELS : idlebal::SD_MAX); ++nr)
        for (int p = -1; p < nr; ++p) {
            if constexpr (!six<I>) {
                StepCase s;
                s.k = stepk::newidle, s.nr = nr, s.pulled_at = p;
                out.push_back(s);
            } else {
                for (int st = -1; st < nr; ++st)
                    for (int ni = 0; ni < (dice<I> ? 2 : 1); ++ni) {
                        StepCase s;
                        s.k = stepk::newidle, s.nr = nr, s.pulled_at = p, s.stop_after = st, s.ni_random = ni;
                        out.push_back(s);
                        if (p == -1) { // nothing pulled: a task that arrived meanwhile ends the idle
                            s.enqueued = true;
                            out.push_back(s);
                        }
                    }
            }
        }
    if constexpr (six<I>) {
        StepCase s;
        s.k = stepk::newidle, s.nr = idlebal::SD_MAX, s.overload = false;
        out.push_back(s);
    }
    return out;
}
template <class I> std::vector<StepCase> rebalance_shapes() {
    std::vector<StepCase> out;
    for (int nr = 0; nr <= idlebal::SD_MAX; ++nr)
        for (int st = -1; st < nr; ++st) {
            StepCase s;
            s.k = stepk::rebalance, s.nr = nr, s.stop_at = st;
            out.push_back(s);
        }
    return out;
}
template <class I> std::vector<KCase> all_steps(bool with_init) {
    std::vector<KCase> cs;
    if (with_init)
        cs.push_back(make_case(StepCase{stepk::init}));
    cs.push_back(make_case(StepCase{stepk::wakeup}));
    // The rebalance cases first: they are few, and where the decay breaks
    // an invariant the counterexample comes before the many walk shapes.
    if constexpr (has_decay<I>)
        for (const StepCase &s : rebalance_shapes<I>())
            cs.push_back(make_case(s));
    for (const StepCase &s : newidle_shapes<I>())
        cs.push_back(make_case(s));
    return cs;
}

// ---------------------------------------------------------------------------
// Inputs.

template <class I, class A, class In> idlebal::knobs<A> any_knobs(In &in, const StepCase &s) {
    // A reproducer's case names the dice; a subject without it refuses.
    if (s.ni_random && !dice<I>)
        throw input_error("a case with NI_RANDOM does not apply to a subject without the newidle dice");
    idlebal::knobs<A> k;
    k.sysctl_sched_migration_cost = in.template var<typename A::uint>("sysctl_sched_migration_cost", 0, U32_MAX);
    k.HZ = s.hz;
    k.NI_RANDOM = s.ni_random;
    return k;
}

// Any runqueue within the domain bounds, with nr levels.
template <class I, class A, class In> idlebal::rq<A> any_rq(In &in, int nr) {
    using u64 = typename A::u64;
    using ulong = typename A::ulong;
    using uint = typename A::uint;
    const std::uint64_t ulong_max = A::long_bits == 64 ? U64_MAX : U32_MAX;
    idlebal::rq<A> r;
    r.nr_domains = nr;
    r.avg_idle = in.template var<u64>("avg_idle", 0, AVG_MAX);
    r.idle_stamp = in.template var<u64>("idle_stamp", 0, CLOCK_MAX);
    if constexpr (has_decay<I>)
        r.max_idle_balance_cost = in.template var<u64>("max_idle_balance_cost", 0, RQ_COST_MAX);
    if constexpr (V_of<I> == version::v6_1) {
        r.wake_avg_idle = in.template var<u64>("wake_avg_idle", 0, U64_MAX);
        r.wake_stamp = in.template var<ulong>("wake_stamp", 0, ulong_max);
    }
    for (int i = 0; i < nr; ++i) {
        idlebal::sched_domain<A> &sd = r.sd[i];
        const std::string p = "sd[" + std::to_string(i) + "].";
        if constexpr (has_cost<I>)
            sd.max_newidle_lb_cost = in.template var<u64>(p + "max_newidle_lb_cost", 0, SD_COST_MAX);
        if constexpr (V_of<I> == version::low_1_3)
            sd.next_decay_max_lb_cost = in.template var<ulong>(p + "next_decay_max_lb_cost", 0, ulong_max);
        if constexpr (six<I>) {
            sd.last_decay_max_lb_cost = in.template var<ulong>(p + "last_decay_max_lb_cost", 0, ulong_max);
            // The success statistics: calls are halved at 1024, successes
            // add at most 1024 a call.
            sd.newidle_call = in.template var<uint>(p + "newidle_call", 0, 1023);
            sd.newidle_success = in.template var<uint>(p + "newidle_success", 0, 1u << 21);
            sd.newidle_ratio = in.template var<uint>(p + "newidle_ratio", 0, 1u << 21);
        }
    }
    return r;
}

template <class A> struct WakeIn {
    typename A::u64 now{};
    typename A::ulong jiffies{};
};
template <class A, class In> WakeIn<A> any_wakeup(In &in, const idlebal::rq<A> &r) {
    WakeIn<A> w;
    w.now = in.template var<typename A::u64>("now", 0, CLOCK_MAX);
    w.jiffies = in.template var<typename A::ulong>("jiffies", 0, A::long_bits == 64 ? U64_MAX : U32_MAX);
    // rq_clock() does not run backwards: the wake-up is not before the
    // CPU went idle.
    in.require(r.idle_stamp <= w.now, "idle_stamp <= now");
    return w;
}

template <class I, class A, class In> idlebal::newidle_env<A> any_newidle(In &in, const StepCase &s) {
    using u64 = typename A::u64;
    idlebal::newidle_env<A> e;
    e.now = in.template var<u64>("ni.now", 0, CLOCK_MAX);
    e.sched_clock = in.template var<u64>("ni.sched_clock", 0, CLOCK_MAX);
    e.jiffies = in.template var<typename A::ulong>("ni.jiffies", 0, A::long_bits == 64 ? U64_MAX : U32_MAX);
    if constexpr (six<I>)
        e.blocked_cost = in.template var<u64>("ni.blocked_cost", 0, COST_MAX);
    for (int i = 0; i < s.nr; ++i) {
        e.lb_cost[i] = in.template var<u64>("ni.lb_cost[" + std::to_string(i) + "]", 0, COST_MAX);
        if constexpr (six<I>)
            if (s.ni_random)
                e.rng[i] = in.template var<typename A::uint>("ni.rng[" + std::to_string(i) + "]", 0, U32_MAX);
    }
    e.pulled_at = s.pulled_at;
    e.stop_after = s.stop_after;
    e.overload = s.overload;
    e.enqueued = s.enqueued;
    return e;
}

template <class A, class In> idlebal::rebalance_env<A> any_rebalance(In &in, const StepCase &s) {
    idlebal::rebalance_env<A> e;
    e.jiffies = in.template var<typename A::ulong>("rb.jiffies", 0, A::long_bits == 64 ? U64_MAX : U32_MAX);
    e.stop_at = s.stop_at;
    return e;
}

// One step of any kind, built from a case; the runner applies it.
template <class A> struct Step {
    StepCase sc;
    WakeIn<A> wk;
    idlebal::newidle_env<A> ni;
    idlebal::rebalance_env<A> rb;
};
template <class I, class A, class In> Step<A> any_step(In &in, const StepCase &s, const idlebal::rq<A> &r) {
    Step<A> st;
    st.sc = s;
    if (s.k == stepk::wakeup)
        st.wk = any_wakeup<A>(in, r);
    else if (s.k == stepk::newidle || s.k == stepk::allowed)
        st.ni = any_newidle<I, A>(in, s);
    else if (s.k == stepk::rebalance || s.k == stepk::progress)
        st.rb = any_rebalance<A>(in, s);
    return st;
}
template <class I, class A>
idlebal::newidle_result<A> apply(idlebal::rq<A> &r, const Step<A> &st, const idlebal::knobs<A> &k) {
    using U = typename I::template on<A>;
    idlebal::newidle_result<A> res;
    switch (st.sc.k) {
    case stepk::wakeup: U::update_rq_avg_idle(r, st.wk.now, st.wk.jiffies, k); break;
    case stepk::newidle:
    case stepk::allowed: res = U::idle_balance(r, st.ni, k); break;
    case stepk::rebalance:
    case stepk::progress: U::rebalance_domains(r, st.rb, k); break;
    case stepk::init: break;
    }
    return res;
}

// ---------------------------------------------------------------------------
// The timeline of a concrete replay, times in microseconds.

inline std::string us(std::uint64_t ns) { return fmt::format("{}.{:03} us", ns / 1000, ns % 1000); }

inline const char *outcome_text(level_outcome o) {
    switch (o) {
    case level_outcome::not_visited: return "not visited";
    case level_outcome::cost_break: return "walk stopped: avg_idle < curr_cost + max_newidle_lb_cost";
    case level_outcome::dice_skip: return "skipped by the NI_RANDOM dice";
    case level_outcome::balanced: return "load_balance() ran";
    }
    return "?";
}

template <class I, class A> std::string rq_text(const idlebal::rq<A> &r, const idlebal::knobs<A> &k) {
    std::string s = fmt::format("avg_idle {}, idle_stamp {}", us(r.avg_idle), r.idle_stamp ? us(r.idle_stamp) : "0 (not idle)");
    if constexpr (has_decay<I>)
        s += fmt::format(", max_idle_balance_cost {}", us(r.max_idle_balance_cost));
    else
        s += fmt::format(", cap 2*sysctl {}", us(std::uint32_t(2u * k.sysctl_sched_migration_cost)));
    if constexpr (has_cost<I>)
        for (int i = 0; i < r.nr_domains; ++i) {
            s += fmt::format("; sd[{}] max cost {}", i, us(r.sd[i].max_newidle_lb_cost));
            if constexpr (V_of<I> == version::low_1_3)
                s += fmt::format(" next decay at jiffy {}", std::uint64_t(r.sd[i].next_decay_max_lb_cost));
            if constexpr (six<I>)
                s += fmt::format(" last decay at jiffy {}", std::uint64_t(r.sd[i].last_decay_max_lb_cost));
        }
    return s;
}

template <class I, class A>
void timeline(KOut<A> &o, const idlebal::rq<A> &before, const Step<A> &st, const idlebal::rq<A> &after,
              const idlebal::newidle_result<A> &res, const idlebal::knobs<A> &k) {
    if constexpr (is_concrete<A>) {
        o.lines.push_back(fmt::format("sysctl_sched_migration_cost = {}, HZ = {}", us(k.sysctl_sched_migration_cost),
                                      k.HZ));
        o.lines.push_back("before:   " + rq_text<I>(before, k));
        switch (st.sc.k) {
        case stepk::init: o.lines.push_back("sched_init(): the runqueue as the kernel sets it up"); break;
        case stepk::wakeup:
            if (before.idle_stamp)
                o.lines.push_back(fmt::format("wake-up at rq_clock {}: idle for {} (the sample)", us(st.wk.now),
                                              us(st.wk.now - before.idle_stamp)));
            else
                o.lines.push_back(fmt::format("wake-up at rq_clock {}: the runqueue was not idle, no sample",
                                              us(st.wk.now)));
            break;
        case stepk::newidle:
        case stepk::allowed: {
            o.lines.push_back(fmt::format("newidle balance at rq_clock {} (idle_stamp := now), sched_clock {}, "
                                          "jiffies {}{}",
                                          us(st.ni.now), us(st.ni.sched_clock), std::uint64_t(st.ni.jiffies),
                                          six<I> ? ", update_blocked_averages() " + us(st.ni.blocked_cost) : ""));
            if (res.early_skip)
                o.lines.push_back("  skipped before the domain walk");
            for (int i = 0; i < before.nr_domains; ++i)
                o.lines.push_back(fmt::format("  level {}: {}{}", i, outcome_text(res.level[i]),
                                              res.level[i] == level_outcome::balanced
                                                  ? fmt::format(", took {}{}", us(st.ni.lb_cost[i]),
                                                                i == st.ni.pulled_at ? ", pulled a task" : "")
                                                  : ""));
            o.lines.push_back(fmt::format("  curr_cost {}, pulled_task {}", us(res.curr_cost), res.pulled_task));
            break;
        }
        case stepk::rebalance:
        case stepk::progress:
            o.lines.push_back(fmt::format("periodic rebalance at jiffies {}{}", std::uint64_t(st.rb.jiffies),
                                          st.rb.stop_at >= 0 ? fmt::format(", balancing stops at level {}", st.rb.stop_at)
                                                             : ""));
            break;
        }
        o.lines.push_back("after:    " + rq_text<I>(after, k));
    }
}

// Every idle-balance invariant explores lazily (no solver call per
// branch): the walks loop over a concrete number of levels only, so the
// path count stays small, and an infeasible path answers unsat in its
// check queries.  Asking per branch made the solver decide the branches on
// sums of decayed 64-bit costs (rebalance_domains()'s max_cost), which
// took most of the family's time.
// ---------------------------------------------------------------------------
// The cap: what the next wake-up clamps avg_idle to.  Up to low-1-2 it is
// 2 * sysctl, an unsigned int product (it wraps for a sysctl >= 2^31 ns);
// from low-1-3 on 2 * rq->max_idle_balance_cost, in u64.
template <class I, class A> typename A::u64 cap_of(const idlebal::rq<A> &r, const idlebal::knobs<A> &k) {
    using u64 = typename A::u64;
    using uint = typename A::uint;
    if constexpr (has_decay<I>)
        return u64(2) * r.max_idle_balance_cost;
    else
        return u64(uint(uint(2) * k.sysctl_sched_migration_cost));
}

// The hypothesis of avg_idle_capped and the checks that restate it.
template <class I, class A>
void capped_checks(KOut<A> &o, const idlebal::rq<A> &r, const idlebal::knobs<A> &k, const std::string &when) {
    using u64 = typename A::u64;
    typename A::boolean t(true);
    o.checks.push_back(le<A>("avg_idle <= its cap " + when, t, "avg_idle", r.avg_idle,
                             has_decay<I> ? "2 * max_idle_balance_cost" : "2 * sysctl_sched_migration_cost (u32)",
                             cap_of<I, A>(r, k)));
    if constexpr (has_decay<I>)
        o.checks.push_back(le<A>("rq->max_idle_balance_cost >= sysctl (auxiliary) " + when, t,
                                 "sysctl_sched_migration_cost", u64(k.sysctl_sched_migration_cost),
                                 "max_idle_balance_cost", r.max_idle_balance_cost));
    o.checks.push_back(le<A>("avg_idle stays within the domain " + when, t, "avg_idle", r.avg_idle, "2^46",
                             u64(AVG_MAX)));
    if constexpr (has_decay<I>)
        o.checks.push_back(le<A>("max_idle_balance_cost stays within the domain " + when, t, "max_idle_balance_cost",
                                 r.max_idle_balance_cost, "2^45", u64(RQ_COST_MAX)));
    if constexpr (has_cost<I>)
        for (int i = 0; i < r.nr_domains; ++i)
            o.checks.push_back(le<A>("the domain costs stay within the domain " + when, t,
                                     "sd[" + std::to_string(i) + "].max_newidle_lb_cost", r.sd[i].max_newidle_lb_cost,
                                     "2^42", u64(SD_COST_MAX)));
}
template <class I, class A, class In> void require_capped(In &in, const idlebal::rq<A> &r, const idlebal::knobs<A> &k) {
    in.require(r.avg_idle <= cap_of<I, A>(r, k), "avg_idle <= cap");
    if constexpr (has_decay<I>)
        in.require(typename A::u64(k.sysctl_sched_migration_cost) <= r.max_idle_balance_cost,
                   "max_idle_balance_cost >= sysctl_sched_migration_cost");
}

// ---------------------------------------------------------------------------
// idlebal.avg_idle_capped: avg_idle never exceeds the cap the wake-up
// applies (see cap_of), at any point of any trace.  Induction: the initial
// state satisfies it; one step from any state satisfying it (with
// max_idle_balance_cost >= sysctl where that field exists, and the domain
// bounds) keeps it.
struct AvgIdleCapped {
    static constexpr const char *id = "idlebal.avg_idle_capped";
    static constexpr bool integer_first = true; // sums and comparisons: linear integer arithmetic
    static constexpr bool lazy = true; // see the note above the cap
    template <class I> static bool applies() { return true; }
    template <class I> static std::string domain(Arch) {
        return std::string("induction over one step (wake-up, newidle balance, periodic rebalance) from any state "
                           "with avg_idle <= cap") +
               (has_decay<I> ? " and max_idle_balance_cost >= sysctl" : "") + ", base case sched_init(); " +
               domain_text<I>();
    }
    template <class I> static std::vector<KCase> cases(Arch) { return all_steps<I>(true); }
    template <class I, class A, class In> static Runner<A> build(In &in, const KCase &c) {
        const StepCase s = decode(c.kind);
        const idlebal::knobs<A> k = any_knobs<I, A>(in, s);
        if (s.k == stepk::init) {
            // sched_init(): any jiffies, any sysctl (a boot parameter may set it).
            const auto j = in.template var<typename A::ulong>("jiffies", 0, A::long_bits == 64 ? U64_MAX : U32_MAX);
            return [=]() {
                idlebal::rq<A> r;
                r.nr_domains = idlebal::SD_MAX;
                I::template on<A>::init_rq(r, j, k);
                KOut<A> o;
                capped_checks<I>(o, r, k, "after sched_init()");
                Step<A> st;
                st.sc = s;
                timeline<I>(o, r, st, r, {}, k);
                return o;
            };
        }
        const idlebal::rq<A> r0 = any_rq<I, A>(in, s.k == stepk::wakeup ? idlebal::SD_MAX : s.nr);
        require_capped<I, A>(in, r0, k);
        const Step<A> st = any_step<I, A>(in, s, r0);
        return [=]() {
            idlebal::rq<A> r = r0;
            auto res = apply<I, A>(r, st, k);
            KOut<A> o;
            capped_checks<I>(o, r, k, "after the step");
            timeline<I>(o, r0, st, r, res, k);
            return o;
        };
    }
};

// ---------------------------------------------------------------------------
// idlebal.avg_idle_no_jump: one wake-up sample moves avg_idle towards the
// sample, by at most the 1/8 step, up to rounding.  With d = sample -
// avg_idle (exact) and D the move:
//   D lies between 0 and d (no overshoot, no move away from the sample);
//   8 * |D| <= |d|       when the eighth is "/ 8" (6.x: towards zero), and
//                        for a rising sample in every version;
//   8 * |D| <= |d| + 7   for a falling sample with ">> 3" (up to v3.13: the
//                        arithmetic shift of the negative s64 difference
//                        rounds towards minus infinity, so a fall is the
//                        eighth rounded up: at most 7/8 ns more).
// Domain: a state satisfying avg_idle_capped's hypothesis (avg_idle <= cap).
struct AvgIdleNoJump {
    static constexpr const char *id = "idlebal.avg_idle_no_jump";
    static constexpr bool integer_first = false;
    template <class I> static bool applies() { return true; }
    template <class I> static std::string domain(Arch) {
        return std::string("one wake-up sample from any state with avg_idle <= cap") +
               (has_decay<I> ? " and max_idle_balance_cost >= sysctl" : "") +
               "; bound 8*|move| <= |sample - avg_idle|" +
               (idlebal::update_avg_shifts<I::shape> ? " (+ 7 for a falling sample: >> 3 rounds down)" : "") + "; " +
               domain_text<I>();
    }
    template <class I> static std::vector<KCase> cases(Arch) { return {make_case(StepCase{stepk::wakeup})}; }
    template <class I, class A, class In> static Runner<A> build(In &in, const KCase &c) {
        using u64 = typename A::u64;
        const StepCase s = decode(c.kind);
        const idlebal::knobs<A> k = any_knobs<I, A>(in, s);
        const idlebal::rq<A> r0 = any_rq<I, A>(in, idlebal::SD_MAX);
        require_capped<I, A>(in, r0, k);
        // The idle time is the input (now = idle_stamp + sample): the
        // solver then sees the sample itself, not a difference of clocks.
        Step<A> st;
        st.sc = s;
        const u64 sample = in.template var<u64>("sample", 0, CLOCK_MAX);
        in.require(r0.idle_stamp <= u64(CLOCK_MAX) - sample, "idle_stamp + sample < 2^63");
        st.wk.now = r0.idle_stamp + sample;
        st.wk.jiffies = in.template var<typename A::ulong>("jiffies", 0, A::long_bits == 64 ? U64_MAX : U32_MAX);
        return [=]() {
            idlebal::rq<A> r = r0;
            apply<I, A>(r, st, k);
            const u64 a0 = r0.avg_idle, a1 = r.avg_idle;
            const typename A::boolean sampled = r0.idle_stamp != u64(0);
            const typename A::boolean up = sampled && a0 <= sample, down = sampled && sample < a0;
            const u64 slack = idlebal::update_avg_shifts<I::shape> ? 7 : 0;
            KOut<A> o;
            o.checks.push_back(le<A>("a rising sample does not lower avg_idle", up, "avg_idle before", a0,
                                     "avg_idle after", a1));
            o.checks.push_back(le<A>("avg_idle does not pass a rising sample", up, "avg_idle after", a1, "sample", sample));
            o.checks.push_back(le<A>("a rising sample moves avg_idle by at most 1/8 of the difference", up,
                                     "8 * (avg_idle after - before)", u64(8) * (a1 - a0), "sample - avg_idle before",
                                     sample - a0));
            o.checks.push_back(le<A>("a falling sample does not raise avg_idle", down, "avg_idle after", a1,
                                     "avg_idle before", a0));
            o.checks.push_back(le<A>("avg_idle does not pass a falling sample", down, "sample", sample,
                                     "avg_idle after", a1));
            o.checks.push_back(le<A>(slack ? "a falling sample moves avg_idle by at most 1/8 of the difference, "
                                             "rounded up (>> 3)"
                                           : "a falling sample moves avg_idle by at most 1/8 of the difference",
                                     down, "8 * (avg_idle before - after)", u64(8) * (a0 - a1),
                                     slack ? "avg_idle before - sample + 7" : "avg_idle before - sample",
                                     a0 - sample + slack));
            o.checks.push_back(eq<A>("no sample, no move", !sampled, "avg_idle after", a1, "avg_idle before", a0));
            timeline<I>(o, r0, st, r, {}, k);
            return o;
        };
    }
};

// The decay as the subject's own code does it, d(x): its
// update_newidle_cost() (6.x; I::leaves, the kernel's own for an oracle)
// with no new cost, on a domain whose cost x is due for its decay (stamp 0,
// jiffies HZ + 1), read back; low-1-3 decays inline in
// rebalance_domains(), whose text it repeats.  The invariants below hold
// a subject to d(x) = x * 253 / 256, rounded down, as every release has it:
// their lemmas and the times they report are about that figure.
template <class I, class A> typename A::u64 subject_decay(const typename A::u64 &x) {
    if constexpr (!has_decay<I>) {
        return x; // nothing decays (no invariant asks)
    } else if constexpr (V_of<I> == version::low_1_3) {
        return (x * idlebal::DECAY_MUL) / idlebal::DECAY_DIV;
    } else {
        idlebal::sched_domain<A> sd{};
        sd.max_newidle_lb_cost = x;
        const idlebal::knobs<A> k{};
        I::leaves::template update_newidle_cost<A>(sd, typename A::u64(0), typename A::uint(0),
                                                   typename A::ulong(std::uint64_t(k.HZ) + 1), k);
        return sd.max_newidle_lb_cost;
    }
}

// ---------------------------------------------------------------------------
// The decay: how many decays take a cost from `from` to `to` or below
// (x -> x * 253 / 256, rounded down), and that many periods in ms.
inline std::uint64_t decays_needed(std::uint64_t from, std::uint64_t to) {
    std::uint64_t n = 0;
    for (std::uint64_t x = from; x > to; ++n)
        x = x * idlebal::DECAY_MUL / idlebal::DECAY_DIV;
    return n;
}
// n decays at most HZ + 1 jiffies apart, in whole ms (rounded up).
inline std::uint64_t decay_ms(std::uint64_t n, int hz) {
    return (n * std::uint64_t(hz + 1) * 1000 + std::uint64_t(hz) - 1) / std::uint64_t(hz);
}

// idlebal.cost_decay_monotone (variants with the decay): a periodic
// rebalance, where no new cost is sampled, never raises a domain's
// max_newidle_lb_cost, and is monotone in it (a larger cost never decays
// below a smaller one decayed at the same time).  The time for a cost of
// 2^42 ns to reach 0 is reported: at most decays_needed(2^42, 0) decays,
// one every HZ + 1 jiffies when the rebalance runs every jiffy
// (idlebal.recovers proves that period); monotonicity makes the largest
// cost the slowest.
//
// Two parts.  The lemma (its own case, over the integers, where it is
// linear): d(x) = x * 253 / 256 has d(x) <= x and x <= y -> d(x) <= d(y)
// for x, y <= 2^42.  The step cases (bit-vectors: the jiffies arithmetic
// wraps on purpose) assume the lemma's instances for the domains' costs,
// so that what is left to show is that the walk decays x and y at the
// same levels; a bit-blasted 64-bit product would otherwise have to be
// shown monotone in every case (a minute each).
struct CostDecayMonotone {
    // The lemma over the integers (set on its case); the steps on
    // bit-vectors at once, as the jiffies arithmetic they read wraps on
    // purpose and the integer encoding would only be tried and dropped.
    static constexpr const char *id = "idlebal.cost_decay_monotone";
    static constexpr bool integer_first = false;
    static constexpr bool lazy = true; // see the note above the cap
    static constexpr int LEMMA = -2, OWN_DECAY = -3;
    template <class I> static bool applies() { return has_decay<I>; }
    template <class I> static std::string domain(Arch) {
        return "one periodic rebalance from any state, two states differing only in their domain costs x <= y; "
               "the code's due decay d(x) = x * 253 / 256 (x <= 2^42) and the lemma x * 253 / 256 <= x, monotone "
               "in x (x, y <= 2^42), each proved in its own case, the lemma assumed in the others; " +
               domain_text<I>();
    }
    template <class I> static std::vector<KCase> cases(Arch) {
        std::vector<KCase> cs;
        // First, so that code with another factor stops here at once: the
        // steps would meet terms the lemma does not speak of.
        cs.push_back(KCase{"the code's due decay is x * 253 / 256", OWN_DECAY, 0, {}});
        cs.push_back(KCase{"lemma: x * 253 / 256", LEMMA, 0, {}});
        cs.back().integer_first = true;
        for (const StepCase &s : rebalance_shapes<I>())
            if (s.nr > 0)
                cs.push_back(make_case(s));
        return cs;
    }
    template <class I> static void finish(ProofResult &r) {
        if (r.verdict != Verdict::PROVED)
            return;
        const std::uint64_t n = decays_needed(SD_COST_MAX, 0);
        r.bound = decay_ms(n, HZ_VALUES[0]);
        r.bound_kind = "ms";
        r.reason = fmt::format("a 2^42 ns cost reaches 0 after {} decays: {} ms at HZ 100, {} ms at HZ 1000 (1 s: "
                               "{} decays to 0)",
                               n, decay_ms(n, 100), decay_ms(n, 1000), decays_needed(1000000000, 0));
    }
    // The decay as rebalance_domains() writes it (the same terms).
    template <class A> static typename A::u64 decayed(const typename A::u64 &x) {
        return (x * idlebal::DECAY_MUL) / idlebal::DECAY_DIV;
    }
    template <class I, class A, class In> static Runner<A> build(In &in, const KCase &c) {
        using u64 = typename A::u64;
        typename A::boolean t(true);
        if (c.n == OWN_DECAY) {
            // On bit-vectors: time_after()'s wrapped difference is never
            // exact in integers, and equal terms are settled at once.
            const u64 x = in.template var<u64>("x", 0, SD_COST_MAX);
            return [=]() {
                KOut<A> o;
                o.checks.push_back(eq<A>("the code's due decay is x * 253 / 256", t, "d(x), this code's due decay",
                                         subject_decay<I, A>(x), "x * 253 / 256", decayed<A>(x)));
                return o;
            };
        }
        if (c.n == LEMMA) {
            const u64 x = in.template var<u64>("x", 0, SD_COST_MAX), y = in.template var<u64>("y", 0, SD_COST_MAX);
            in.require(x <= y, "x <= y");
            return [=]() {
                KOut<A> o;
                o.checks.push_back(le<A>("the decay never raises a cost", t, "x * 253 / 256", decayed<A>(x), "x", x));
                o.checks.push_back(le<A>("the decay is monotone", t, "x * 253 / 256", decayed<A>(x), "y * 253 / 256",
                                         decayed<A>(y)));
                return o;
            };
        }
        const StepCase s = decode(c.kind);
        const idlebal::knobs<A> k = any_knobs<I, A>(in, s);
        const idlebal::rq<A> r0 = any_rq<I, A>(in, s.nr);
        idlebal::rq<A> y0 = r0;
        for (int i = 0; i < s.nr; ++i) {
            const std::string n = "y.sd[" + std::to_string(i) + "].max_newidle_lb_cost";
            y0.sd[i].max_newidle_lb_cost = in.template var<u64>(n, 0, SD_COST_MAX);
            const u64 x = r0.sd[i].max_newidle_lb_cost, y = y0.sd[i].max_newidle_lb_cost;
            in.require(x <= y, "sd[" + std::to_string(i) + "].max_newidle_lb_cost <= " + n);
            // The lemma's instances.
            in.require(decayed<A>(x) <= x && decayed<A>(y) <= y && decayed<A>(x) <= decayed<A>(y),
                       "the lemma at sd[" + std::to_string(i) + "]");
        }
        const Step<A> st = any_step<I, A>(in, s, r0);
        return [=]() {
            idlebal::rq<A> r = r0, y = y0;
            apply<I, A>(r, st, k);
            apply<I, A>(y, st, k);
            KOut<A> o;
            for (int i = 0; i < s.nr; ++i) {
                const std::string n = "sd[" + std::to_string(i) + "].max_newidle_lb_cost";
                o.checks.push_back(le<A>("a rebalance never raises a domain's cost", t, n + " after",
                                         r.sd[i].max_newidle_lb_cost, n + " before", r0.sd[i].max_newidle_lb_cost));
                o.checks.push_back(le<A>("the decay is monotone in the cost", t, n + " after (x)",
                                         r.sd[i].max_newidle_lb_cost, "y." + n + " after", y.sd[i].max_newidle_lb_cost));
            }
            timeline<I>(o, r0, st, r, {}, k);
            return o;
        };
    }
};

// ---------------------------------------------------------------------------
// idlebal.recovers: after one expensive newidle balance, balancing at the
// lowest domain is allowed again within a bounded time.  "Allowed" means:
// whenever avg_idle >= sysctl_sched_migration_cost (what the kernel before
// the series asked for), neither the early skip nor the cost test of
// level 0 stops the balance (the 6.x NI_RANDOM dice aside).  Two lemmas:
//  - "decay due" (variants that remember the cost): the expensive balance
//    at jiffy t left sd[0] a cost x in 1..2^30 ns and a decay stamp at most
//    HZ jiffies old (6.x: last decay in [t - HZ, t]; low-1-3: next decay in
//    [t, t + HZ]); the rebalance at the jiffy the decay is due (at most HZ
//    + 1 jiffies after t) sets the cost to x * 253 / 256 exactly and leaves
//    the stamp in the same relation to that jiffy.  So with a rebalance
//    every jiffy and no costlier balance meanwhile, the k-th decay comes
//    at most k * (HZ + 1) jiffies after t.
//  - "after recovery": once sd[0]'s cost <= sysctl, a newidle balance with
//    avg_idle >= sysctl (and some CPU overloaded, 6.x) balances level 0.
// The bound: the decays a 2^30 ns (1.07 s) balance needs to come down to
// the default sysctl (500 us), times HZ + 1 jiffies, in ms; reported for
// HZ 100 (the slowest) with the others in the verdict's reason.
struct Recovers {
    static constexpr const char *id = "idlebal.recovers";
    static constexpr bool integer_first = true; // sums and comparisons: linear integer arithmetic
    static constexpr bool lazy = true; // see the note above the cap
    static constexpr std::uint64_t EXPENSIVE_MAX = std::uint64_t(1) << 30;
    template <class I> static bool applies() { return true; }
    template <class I> static std::string domain(Arch) {
        return std::string("an expensive balance of at most 2^30 ns at level 0, a periodic rebalance every jiffy, no "
                           "costlier balance meanwhile; the bound counts decays down to the default sysctl (500 us); "
                           "sd[0] is visited first by every walk, so one level (the pass stopping there or not) "
                           "stands for every walk shape; ") +
               domain_text<I>();
    }
    template <class I> static std::vector<KCase> cases(Arch) {
        // Both lemmas are about sd[0], which every walk visits first, with
        // the same inputs whatever the levels above it (a periodic pass
        // starts with continue_balancing set; a newidle pass's early test
        // and level-0 test read sd[0] and curr_cost == 0 only).  So one
        // level, with and without the pass told to stop there, covers
        // every walk shape.
        std::vector<KCase> cs;
        if constexpr (has_cost<I>)
            for (int hz : HZ_VALUES)
                for (int st = -1; st < 1; ++st) {
                    StepCase s;
                    s.k = stepk::progress, s.nr = 1, s.stop_at = st, s.hz = hz;
                    cs.push_back(make_case(s));
                }
        for (int ni = 0; ni < (dice<I> ? 2 : 1); ++ni) {
            StepCase s;
            s.k = stepk::allowed, s.nr = 1, s.ni_random = ni;
            cs.push_back(make_case(s));
        }
        return cs;
    }
    template <class I> static std::vector<std::pair<int, std::uint64_t>> bound_ms() {
        std::vector<std::pair<int, std::uint64_t>> out;
        const std::uint64_t n = has_decay<I> ? decays_needed(EXPENSIVE_MAX, SYSCTL_DEFAULT) : 0;
        for (int hz : HZ_VALUES)
            out.push_back({hz, decay_ms(n, hz)});
        return out;
    }
    // The bound, once both lemmas are proved.
    template <class I> static void finish(ProofResult &r) {
        if (r.verdict != Verdict::PROVED)
            return;
        const auto b = bound_ms<I>();
        r.bound = b.front().second; // HZ 100: (HZ + 1) / HZ is largest
        r.bound_kind = "ms";
        std::string per;
        for (const auto &[hz, ms] : b)
            per += fmt::format("{}HZ {}: {} ms", per.empty() ? "" : ", ", hz, ms);
        r.reason = has_decay<I> ? fmt::format("{} decays from 2^30 ns to <= 500 us, one per HZ + 1 jiffies; {}",
                                              decays_needed(EXPENSIVE_MAX, SYSCTL_DEFAULT), per)
                                : "the cost of a balance is not remembered: allowed again at once (0 ms)";
    }
    template <class I, class A, class In> static Runner<A> build(In &in, const KCase &c) {
        using u64 = typename A::u64;
        using ulong = typename A::ulong;
        const StepCase s = decode(c.kind);
        const idlebal::knobs<A> k = any_knobs<I, A>(in, s);
        idlebal::rq<A> r0 = any_rq<I, A>(in, s.nr);
        if (s.k == stepk::allowed) {
            in.require(u64(k.sysctl_sched_migration_cost) <= r0.avg_idle, "avg_idle >= sysctl_sched_migration_cost");
            if constexpr (has_cost<I>)
                in.require(r0.sd[0].max_newidle_lb_cost <= u64(k.sysctl_sched_migration_cost),
                           "sd[0].max_newidle_lb_cost <= sysctl_sched_migration_cost");
            const Step<A> st = any_step<I, A>(in, s, r0);
            return [=]() {
                idlebal::rq<A> r = r0;
                auto res = apply<I, A>(r, st, k);
                KOut<A> o;
                typename A::boolean t(true);
                const bool dice = res.level[0] == level_outcome::dice_skip;
                o.checks.push_back(eq<A>("no early skip once the cost is forgotten", t, "skipped before the walk",
                                         u64(res.early_skip ? 1 : 0), "0", u64(0)));
                o.checks.push_back(eq<A>("level 0 is balanced once the cost is forgotten (or left to the dice)", t,
                                         "level 0 balanced or dice-skipped",
                                         u64(res.level[0] == level_outcome::balanced || dice ? 1 : 0), "1", u64(1)));
                timeline<I>(o, r0, st, r, res, k);
                return o;
            };
        }
        // "decay due": the expensive balance happened at jiffy t.
        const ulong t = in.template var<ulong>("t_balance", 0,
                                               A::long_bits == 64 ? U64_MAX : U32_MAX);
        const ulong e = in.template var<ulong>("stamp_age", 0, std::uint64_t(s.hz));
        const u64 x = in.template var<u64>("x", 1, EXPENSIVE_MAX);
        r0.sd[0].max_newidle_lb_cost = x;
        ulong due;
        if constexpr (V_of<I> == version::low_1_3) {
            r0.sd[0].next_decay_max_lb_cost = t + e;
            due = t + e + ulong(1);
        } else if constexpr (six<I>) {
            r0.sd[0].last_decay_max_lb_cost = t - e;
            due = t - e + ulong(s.hz) + ulong(1);
        } else {
            // low-1-2 has no decay: give it the 6.x period to show that
            // nothing happens then.
            due = t + ulong(s.hz) + ulong(1);
        }
        Step<A> st;
        st.sc = s;
        st.rb.jiffies = due;
        st.rb.stop_at = s.stop_at;
        return [=]() {
            idlebal::rq<A> r = r0;
            apply<I, A>(r, st, k);
            KOut<A> o;
            typename A::boolean t_(true);
            o.checks.push_back(eq<A>("a due decay takes sd[0]'s cost to x * 253 / 256", t_,
                                     "sd[0].max_newidle_lb_cost after", r.sd[0].max_newidle_lb_cost, "x * 253 / 256",
                                     x * u64(idlebal::DECAY_MUL) / u64(idlebal::DECAY_DIV)));
            if constexpr (V_of<I> == version::low_1_3)
                o.checks.push_back(eq<A>("the next decay is due HZ + 1 jiffies later", t_,
                                         "next_decay_max_lb_cost - jiffies",
                                         u64(ulong(r.sd[0].next_decay_max_lb_cost - due)), "HZ", u64(s.hz)));
            if constexpr (six<I>)
                o.checks.push_back(eq<A>("the decay stamp is the jiffy of this decay", t_, "last_decay_max_lb_cost",
                                         u64(r.sd[0].last_decay_max_lb_cost), "jiffies", u64(due)));
            timeline<I>(o, r0, st, r, {}, k);
            return o;
        };
    }
};

// ---------------------------------------------------------------------------
// idlebal.skip_sound: a newidle balance is cut short for cost only when
// avg_idle is below the cost the variant compares it with, and it goes on
// whenever avg_idle is not below it.  The costs are restated from the
// walk's inputs, not read from the code: the early test compares with
// sysctl (up to low-1-3) or sd[0]'s cost (6.x, where "no CPU overloaded"
// also skips); level i's test with the time measured at the levels
// balanced before it (6.x: the first one also pays update_blocked_averages())
// plus sd[i]'s cost as it was.  NI_RANDOM's dice skips are random, not
// cost skips: the statement leaves them out.
struct SkipSound {
    static constexpr const char *id = "idlebal.skip_sound";
    static constexpr bool integer_first = true; // sums and comparisons: linear integer arithmetic
    static constexpr bool lazy = true; // see the note above the cap
    template <class I> static bool applies() { return true; }
    template <class I> static std::string domain(Arch) {
        return "one newidle balance from any state; " + domain_text<I>();
    }
    template <class I> static std::vector<KCase> cases(Arch) {
        std::vector<KCase> cs;
        for (const StepCase &s : newidle_shapes<I>())
            cs.push_back(make_case(s));
        return cs;
    }
    template <class I, class A, class In> static Runner<A> build(In &in, const KCase &c) {
        using u64 = typename A::u64;
        const StepCase s = decode(c.kind);
        const idlebal::knobs<A> k = any_knobs<I, A>(in, s);
        const idlebal::rq<A> r0 = any_rq<I, A>(in, s.nr);
        const Step<A> st = any_step<I, A>(in, s, r0);
        return [=]() {
            idlebal::rq<A> r = r0;
            auto res = apply<I, A>(r, st, k);
            KOut<A> o;
            const u64 avg = r0.avg_idle;
            typename A::boolean t(true);
            // The early test.
            if (s.nr > 0 || !six<I>) {
                u64 early = six<I> ? (s.nr > 0 ? r0.sd[0].max_newidle_lb_cost : u64(0)) : u64(k.sysctl_sched_migration_cost);
                const char *en = six<I> ? "sd[0].max_newidle_lb_cost" : "sysctl_sched_migration_cost";
                if (s.overload || !six<I>) {
                    o.checks.push_back(le<A>("skipped early only when avg_idle < the early cost",
                                             typename A::boolean(res.early_skip), "avg_idle + 1", avg + u64(1), en, early));
                    o.checks.push_back(le<A>("not skipped early when avg_idle >= the early cost",
                                             typename A::boolean(!res.early_skip), en, early, "avg_idle", avg));
                } else {
                    o.checks.push_back(eq<A>("no CPU overloaded: skipped", t, "early skip", u64(res.early_skip ? 1 : 0),
                                             "1", u64(1)));
                }
            }
            // Each level's cost test (variants with per-domain costs).
            if constexpr (has_cost<I>) {
                u64 spent = 0;
                bool first = true;
                for (int i = 0; i < s.nr; ++i) {
                    const level_outcome lo = res.level[i];
                    if (lo == level_outcome::not_visited)
                        break;
                    const u64 thr = spent + r0.sd[i].max_newidle_lb_cost;
                    const std::string tn = "time spent before level " + std::to_string(i) + " + sd[" +
                                           std::to_string(i) + "].max_newidle_lb_cost";
                    if (lo == level_outcome::cost_break)
                        o.checks.push_back(le<A>("level " + std::to_string(i) + " cut only when avg_idle < its cost", t,
                                                 "avg_idle + 1", avg + u64(1), tn, thr));
                    else
                        o.checks.push_back(le<A>("level " + std::to_string(i) + " not cut when avg_idle >= its cost", t,
                                                 tn, thr, "avg_idle", avg));
                    if (lo == level_outcome::balanced) {
                        spent = spent + st.ni.lb_cost[i];
                        if (six<I> && first)
                            spent = spent + st.ni.blocked_cost;
                        first = false;
                    }
                }
                o.checks.push_back(eq<A>("curr_cost is the time measured at the balanced levels", t, "curr_cost",
                                         res.curr_cost, "sum of the balanced levels' costs", spent));
            }
            timeline<I>(o, r0, st, r, res, k);
            return o;
        };
    }
};

// ---------------------------------------------------------------------------
// idlebal.no_overflow: no arithmetic of a step wraps where the code does
// not mean it to.  The wraps the code means are left out: the u64
// difference in update_avg() read as s64 (checked instead: it is the exact
// difference, |sample - avg| < 2^63) and added back modulo 2^64, and the
// jiffies arithmetic of time_after() and the decay stamps.  Each check
// restates one operation's operands from the step's inputs:
//   wake-up:   2 * sysctl (u32, up to low-1-2), 2 * max_idle_balance_cost;
//   newidle:   the sched_clock readings, curr_cost + sd->max_newidle_lb_cost,
//              the 6.x success counters;
//   rebalance: max_newidle_lb_cost * 253, the sum of the domain costs.
// sched_init() runs with the boot-time sysctl (500 us) and is not a step.
struct NoOverflow {
    static constexpr const char *id = "idlebal.no_overflow";
    static constexpr bool integer_first = true; // sums and comparisons: linear integer arithmetic
    static constexpr bool lazy = true; // see the note above the cap
    // Most of these bounds follow from the input ranges alone (a sum of
    // costs of at most 2^42 each); the path's conditions, through
    // update_avg()'s signed division, only slow the solver down.
    static constexpr bool domain_first = true;
    template <class I> static bool applies() { return true; }
    template <class I> static std::string domain(Arch) {
        return "one step (wake-up, newidle balance, periodic rebalance) from any state; " + domain_text<I>();
    }
    template <class I> static std::vector<KCase> cases(Arch) { return all_steps<I>(false); }
    template <class I, class A, class In> static Runner<A> build(In &in, const KCase &c) {
        using u64 = typename A::u64;
        const StepCase s = decode(c.kind);
        const idlebal::knobs<A> k = any_knobs<I, A>(in, s);
        const idlebal::rq<A> r0 = any_rq<I, A>(in, s.k == stepk::wakeup ? idlebal::SD_MAX : s.nr);
        const Step<A> st = any_step<I, A>(in, s, r0);
        return [=]() {
            idlebal::rq<A> r = r0;
            auto res = apply<I, A>(r, st, k);
            KOut<A> o;
            typename A::boolean t(true);
            const u64 m64 = U64_MAX;
            if (s.k == stepk::wakeup) {
                const typename A::boolean sampled = r0.idle_stamp != u64(0);
                if constexpr (has_decay<I>)
                    o.checks.push_back(le<A>("2 * max_idle_balance_cost does not wrap (u64)", sampled,
                                             "max_idle_balance_cost", r0.max_idle_balance_cost, "U64_MAX / 2", m64 / u64(2)));
                else
                    o.checks.push_back(le<A>("2 * sysctl_sched_migration_cost does not wrap (unsigned int)", sampled,
                                             "sysctl_sched_migration_cost", u64(k.sysctl_sched_migration_cost),
                                             "U32_MAX / 2", u64(U32_MAX / 2)));
                // update_avg()'s difference, read as s64, is exact when
                // |sample - avg_idle| <= 2^63 (S64_MAX rising).  Stated so,
                // with the outer subtraction of a difference, each check
                // costs Z3 about 0.2 s even against the input ranges alone.
                // Moved across (sample <= avg_idle + S64_MAX, avg_idle <=
                // sample + 2^63) it is the same statement wherever the
                // moved term does not wrap, and about five times cheaper;
                // where it could wrap the original form is checked.
                const u64 sample = st.wk.now - r0.idle_stamp;
                const u64 lim = u64(CLOCK_MAX);
                const typename A::boolean rising = sampled && r0.avg_idle <= sample;
                const typename A::boolean falling = sampled && sample < r0.avg_idle;
                const typename A::boolean avg_small = r0.avg_idle <= u64(std::uint64_t(1) << 63);
                const typename A::boolean sample_small = sample <= lim;
                const char *rise = "update_avg(): a rising sample's difference is an exact s64";
                const char *fall = "update_avg(): a falling sample's difference is an exact s64";
                o.checks.push_back(le<A>(rise, rising && avg_small, "sample", sample, "avg_idle + S64_MAX",
                                         r0.avg_idle + lim));
                o.checks.push_back(le<A>(rise, rising && !avg_small, "sample - avg_idle", sample - r0.avg_idle,
                                         "S64_MAX", lim));
                o.checks.push_back(le<A>(fall, falling && sample_small, "avg_idle", r0.avg_idle, "sample + 2^63",
                                         sample + (lim + u64(1))));
                o.checks.push_back(le<A>(fall, falling && !sample_small, "avg_idle - sample", r0.avg_idle - sample,
                                         "2^63", lim + u64(1)));
            } else if (s.k == stepk::newidle) {
                // The last sched_clock reading: sched_clock + the update of the
                // blocked averages + every level's balance.
                u64 room = m64 - st.ni.sched_clock;
                u64 used = st.ni.blocked_cost;
                for (int i = 0; i < s.nr; ++i)
                    used = used + st.ni.lb_cost[i];
                o.checks.push_back(le<A>("the sched_clock readings do not wrap", t, "time measured", used,
                                         "U64_MAX - sched_clock", room));
                if constexpr (has_cost<I>)
                    for (int i = 0; i < s.nr; ++i)
                        o.checks.push_back(le<A>("curr_cost + sd->max_newidle_lb_cost does not wrap", t,
                                                 "sd[" + std::to_string(i) + "].max_newidle_lb_cost",
                                                 r0.sd[i].max_newidle_lb_cost, "U64_MAX - curr_cost", m64 - res.curr_cost));
                if constexpr (six<I>)
                    for (int i = 0; i < s.nr; ++i) {
                        const std::string p = "sd[" + std::to_string(i) + "].";
                        o.checks.push_back(le<A>("newidle_call + 1 does not wrap", t, p + "newidle_call",
                                                 u64(r0.sd[i].newidle_call), "U32_MAX - 1", u64(U32_MAX - 1)));
                        o.checks.push_back(le<A>("newidle_success + 1024 does not wrap", t, p + "newidle_success",
                                                 u64(r0.sd[i].newidle_success), "U32_MAX - 1024", u64(U32_MAX - 1024)));
                    }
            } else if (s.k == stepk::rebalance) {
                u64 sum = 0;
                for (int i = 0; i < s.nr; ++i) {
                    const std::string n = "sd[" + std::to_string(i) + "].max_newidle_lb_cost";
                    o.checks.push_back(le<A>("max_newidle_lb_cost * 253 does not wrap", t, n, r0.sd[i].max_newidle_lb_cost,
                                             "U64_MAX / 253", m64 / u64(idlebal::DECAY_MUL)));
                    o.checks.push_back(le<A>("the sum of the domain costs does not wrap", t, n, r0.sd[i].max_newidle_lb_cost,
                                             "U64_MAX - the levels below", m64 - sum));
                    sum = sum + r0.sd[i].max_newidle_lb_cost;
                }
            }
            timeline<I>(o, r0, st, r, res, k);
            return o;
        };
    }
};

} // namespace sc::proofs::idlebal_inv
