// The PELT invariants, written once against the kernel-shaped interface
// (proofs/kernel_iface.h): I::on<A>::update_load_avg() and decay_load().
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
#include <fmt/format.h>

#include "proofs/kprop_engine.h"
#include "proofs/kernel_iface.h"

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
struct DecayMonotone {
    static constexpr const char *id = "pelt.decay_monotone";
    static constexpr bool integer_first = true;
    static constexpr bool lazy = false;
    template <class I> static bool applies() { return true; }
    template <class I> static std::string domain(Arch) {
        return "every 64-bit val, val2 and n (n split into the cases 0..2048 and > 2048)";
    }
    template <class I> static std::vector<KCase> cases(Arch) {
        std::vector<KCase> cs;
        for (std::int64_t n = 0; n <= 2048; ++n)
            cs.push_back({"n " + std::to_string(n), n, 0, {{"n", std::uint64_t(n)}}});
        cs.push_back({"n > 2048", -1, 0, {}});
        return cs;
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
// "The sums only grow" needs them not to wrap, so the step assumes the
// auxiliary invariant that every sum is within what a task can accumulate:
// at most LOAD_AVG_MAX periods' worth, load_sum <= 47742 (x 88761, the
// largest weight, before 6.x, where load_sum is weighted) and runnable_sum,
// util_sum <= 47742 << 10.  That bound is ASSUMED here, not proved (see the
// domain): without it the step fails only by wrapping a sum near 2^64.
// v3.8 keeps no such pairs (runnable_avg_sum / load_avg_contrib); v4.3's
// period loop is not explored here (the proof does not finish), so it is
// left out.
//
// The step does fail, on v4.12 and every 6.x alike, and not by a wrap:
// accumulate_sum() counts the periods crossed in a u64 but returns them as
// u32, so after exactly k * 2^32 periods (2^52 ns, about 52 days) without an
// update the caller sees "no period crossed" and keeps the old averages,
// while the sums were decayed to 0.  The engine cannot show the state
// before it reachable, so the verdict is UNKNOWN ("not inductive") with
// that step attached.
struct SumAvgConsistent {
    static constexpr const char *id = "pelt.sum_avg_consistent";
    static constexpr bool integer_first = false;
    static constexpr bool induction = true;
    template <class I> static bool applies() { return I::shape >= version::v4_12; }
    template <class I> static std::string domain(Arch) {
        return std::string("induction: every state where each *_sum == 0 has *_avg == 0, with the auxiliary "
                           "invariant (ASSUMED, not proved) load_sum <= ") +
               (I::shape < version::v6_1 ? "47742 * 88761" : "47742") +
               ", runnable_sum, util_sum <= 47742 << 10 (period_contrib < 1024, the averages over their machine "
               "range), one task update (on_rq, running in {0, 1}, weight 15..88761, 0 <= now - last_update_time "
               "< 2^63); base case: the zero sched_avg";
    }
    template <class I> static std::vector<KCase> cases(Arch) {
        return {{"base case: the zero sched_avg", -1, 1, {}}, {"induction step: any update", -1, 0, {}}};
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
        if (c.kind == 1) {
            // The base case holds no input: a dummy one keeps the domain non-empty.
            in.template var<u64>("unused", 0, 0);
            return [=]() {
                KOut<A> o;
                pair_checks(o, pelt::sched_avg<A>{});
                return o;
            };
        }
        const pelt::sched_avg<A> sa0 = any_avg<A>(in);
        const std::uint64_t lmax = 47742, wmax = I::shape < version::v6_1 ? NICE_WEIGHT_MAX : 1;
        in.require(sa0.load_sum <= u64(lmax * wmax), "load_sum within what a task accumulates (auxiliary)");
        in.require(sa0.runnable_sum <= u64(lmax << 10), "runnable_sum <= 47742 << 10 (auxiliary)");
        in.require(u64(sa0.util_sum) <= u64(lmax << 10), "util_sum <= 47742 << 10 (auxiliary)");
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
            o.shown = {{"load_sum before", sa0.load_sum},         {"load_avg before", u64(sa0.load_avg)},
                       {"util_sum before", u64(sa0.util_sum)},    {"util_avg before", u64(sa0.util_avg)},
                       {"now - last_update_time", st.delta_ns},   {"load_sum after", sa.load_sum},
                       {"load_avg after", u64(sa.load_avg)},      {"runnable_sum after", sa.runnable_sum},
                       {"runnable_avg after", u64(sa.runnable_avg)}, {"util_sum after", u64(sa.util_sum)},
                       {"util_avg after", u64(sa.util_avg)}};
            return o;
        };
    }
};

} // namespace sc::proofs::pelt_inv
