// The util_est invariants, written once against the kernel-shaped
// interface (proofs/kernel/kernel_iface.h): _task_util_est(), task_util_est(),
// util_est_enqueue(), util_est_dequeue() and, from 6.x on,
// util_est_update().  Each runs on a reference variant and on a kernel
// oracle alike.  The functions are loop-free: every case is explored
// lazily and proved on exact bit-vectors.
//
// The sched_feat() bits and task_sleep are split into cases; every other
// input is symbolic.  "The value" of an estimate word is the word without
// the UTIL_AVG_UNCHANGED flag where the version keeps the flag in it (6.1's
// enqueued, 6.12's single word), the whole word otherwise.
#pragma once
#include "proofs/engine/double_width.h"
#include "proofs/kernel/kernel_iface.h"
#include "proofs/engine/kprop_engine.h"
#include "proofs/pelt_invariants.h"

namespace sc::proofs::utilest_inv {

using utilest::version;
using pelt_inv::eq;
using pelt_inv::le;

template <class I> constexpr bool has_flag = I::shape == version::v6_1 || I::shape == version::v6_12;
template <class I> constexpr bool split = I::shape != version::v6_12; // {enqueued, ewma}
template <class I> constexpr bool has_update = utilest::has_util_est_update<I::shape>;

// The value of the task's EWMA word (the single word in 6.12, which holds
// the flag; a plain value before) and of its enqueued word (6.1 keeps the
// flag there; bellasi has none).
template <class I, class A> typename A::uint value_ewma(const typename A::uint &w) {
    if constexpr (I::shape == version::v6_12)
        return w & typename A::uint(~utilest::UTIL_AVG_UNCHANGED);
    else
        return w;
}
template <class I, class A> typename A::uint value_enqueued(const typename A::uint &w) {
    if constexpr (I::shape == version::v6_1)
        return w & typename A::uint(~utilest::UTIL_AVG_UNCHANGED);
    else
        return w;
}

// Cases: UTIL_EST on/off, UTIL_EST_FASTUP on/off where it exists (6.1),
// task_sleep on/off.  kind: bit 0 UTIL_EST, bit 1 FASTUP, bit 2 sleep.
template <class I> std::vector<KCase> knob_cases(bool with_sleep) {
    std::vector<KCase> cs;
    const int fast = I::shape == version::v6_1 ? 2 : 1;
    for (int ue = 0; ue < 2; ++ue)
        for (int fu = 0; fu < fast; ++fu)
            for (int sl = 0; sl < (with_sleep ? 2 : 1); ++sl) {
                KCase c;
                c.kind = ue | (fu << 1) | (sl << 2);
                c.label = std::string("UTIL_EST ") + (ue ? "on" : "off");
                c.fixed = {{"UTIL_EST", std::uint64_t(ue)}};
                if (fast == 2) {
                    c.label += std::string(", UTIL_EST_FASTUP ") + (fu ? "on" : "off");
                    c.fixed.push_back({"UTIL_EST_FASTUP", std::uint64_t(fu)});
                }
                if (with_sleep) {
                    c.label += std::string(", task_sleep ") + (sl ? "on" : "off");
                    c.fixed.push_back({"task_sleep", std::uint64_t(sl)});
                }
                cs.push_back(c);
            }
    return cs;
}
inline utilest::knobs case_knobs(const KCase &c) { return {(c.kind & 1) != 0, (c.kind & 2) != 0}; }
inline bool case_sleep(const KCase &c) { return (c.kind & 4) != 0; }

// A task with util_avg, runnable_avg <= 1024 and estimate words whose
// values are at most `est_max` (the flag bit free where there is one).
template <class I, class A, class In> utilest::task<A> any_task(In &in, std::uint64_t est_max) {
    using ulong = typename A::ulong;
    using uint = typename A::uint;
    utilest::task<A> p{};
    p.util_avg = in.template var<ulong>("p.util_avg", 0, 1024);
    p.runnable_avg = in.template var<ulong>("p.runnable_avg", 0, 1024);
    const std::string word = split<I> ? "p.util_est.ewma" : "p.util_est";
    p.ewma = in.template var<uint>(word, 0, 0xffffffffu);
    in.require(value_ewma<I, A>(p.ewma) <= uint(std::uint32_t(est_max)), "value of " + word + " <= " + std::to_string(est_max));
    if constexpr (split<I>) {
        p.enqueued = in.template var<uint>("p.util_est.enqueued", 0, 0xffffffffu);
        in.require(value_enqueued<I, A>(p.enqueued) <= uint(std::uint32_t(est_max)),
                   "value of p.util_est.enqueued <= " + std::to_string(est_max));
    }
    return p;
}

// The end of an activation: 6.x util_est_update(); bellasi's dequeue does
// the same work when the task sleeps.
template <class I, class A>
void end_activation(utilest::cfs_rq<A> &rq, utilest::task<A> &p, bool sleep, typename A::ulong cap,
                    const utilest::knobs &k) {
    using U = typename I::template on<A>;
    if constexpr (has_update<I>)
        U::util_est_update(rq, p, sleep, cap, k);
    else
        U::util_est_dequeue(rq, p, sleep, k);
}

// The common scenario of bounded and ewma_between: a task with estimates
// and util_avg <= 1024, a capacity <= 1024, and the end of one activation.
// The runner gives the task before and after.
template <class A> struct Activation {
    utilest::task<A> before, after;
};
template <class I, class A, class In> std::function<Activation<A>()> one_activation(In &in, const KCase &c) {
    const utilest::task<A> p0 = any_task<I, A>(in, 1024);
    const auto cap = in.template var<typename A::ulong>("capacity", 0, 1024);
    return [=]() {
        Activation<A> a{p0, p0};
        utilest::cfs_rq<A> rq{};
        end_activation<I, A>(rq, a.after, case_sleep(c), cap, case_knobs(c));
        return a;
    };
}

template <class I, class A> void show_task(KOut<A> &o, const char *when, const utilest::task<A> &p) {
    using u64 = typename A::u64;
    o.shown.push_back({std::string("p.util_avg ") + when, u64(p.util_avg)});
    if constexpr (split<I>) {
        o.shown.push_back({std::string("p.util_est.enqueued ") + when, u64(p.enqueued)});
        o.shown.push_back({std::string("p.util_est.ewma ") + when, u64(p.ewma)});
    } else {
        o.shown.push_back({std::string("p.util_est ") + when, u64(p.ewma)});
    }
}

// ---------------------------------------------------------------------------
// utilest.bounded: with util_avg, runnable_avg and the capacity at most
// 1024, estimates at most 1024 stay so through the end of an activation,
// and task_util_est() is at most 1024.
struct Bounded {
    static constexpr const char *id = "utilest.bounded";
    static constexpr bool integer_first = false;
    template <class I> static bool applies() { return true; }
    template <class I> static std::string domain(Arch) {
        return "util_avg, runnable_avg, capacity <= 1024; estimate values <= 1024 (the flag bit free); "
               "UTIL_EST, UTIL_EST_FASTUP and task_sleep on and off";
    }
    template <class I> static std::vector<KCase> cases(Arch) { return knob_cases<I>(true); }
    template <class I, class A, class In> static Runner<A> build(In &in, const KCase &c) {
        using u64 = typename A::u64;
        auto activation = one_activation<I, A>(in, c);
        return [=]() {
            const auto [p0, p] = activation();
            KOut<A> o;
            typename A::boolean t(true);
            o.checks.push_back(le<A>("the EWMA stays <= 1024", t, "value of ewma after", u64(value_ewma<I, A>(p.ewma)),
                                     "1024", u64(1024)));
            if constexpr (split<I>)
                o.checks.push_back(le<A>("enqueued stays <= 1024", t, "value of enqueued after",
                                         u64(value_enqueued<I, A>(p.enqueued)), "1024", u64(1024)));
            o.checks.push_back(le<A>("task_util_est() <= 1024", t, "task_util_est(p)",
                                     u64(I::template on<A>::task_util_est(p)), "1024", u64(1024)));
            show_task<I>(o, "before", p0);
            show_task<I>(o, "after", p);
            return o;
        };
    }
};

// utilest.ewma_between: the new EWMA lies between the old EWMA and the
// sample (util_avg), both inclusive: the rounding of the shift form never
// takes it outside.  Estimates <= 1024, as utilest.bounded establishes.
struct EwmaBetween {
    static constexpr const char *id = "utilest.ewma_between";
    static constexpr bool integer_first = false;
    template <class I> static bool applies() { return true; }
    template <class I> static std::string domain(Arch a) { return Bounded::domain<I>(a); }
    template <class I> static std::vector<KCase> cases(Arch) { return knob_cases<I>(true); }
    template <class I, class A, class In> static Runner<A> build(In &in, const KCase &c) {
        using u64 = typename A::u64;
        auto activation = one_activation<I, A>(in, c);
        return [=]() {
            const auto [p0, p] = activation();
            u64 before = u64(value_ewma<I, A>(p0.ewma)), after = u64(value_ewma<I, A>(p.ewma)), sample = u64(p0.util_avg);
            u64 lo = before < sample ? before : sample, hi = before < sample ? sample : before;
            KOut<A> o;
            typename A::boolean t(true);
            o.checks.push_back(le<A>("the new EWMA is not below both the old EWMA and the sample", t,
                                     "min(old ewma, util_avg)", lo, "new ewma", after));
            o.checks.push_back(le<A>("the new EWMA is not above both the old EWMA and the sample", t, "new ewma",
                                     after, "max(old ewma, util_avg)", hi));
            o.shown = {{"util_avg (the sample)", sample}, {"ewma before", before}, {"ewma after", after}};
            return o;
        };
    }
};

// utilest.flag_isolated (versions with the flag): the UNCHANGED flag never
// shows in what a reader gets: a task whose estimate values are 0 has
// _task_util_est() == 0 whatever the flag bits, and enqueuing it leaves the
// runqueue's sum as it was.
struct FlagIsolated {
    static constexpr const char *id = "utilest.flag_isolated";
    static constexpr bool integer_first = false;
    template <class I> static bool applies() { return has_flag<I>; }
    template <class I> static std::string domain(Arch) {
        return "estimate values 0 with the flag bit set or clear; util_avg, runnable_avg <= 1024; any runqueue sum; "
               "UTIL_EST on and off";
    }
    template <class I> static std::vector<KCase> cases(Arch) { return knob_cases<I>(false); }
    template <class I, class A, class In> static Runner<A> build(In &in, const KCase &c) {
        using u64 = typename A::u64;
        const utilest::task<A> p0 = any_task<I, A>(in, 0);
        utilest::cfs_rq<A> rq0{};
        rq0.util_est_enqueued = in.template var<typename A::uint>("cfs_rq.util_est", 0, 0xffffffffu);
        return [=]() {
            utilest::task<A> p = p0;
            utilest::cfs_rq<A> rq = rq0;
            using U = typename I::template on<A>;
            u64 est = u64(U::_task_util_est(p));
            U::util_est_enqueue(rq, p, case_knobs(c));
            KOut<A> o;
            typename A::boolean t(true);
            o.checks.push_back(eq<A>("_task_util_est() of a zero estimate is 0", t, "_task_util_est(p)", est, "0", u64(0)));
            o.checks.push_back(eq<A>("enqueuing a zero estimate leaves the sum", t, "cfs_rq.util_est after",
                                     u64(rq.util_est_enqueued), "cfs_rq.util_est before", u64(rq0.util_est_enqueued)));
            show_task<I>(o, "", p0);
            o.shown.push_back({"_task_util_est(p)", est});
            return o;
        };
    }
};

// utilest.no_underflow: dequeuing what was enqueued restores the
// runqueue's sum exactly (so the dequeue never wraps it), whatever the
// task's estimate, for every sum that the enqueue did not wrap.
struct NoUnderflow {
    static constexpr const char *id = "utilest.no_underflow";
    static constexpr bool integer_first = false;
    template <class I> static bool applies() { return true; }
    template <class I> static std::string domain(Arch) {
        return "any estimate words; util_avg, runnable_avg <= 1024; cfs_rq.util_est + value(ewma) + "
               "value(enqueued) <= U32_MAX (so the enqueue does not wrap); "
               "UTIL_EST on and off, task_sleep on and off";
    }
    template <class I> static std::vector<KCase> cases(Arch) { return knob_cases<I>(true); }
    template <class I, class A, class In> static Runner<A> build(In &in, const KCase &c) {
        using u64 = typename A::u64;
        using U = typename I::template on<A>;
        const utilest::task<A> p0 = any_task<I, A>(in, 0xffffffffu);
        utilest::cfs_rq<A> rq0{};
        rq0.util_est_enqueued = in.template var<typename A::uint>("cfs_rq.util_est", 0, 0xffffffffu);
        // A sufficient, branch-free form of "the enqueue does not wrap": the
        // estimate is at most the larger of the two words.
        in.require(u64(rq0.util_est_enqueued) + u64(value_ewma<I, A>(p0.ewma)) + u64(value_enqueued<I, A>(p0.enqueued)) <=
                       u64(0xffffffffu),
                   "cfs_rq.util_est + value(ewma) + value(enqueued) <= U32_MAX");
        return [=]() {
            utilest::task<A> p = p0;
            utilest::cfs_rq<A> rq = rq0;
            U::util_est_enqueue(rq, p, case_knobs(c));
            u64 mid = u64(rq.util_est_enqueued);
            U::util_est_dequeue(rq, p, case_sleep(c), case_knobs(c));
            KOut<A> o;
            typename A::boolean t(true);
            o.checks.push_back(eq<A>("a dequeue takes back exactly what the enqueue added", t,
                                     "cfs_rq.util_est after enqueue + dequeue", u64(rq.util_est_enqueued),
                                     "cfs_rq.util_est before", u64(rq0.util_est_enqueued)));
            o.shown = {{"cfs_rq.util_est before", u64(rq0.util_est_enqueued)}, {"after enqueue", mid},
                       {"after dequeue", u64(rq.util_est_enqueued)}};
            return o;
        };
    }
};

// utilest.filter_sound (6.x, where util_est_update() filters): when an
// eligible update is skipped because of the margin, the stored estimate
// is within that margin of the new sample.  "Eligible" sets the other
// skips aside, each sound for its own reason:
//   - UTIL_EST off, or no task_sleep: no sample is taken at all;
//   - the UNCHANGED flag set: the estimate was already updated with this
//     activation's utilisation and nothing new has been seen since;
//   - a sample above the CPU's capacity: the task did not fit, so its
//     utilisation is not a measure of what it needs;
//   - 6.12: util_avg + margin below runnable_avg: the task waited to run,
//     so util_avg under-reads its need.
// "Skipped" is observed, not read from the code: the values of the stored
// words are unchanged (6.12 may still set the flag).  An actual EWMA step
// moves the EWMA by at least 2 when the margin is exceeded, so an unchanged
// value comes from a skip.  The margin is UTIL_EST_MARGIN = 1024 / 100 = 10:
// |stored - sample| < 10 for the EWMA and, in 6.1, for enqueued.
struct FilterSound {
    static constexpr const char *id = "utilest.filter_sound";
    static constexpr bool integer_first = false;
    static constexpr std::uint64_t margin = 1024 / 100;
    template <class I> static bool applies() { return has_update<I>; }
    template <class I> static std::string domain(Arch) {
        return "util_avg, runnable_avg, capacity <= 1024; estimate values <= 1024 with the UNCHANGED flag clear; "
               "UTIL_EST and task_sleep on, UTIL_EST_FASTUP on and off; util_avg <= capacity (and, 6.12, "
               "util_avg + 10 >= runnable_avg)";
    }
    template <class I> static std::vector<KCase> cases(Arch) {
        std::vector<KCase> cs;
        for (const KCase &c : knob_cases<I>(true))
            if ((c.kind & 1) && (c.kind & 4))
                cs.push_back(c);
        return cs;
    }
    template <class I, class A, class In> static Runner<A> build(In &in, const KCase &c) {
        using u64 = typename A::u64;
        using uint = typename A::uint;
        const utilest::task<A> p0 = any_task<I, A>(in, 1024);
        const auto cap = in.template var<typename A::ulong>("capacity", 0, 1024);
        const uint flag(utilest::UTIL_AVG_UNCHANGED);
        if constexpr (I::shape == version::v6_1)
            in.require((p0.enqueued & flag) == uint(0), "the UNCHANGED flag of p.util_est.enqueued clear");
        else
            in.require((p0.ewma & flag) == uint(0), "the UNCHANGED flag of p.util_est clear");
        in.require(p0.util_avg <= cap, "util_avg <= capacity");
        if constexpr (I::shape == version::v6_12)
            in.require(p0.runnable_avg <= p0.util_avg + typename A::ulong(margin), "runnable_avg <= util_avg + 10");
        return [=]() {
            utilest::task<A> p = p0;
            utilest::cfs_rq<A> rq{};
            end_activation<I, A>(rq, p, true, cap, case_knobs(c));
            const u64 sample = u64(p0.util_avg), m1 = u64(margin - 1);
            const u64 ewma0 = u64(value_ewma<I, A>(p0.ewma));
            typename A::boolean skipped = value_ewma<I, A>(p.ewma) == value_ewma<I, A>(p0.ewma);
            if constexpr (split<I>)
                skipped = skipped && value_enqueued<I, A>(p.enqueued) == value_enqueued<I, A>(p0.enqueued);
            KOut<A> o;
            o.checks.push_back(le<A>("a skipped EWMA is within the margin above the sample", skipped, "stored ewma",
                                     ewma0, "util_avg + 9", sample + m1));
            o.checks.push_back(le<A>("a skipped EWMA is within the margin below the sample", skipped, "util_avg",
                                     sample, "stored ewma + 9", ewma0 + m1));
            if constexpr (split<I>) {
                const u64 enq0 = u64(value_enqueued<I, A>(p0.enqueued));
                o.checks.push_back(le<A>("a skipped enqueued is within the margin above the sample", skipped,
                                         "stored enqueued", enq0, "util_avg + 9", sample + m1));
                o.checks.push_back(le<A>("a skipped enqueued is within the margin below the sample", skipped,
                                         "util_avg", sample, "stored enqueued + 9", enq0 + m1));
            }
            show_task<I>(o, "before", p0);
            show_task<I>(o, "after", p);
            o.shown.push_back({"p.runnable_avg", u64(p0.runnable_avg)});
            o.shown.push_back({"capacity", u64(cap)});
            return o;
        };
    }
};

// utilest.no_overflow: no wrap changes a result.  A task's activation,
// enqueue, dequeue and the end of the activation (6.x util_est_update(),
// bellasi's sleeping dequeue), runs twice on the same inputs: at the
// kernel's widths and with every type twice as wide (proofs/engine/double_width.h).
// The runqueue's sum after each call, the task's estimate words and what
// the readers return must come out the same and fit their types.  6.1's
// `ue.enqueued - ue.ewma` wraps in u32 whenever the sample is below the
// EWMA (and on 64-bit kernels is then read as a large positive long); the
// u32 truncations of within_margin() and of the EWMA store take it back,
// so it passes.  A wrap that loses bits fails.
//
// Values: util_avg, runnable_avg, the capacity and the estimate values up
// to 65536, 64 times the capacity scale (a task reaches at most 1025); the
// runqueue's sum anything that leaves room for the task's estimate (what
// utilest.no_underflow asks of the enqueue).
struct NoOverflow {
    static constexpr const char *id = "utilest.no_overflow";
    static constexpr bool integer_first = false;
    static constexpr std::uint64_t value_max = 65536;
    template <class I> static bool applies() { return true; }
    template <class I> static std::string domain(Arch) {
        return "util_avg, runnable_avg, capacity and estimate values <= 65536 (flag bits free); cfs_rq.util_est + "
               "value(ewma) + value(enqueued) <= U32_MAX; enqueue, dequeue and the end of the activation "
               "compared with the same calls on every type twice as wide; UTIL_EST, UTIL_EST_FASTUP and "
               "task_sleep on and off";
    }
    template <class I> static std::vector<KCase> cases(Arch) { return knob_cases<I>(true); }
    template <class A> static utilest::task<DW<A>> widen(const utilest::task<A> &p) {
        using W = DW<A>;
        utilest::task<W> w{};
        w.util_avg = typename W::ulong(p.util_avg);
        w.runnable_avg = typename W::ulong(p.runnable_avg);
        w.enqueued = typename W::uint(p.enqueued);
        w.ewma = typename W::uint(p.ewma);
        return w;
    }
    template <class I, class A, class In> static Runner<A> build(In &in, const KCase &c) {
        using u64 = typename A::u64;
        using W = DW<A>;
        utilest::task<A> p0 = any_task<I, A>(in, value_max);
        in.require(p0.util_avg <= typename A::ulong(value_max) && p0.runnable_avg <= typename A::ulong(value_max),
                   "util_avg, runnable_avg <= 65536");
        const auto cap = in.template var<typename A::ulong>("capacity", 0, value_max);
        utilest::cfs_rq<A> rq0{};
        rq0.util_est_enqueued = in.template var<typename A::uint>("cfs_rq.util_est", 0, 0xffffffffu);
        in.require(u64(rq0.util_est_enqueued) + u64(value_ewma<I, A>(p0.ewma)) + u64(value_enqueued<I, A>(p0.enqueued)) <=
                       u64(0xffffffffu),
                   "cfs_rq.util_est + value(ewma) + value(enqueued) <= U32_MAX");
        return [=]() {
            using U = typename I::template on<A>;
            using UW = typename I::template on<W>;
            const utilest::knobs k = case_knobs(c);
            const bool sleep = case_sleep(c);
            utilest::task<A> p = p0;
            utilest::task<W> pw = widen(p0);
            utilest::cfs_rq<A> rq = rq0;
            utilest::cfs_rq<W> rqw{};
            rqw.util_est_enqueued = typename W::uint(rq0.util_est_enqueued);
            KOut<A> o;
            same_value<A>(o, "_task_util_est(p)", U::_task_util_est(p), UW::_task_util_est(pw));
            same_value<A>(o, "task_util_est(p)", U::task_util_est(p), UW::task_util_est(pw));
            U::util_est_enqueue(rq, p, k);
            UW::util_est_enqueue(rqw, pw, k);
            same_value<A>(o, "cfs_rq.util_est after the enqueue", rq.util_est_enqueued, rqw.util_est_enqueued);
            const u64 mid = u64(rq.util_est_enqueued);
            if constexpr (has_update<I>) {
                U::util_est_dequeue(rq, p, sleep, k);
                UW::util_est_dequeue(rqw, pw, sleep, k);
                same_value<A>(o, "cfs_rq.util_est after the dequeue", rq.util_est_enqueued, rqw.util_est_enqueued);
            }
            end_activation<I, A>(rq, p, sleep, cap, k);
            end_activation<I, W>(rqw, pw, sleep, typename W::ulong(cap), k);
            if constexpr (!has_update<I>)
                same_value<A>(o, "cfs_rq.util_est after the dequeue", rq.util_est_enqueued, rqw.util_est_enqueued);
            const std::string word = split<I> ? "p.util_est.ewma" : "p.util_est";
            same_value<A>(o, word + " after", p.ewma, pw.ewma);
            if constexpr (split<I>)
                same_value<A>(o, "p.util_est.enqueued after", p.enqueued, pw.enqueued);
            show_task<I>(o, "before", p0);
            o.shown.push_back({"p.runnable_avg", u64(p0.runnable_avg)});
            o.shown.push_back({"capacity", u64(cap)});
            o.shown.push_back({"cfs_rq.util_est before", u64(rq0.util_est_enqueued)});
            o.shown.push_back({"cfs_rq.util_est after the enqueue", mid});
            o.shown.push_back({"cfs_rq.util_est at the end", u64(rq.util_est_enqueued)});
            show_task<I>(o, "after", p);
            show_exact<A>(o, word + " after", pw.ewma);
            if constexpr (split<I>)
                show_exact<A>(o, "p.util_est.enqueued after", pw.enqueued);
            return o;
        };
    }
};

} // namespace sc::proofs::utilest_inv
