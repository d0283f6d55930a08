// The PELT invariants, written once against the kernel-shaped interface
// (proofs/kernel/kernel_iface.h): I::on<A>::update_load_avg() and decay_load().
// Each runs on a reference variant and on a kernel oracle alike.
//
// Both hold for every state: they need no hypothesis and no induction, so
// a counterexample is a real input of the function.
//
// The entity is a task: load = runnable = on_rq in {0, 1}, running in
// {0, 1}, weight = scale_load_down(se->load.weight) of a nice level,
// 15..88761, fixed across the update.  The clock advances: now >=
// last_update_time and now - last_update_time < 2^63 (the kernel reads a
// larger difference as time going backwards and resynchronises).
#pragma once
#include <algorithm>
#include <cmath>

#include <fmt/format.h>

#include "proofs/engine/double_width.h"
#include "proofs/engine/kprop_engine.h"
#include "proofs/kernel/kernel_iface.h"

namespace sc::proofs::pelt_inv {

using pelt::version;

constexpr std::uint64_t U64_MAX = ~std::uint64_t(0);
constexpr std::uint64_t NICE_0_WEIGHT_MIN = 15, NICE_WEIGHT_MAX = 88761;


// A check `lhs <= rhs` (both widened to u64) under a guard.
template <class A, class L, class R>
KCheck<A> le(const std::string &what, typename A::boolean guard, const std::string &ln, const L &l,
             const std::string &rn, const R &r) {
    using u64 = typename A::u64;
    return KCheck<A>{what, guard, ln, u64(l), cmp::le, rn, u64(r)};
}
template <class A, class L, class R>
KCheck<A> eq(const std::string &what, typename A::boolean guard, const std::string &ln, const L &l,
             const std::string &rn, const R &r) {
    using u64 = typename A::u64;
    return KCheck<A>{what, guard, ln, u64(l), cmp::eq, rn, u64(r)};
}

// Any sched_avg: every field over its machine range, period_contrib as
// stated by the caller.
template <class A, class In> pelt::sched_avg<A> any_avg(In &in) {
    using u64 = typename A::u64;
    using uint = typename A::uint;
    using ulong = typename A::ulong;
    const std::uint64_t lmax = A::long_bits == 64 ? U64_MAX : 0xffffffffu;
    pelt::sched_avg<A> sa{};
    sa.last_update_time = in.template var<u64>("last_update_time", 0, U64_MAX);
    sa.load_sum = in.template var<u64>("load_sum", 0, U64_MAX);
    sa.runnable_sum = in.template var<u64>("runnable_sum", 0, U64_MAX);
    sa.util_sum = in.template var<uint>("util_sum", 0, 0xffffffffu);
    sa.period_contrib = in.template var<uint>("period_contrib", 0, 1023);
    sa.load_avg = in.template var<ulong>("load_avg", 0, lmax);
    sa.runnable_avg = in.template var<ulong>("runnable_avg", 0, lmax);
    sa.util_avg = in.template var<ulong>("util_avg", 0, lmax);
    return sa;
}

// One task update's inputs: the time since the last update in ns, and the
// task's flags and weight.
template <class A> struct TaskStep {
    typename A::u64 now, delta_ns;
    typename A::ulong load, runnable, weight;
    typename A::sint running;
};

template <class A, class In> TaskStep<A> any_task_step(In &in, const pelt::sched_avg<A> &sa) {
    using u64 = typename A::u64;
    using ulong = typename A::ulong;
    using sint = typename A::sint;
    TaskStep<A> st;
    st.delta_ns = in.template var<u64>("delta_ns", 0, (std::uint64_t(1) << 63) - 1);
    in.require(sa.last_update_time <= u64(U64_MAX) - st.delta_ns, "last_update_time + delta_ns <= U64_MAX");
    st.now = sa.last_update_time + st.delta_ns;
    st.load = in.template var<ulong>("on_rq", 0, 1);
    st.runnable = st.load; // a task's se_runnable() is its on_rq
    st.running = in.template var<sint>("running", 0, 1);
    st.weight = in.template var<ulong>("weight", NICE_0_WEIGHT_MIN, NICE_WEIGHT_MAX);
    return st;
}

// ---------------------------------------------------------------------------
// Traces from the initial state, for the search cases of state invariants.
// A task starts from the zero sched_avg at time 0, runs and is on the
// runqueue for first_us units (1024ns each), then gets `count` updates
// period_us units apart, with on_rq and running as given, and a fixed
// weight.  The trace stops at the first update after which a check fails
// (its step and fields are shown), else it ends with the last update's checks.
// Only concrete inputs run it; symbolically the case only states its domain.
constexpr std::uint64_t PATTERN_MAX_COUNT = 4096;

template <class A>
using StepChecks = std::function<void(KOut<A> &, const pelt::sched_avg<A> &before, const pelt::sched_avg<A> &after,
                                      const TaskStep<A> &)>;

template <class I, class A, class In> Runner<A> pattern_trace(In &in, StepChecks<A> checks) {
    using u64 = typename A::u64;
    using ulong = typename A::ulong;
    using sint = typename A::sint;
    u64 first = in.template var<u64>("first_us", 0, std::uint64_t(1) << 40);
    u64 period = in.template var<u64>("period_us", 1, std::uint64_t(1) << 43);
    u64 count = in.template var<u64>("count", 1, PATTERN_MAX_COUNT);
    ulong on_rq = in.template var<ulong>("on_rq", 0, 1);
    sint running = in.template var<sint>("running", 0, 1);
    ulong weight = in.template var<ulong>("weight", NICE_0_WEIGHT_MIN, NICE_WEIGHT_MAX);
    in.require(first + period * count <= u64(std::uint64_t(1) << 53), "first_us + period_us * count <= 2^53");
    in.require(on_rq != ulong(0) || running == sint(0), "running only when on_rq");
    return [=]() {
        KOut<A> o;
        if constexpr (is_concrete<A>) {
            pelt::sched_avg<A> sa{};
            for (std::uint64_t k = 0; k <= count; ++k) {
                // Update k is at (first_us + k * period_us) units.
                TaskStep<A> st;
                st.now = (first + period * u64(k)) << 10;
                st.delta_ns = st.now - sa.last_update_time;
                st.load = st.runnable = k == 0 ? ulong(1) : on_rq;
                st.running = k == 0 ? sint(1) : running;
                st.weight = weight;
                const pelt::sched_avg<A> before = sa;
                I::template on<A>::update_load_avg(st.now, sa, st.load, st.runnable, st.running, st.weight);
                KOut<A> step;
                checks(step, before, sa, st);
                bool broken = false;
                for (const auto &c : step.checks)
                    broken = broken || !concrete_holds(c);
                if (broken || k == count) {
                    o.checks = std::move(step.checks);
                    o.shown = {{"update", u64(k)},
                               {"now_us", st.now >> 10},
                               {"on_rq", u64(st.load)},
                               {"running", u64(st.running)}};
                    for (auto &x : step.shown)
                        o.shown.push_back(x);
                    break;
                }
            }
        }
        return o;
    };
}

// ---------------------------------------------------------------------------
// Bounds on the sums of every reachable state (v4.12 and 6.x), at period
// position pc = period_contrib.  A sum of 1024-unit segments of a busy
// entity is LOAD_AVG_MAX y = PELT_MIN_DIVIDER right after a boundary and
// grows by one per unit of the open period: at most PELT_MIN_DIVIDER + pc
// (6.x's divider), and this bound is exactly inductive, since decay_load()
// only rounds down.  A sum scaled by 1024 (util_sum; 6.x's runnable_sum)
// can exceed 1024 times that bound: decay_load(1024 x) may be up to 1023
// above 1024 decay_load(x) at every boundary, and these excesses decay
// with y, so a slack of LOAD_AVG_MAX (> 1023 / (1 - y)) is kept.  v4.12's
// load_sum is weighted: w times the unit bound, plus 47 w for the same
// rounding (47 > 1 / (1 - y)).
inline std::uint64_t unit_bound(std::uint64_t pc) { return pelt::PELT_MIN_DIVIDER + pc; }
template <class A> typename A::u64 unit_bound(const typename A::uint &pc) {
    return typename A::u64(pelt::PELT_MIN_DIVIDER) + typename A::u64(pc);
}
template <class A> typename A::u64 scaled_bound(const typename A::uint &pc) {
    return (unit_bound<A>(pc) << 10) + typename A::u64(pelt::LOAD_AVG_MAX);
}
template <class A> typename A::u64 weighted_bound(const typename A::uint &pc, const typename A::ulong &w) {
    using u64 = typename A::u64;
    return u64(w) * (unit_bound<A>(pc) + u64(47));
}

// The auxiliary invariant of the state invariants: every sum within its
// bound, as checks after a step and as requirements on the state before.
// A property of util_avg alone needs util_sum's only (`util_only`): no
// check or branch of it reads the other sums, so whether they wrap does
// not matter to it (the engine asks the no-wrap obligations of read terms
// only).
template <class I, class A> void sum_bound_checks(KOut<A> &o, const pelt::sched_avg<A> &sa, bool util_only = false) {
    using u64 = typename A::u64;
    const typename A::boolean t(true);
    if (!util_only) {
        if constexpr (I::shape >= version::v6_1) {
            o.checks.push_back(le<A>("load_sum within the auxiliary bound", t, "load_sum", sa.load_sum,
                                     "unit_bound(period_contrib)", unit_bound<A>(sa.period_contrib)));
            o.checks.push_back(le<A>("runnable_sum within the auxiliary bound", t, "runnable_sum", sa.runnable_sum,
                                     "scaled_bound(period_contrib)", scaled_bound<A>(sa.period_contrib)));
        } else {
            o.checks.push_back(le<A>("load_sum within the auxiliary bound", t, "load_sum", sa.load_sum,
                                     "weighted_bound(period_contrib, 88761)",
                                     weighted_bound<A>(sa.period_contrib, typename A::ulong(NICE_WEIGHT_MAX))));
        }
    }
    o.checks.push_back(le<A>("util_sum within the auxiliary bound", t, "util_sum", u64(sa.util_sum),
                             "scaled_bound(period_contrib)", scaled_bound<A>(sa.period_contrib)));
}
template <class I, class A> void require_sum_bounds(auto &in, const pelt::sched_avg<A> &sa0, bool util_only = false) {
    using u64 = typename A::u64;
    if (!util_only) {
        if constexpr (I::shape >= version::v6_1) {
            in.require(sa0.load_sum <= unit_bound<A>(sa0.period_contrib), "load_sum within the bound (auxiliary)");
            in.require(sa0.runnable_sum <= scaled_bound<A>(sa0.period_contrib),
                       "runnable_sum within the bound (auxiliary)");
        } else {
            in.require(sa0.load_sum <= weighted_bound<A>(sa0.period_contrib, typename A::ulong(NICE_WEIGHT_MAX)),
                       "load_sum within the bound (auxiliary)");
        }
    }
    in.require(u64(sa0.util_sum) <= scaled_bound<A>(sa0.period_contrib), "util_sum within the bound (auxiliary)");
}
// The auxiliary invariant as the domain texts state it.
template <class I> std::string sum_bounds_text(bool util_only = false) {
    if (util_only)
        return "util_sum <= ((47742 - 1024 + period_contrib) << 10) + 47742";
    return std::string(I::shape >= version::v6_1 ? "load_sum <= 47742 - 1024 + period_contrib, runnable_sum, util_sum"
                                                 : "load_sum <= 88761 * (47742 - 1024 + period_contrib + 47), util_sum") +
           " <= ((47742 - 1024 + period_contrib) << 10) + 47742";
}
// Every field of a sched_avg, for a trace.
template <class A> void show_state(KOut<A> &o, const pelt::sched_avg<A> &sa, const char *when) {
    using u64 = typename A::u64;
    for (auto [name, v] : {std::pair<const char *, u64>{"load_sum", sa.load_sum},
                           {"runnable_sum", sa.runnable_sum},
                           {"util_sum", u64(sa.util_sum)},
                           {"load_avg", u64(sa.load_avg)},
                           {"runnable_avg", u64(sa.runnable_avg)},
                           {"util_avg", u64(sa.util_avg)},
                           {"period_contrib", u64(sa.period_contrib)},
                           {"last_update_time", sa.last_update_time}})
        o.shown.push_back({std::string(name) + " " + when, v});
}
// ---------------------------------------------------------------------------
// pelt.time_accounted: after an update at `now`, the time not yet accounted
// (now - last_update_time) is below one 1024ns unit, and last_update_time
// moved by a whole number of units, so the remainder is carried into the
// next update: across any sequence of updates no nanosecond is lost.
// One step, no hypothesis: it holds for any state.
struct TimeAccounted {
    static constexpr const char *id = "pelt.time_accounted";
    static constexpr bool integer_first = false;
    template <class I> static bool applies() { return true; }
    template <class I> static std::string domain(Arch) { return "every state with period_contrib < 1024, every other field over its machine range; one task update: "
               "on_rq and running in {0, 1}, weight 15..88761, 0 <= now - last_update_time < 2^63"; }
    template <class I> static std::vector<KCase> cases(Arch) { return {{"any update", -1, 0, {}}}; }
    template <class I, class A, class In> static Runner<A> build(In &in, const KCase &) {
        using u64 = typename A::u64;
        const pelt::sched_avg<A> sa0 = any_avg<A>(in);
        const TaskStep<A> st = any_task_step<A>(in, sa0);
        return [=]() {
            pelt::sched_avg<A> sa = sa0;
            I::template on<A>::update_load_avg(st.now, sa, st.load, st.runnable, st.running, st.weight);
            KOut<A> o;
            typename A::boolean t(true);
            o.checks.push_back(le<A>("the clock never runs past now", t, "last_update_time after", sa.last_update_time,
                                     "now", st.now));
            o.checks.push_back(le<A>("less than one unit is left unaccounted", t, "now - last_update_time after",
                                     u64(st.now - sa.last_update_time), "1023", u64(1023)));
            o.checks.push_back(eq<A>("the clock moves by whole 1024ns units", t,
                                     "(last_update_time after - before) % 1024",
                                     u64((sa.last_update_time - sa0.last_update_time) & u64(1023)), "0", u64(0)));
            o.shown = {{"last_update_time before", sa0.last_update_time}, {"now", st.now},
                       {"last_update_time after", sa.last_update_time}};
            return o;
        };
    }
};

// ---------------------------------------------------------------------------
// pelt.decay_monotone: decay_load(val, n) = val * y^n in the kernel's
// fixed point is never above val, never grows with n, and never shrinks
// when val grows.  Every 64-bit val and n; n is split into cases 0..2048
// (past 63 * 32 every release returns 0 or a value from the same table).
//
// y^32 = 1/2, and the kernel's decay_load() takes it as a shift: for
// n >= 32 it halves val once per 32 periods before it looks the rest up.
// So where the implementation has
//     decay_load(val, m) == decay_load(val >> 1, m - 32)   for m = n, n + 1
// for every val (the lemma), case n follows from case n - 32 applied to
// val >> 1 and val2 >> 1, which are 64-bit values too:
//     decay_load(val, n) = decay_load(val >> 1, n - 32) <= val >> 1 <= val;
//     decay_load(val, n + 1) = decay_load(val >> 1, n - 31)
//                           <= decay_load(val >> 1, n - 32) = decay_load(val, n);
//     val <= val2 gives val >> 1 <= val2 >> 1, and the order carries over.
// The engine checks the lemma per case (follows_from in kprop_engine.h)
// and proves the case directly where it does not hold: v3.8 and v4.3 keep
// decay_load(val, 0) = val, which the table's y^0 = 0xffffffff / 2^32
// does not give, so their case 32 is proved on its own.  On bit-vectors
// both sides shift val by the same whole amount and the solver settles the
// lemma at once, where v4.3's own checks took 14 ms a case on ilp32.
struct DecayMonotone {
    static constexpr const char *id = "pelt.decay_monotone";
    static constexpr bool integer_first = true;
    static constexpr bool lazy = false;
    // v4.3's, v4.12's and 6.x's decay_load() are one text for n >= 1: the
    // second and third release find most answers in the query cache.
    static constexpr bool share_quick_answers = true;
    // 2,050 cases of a few milliseconds each: the solvers' base check after
    // the first and every 16th case only (base_check_every() in
    // kprop_engine.h).
    static constexpr unsigned base_check_every = 16;
    // Z3's older arithmetic solver: v4.3 ilp32 48 -> 38 s.
    template <class I> static constexpr bool older_arith() { return true; }
    // Its text tells no release from another: pelt/v6.1's proof is carried
    // from pelt/v4.12's, whose decay_load() equiv proves the same as
    // linux-6.1's (a test reads this struct to hold it to that).
    static constexpr bool shape_blind = true;
    template <class I> static bool applies() { return true; }
    template <class I> static std::string domain(Arch) {
        return "every 64-bit val, val2 and n (n split into the cases 0..2048 and > 2048; a case n >= 32 follows "
               "from case n - 32 where the halving lemma holds for every val)";
    }
    static constexpr const char *lemma_text =
        "the halving lemma decay_load(val, m) == decay_load(val >> 1, m - 32) for m = n, n + 1";
    template <class I> static std::vector<KCase> cases(Arch) {
        std::vector<KCase> cs;
        for (std::int64_t n = 0; n <= 2048; ++n) {
            cs.push_back({"n " + std::to_string(n), n, 0, {{"n", std::uint64_t(n)}}});
            if (n >= 32)
                cs.back().follows_from = std::size_t(n - 32); // case n sits at position n
        }
        cs.push_back({"n > 2048", -1, 0, {}});
        return cs;
    }
    // The lemma of case n (above), for every 64-bit val.
    template <class I, class A, class In> static Runner<A> build_lemma(In &in, const KCase &c) {
        using u64 = typename A::u64;
        const u64 val = in.template var<u64>("val", 0, U64_MAX);
        const std::uint64_t n = std::uint64_t(c.n);
        return [=]() {
            using P = typename I::template on<A>;
            const u64 half = val >> 1;
            KOut<A> o;
            typename A::boolean t(true);
            for (std::uint64_t m : {n, n + 1})
                o.checks.push_back(eq<A>("halving lemma", t, "decay_load(val, m)", P::decay_load(val, u64(m)),
                                         "decay_load(val >> 1, m - 32)", P::decay_load(half, u64(m - 32))));
            return o;
        };
    }
    template <class I, class A, class In> static Runner<A> build(In &in, const KCase &c) {
        using u64 = typename A::u64;
        u64 val = in.template var<u64>("val", 0, U64_MAX);
        u64 val2 = in.template var<u64>("val2", 0, U64_MAX);
        u64 n = c.n >= 0 ? in.template fixed<u64>("n", std::uint64_t(c.n)) : in.template var<u64>("n", 2049, U64_MAX - 1);
        return [=]() {
            using P = typename I::template on<A>;
            u64 d = P::decay_load(val, n), d1 = P::decay_load(val, n + u64(1)), d2 = P::decay_load(val2, n);
            KOut<A> o;
            typename A::boolean t(true);
            o.checks.push_back(le<A>("never above val", t, "decay_load(val, n)", d, "val", val));
            o.checks.push_back(le<A>("non-increasing in n", t, "decay_load(val, n + 1)", d1, "decay_load(val, n)", d));
            o.checks.push_back(le<A>("non-decreasing in val", val <= val2, "decay_load(val, n)", d, "decay_load(val2, n)", d2));
            o.shown = {{"decay_load(val, n)", d}, {"decay_load(val, n + 1)", d1}, {"decay_load(val2, n)", d2}};
            return o;
        };
    }
};

// ---------------------------------------------------------------------------
// pelt.sum_avg_consistent: a non-zero *_avg never sits on a zero *_sum, for
// the load, runnable and util pairs.  A state invariant, proved by
// induction: from every state where it holds, one update of any task keeps
// it; the base case is the zero sched_avg.  Each *_avg is either left alone
// (no period crossed: the sums only grow) or recomputed as a quotient of
// its own *_sum, which is 0 when the sum is.
//
// "The sums only grow" needs them not to wrap, so the invariant includes
// the sum bounds above (unit_bound, scaled_bound; v4.12's load_sum within
// weighted_bound of the largest weight, as the weight may change between
// updates): they are checked after the step, so proved with it, not
// assumed.  v3.8 keeps no such pairs (runnable_avg_sum / load_avg_contrib);
// v4.3's period loop is not explored here (the proof does not finish), so
// it is left out.
//
// It does not hold on v4.12 and 6.x: accumulate_sum() counts the periods
// crossed in a u64 but returns them as u32, so after exactly k * 2^32
// periods (2^52 ns, about 52 days) without an update the caller sees "no
// period crossed" and keeps the old averages, while the sums were decayed
// to 0.  The search case runs that trace from the zero sched_avg (a task
// runs, then sleeps that long), so it is a real counterexample.
struct SumAvgConsistent {
    static constexpr const char *id = "pelt.sum_avg_consistent";
    static constexpr bool integer_first = false;
    static constexpr bool induction = true;
    template <class I> static bool applies() { return I::shape >= version::v4_12; }
    template <class I> static std::string domain(Arch) {
        return std::string("search: from the zero sched_avg, a task runs for first_us = 1024, 1500 or 3000 units, "
                           "then sleeps (on_rq 0) for a multiple of 2^32 periods, give or take one period; "
                           "induction: every state where each *_sum == 0 has *_avg == 0, with the auxiliary "
                           "invariant (proved with it) ") +
               sum_bounds_text<I>() + " (the averages over their machine range), one "
               "task update (on_rq, running in {0, 1}, weight 15..88761, 0 <= now - last_update_time < 2^63); base "
               "case: the zero sched_avg";
    }
    template <class I> static std::vector<KCase> cases(Arch) {
        KCase search{"reachable trace: a task runs, then sleeps for 2^32 periods", -1, 2, {}};
        search.search = true;
        search.searched = "a run then a sleep of k * 2^32 periods (k = 1, 2) give or take one period";
        return {search, {"base case: the zero sched_avg", -1, 1, {}}, {"induction step: any update", -1, 0, {}}};
    }
    template <class I> static std::vector<std::map<std::string, std::uint64_t>> search_points(Arch, const KCase &) {
        std::vector<std::map<std::string, std::uint64_t>> pts;
        for (std::uint64_t first : {1024, 1500, 3000})
            for (std::uint64_t k : {1, 2})
                for (std::int64_t off : {-1024, -1, 0, 1023, 1024}) {
                    const std::uint64_t span = (k << 42) - first % 1024; // exactly k * 2^32 boundaries
                    pts.push_back({{"first_us", first}, {"period_us", std::uint64_t(std::int64_t(span) + off)},
                                   {"count", 1}, {"on_rq", 0}, {"running", 0}, {"weight", 1024}});
                }
        return pts;
    }
    template <class I, class A, class In> static Runner<A> build(In &in, const KCase &c) {
        using u64 = typename A::u64;
        using ulong = typename A::ulong;
        auto pair_checks = [](KOut<A> &o, const pelt::sched_avg<A> &sa) {
            // Each check is guarded by its sum being 0.
            auto pair = [&](const char *what, const u64 &sum, const char *avg_name, const ulong &avg) {
                o.checks.push_back(eq<A>(what, sum == u64(0), avg_name, u64(avg), "0", u64(0)));
            };
            pair("load_avg is 0 when load_sum is", sa.load_sum, "load_avg", sa.load_avg);
            pair("runnable_avg is 0 when runnable_sum is", sa.runnable_sum, "runnable_avg", sa.runnable_avg);
            pair("util_avg is 0 when util_sum is", u64(sa.util_sum), "util_avg", sa.util_avg);
        };
        auto show = [](KOut<A> &o, const pelt::sched_avg<A> &sa, const char *when) {
            for (auto [name, v] : {std::pair<const char *, u64>{"load_sum", sa.load_sum},
                                   {"load_avg", u64(sa.load_avg)},
                                   {"runnable_sum", sa.runnable_sum},
                                   {"runnable_avg", u64(sa.runnable_avg)},
                                   {"util_sum", u64(sa.util_sum)},
                                   {"util_avg", u64(sa.util_avg)}})
                o.shown.push_back({std::string(name) + " " + when, v});
        };
        if (c.kind == 2)
            return pattern_trace<I, A>(in, [=](KOut<A> &o, const pelt::sched_avg<A> &, const pelt::sched_avg<A> &after,
                                                const TaskStep<A> &) {
                pair_checks(o, after);
                show(o, after, "after");
            });
        if (c.kind == 1) {
            // The base case holds no input: a dummy one keeps the domain non-empty.
            in.template var<u64>("unused", 0, 0);
            return [=]() {
                KOut<A> o;
                pair_checks(o, pelt::sched_avg<A>{});
                sum_bound_checks<I, A>(o, pelt::sched_avg<A>{});
                return o;
            };
        }
        const pelt::sched_avg<A> sa0 = any_avg<A>(in);
        require_sum_bounds<I, A>(in, sa0);
        in.require(sa0.load_sum != u64(0) || sa0.load_avg == ulong(0), "load_sum == 0 -> load_avg == 0");
        in.require(sa0.runnable_sum != u64(0) || sa0.runnable_avg == ulong(0),
                   "runnable_sum == 0 -> runnable_avg == 0");
        in.require(sa0.util_sum != typename A::uint(0) || sa0.util_avg == ulong(0), "util_sum == 0 -> util_avg == 0");
        const TaskStep<A> st = any_task_step<A>(in, sa0);
        return [=]() {
            pelt::sched_avg<A> sa = sa0;
            I::template on<A>::update_load_avg(st.now, sa, st.load, st.runnable, st.running, st.weight);
            KOut<A> o;
            pair_checks(o, sa);
            sum_bound_checks<I, A>(o, sa);
            show(o, sa0, "before");
            o.shown.push_back({"now - last_update_time", st.delta_ns});
            show(o, sa, "after");
            return o;
        };
    }
};

// The sums' half of one task update, as update_load_avg() calls it: 6.x's
// ___update_load_sum(); v4.12's takes the weight as load (its load_sum is
// weighted) and has no runnable signal.  It must leave the averages alone.
template <class I, class A> void sums_half(pelt::sched_avg<A> &sa, const TaskStep<A> &st) {
    if constexpr (I::shape >= version::v6_1)
        I::template on<A>::___update_load_sum(st.now, sa, st.load, st.runnable, st.running);
    else if constexpr (I::shape == version::v4_12)
        I::template on<A>::___update_load_sum(st.now, sa, st.load * st.weight, typename A::ulong(0), st.running);
}
// The averages' half (v4.12 and 6.x; nothing before, where no invariant
// that uses it applies).
template <class I, class A> void avgs_half(pelt::sched_avg<A> &sa, const typename A::ulong &weight) {
    if constexpr (I::shape >= version::v4_12)
        I::template on<A>::___update_load_avg(sa, weight);
}

// first_us 0..1023, then `count` updates one period (1024 units) apart:
// the phase of the updates within the period decides the truncations.
inline std::vector<std::map<std::string, std::uint64_t>> periodic_points(std::uint64_t weight, std::uint64_t count) {
    std::vector<std::map<std::string, std::uint64_t>> pts;
    for (std::uint64_t d0 = 0; d0 < 1024; ++d0)
        pts.push_back({{"first_us", d0}, {"period_us", 1024}, {"count", count}, {"on_rq", 1}, {"running", 1},
                       {"weight", weight}});
    return pts;
}

// The kinds of the cases of the state invariants below.
enum : int { BASE = 1, SEARCH = 2, STEP_SUMS = 3, STEP_AVGS = 4 };

// ---------------------------------------------------------------------------
// An induction step split by the number k of period boundaries the update
// crosses: one case per k = 0..kmax, and with `rest` one more case for
// every k above kmax.  With k fixed by the domain, decay_load()'s shift
// and table index are decided through it, so each case is linear integer
// arithmetic (about 20 ms), where the step with k free is a product by a
// symbolic table entry on bit-vectors.  The explorer takes "periods == k"
// from the domain as a substitution, so those branches cost no solver
// call (Explorer::assume).
//
// The rest case runs on bit-vectors with k free.  The bounded-signal
// proofs start it at 512 boundaries (CROSSING_MERGED): from there on (16
// halvings by the shift alone) decay_load() leaves nothing of load_sum,
// runnable_sum or the contributions (each below 2^16), and at most 2^10 of
// v4.12's scaled util_sum (below 2^26), which its bound's slack of 47742
// absorbs.  So the solver settles every such k in one case of about 2 s
// (bit-blasting the shifts and products, the zeros propagate); measured
// on v4.12's util_bounded lp64 (42 -> 9.5 s) and v6.1's load_bounded lp64
// (24 -> 16.6 s).  From 128 or 256 it ran out of time: there the decayed
// sums are not zero, and the bound holds only through the floors'
// rounding.
enum : int { CROSSING = 10000, CROSSING_FROM = 20000 };
constexpr std::uint64_t CROSSING_MERGED = 512;
// `upto` bounds the rest case from above, for a proof whose step covers
// updates of at most that many boundaries (running_converges); it is only
// named in the label here, require_crossing() takes the same bound.
constexpr std::uint64_t CROSSING_ANY = ~std::uint64_t(0);
inline std::vector<KCase> crossing_cases(const std::string &what, std::uint64_t kmax, bool rest,
                                         std::uint64_t upto = CROSSING_ANY) {
    std::vector<KCase> cs;
    auto add = [&](std::string count, std::uint64_t k, int kind, bool integers) {
        KCase c{"induction step: " + what + ", " + count, -1, kind, {}};
        c.integer_first = integers;
        c.lazy = false;
        // k whole periods from a zero period_contrib, the task on the
        // runqueue and running: a point of the domain where the rest of
        // the state is zero, found with no solver.
        c.witness = {{"delta_ns", k << 20}, {"on_rq", 1}, {"running", 1}};
        cs.push_back(std::move(c));
    };
    add("no boundary crossed", 0, CROSSING, true);
    for (std::uint64_t k = 1; k <= kmax; ++k)
        add(std::to_string(k) + (k == 1 ? " boundary crossed" : " boundaries crossed"), k,
            CROSSING + static_cast<int>(k), true);
    if (rest)
        add(std::to_string(kmax + 1) + (upto == CROSSING_ANY ? " or more" : " to " + std::to_string(upto)) +
                " boundaries crossed (on bit-vectors)",
            kmax + 1, CROSSING_FROM + static_cast<int>(kmax + 1), false);
    return cs;
}
// The k of a single-count crossing case; the lowest k of the rest case.
inline std::uint64_t crossing_k(int kind) {
    return static_cast<std::uint64_t>(kind >= CROSSING_FROM ? kind - CROSSING_FROM : kind - CROSSING);
}
template <class A, class In>
void require_crossing(In &in, const pelt::sched_avg<A> &sa0, const TaskStep<A> &st, int kind,
                      std::uint64_t upto = CROSSING_ANY) {
    using u64 = typename A::u64;
    const u64 periods = ((st.delta_ns >> 10) + u64(sa0.period_contrib)) >> 10;
    const std::uint64_t k = crossing_k(kind);
    if (kind >= CROSSING_FROM) {
        in.require(periods >= u64(k), "the update crosses " + std::to_string(k) + " or more period boundaries");
        if (upto != CROSSING_ANY)
            in.require(periods <= u64(upto), "the update crosses at most " + std::to_string(upto) + " period boundaries");
    } else {
        in.require(periods == u64(k), "the update crosses " + std::to_string(k) + " period boundaries");
    }
}

// ---------------------------------------------------------------------------
// The cases of a bounded-signal invariant (util_bounded, load_bounded): a
// search of periodic traces from the zero sched_avg, the base case, and the
// induction step.  The search runs first: a trace it finds starts from the
// initial state, so it is a real counterexample; the step alone could only
// say "not inductive".
//
// The step is taken in its two halves, as update_load_avg() is made of
// them: ___update_load_sum() keeps the sums within their bound (and leaves
// the averages alone), and ___update_load_avg(), from sums within it, gives
// averages within the property (and leaves the sums alone).  Proving the
// division through the sums' decay in one query does not finish; the
// halves compose to the same statement.  With `split_sums` the sums' half
// is split by the boundaries crossed (crossing_cases): with k free over
// every count it is not decided within the timeout, as v4.12's load_sum
// adds weight * contrib (a product of two inputs), and 6.x's decay of a
// symbolic sum by a symbolic table entry is a product on bit-vectors; from
// 512 on, where the decayed sums vanish or fit the bound's slack, one
// case of k free is.
inline std::vector<KCase> bounded_cases(const std::string &label, const std::string &searched, bool split_sums) {
    KCase search{label, -1, SEARCH, {}};
    search.search = true;
    search.searched = searched;
    std::vector<KCase> cs = {search, {"base case: the zero sched_avg", -1, BASE, {}}};
    if (split_sums)
        for (KCase &c : crossing_cases("___update_load_sum() keeps the sums within their bound",
                                      CROSSING_MERGED - 1, true))
            cs.push_back(std::move(c));
    else
        cs.push_back({"induction step: ___update_load_sum() keeps the sums within their bound", -1, STEP_SUMS, {}});
    KCase avgs{"induction step: ___update_load_avg() from sums within their bound", -1, STEP_AVGS, {}};
    avgs.integer_first = true; // a division of bounded terms: instant in integers
    cs.push_back(avgs);
    return cs;
}

// ---------------------------------------------------------------------------
// pelt.util_bounded: util_avg <= 1024 (SCHED_CAPACITY_SCALE), and on 6.x
// runnable_avg <= 1024 too, for a task on a CPU of full capacity.  A state
// invariant: induction over one update, with the auxiliary invariant (part
// of what is proved, checked after the step) util_sum, runnable_sum <=
// scaled_bound(period_contrib).  v4.12 divides by LOAD_AVG_MAX, which that
// bound keeps at 1024 or below.  6.x divides by PELT_MIN_DIVIDER +
// period_contrib, which it does not: there the search comes first.
struct UtilBounded {
    static constexpr const char *id = "pelt.util_bounded";
    static constexpr bool integer_first = false;
    static constexpr bool induction = true;
    template <class I> static bool applies() { return I::shape >= version::v4_12; }
    template <class I> static std::string domain(Arch) {
        return std::string("a task at full CPU capacity and frequency; search: from the zero sched_avg, updates at "
                           "first_us = 0..1023 units, then every 1024 units up to 1024 times; induction: every "
                           "state with util_avg") +
               (I::shape >= version::v6_1 ? ", runnable_avg" : "") +
               " <= 1024 and the auxiliary invariant (proved with it) util_sum" +
               (I::shape >= version::v6_1 ? ", runnable_sum" : "") +
               " <= ((47742 - 1024 + period_contrib) << 10) + 47742" +
               ", other fields over their machine range, one task update (on_rq, running in {0, 1}, weight "
               "15..88761, 0 <= now - last_update_time < 2^63) taken in its halves ___update_load_sum() and "
               "___update_load_avg()" +
               (I::shape == version::v4_12 ? ", the sums' half split by the boundaries crossed (0..511, 512 or more)" : "") +
               "; base case: the zero sched_avg";
    }
    template <class I> static std::vector<KCase> cases(Arch) {
        // 6.x's searches end its proofs before the step: only v4.12 needs the split.
        return bounded_cases("reachable trace: a task always running, updated every 1024 units",
                             "util_avg over periodic traces of 1024 updates at each of the 1024 phases",
                             I::shape == version::v4_12);
    }
    template <class I> static std::vector<std::map<std::string, std::uint64_t>> search_points(Arch, const KCase &) {
        return periodic_points(1024, 1024);
    }
    template <class A> static void property(KOut<A> &o, const pelt::sched_avg<A> &sa, bool with_runnable) {
        typename A::boolean t(true);
        o.checks.push_back(le<A>("util_avg <= 1024", t, "util_avg", sa.util_avg, "1024", typename A::u64(1024)));
        if (with_runnable)
            o.checks.push_back(
                le<A>("runnable_avg <= 1024", t, "runnable_avg", sa.runnable_avg, "1024", typename A::u64(1024)));
    }
    template <class I, class A, class In> static Runner<A> build(In &in, const KCase &c) {
        using u64 = typename A::u64;
        constexpr bool six = I::shape >= version::v6_1;
        auto show = [](KOut<A> &o, const pelt::sched_avg<A> &sa, const char *when) {
            o.shown.push_back({std::string("util_sum ") + when, u64(sa.util_sum)});
            o.shown.push_back({std::string("util_avg ") + when, u64(sa.util_avg)});
            if (six) {
                o.shown.push_back({std::string("runnable_sum ") + when, sa.runnable_sum});
                o.shown.push_back({std::string("runnable_avg ") + when, u64(sa.runnable_avg)});
            }
            o.shown.push_back({std::string("period_contrib ") + when, u64(sa.period_contrib)});
        };
        if (c.kind == SEARCH)
            return pattern_trace<I, A>(in, [=](KOut<A> &o, const pelt::sched_avg<A> &, const pelt::sched_avg<A> &after,
                                                const TaskStep<A> &) {
                property<A>(o, after, six);
                show(o, after, "after");
            });
        auto inv = [](KOut<A> &o, const pelt::sched_avg<A> &sa) {
            typename A::boolean t(true);
            property<A>(o, sa, six);
            o.checks.push_back(le<A>("util_sum within the auxiliary bound", t, "util_sum", u64(sa.util_sum),
                                     "scaled_bound(period_contrib)", scaled_bound<A>(sa.period_contrib)));
            if (six)
                o.checks.push_back(le<A>("runnable_sum within the auxiliary bound", t, "runnable_sum", sa.runnable_sum,
                                         "scaled_bound(period_contrib)", scaled_bound<A>(sa.period_contrib)));
        };
        if (c.kind == BASE) {
            in.template var<u64>("unused", 0, 0);
            return [=]() {
                KOut<A> o;
                inv(o, pelt::sched_avg<A>{});
                return o;
            };
        }
        const pelt::sched_avg<A> sa0 = any_avg<A>(in);
        in.require(sa0.util_avg <= typename A::ulong(1024), "util_avg <= 1024");
        in.require(u64(sa0.util_sum) <= scaled_bound<A>(sa0.period_contrib), "util_sum <= scaled_bound (auxiliary)");
        if (six) {
            in.require(sa0.runnable_avg <= typename A::ulong(1024), "runnable_avg <= 1024");
            in.require(sa0.runnable_sum <= scaled_bound<A>(sa0.period_contrib),
                       "runnable_sum <= scaled_bound (auxiliary)");
        }
        if (c.kind == STEP_AVGS) {
            const auto w = in.template var<typename A::ulong>("weight", NICE_0_WEIGHT_MIN, NICE_WEIGHT_MAX);
            return [=]() {
                pelt::sched_avg<A> sa = sa0;
                avgs_half<I, A>(sa, w);
                KOut<A> o;
                inv(o, sa);
                show(o, sa0, "before");
                show(o, sa, "after");
                return o;
            };
        }
        const TaskStep<A> st = any_task_step<A>(in, sa0);
        // load_sum needs no bound here: no check and no branch reads it, so
        // the engine does not ask whether its (weighted, on v4.12) sum
        // wraps in the integer encoding.
        if (c.kind >= CROSSING)
            require_crossing<A>(in, sa0, st, c.kind);
        return [=]() {
            pelt::sched_avg<A> sa = sa0;
            KOut<A> o;
            sums_half<I, A>(sa, st);
            inv(o, sa);
            show(o, sa0, "before");
            o.shown.push_back({"now - last_update_time", st.delta_ns});
            show(o, sa, "after");
            return o;
        };
    }
};

// ---------------------------------------------------------------------------
// pelt.load_bounded: a task's load_avg never exceeds its weight (which
// stays fixed: reweight_entity() recomputes load_avg from load_sum, which
// is not modelled).  Induction over one update, with the auxiliary
// invariant (proved with it) load_sum <= unit_bound(period_contrib) on 6.x,
// where load_sum counts runnable units and load_avg = weight * load_sum /
// divider, and load_sum <= weighted_bound(period_contrib, weight) on
// v4.12, where load_sum is weighted and load_avg = load_sum / LOAD_AVG_MAX.
// The other sums are unbounded: no check or branch reads them.
struct LoadBounded {
    static constexpr const char *id = "pelt.load_bounded";
    static constexpr bool integer_first = false;
    static constexpr bool induction = true;
    template <class I> static bool applies() { return I::shape >= version::v4_12; }
    // 6.x's 512 crossing cases, each linear arithmetic with divisions by constants,
    // are answered faster by Z3's older arithmetic solver (see
    // older_arith() in proofs/engine/kprop_engine.h).
    template <class I> static constexpr bool older_arith() { return I::shape >= version::v6_1; }
    template <class I> static std::string domain(Arch) {
        return std::string("a task of fixed weight 15..88761; search: from the zero sched_avg, weight 88761, updates "
                           "at first_us = 0..1023 units, then every 1024 units up to 1024 times, and from 0 every "
                           "1025, 1026, 1030, 1050 or 1100 units up to 4096 times; induction: every state "
                           "with load_avg <= weight and the auxiliary invariant (proved with it) ") +
               (I::shape >= version::v6_1 ? "load_sum <= 47742 - 1024 + period_contrib"
                                          : "load_sum <= weight * (47742 - 1024 + period_contrib + 47)") +
               ", other fields over their machine range, one task update (on_rq, running in {0, 1}, 0 <= now - "
               "last_update_time < 2^63) taken in its halves ___update_load_sum() and ___update_load_avg(), the "
               "sums' half split by the boundaries crossed (0..511, 512 or more); base case: the zero sched_avg";
    }
    template <class I> static std::vector<KCase> cases(Arch) {
        return bounded_cases("reachable trace: a task on the runqueue, updated every 1024 to 1100 units",
                             "load_avg over periodic traces: 1024 updates at each of the 1024 phases, and 4096 "
                             "updates every 1025, 1026, 1030, 1050 and 1100 units",
                             true);
    }
    // Besides updates one period apart, updates a little more than a period
    // apart: each then lands one unit later in its period, so the sum is
    // read at every period_contrib, up to 1023, where v4.12's constant
    // divider is smallest against it.
    template <class I> static std::vector<std::map<std::string, std::uint64_t>> search_points(Arch, const KCase &) {
        auto pts = periodic_points(NICE_WEIGHT_MAX, 1024);
        for (std::uint64_t period : {1025, 1026, 1030, 1050, 1100})
            pts.push_back({{"first_us", 0}, {"period_us", period}, {"count", PATTERN_MAX_COUNT}, {"on_rq", 1},
                           {"running", 1}, {"weight", NICE_WEIGHT_MAX}});
        return pts;
    }
    template <class I, class A, class In> static Runner<A> build(In &in, const KCase &c) {
        using u64 = typename A::u64;
        constexpr bool six = I::shape >= version::v6_1;
        auto property = [](KOut<A> &o, const pelt::sched_avg<A> &sa, const typename A::ulong &w) {
            o.checks.push_back(le<A>("load_avg <= weight", typename A::boolean(true), "load_avg", sa.load_avg, "weight", w));
        };
        auto show = [](KOut<A> &o, const pelt::sched_avg<A> &sa, const char *when) {
            o.shown.push_back({std::string("load_sum ") + when, sa.load_sum});
            o.shown.push_back({std::string("load_avg ") + when, u64(sa.load_avg)});
            o.shown.push_back({std::string("period_contrib ") + when, u64(sa.period_contrib)});
        };
        if (c.kind == SEARCH)
            return pattern_trace<I, A>(in, [=](KOut<A> &o, const pelt::sched_avg<A> &, const pelt::sched_avg<A> &after,
                                                const TaskStep<A> &st) {
                property(o, after, st.weight);
                show(o, after, "after");
            });
        auto bound = [](const pelt::sched_avg<A> &sa, const typename A::ulong &w) {
            if constexpr (six)
                return unit_bound<A>(sa.period_contrib);
            else
                return weighted_bound<A>(sa.period_contrib, w);
        };
        // The property and the auxiliary invariant, as checks after a step
        // and as requirements on the state before it.  The other sums need
        // no bound: nothing this property reads depends on them, so the
        // engine does not ask whether they wrap in the integer encoding
        // (their sums and averages are left out of the query).
        auto inv = [=](KOut<A> &o, const pelt::sched_avg<A> &sa, const typename A::ulong &w) {
            property(o, sa, w);
            o.checks.push_back(le<A>("load_sum within the auxiliary bound", typename A::boolean(true), "load_sum",
                                     sa.load_sum, "the bound", bound(sa, w)));
        };
        auto assume = [&](const pelt::sched_avg<A> &sa0, const typename A::ulong &w) {
            in.require(sa0.load_avg <= w, "load_avg <= weight");
            in.require(sa0.load_sum <= bound(sa0, w), "load_sum within the bound (auxiliary)");
        };
        if (c.kind == BASE) {
            const auto w = in.template var<typename A::ulong>("weight", NICE_0_WEIGHT_MIN, NICE_WEIGHT_MAX);
            return [=]() {
                KOut<A> o;
                inv(o, pelt::sched_avg<A>{}, w);
                return o;
            };
        }
        const pelt::sched_avg<A> sa0 = any_avg<A>(in);
        if (c.kind == STEP_AVGS) {
            const auto w = in.template var<typename A::ulong>("weight", NICE_0_WEIGHT_MIN, NICE_WEIGHT_MAX);
            assume(sa0, w);
            return [=]() {
                pelt::sched_avg<A> sa = sa0;
                avgs_half<I, A>(sa, w);
                KOut<A> o;
                inv(o, sa, w);
                show(o, sa0, "before");
                show(o, sa, "after");
                return o;
            };
        }
        const TaskStep<A> st = any_task_step<A>(in, sa0);
        assume(sa0, st.weight);
        require_crossing<A>(in, sa0, st, c.kind);
        return [=]() {
            pelt::sched_avg<A> sa = sa0;
            sums_half<I, A>(sa, st);
            KOut<A> o;
            inv(o, sa, st.weight);
            show(o, sa0, "before");
            o.shown.push_back({"now - last_update_time", st.delta_ns});
            o.shown.push_back({"weight", u64(st.weight)});
            show(o, sa, "after");
            return o;
        };
    }
};

// ---------------------------------------------------------------------------
// pelt.no_overflow: no wrap changes a result.  One task update runs twice
// on the same state and inputs: at the kernel's widths, and with every
// type twice as wide (proofs/engine/double_width.h).  Each field of the new
// sched_avg and the return value must come out the same, and fit its type.
// 6.x's `(u32)delta`, read only when delta < 1024, wraps harmlessly and
// passes; a sum or average that loses its top bits fails.
//
// From any state the u32 util_sum wraps at once, so this is a state
// invariant, proved by induction like pelt.sum_avg_consistent: the state
// holds the sums within their bounds (unit_bound, scaled_bound; v4.12's
// weighted bound), which the step must keep (checked after it, so proved
// with it); the averages and the clock are over their machine range.  The
// base case is the zero sched_avg.
//
// The largest safe delta: accumulate_sum() returns the number of periods
// crossed as a u32, so 2^32 periods wrap it to 0 and the caller skips the
// averages.  That takes delta_units + period_contrib >= 2^42, so every
// delta below 2^52 - 2^20 ns (about 52 days) is safe from every state.  A
// search case runs a sleep of k * 2^32 periods from the zero sched_avg (a
// real trace) first; the induction step over the shorter deltas comes
// after it, so on 6.x and v4.12 it is not run: its sums' half on two
// widths does not finish in ten minutes (the 128-bit words of the decay).
// Split by the boundaries crossed, as the bounded-signal proofs' step is,
// it did not do either: on pelt/v6.1 lp64 the counts 0..511 took 72 s in
// integers, and the one case of 512 or more on bit-vectors ran out of time
// after 212 s (runnable_sum's exactness, a 128-bit product by a symbolic
// table entry on the wide side).  The verdict is the counterexample, and
// no safe delta is claimed.
constexpr std::uint64_t SAFE_DELTA_NS = (std::uint64_t(1) << 52) - (std::uint64_t(1) << 20);

// The step is taken in its halves, as update_load_avg() is made of them
// (see bounded_cases): ___update_load_sum() at both widths gives the same
// sums, clock and return value, so ___update_load_avg() starts from the
// same state at both widths, and its averages must agree too.  The
// averages' half is first tried in the integer encoding, where the
// engine's no-wrap obligations of the averages, all discharged, show every
// value exact (no wide run there: see compare_avgs); the sums' half has
// the harmless `(u32)delta` wrap and is compared on bit-vectors.
struct NoOverflow {
    static constexpr const char *id = "pelt.no_overflow";
    static constexpr bool integer_first = false;
    static constexpr bool induction = true;
    template <class I> static bool applies() { return I::shape >= version::v4_12; }
    template <class I> static std::string domain(Arch) {
        return std::string("induction: one task update (on_rq, running in {0, 1}, weight 15..88761, 0 <= now - "
                           "last_update_time < 2^52 - 2^20 ns) from a state with ") +
               sum_bounds_text<I>() + " (auxiliary, proved with it), the averages "
               "and last_update_time over their machine range, taken in its halves ___update_load_sum() and "
               "___update_load_avg(), each compared with the same call on every type twice as wide; base case: "
               "the zero sched_avg; search: from the zero sched_avg, a task runs for first_us = 1024, 1500 or "
               "3000 units, then sleeps for a multiple of 2^32 periods, give or take one period";
    }
    template <class I> static std::vector<KCase> cases(Arch) {
        KCase search{"reachable trace: a task runs, then sleeps for 2^32 periods", -1, SEARCH, {}};
        search.search = true;
        search.searched = "a run then a sleep of k * 2^32 periods (k = 1, 2) give or take one period";
        KCase avgs{"induction step: ___update_load_avg() from sums within their bound", -1, STEP_AVGS, {}};
        avgs.integer_first = true;
        return {search, {"base case: the zero sched_avg", -1, BASE, {}},
                {"induction step: ___update_load_sum() with delta < 2^52 - 2^20 ns", -1, STEP_SUMS, {}}, avgs};
    }
    template <class I> static std::vector<std::map<std::string, std::uint64_t>> search_points(Arch a, const KCase &c) {
        return SumAvgConsistent::search_points<I>(a, c);
    }
    // The sums' half at the width of B: 6.x's ___update_load_sum(); v4.12's
    // takes the weight as load (its load_sum is weighted) and has no
    // runnable signal.
    template <class I, class B>
    static typename B::sint sums(pelt::sched_avg<B> &sa, const typename B::u64 &now, const typename B::ulong &load,
                                 const typename B::ulong &runnable, const typename B::sint &running,
                                 const typename B::ulong &weight) {
        if constexpr (I::shape >= version::v6_1)
            return I::template on<B>::___update_load_sum(now, sa, load, runnable, running);
        else if constexpr (I::shape == version::v4_12)
            return I::template on<B>::___update_load_sum(now, sa, load * weight, typename B::ulong(0), running);
        else
            throw std::logic_error("pelt.no_overflow does not apply before v4.12");
    }
    // The sums' half from sa0 at both widths: the checks of its results and
    // the trace.  Returns the kernel-width state and return value.
    template <class I, class A>
    static std::pair<pelt::sched_avg<A>, typename A::sint> compare_sums(KOut<A> &o, const pelt::sched_avg<A> &sa0,
                                                                       const TaskStep<A> &st) {
        using u64 = typename A::u64;
        using W = DW<A>;
        pelt::sched_avg<A> sa = sa0;
        const auto r = sums<I, A>(sa, st.now, st.load, st.runnable, st.running, st.weight);
        pelt::sched_avg<W> wa = widen(sa0);
        const auto rw = sums<I, W>(wa, typename W::u64(st.now), typename W::ulong(st.load),
                                   typename W::ulong(st.runnable), typename W::sint(st.running),
                                   typename W::ulong(st.weight));
        same_value<A>(o, "load_sum", sa.load_sum, wa.load_sum);
        same_value<A>(o, "runnable_sum", sa.runnable_sum, wa.runnable_sum);
        same_value<A>(o, "util_sum", sa.util_sum, wa.util_sum);
        same_value<A>(o, "period_contrib", sa.period_contrib, wa.period_contrib);
        same_value<A>(o, "last_update_time", sa.last_update_time, wa.last_update_time);
        same_value<A>(o, "return value of ___update_load_sum()", typename A::uint(r), typename W::uint(rw));
        o.shown.push_back({"now - last_update_time", st.delta_ns});
        o.shown.push_back({"on_rq", u64(st.load)});
        o.shown.push_back({"running", u64(st.running)});
        o.shown.push_back({"weight", u64(st.weight)});
        show_state<A>(o, sa0, "before");
        show_state<A>(o, sa, "after");
        o.shown.push_back({"___update_load_sum() returns", u64(typename A::uint(r))});
        show_exact<A>(o, "return value", typename W::uint(rw));
        show_exact<A>(o, "load_sum after", wa.load_sum);
        show_exact<A>(o, "runnable_sum after", wa.runnable_sum);
        show_exact<A>(o, "util_sum after", wa.util_sum);
        return {sa, r};
    }
    // The averages' half from sa0 at both widths (the wide run only where
    // the words are not already exact: see above).
    template <class I, class A>
    static pelt::sched_avg<A> compare_avgs(KOut<A> &o, const pelt::sched_avg<A> &sa0, const typename A::ulong &w) {
        using W = DW<A>;
        pelt::sched_avg<A> sa = sa0;
        avgs_half<I, A>(sa, w);
        // In integers no wide run (no 128-bit integers): the checks read
        // each average, which makes the engine ask its no-wrap obligations.
        // It asks only those of terms a check or a branch reads, so with no
        // check here (as before) the case had nothing to prove.
        if (in_integers<A>()) {
            exact_in_integers<A>(o, "load_avg", sa.load_avg);
            exact_in_integers<A>(o, "runnable_avg", sa.runnable_avg);
            exact_in_integers<A>(o, "util_avg", sa.util_avg);
            return sa;
        }
        pelt::sched_avg<W> wa = widen(sa0);
        avgs_half<I, W>(wa, typename W::ulong(w));
        same_value<A>(o, "load_avg", sa.load_avg, wa.load_avg);
        same_value<A>(o, "runnable_avg", sa.runnable_avg, wa.runnable_avg);
        same_value<A>(o, "util_avg", sa.util_avg, wa.util_avg);
        show_exact<A>(o, "load_avg after", wa.load_avg);
        show_exact<A>(o, "util_avg after", wa.util_avg);
        return sa;
    }
    template <class I, class A, class In> static Runner<A> build(In &in, const KCase &c) {
        using u64 = typename A::u64;
        if (c.kind == BASE) {
            in.template var<u64>("unused", 0, 0);
            return [=]() {
                KOut<A> o;
                sum_bound_checks<I, A>(o, pelt::sched_avg<A>{});
                return o;
            };
        }
        if (c.kind == SEARCH)
            return pattern_trace<I, A>(in, [](KOut<A> &o, const pelt::sched_avg<A> &before,
                                              const pelt::sched_avg<A> &, const TaskStep<A> &st) {
                const auto [sa, r] = compare_sums<I, A>(o, before, st);
                if (r != typename A::sint(0))
                    compare_avgs<I, A>(o, sa, st.weight);
            });
        const pelt::sched_avg<A> sa0 = any_avg<A>(in);
        require_sum_bounds<I, A>(in, sa0);
        if (c.kind == STEP_AVGS) {
            const auto w = in.template var<typename A::ulong>("weight", NICE_0_WEIGHT_MIN, NICE_WEIGHT_MAX);
            return [=]() {
                KOut<A> o;
                show_state<A>(o, sa0, "before");
                o.shown.push_back({"weight", u64(w)});
                const auto sa = compare_avgs<I, A>(o, sa0, w);
                show_state<A>(o, sa, "after");
                return o;
            };
        }
        const TaskStep<A> st = any_task_step<A>(in, sa0);
        in.require(st.delta_ns < u64(SAFE_DELTA_NS), "now - last_update_time < 2^52 - 2^20");
        return [=]() {
            KOut<A> o;
            sum_bound_checks<I, A>(o, compare_sums<I, A>(o, sa0, st).first);
            return o;
        };
    }
    // The same state on the double-width types.
    template <class A> static pelt::sched_avg<DW<A>> widen(const pelt::sched_avg<A> &a) {
        using W = DW<A>;
        pelt::sched_avg<W> w;
        w.last_update_time = typename W::u64(a.last_update_time);
        w.load_sum = typename W::u64(a.load_sum);
        w.runnable_sum = typename W::u64(a.runnable_sum);
        w.util_sum = typename W::uint(a.util_sum);
        w.period_contrib = typename W::uint(a.period_contrib);
        w.load_avg = typename W::ulong(a.load_avg);
        w.runnable_avg = typename W::ulong(a.runnable_avg);
        w.util_avg = typename W::ulong(a.util_avg);
        return w;
    }
};

} // namespace sc::proofs::pelt_inv

namespace sc::proofs::pelt_inv {

// ---------------------------------------------------------------------------
// pelt.running_converges: a task that keeps running on a CPU of full
// capacity reaches full utilisation, util_avg >= 1022 (within 2 of 1024),
// within a bound T that is reported, and stays there while it runs.
//
// The measure is the deficit of util_sum below the divider's full level,
//   P = ((PELT_MIN_DIVIDER + period_contrib) << 10) - util_sum,
// which an exact, always-running sum would bring to 0 as y^k per period.
// The kernel's update does the same up to the truncations of decay_load():
// with k >= 1 boundaries crossed, 6.x's new sums give
//   P' = 1024 decay(LOAD_AVG_MAX, k) - 1024 decay(1024 - pc, k) - decay(util_sum, k),
// each decay below its exact value by less than one unit (two once it
// shifts first, k >= 32), so P' <= y^k max(P, 0) + E_k with E_k = 1026
// (k < 32) or 2050.  With no boundary crossed the sum and the divider grow
// by the same delta << 10: P' = P.  These one-update lemmas are what the
// solver proves, on the implementation's own code, from every state within
// the sums' bounds (auxiliary, proved with them), with y^k an upper bound
// of our own (ceil(2^32 2^(-k/32)) / 2^32), not the kernel's table.
//
// The rest is exact arithmetic on constants (conclude() below): from the
// largest deficit ((PELT_MIN_DIVIDER + 1023) << 10, a zero util_sum), the
// worst split of K crossed periods into updates of 1..K_MAX periods gives a
// deficit V(K); T is the first K from which V stays <= P_FULL, and P_FULL is
// closed under every lemma.  A last case proves that ___update_load_avg()
// from a deficit <= P_FULL gives util_avg >= 1022, and an update crossing
// no boundary keeps util_avg (or one >= 1022).
//
// Domain: the updates of the running task cross at most K_MAX = 1024
// periods (1.05 s): the tick updates a running task at least every 10 ms
// (HZ >= 100), and a nohz_full CPU's residual tick once a second.  Each
// crossed-period count k = 0..511 is a case of its own in the integer
// encoding (about 20 ms each); k = 512..1024 is one case on bit-vectors
// (as the bounded-signal proofs' rest case: after 16 halvings the decayed
// util_sum is below 2^10), which proves the lemma of k = 512 for all of
// them, y^512 in place of y^k: weaker, and still enough, since from any
// deficit (at most P_START) one step of 512 periods or more lands within
// P_FULL.  T is the same under either lemma (323 periods, worked out both
// ways).  A gap above 1024 periods is not covered.
namespace running {
constexpr std::uint64_t UTIL_FULL_MIN = 1022;
constexpr std::uint64_t HORIZON_MS = 1000; // the claim's horizon: the search checks it, T must be within it
constexpr std::uint64_t K_MAX = 1024;
constexpr std::uint64_t P_FULL = 2 * pelt::PELT_MIN_DIVIDER; // deficit <= 2 dividers: util_avg >= 1022
constexpr std::uint64_t P_START = (pelt::PELT_MIN_DIVIDER + 1023) << 10; // util_sum == 0

inline std::uint64_t slack(std::uint64_t k) { return k < 32 ? 1026 : 2050; }
// An upper bound of 2^32 y^k, y = 2^(-1/32): long double holds 2^32 y^k
// to far better than the one unit added.
inline std::uint64_t y_factor(std::uint64_t k) {
    static const std::vector<std::uint64_t> table = [] {
        std::vector<std::uint64_t> t(K_MAX + 1);
        for (std::uint64_t i = 0; i <= K_MAX; ++i)
            t[i] = static_cast<std::uint64_t>(std::floor(std::exp2l(32.0L - static_cast<long double>(i) / 32.0L))) + 1;
        return t;
    }();
    return table.at(k);
}
// The y^k of the lemma proved for k crossed periods.
// From CROSSING_MERGED on the counts are one case, which proves the lemma
// of CROSSING_MERGED for all of them.
inline std::uint64_t lemma_y(std::uint64_t k) { return y_factor(std::min(k, CROSSING_MERGED)); }
// The lemma's bound on P' from p = max(P, 0) after k >= 1 crossed periods.
inline std::uint64_t step_bound(std::uint64_t p, std::uint64_t k) { return ((p * lemma_y(k)) >> 32) + slack(k); }

// The first K from which every split of K crossed periods into updates of
// 1..K_MAX periods leaves the deficit <= P_FULL; 0 if the lemmas do not
// give one within `limit` periods (or P_FULL is not closed under them).
inline std::uint64_t periods_to_full(std::uint64_t limit = 8192) {
    for (std::uint64_t k = 1; k <= K_MAX; ++k)
        if (step_bound(P_FULL, k) > P_FULL)
            return 0;
    std::vector<std::uint64_t> v(limit + 1, 0);
    v[0] = P_START;
    std::uint64_t first_ok = 0;
    bool run = false;
    for (std::uint64_t K = 1; K <= limit; ++K) {
        for (std::uint64_t k = 1; k <= std::min(K, K_MAX); ++k)
            v[K] = std::max(v[K], step_bound(v[K - k], k));
        if (v[K] <= P_FULL) {
            if (!run)
                first_ok = K;
            run = true;
            // K_MAX consecutive periods within P_FULL: every later V(K)
            // comes from one of them by a lemma, and P_FULL is closed.
            if (K - first_ok + 1 >= K_MAX)
                return first_ok;
        } else {
            run = false;
        }
    }
    return 0;
}
} // namespace running

struct RunningConverges {
    static constexpr const char *id = "pelt.running_converges";
    static constexpr bool integer_first = true;
    static constexpr bool induction = true;
    template <class I> static bool applies() { return I::shape >= version::v4_12; }
    template <class I> static std::string domain(Arch) {
        return std::string("a task always on_rq and running on a CPU of full capacity, weight 15..88761; search: "
                           "from the zero sched_avg, updates at first_us = 0..1023 units, then every 1024 units up "
                           "to 1024 times, util_avg checked from 1000 ms on; induction: every state with "
                           "P = ((47742 - 1024 + period_contrib) << 10) - util_sum and the auxiliary invariant "
                           "(proved with it) ") +
               sum_bounds_text<I>(true) + ", other fields over their machine range; one "
               "update crossing k = 0..1024 period boundaries (0 <= now - last_update_time < 2^63), the sums' half "
               "___update_load_sum() for k >= 1: P' <= y^min(k, 512) max(P, 0) + (1026 if k < 32, else 2050), "
               "y^k rounded up (k = 512..1024 in one case); k = 0, the whole update: P' <= max(P, 0), "
               "util_avg' >= min(util_avg, 1022); "
               "___update_load_avg() from P <= 2 * 46718: util_avg >= 1022; base case: the zero sched_avg; the "
               "time bound from these lemmas by exact arithmetic";
    }
    template <class I> static std::vector<KCase> cases(Arch) {
        KCase search{"reachable trace: a task always running, updated every 1024 units", -1, SEARCH, {}};
        search.search = true;
        search.searched = "util_avg from 1000 ms on, over periodic traces of 1024 updates at each of the 1024 phases";
        std::vector<KCase> cs = {search, {"base case: the zero sched_avg", -1, BASE, {}}};
        for (KCase &c :
             crossing_cases("an update of a running task", CROSSING_MERGED - 1, true, running::K_MAX))
            cs.push_back(std::move(c));
        cs.push_back({"induction step: ___update_load_avg() from P <= 2 * 46718", -1, STEP_AVGS, {}});
        return cs;
    }
    template <class I> static std::vector<std::map<std::string, std::uint64_t>> search_points(Arch, const KCase &) {
        return periodic_points(1024, 1024);
    }
    // (divider << 10) for a period_contrib: P = this - util_sum.
    template <class A> static typename A::u64 full(const pelt::sched_avg<A> &sa) {
        return unit_bound<A>(sa.period_contrib) << 10;
    }
    // min(a, b) as one term (no branch: no path split, and usable while
    // the domain is built).
    template <class U> static U min_term(const U &a, const U &b) {
        if constexpr (std::is_integral_v<U>)
            return std::min(a, b);
        else
            return U(z3::ite((a < b).e, a.e, b.e));
    }
    // max(P, 0), without a wrap in either encoding.
    template <class A> static typename A::u64 deficit(const pelt::sched_avg<A> &sa) {
        const typename A::u64 f = full<A>(sa);
        return f - min_term(typename A::u64(sa.util_sum), f);
    }
    template <class A> static void show(KOut<A> &o, const pelt::sched_avg<A> &sa, const char *when) {
        o.shown.push_back({std::string("util_sum ") + when, typename A::u64(sa.util_sum)});
        o.shown.push_back({std::string("period_contrib ") + when, typename A::u64(sa.period_contrib)});
        o.shown.push_back({std::string("max(P, 0) ") + when, deficit<A>(sa)});
        o.shown.push_back({std::string("util_avg ") + when, typename A::u64(sa.util_avg)});
    }
    template <class I, class A, class In> static Runner<A> build(In &in, const KCase &c) {
        using u64 = typename A::u64;
        using ulong = typename A::ulong;
        const typename A::boolean t(true);
        if (c.kind == SEARCH)
            return pattern_trace<I, A>(in, [=](KOut<A> &o, const pelt::sched_avg<A> &, const pelt::sched_avg<A> &after,
                                                const TaskStep<A> &st) {
                // Only while the task runs: the inputs may be shrunk to a trace that does not.
                o.checks.push_back(le<A>("util_avg >= 1022 after running for 1000 ms",
                                         st.now >= u64(running::HORIZON_MS * 1000000) && st.load == ulong(1) &&
                                             st.running == typename A::sint(1),
                                         "1022",
                                         u64(running::UTIL_FULL_MIN), "util_avg", after.util_avg));
                show<A>(o, after, "after");
            });
        if (c.kind == BASE) {
            in.template var<u64>("unused", 0, 0);
            return [=]() {
                KOut<A> o;
                sum_bound_checks<I, A>(o, pelt::sched_avg<A>{}, true);
                return o;
            };
        }
        const pelt::sched_avg<A> sa0 = any_avg<A>(in);
        require_sum_bounds<I, A>(in, sa0, true);
        if (c.kind == STEP_AVGS) {
            const auto w = in.template var<ulong>("weight", NICE_0_WEIGHT_MIN, NICE_WEIGHT_MAX);
            in.require(deficit<A>(sa0) <= u64(running::P_FULL), "max(P, 0) <= 2 * 46718");
            return [=]() {
                pelt::sched_avg<A> sa = sa0;
                avgs_half<I, A>(sa, w);
                KOut<A> o;
                o.checks.push_back(le<A>("util_avg >= 1022 from a deficit <= 2 * 46718", t, "1022",
                                         u64(running::UTIL_FULL_MIN), "util_avg", sa.util_avg));
                sum_bound_checks<I, A>(o, sa, true);
                show<A>(o, sa0, "before");
                show<A>(o, sa, "after");
                return o;
            };
        }
        const TaskStep<A> st = any_task_step<A>(in, sa0);
        in.require(st.load == ulong(1) && st.running == typename A::sint(1), "on_rq and running");
        const std::uint64_t k = crossing_k(c.kind);
        require_crossing<A>(in, sa0, st, c.kind, running::K_MAX);
        return [=]() {
            pelt::sched_avg<A> sa = sa0;
            KOut<A> o;
            const u64 p0 = deficit<A>(sa0);
            if (k == 0) {
                I::template on<A>::update_load_avg(st.now, sa, st.load, st.runnable, st.running, st.weight);
                o.checks.push_back(le<A>("P' <= max(P, 0) with no boundary crossed", t, "(divider' << 10)",
                                         full<A>(sa), "util_sum' + max(P, 0)", u64(sa.util_sum) + p0));
                o.checks.push_back(le<A>("util_avg kept, or >= 1022, with no boundary crossed", t,
                                         "min(util_avg before, 1022)",
                                         min_term(u64(sa0.util_avg), u64(running::UTIL_FULL_MIN)), "util_avg after",
                                         sa.util_avg));
            } else {
                sums_half<I, A>(sa, st);
                const std::uint64_t y = running::lemma_y(k), e = running::slack(k);
                const std::string each =
                    c.kind >= CROSSING_FROM ? fmt::format(" for every k = {}..{}", k, running::K_MAX) : "";
                o.checks.push_back(le<A>(fmt::format("P' <= y^{} max(P, 0) + {}{}", k, e, each), t, "(divider' << 10)",
                                         full<A>(sa),
                                         fmt::format("util_sum' + ((max(P, 0) * {}) >> 32) + {}", y, e),
                                         u64(sa.util_sum) + ((p0 * u64(y)) >> 32) + u64(e)));
            }
            sum_bound_checks<I, A>(o, sa, true);
            show<A>(o, sa0, "before");
            o.shown.push_back({"now - last_update_time", st.delta_ns});
            show<A>(o, sa, "after");
            return o;
        };
    }
    // Every lemma proved: the time bound, by exact arithmetic on them.  It
    // leads the detail; what the proof said (a search's note, a redone
    // proof's reason) follows it.
    template <class I> static void conclude(ProofResult &r) {
        if (r.verdict != Verdict::PROVED)
            return;
        const std::uint64_t K = running::periods_to_full();
        const std::uint64_t ms = (K * 1024 + 999) / 1000;
        const std::string rest = r.reason.empty() ? "" : "; " + r.reason;
        if (K == 0 || ms > running::HORIZON_MS) {
            r.verdict = Verdict::UNKNOWN;
            r.reason = "the proved one-update lemmas give no bound within 1000 ms" + rest;
            return;
        }
        r.bound = ms;
        r.bound_kind = "ms";
        r.reason = fmt::format("util_avg >= 1022 at every update after {} ms of running ({} crossed periods) "
                               "and from then on; lemmas proved by induction, bound by exact arithmetic",
                               ms, K) +
                   rest;
    }
};

} // namespace sc::proofs::pelt_inv
