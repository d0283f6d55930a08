// The invariants of the PELT moves between a task and its cfs_rq
// (ref/pelt_cfs.h): attach/detach, enqueue/dequeue_load_avg, the
// removed-load path of update_cfs_rq_load_avg() and a new task's start
// values.  Written against the interface of proofs/kernel/kernel_iface.h
// (I::cfs_moves); they apply to the 6.x shapes only.
//
// The state domain, the same for all three (stated in each verdict):
//   cfs_rq: period_contrib < 1024; load_avg <= 1024 * 88761 (1024 tasks of
//     the largest weight), runnable_avg <= 1024 * 1024 (1024 runnable
//     tasks), util_avg <= 64 * 1024; each sum below (avg + 1) * 47742, what
//     the cfs_rq's own update leaves (an auxiliary bound, assumed);
//   removed: load_avg, util_avg, runnable_avg within the same bounds as the
//     averages, nr in 0..1024;
//   task: weight 15..88761 (the nice range; se->load.weight = scale_load()
//     of it), load_avg <= weight (pelt.load_bounded), util_avg, runnable_avg
//     <= 1024; load_sum <= 47742 (unweighted), util_sum, runnable_sum <=
//     1024 * 47742.
// Removals run with no time passing (now == last_update_time), so that
// update_cfs_rq_load_avg() does only the removal; its PELT update is the
// subject of the entity-side invariants.
#pragma once
#include <fmt/format.h>

#include "proofs/pelt_invariants.h"

namespace sc::proofs::cfsrq_inv {

using pelt::version;
using pelt_inv::eq;
using pelt_inv::le;

constexpr std::uint64_t LOAD_AVG_MAX = pelt::LOAD_AVG_MAX, MIN_DIV = pelt::PELT_MIN_DIVIDER;
constexpr std::uint64_t W_MIN = 15, W_MAX = 88761;
constexpr std::uint64_t RQ_LOAD_MAX = 1024 * W_MAX, RQ_RUNNABLE_MAX = 1024 * 1024, RQ_UTIL_MAX = 64 * 1024;

inline std::string state_domain() {
    return "cfs_rq: period_contrib < 1024, load_avg <= 1024 * 88761, runnable_avg <= 1024 * 1024, util_avg <= "
           "64 * 1024, each *_sum < (*_avg + 1) * 47742 (auxiliary, ASSUMED: what the cfs_rq's own update leaves), "
           "removed.* within the averages' bounds, removed.nr 0..1024; "
           "task: weight 15..88761 (se->load.weight = scale_load(weight)), load_avg <= weight, util_avg, "
           "runnable_avg <= 1024, load_sum <= 47742, util_sum, runnable_sum <= 1024 * 47742; removals with "
           "now == last_update_time; a new task's attach is the attach case (init and post_init leave load_avg = "
           "weight, util_avg = runnable_avg <= 512, inside the task's domain; not explored through "
           "post_init_entity_util_avg)";
}

// Any cfs_rq of the domain.  `removed` adds the removed buffer.
template <class A, class In> pelt::cfs_rq<A> any_rq(In &in, bool removed) {
    using u64 = typename A::u64;
    using uint = typename A::uint;
    using ulong = typename A::ulong;
    using sint = typename A::sint;
    pelt::cfs_rq<A> rq;
    rq.avg.last_update_time = in.template var<u64>("rq_last_update_time", 0, pelt_inv::U64_MAX);
    rq.avg.period_contrib = in.template var<uint>("rq_period_contrib", 0, 1023);
    rq.avg.load_avg = in.template var<ulong>("rq_load_avg", 0, RQ_LOAD_MAX);
    rq.avg.load_sum = in.template var<u64>("rq_load_sum", 0, RQ_LOAD_MAX * LOAD_AVG_MAX);
    rq.avg.runnable_avg = in.template var<ulong>("rq_runnable_avg", 0, RQ_RUNNABLE_MAX);
    rq.avg.runnable_sum = in.template var<u64>("rq_runnable_sum", 0, RQ_RUNNABLE_MAX * LOAD_AVG_MAX);
    rq.avg.util_avg = in.template var<ulong>("rq_util_avg", 0, RQ_UTIL_MAX);
    rq.avg.util_sum = in.template var<uint>("rq_util_sum", 0, RQ_UTIL_MAX * LOAD_AVG_MAX);
    // What the cfs_rq's own update leaves, sum < (avg + 1) * divider, with
    // the divider at its largest (auxiliary, ASSUMED): a sum cannot stand
    // far above its average.
    in.require(rq.avg.load_sum < (u64(rq.avg.load_avg) + u64(1)) * u64(LOAD_AVG_MAX),
               "rq_load_sum < (rq_load_avg + 1) * 47742");
    in.require(rq.avg.runnable_sum < (u64(rq.avg.runnable_avg) + u64(1)) * u64(LOAD_AVG_MAX),
               "rq_runnable_sum < (rq_runnable_avg + 1) * 47742");
    in.require(u64(rq.avg.util_sum) < (u64(rq.avg.util_avg) + u64(1)) * u64(LOAD_AVG_MAX),
               "rq_util_sum < (rq_util_avg + 1) * 47742");
    if (removed) {
        rq.removed.nr = in.template var<sint>("removed_nr", 0, 1024);
        rq.removed.load_avg = in.template var<ulong>("removed_load_avg", 0, RQ_LOAD_MAX);
        rq.removed.util_avg = in.template var<ulong>("removed_util_avg", 0, RQ_UTIL_MAX);
        rq.removed.runnable_avg = in.template var<ulong>("removed_runnable_avg", 0, RQ_RUNNABLE_MAX);
    }
    return rq;
}

// A task of the domain.  `sums`: its sums matter (a removal); attach
// rebuilds them from the averages.
template <class A, class In> pelt::sched_entity<A> any_task(In &in, bool sums) {
    using u64 = typename A::u64;
    using uint = typename A::uint;
    using ulong = typename A::ulong;
    pelt::sched_entity<A> se;
    ulong w = in.template var<ulong>("se_weight", W_MIN, W_MAX);
    se.load_weight = pelt::scale_load<A>(w);
    se.avg.load_avg = in.template var<ulong>("se_load_avg", 0, W_MAX);
    in.require(se.avg.load_avg <= w, "se_load_avg <= se_weight (pelt.load_bounded)");
    se.avg.util_avg = in.template var<ulong>("se_util_avg", 0, 1024);
    se.avg.runnable_avg = in.template var<ulong>("se_runnable_avg", 0, 1024);
    if (sums) {
        se.avg.load_sum = in.template var<u64>("se_load_sum", 0, LOAD_AVG_MAX);
        se.avg.util_sum = in.template var<uint>("se_util_sum", 0, 1024 * LOAD_AVG_MAX);
        se.avg.runnable_sum = in.template var<u64>("se_runnable_sum", 0, 1024 * LOAD_AVG_MAX);
    }
    return se;
}

// The user-level weight, as the invariants read it (se_weight()).
template <class A> typename A::u64 weight_of(const pelt::sched_entity<A> &se) {
    return typename A::u64(pelt::se_weight<A>(se));
}

// f - x clamped at 0, then lifted to floor: what a removal means, in exact
// arithmetic (every operand here is far below 2^64 in the domain).
template <class A>
typename A::u64 removal(const typename A::u64 &f, const typename A::u64 &x, const typename A::u64 &floor) {
    using u64 = typename A::u64;
    u64 d = f >= x ? u64(f - x) : u64(0);
    return d >= floor ? d : floor;
}

// The moves, one case each.
enum move { attach, attach_new, enqueue, dequeue, detach, removed };
inline const char *move_label(int m) {
    switch (m) {
    case attach: return "attach_entity_load_avg";
    case attach_new: return "a new task: init, post_init_entity_util_avg, attach_entity_load_avg";
    case enqueue: return "enqueue_load_avg";
    case dequeue: return "dequeue_load_avg";
    case detach: return "detach_entity_load_avg";
    case removed: return "update_cfs_rq_load_avg with removed load";
    }
    return "?";
}

template <class A> void shown_rq(KOut<A> &o, const char *when, const pelt::cfs_rq<A> &rq) {
    using u64 = typename A::u64;
    std::string w(when);
    o.shown.push_back({"rq load_avg " + w, u64(rq.avg.load_avg)});
    o.shown.push_back({"rq load_sum " + w, rq.avg.load_sum});
    o.shown.push_back({"rq runnable_avg " + w, u64(rq.avg.runnable_avg)});
    o.shown.push_back({"rq runnable_sum " + w, rq.avg.runnable_sum});
    o.shown.push_back({"rq util_avg " + w, u64(rq.avg.util_avg)});
    o.shown.push_back({"rq util_sum " + w, u64(rq.avg.util_sum)});
}

// Runs move m of I on (rq, se).
template <class I, class A> void run_move(int m, pelt::cfs_rq<A> &rq, pelt::sched_entity<A> &se) {
    using P = typename I::template on<A>;
    switch (m) {
    case attach: P::attach_entity_load_avg(rq, se); break;
    case attach_new:
        P::init_new_task(se, rq);
        P::attach_entity_load_avg(rq, se);
        break;
    case enqueue: P::enqueue_load_avg(rq, se); break;
    case dequeue: P::dequeue_load_avg(rq, se); break;
    case detach: P::detach_entity_load_avg(rq, se); break;
    case removed: P::update_cfs_rq_load_avg(rq.avg.last_update_time, rq); break;
    }
}

inline std::vector<KCase> move_cases(const char *prefix = "") {
    std::vector<KCase> cs;
    for (int m = attach; m <= removed; ++m)
        if (m != attach_new) // see state_domain()
            cs.push_back({std::string(prefix) + move_label(m), -1, m, {}});
    return cs;
}

// ---------------------------------------------------------------------------
// pelt.no_underflow_visible: after any move, every average and sum of the
// cfs_rq is exactly what the move means in exact arithmetic: an addition is
// the plain sum, a removal is the difference clamped at 0 and, for a sum,
// lifted to avg * PELT_MIN_DIVIDER (the kernel's stated floor).  So no
// wrap-around or cut to 32 bits is ever visible in a stored value, whichever
// way it would go.  The sums an attach rebuilds on the task (avg * divider)
// are checked the same way.  No hypothesis beyond the domain: any
// counterexample is a real input of the move.
struct NoUnderflowVisible {
    static constexpr const char *id = "pelt.no_underflow_visible";
    static constexpr bool integer_first = true;
    template <class I> static bool applies() { return I::cfs_moves; }
    template <class I> static std::string domain(Arch) {
        return "every move (attach, enqueue, dequeue, detach, removed load) from every "
               "state of the domain: " +
               state_domain();
    }
    template <class I> static std::vector<KCase> cases(Arch) { return move_cases(); }
    template <class I, class A, class In> static Runner<A> build(In &in, const KCase &c) {
        using u64 = typename A::u64;
        const int m = c.kind;
        const pelt::cfs_rq<A> rq0 = any_rq<A>(in, m == removed);
        const pelt::sched_entity<A> se0 = any_task<A>(in, m == dequeue || m == detach || m == enqueue);
        return [=]() {
            pelt::cfs_rq<A> rq = rq0;
            pelt::sched_entity<A> se = se0;
            const u64 divider = u64(MIN_DIV) + u64(rq0.avg.period_contrib);
            run_move<I, A>(m, rq, se);
            KOut<A> o;
            typename A::boolean t(true);
            const u64 w = weight_of<A>(se);
            const u64 L0 = u64(rq0.avg.load_avg), LS0 = rq0.avg.load_sum, R0 = u64(rq0.avg.runnable_avg),
                      RS0 = rq0.avg.runnable_sum, U0 = u64(rq0.avg.util_avg), US0 = u64(rq0.avg.util_sum);
            const u64 L = u64(rq.avg.load_avg), LS = rq.avg.load_sum, R = u64(rq.avg.runnable_avg),
                      RS = rq.avg.runnable_sum, U = u64(rq.avg.util_avg), US = u64(rq.avg.util_sum);
            auto same = [&](const char *what, const char *ln, const u64 &l, const char *rn, const u64 &r) {
                o.checks.push_back(eq<A>(what, t, ln, l, rn, r));
            };
            if (m == attach || m == attach_new || m == enqueue) {
                const u64 a = u64(se.avg.load_avg), s = se.avg.load_sum;
                same("load_avg: the addition does not wrap", "rq load_avg after", L, "rq load_avg + se load_avg",
                     L0 + a);
                same("load_sum: the addition does not wrap", "rq load_sum after", LS,
                     "rq load_sum + se_weight * se load_sum", LS0 + w * s);
                if (m != enqueue) {
                    same("util_sum of the task: avg * divider, not cut", "se util_sum after", u64(se.avg.util_sum),
                         "se util_avg * divider", u64(se.avg.util_avg) * divider);
                    same("runnable_sum of the task: avg * divider, not cut", "se runnable_sum after",
                         se.avg.runnable_sum, "se runnable_avg * divider", u64(se.avg.runnable_avg) * divider);
                    same("util_avg: the addition does not wrap", "rq util_avg after", U, "rq util_avg + se util_avg",
                         U0 + u64(se.avg.util_avg));
                    same("util_sum: the addition does not wrap", "rq util_sum after", US,
                         "rq util_sum + se util_sum", US0 + u64(se.avg.util_sum));
                    same("runnable_avg: the addition does not wrap", "rq runnable_avg after", R,
                         "rq runnable_avg + se runnable_avg", R0 + u64(se.avg.runnable_avg));
                    same("runnable_sum: the addition does not wrap", "rq runnable_sum after", RS,
                         "rq runnable_sum + se runnable_sum", RS0 + se.avg.runnable_sum);
                }
            } else {
                // What is taken away from each pair.
                u64 xl, xls, xu, xus, xr, xrs;
                if (m == removed) {
                    xl = u64(rq0.removed.load_avg);
                    xu = u64(rq0.removed.util_avg);
                    xr = u64(rq0.removed.runnable_avg);
                    xls = xl * divider;
                    xus = xu * divider;
                    xrs = xr * divider;
                } else {
                    xl = u64(se.avg.load_avg);
                    xls = w * se.avg.load_sum;
                    xu = u64(se.avg.util_avg);
                    xus = u64(se.avg.util_sum);
                    xr = u64(se.avg.runnable_avg);
                    xrs = se.avg.runnable_sum;
                }
                const bool pairs3 = m != dequeue;
                const bool none = m == removed;
                typename A::boolean g = none ? typename A::boolean(rq0.removed.nr != typename A::sint(0)) : t;
                auto gone = [&](const char *what, const char *ln, const u64 &l, const char *rn, const u64 &r) {
                    o.checks.push_back(eq<A>(what, g, ln, l, rn, r));
                };
                gone("load_avg: the removal is clamped at 0, nothing wraps", "rq load_avg after", L,
                     "max(rq load_avg - removed, 0)", removal<A>(L0, xl, u64(0)));
                gone("load_sum: the removal is clamped at 0 and floored, nothing wraps or is cut",
                     "rq load_sum after", LS, "max(rq load_sum - removed, load_avg after * 46718, 0)",
                     removal<A>(LS0, xls, L * u64(MIN_DIV)));
                if (pairs3) {
                    gone("util_avg: the removal is clamped at 0, nothing wraps", "rq util_avg after", U,
                         "max(rq util_avg - removed, 0)", removal<A>(U0, xu, u64(0)));
                    gone("util_sum: the removal is clamped at 0 and floored, nothing wraps or is cut",
                         "rq util_sum after", US, "max(rq util_sum - removed, util_avg after * 46718, 0)",
                         removal<A>(US0, xus, U * u64(MIN_DIV)));
                    gone("runnable_avg: the removal is clamped at 0, nothing wraps", "rq runnable_avg after", R,
                         "max(rq runnable_avg - removed, 0)", removal<A>(R0, xr, u64(0)));
                    gone("runnable_sum: the removal is clamped at 0 and floored, nothing wraps or is cut",
                         "rq runnable_sum after", RS, "max(rq runnable_sum - removed, runnable_avg after * 46718, 0)",
                         removal<A>(RS0, xrs, R * u64(MIN_DIV)));
                }
            }
            shown_rq<A>(o, "before", rq0);
            o.shown.push_back({"divider", divider});
            if (m == removed) {
                o.shown.push_back({"removed load_avg", u64(rq0.removed.load_avg)});
                o.shown.push_back({"removed util_avg", u64(rq0.removed.util_avg)});
                o.shown.push_back({"removed runnable_avg", u64(rq0.removed.runnable_avg)});
            } else {
                o.shown.push_back({"se weight", w});
                o.shown.push_back({"se load_avg", u64(se.avg.load_avg)});
                o.shown.push_back({"se load_sum", se.avg.load_sum});
                o.shown.push_back({"se util_avg", u64(se.avg.util_avg)});
                o.shown.push_back({"se util_sum", u64(se.avg.util_sum)});
                o.shown.push_back({"se runnable_avg", u64(se.avg.runnable_avg)});
                o.shown.push_back({"se runnable_sum", se.avg.runnable_sum});
            }
            shown_rq<A>(o, "after", rq);
            return o;
        };
    }
};

// ---------------------------------------------------------------------------
// pelt.cfs_rq_sum_avg_consistent: pelt.sum_avg_consistent on the cfs_rq,
// across the moves: a non-zero load_avg, runnable_avg or util_avg of the
// cfs_rq never sits on a zero *_sum.  A state invariant, proved by induction
// over one move from every state of the domain where it holds; the base
// case is the zero cfs_rq.  Enqueue, dequeue and detach read the task's
// sums: they assume the task's own pairs consistent (pelt.sum_avg_consistent
// of the entity, an auxiliary invariant ASSUMED here, proved there up to
// its own verdict).  The cfs_rq's own PELT update is pelt.sum_avg_consistent's.
struct CfsRqSumAvgConsistent {
    static constexpr const char *id = "pelt.cfs_rq_sum_avg_consistent";
    static constexpr bool integer_first = true;
    static constexpr bool induction = true;
    // Kept out of the matrix for now: the steps through a removal (dequeue,
    // detach, removed load) run many minutes on bit-vectors (products of two
    // inputs).  kentry::prove() still runs it directly (tests).
    static constexpr bool in_matrix = false;
    template <class I> static bool applies() { return in_matrix && I::cfs_moves; }
    template <class I> static std::string domain(Arch) {
        return "induction over one move (attach, enqueue, dequeue, detach, removed load) "
               "from every cfs_rq where each *_sum == 0 has *_avg == 0, the task's pairs likewise (auxiliary, "
               "ASSUMED: pelt.sum_avg_consistent of the entity); " +
               state_domain() + "; base case: the zero cfs_rq";
    }
    template <class I> static std::vector<KCase> cases(Arch) {
        std::vector<KCase> cs = {{"base case: the zero cfs_rq", -1, -1, {}}};
        for (KCase &k : move_cases("induction step: "))
            cs.push_back(k);
        return cs;
    }
    template <class A> static void pair_checks(KOut<A> &o, const pelt::cfs_rq<A> &rq) {
        using u64 = typename A::u64;
        auto pair = [&](const char *what, const u64 &sum, const char *avg_name, const u64 &avg) {
            o.checks.push_back(eq<A>(what, sum == u64(0), avg_name, avg, "0", u64(0)));
        };
        pair("rq load_avg is 0 when rq load_sum is", rq.avg.load_sum, "rq load_avg", u64(rq.avg.load_avg));
        pair("rq runnable_avg is 0 when rq runnable_sum is", rq.avg.runnable_sum, "rq runnable_avg",
             u64(rq.avg.runnable_avg));
        pair("rq util_avg is 0 when rq util_sum is", u64(rq.avg.util_sum), "rq util_avg", u64(rq.avg.util_avg));
    }
    template <class I, class A, class In> static Runner<A> build(In &in, const KCase &c) {
        using u64 = typename A::u64;
        using uint = typename A::uint;
        using ulong = typename A::ulong;
        if (c.kind < 0) {
            in.template var<u64>("unused", 0, 0);
            return [=]() {
                KOut<A> o;
                pair_checks<A>(o, pelt::cfs_rq<A>{});
                return o;
            };
        }
        const int m = c.kind;
        const pelt::cfs_rq<A> rq0 = any_rq<A>(in, m == removed);
        in.require(rq0.avg.load_sum != u64(0) || rq0.avg.load_avg == ulong(0), "rq_load_sum == 0 -> rq_load_avg == 0");
        in.require(rq0.avg.runnable_sum != u64(0) || rq0.avg.runnable_avg == ulong(0),
                   "rq_runnable_sum == 0 -> rq_runnable_avg == 0");
        in.require(rq0.avg.util_sum != uint(0) || rq0.avg.util_avg == ulong(0), "rq_util_sum == 0 -> rq_util_avg == 0");
        const bool sums = m == dequeue || m == detach || m == enqueue;
        const pelt::sched_entity<A> se0 = any_task<A>(in, sums);
        if (sums) {
            in.require(se0.avg.load_sum != u64(0) || se0.avg.load_avg == ulong(0),
                       "se_load_sum == 0 -> se_load_avg == 0 (auxiliary)");
            in.require(se0.avg.runnable_sum != u64(0) || se0.avg.runnable_avg == ulong(0),
                       "se_runnable_sum == 0 -> se_runnable_avg == 0 (auxiliary)");
            in.require(se0.avg.util_sum != uint(0) || se0.avg.util_avg == ulong(0),
                       "se_util_sum == 0 -> se_util_avg == 0 (auxiliary)");
        }
        return [=]() {
            pelt::cfs_rq<A> rq = rq0;
            pelt::sched_entity<A> se = se0;
            run_move<I, A>(m, rq, se);
            KOut<A> o;
            pair_checks<A>(o, rq);
            shown_rq<A>(o, "before", rq0);
            shown_rq<A>(o, "after", rq);
            return o;
        };
    }
};

// ---------------------------------------------------------------------------
// pelt.attach_detach_roundtrip: attach_entity_load_avg() then, with no time
// passing, detach_entity_load_avg() of the same task leaves every average
// of the cfs_rq exactly where it was, and every sum S between S and
// max(S, avg * PELT_MIN_DIVIDER): the rounding bound is the floor lift, 0
// whenever S >= avg * 46718 (which the cfs_rq's own update leaves; an
// attach can leave S up to weight - 1 below it, as it rounds the task's
// load_sum down to a multiple of the weight).  The task's sums are rebuilt
// by the attach, so only its averages and weight are inputs.  Two cases:
// any sums of the domain, where 6.x fails at once (the floor's max_t(u32)
// cuts a sum of 2^32 or more), then the sums below 2^32, which the engine
// reaches only when the first case holds.
struct AttachDetachRoundtrip {
    static constexpr const char *id = "pelt.attach_detach_roundtrip";
    static constexpr bool integer_first = true;
    template <class I> static bool applies() { return I::cfs_moves; }
    template <class I> static std::string domain(Arch) {
        return "attach then detach of one task with no time passing, from every state of the domain: " +
               state_domain() + "; rounding bound: each average exact, each sum S within [S, max(S, avg * 46718)]";
    }
    template <class I> static std::vector<KCase> cases(Arch) {
        return {{"any cfs_rq sums", -1, 1, {}}, {"cfs_rq sums below 2^32", -1, 0, {}}};
    }
    template <class I, class A, class In> static Runner<A> build(In &in, const KCase &c) {
        using u64 = typename A::u64;
        const pelt::cfs_rq<A> rq0 = any_rq<A>(in, false);
        if (c.kind == 0) {
            const u64 p32 = u64(std::uint64_t(1) << 32);
            in.require(rq0.avg.load_sum < p32, "rq_load_sum < 2^32");
            in.require(rq0.avg.runnable_sum < p32, "rq_runnable_sum < 2^32");
        }
        const pelt::sched_entity<A> se0 = any_task<A>(in, false);
        return [=]() {
            using P = typename I::template on<A>;
            pelt::cfs_rq<A> rq = rq0;
            pelt::sched_entity<A> se = se0;
            P::attach_entity_load_avg(rq, se);
            const pelt::cfs_rq<A> mid = rq;
            P::detach_entity_load_avg(rq, se);
            KOut<A> o;
            typename A::boolean t(true);
            auto avg = [&](const char *what, const char *ln, const u64 &after, const char *rn, const u64 &before) {
                o.checks.push_back(eq<A>(what, t, ln, after, rn, before));
            };
            avg("load_avg restored exactly", "rq load_avg after", u64(rq.avg.load_avg), "rq load_avg before",
                u64(rq0.avg.load_avg));
            avg("util_avg restored exactly", "rq util_avg after", u64(rq.avg.util_avg), "rq util_avg before",
                u64(rq0.avg.util_avg));
            avg("runnable_avg restored exactly", "rq runnable_avg after", u64(rq.avg.runnable_avg),
                "rq runnable_avg before", u64(rq0.avg.runnable_avg));
            auto sum = [&](const char *name, const u64 &after, const u64 &before, const u64 &avg0) {
                const u64 fl = avg0 * u64(MIN_DIV);
                const u64 hi = before >= fl ? before : fl;
                std::string n(name);
                o.checks.push_back(le<A>(n + " never drops below where it was", t, "rq " + n + " before", before,
                                         "rq " + n + " after", after));
                o.checks.push_back(le<A>(n + " rises at most to its floor", t, "rq " + n + " after", after,
                                         "max(rq " + n + " before, avg * 46718)", hi));
            };
            sum("load_sum", rq.avg.load_sum, rq0.avg.load_sum, u64(rq0.avg.load_avg));
            sum("util_sum", u64(rq.avg.util_sum), u64(rq0.avg.util_sum), u64(rq0.avg.util_avg));
            sum("runnable_sum", rq.avg.runnable_sum, rq0.avg.runnable_sum, u64(rq0.avg.runnable_avg));
            shown_rq<A>(o, "before", rq0);
            o.shown.push_back({"se weight", weight_of<A>(se)});
            o.shown.push_back({"se load_avg", u64(se0.avg.load_avg)});
            o.shown.push_back({"se util_avg", u64(se0.avg.util_avg)});
            o.shown.push_back({"se runnable_avg", u64(se0.avg.runnable_avg)});
            shown_rq<A>(o, "attached", mid);
            shown_rq<A>(o, "after", rq);
            return o;
        };
    }
};

} // namespace sc::proofs::cfsrq_inv
