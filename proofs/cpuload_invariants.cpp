#include "proofs/cpuload_invariants.h"

#include <chrono>
#include <type_traits>
#include <fmt/format.h>

#include "proofs/cpuload_fast.h"
#include "proofs/engine/engine.h"

namespace sc::proofs::cpuload_inv {

using cpuload::op;
using cpuload::patch_level;

namespace {

// The text of a concrete check (what failed, the names of both sides) is
// built only when it will be read.  The property fuzzer evaluates every
// scenario into a sink that declares `text = false` and asks again, with
// text, only on a violation: the strings cost more than the arithmetic
// they describe.  The choice is the sink's type, so it is made at compile
// time and costs an input nothing (a flag read per label cost a compare,
// and the fuzzer's hook on it, for each of some thousand labels).
template <class Out, class = void> struct keeps_text : std::true_type {};
template <class Out> struct keeps_text<Out, std::void_t<decltype(Out::text)>> : std::bool_constant<Out::text> {};
#define SC_LABEL(...) (keeps_text<Out>::value ? std::string(__VA_ARGS__) : std::string())

// From shi-1-3 on only cpu_load[0] exists.
int live_slots(patch_level p) { return p >= patch_level::shi_1_3 ? 1 : cpuload::CPU_LOAD_IDX_MAX; }

std::string slot(int i) { return "cpu_load[" + std::to_string(i) + "]"; }

// Ticks between two updates that are split into concrete cases; beyond
// this many every decayed value is 0 (degrade_zero_ticks tops out at 128).
constexpr std::uint64_t pending_split = 130;
constexpr std::uint64_t jiffies_room = 256;

// Any runqueue of the domain: each cpu_load[i] and the runnable load up to
// the load bound, any number of tasks up to PID_MAX_LIMIT, and a last
// update tick that leaves room for one more tick without wrapping jiffies.
template <class A, class In> cpuload::rq<A> any_rq(In &in, const BuildCtx &bc) {
    using ulong = typename A::ulong;
    cpuload::rq<A> r;
    for (int i = 0; i < cpuload::CPU_LOAD_IDX_MAX; i++)
        r.cpu_load[i] = in.template var<ulong>(slot(i), 0, bc.load_hi, true);
    r.last_load_update_tick = in.template var<ulong>("last_load_update_tick", 0, bc.ulong_max - jiffies_room);
    r.cfs.runnable_load_avg = in.template var<ulong>("runnable_load_avg", 0, bc.load_hi, true);
    r.cfs.h_nr_running = in.template var<typename A::uint>("h_nr_running", 0, bc.dom.max_tasks);
    return r;
}

// A jiffies value after the last update.  jiffies is taken without wrap:
// the kernel's modular difference curr - last is the same for a wrapped
// pair as for its unwrapped twin, so no case is lost.
// With the decay (v3.13, shi-1) the ticks since the last update are split:
// one case per value 1..129 (straight-line code, no solver branching) and
// one symbolic case for the rest.
template <class A, class In> typename A::ulong later_jiffies(In &in, const BuildCtx &bc, const cpuload::rq<A> &r) {
    using ulong = typename A::ulong;
    if (bc.c.n >= 0)
        return r.last_load_update_tick + in.template fixed<ulong>("pending_updates", bc.c.n);
    auto j = in.template var<ulong>("jiffies", 0, bc.ulong_max);
    in.require(j >= r.last_load_update_tick + ulong(bc.c.from), "jiffies >= last_load_update_tick + " +
                                                                  std::to_string(bc.c.from));
    return j;
}

// The cases of an entry point that takes jiffies: split as above where the
// variant decays, one symbolic case otherwise.
std::vector<Case> pending_cases(patch_level p, const std::string &label, int kind) {
    std::vector<Case> c;
    if (p >= patch_level::shi_1_3)
        return {{label, 0, true, -1, kind, 1}};
    for (std::uint64_t k = 1; k < pending_split; k++)
        c.push_back({label + ", pending_updates " + std::to_string(k), 0, true, static_cast<std::int64_t>(k), kind});
    c.push_back({label + ", pending_updates >= " + std::to_string(pending_split), 0, true, -1, kind, pending_split});
    return c;
}

template <class A> cpuload::step<A> mk(op k, typename A::ulong a = 0, typename A::ulong b = 0, int idx = 0) {
    cpuload::step<A> s{k};
    s.a = a;
    s.b = b;
    s.idx = idx;
    return s;
}

template <class A> const cpuload::rq<A> &before(const cpuload::scenario<A> &s, const cpuload::trace<A> &t, std::size_t k) {
    return k == 0 ? s.init : t.recs[k - 1].after;
}

// ---------------------------------------------------------------------
struct DecayMonotone {
    static constexpr const char *id = "cpuload.decay_monotone";
    static constexpr bool overflow = false;
    static bool applies(patch_level p) { return p <= patch_level::shi_1; }
    static std::vector<Case> cases(patch_level, Arch) {
        std::vector<Case> c;
        for (int idx = 1; idx < cpuload::CPU_LOAD_IDX_MAX; idx++)
            c.push_back({"idx " + std::to_string(idx), idx});
        return c;
    }
    template <class A, class In> static cpuload::scenario<A> build(In &in, const BuildCtx &bc) {
        using ulong = typename A::ulong;
        cpuload::scenario<A> s{};
        ulong v = in.template var<ulong>("load", 0, bc.load_hi, true);
        ulong w = in.template var<ulong>("load2", 0, bc.load_hi, true);
        // n + 1 must not wrap: that would be the harness's wrap, not the kernel's.
        ulong n = in.template var<ulong>("missed_updates", 0, bc.ulong_max - 1);
        s.steps = {mk<A>(op::decay, v, n, bc.c.idx), mk<A>(op::decay, v, n + 1, bc.c.idx),
                   mk<A>(op::decay, w, n, bc.c.idx)};
        return s;
    }
    // Over every decay step and every ordered pair of decay steps at the
    // same index: result <= load; more missed ticks never give more; more
    // load never gives less.
    // Out: the checks collected (the default), or a sink that judges
    // each one as it comes (first_violated()).
    template <class A, class Out = std::vector<Check<A>>>
    static Out checks(patch_level, const cpuload::scenario<A> &s, const cpuload::trace<A> &t,
                      std::uint64_t, Out out = Out()) {
        const auto &st = s.steps;
        for (std::size_t i = 0; i < st.size(); i++) {
            if (st[i].kind != op::decay)
                continue;
            std::string di = SC_LABEL("decay_load_missed(step " + std::to_string(i) + ")");
            out.push_back({SC_LABEL("never above the load"), typename A::boolean(true), di, t.recs[i].out0, cmp::le,
                           SC_LABEL("load of step " + std::to_string(i)), st[i].a});
            for (std::size_t j = 0; j < st.size(); j++) {
                if (j == i || st[j].kind != op::decay || st[j].idx != st[i].idx)
                    continue;
                std::string dj = SC_LABEL("decay_load_missed(step " + std::to_string(j) + ")");
                out.push_back({SC_LABEL("non-increasing in missed_updates"),
                               st[i].a == st[j].a && st[i].b <= st[j].b, dj, t.recs[j].out0, cmp::le, di,
                               t.recs[i].out0});
                out.push_back({SC_LABEL("monotone in load"), st[i].a <= st[j].a && st[i].b == st[j].b, di, t.recs[i].out0,
                               cmp::le, dj, t.recs[j].out0});
            }
        }
        return out;
    }
};

// ---------------------------------------------------------------------
struct IdleDecay {
    static constexpr const char *id = "cpuload.idle_decay_nonincreasing";
    static constexpr bool overflow = false;
    static bool applies(patch_level) { return true; }
    static std::vector<Case> cases(patch_level p, Arch) {
        std::vector<Case> c = pending_cases(p, "update_idle_cpu_load", 0);
        for (const Case &k : pending_cases(p, "update_cpu_load_nohz", 1))
            c.push_back(k);
        c.push_back({"update_cpu_load_active", 0, true, -1, 2});
        return c;
    }
    template <class A, class In> static cpuload::scenario<A> build(In &in, const BuildCtx &bc) {
        using ulong = typename A::ulong;
        cpuload::scenario<A> s{};
        s.init = any_rq<A>(in, bc);
        in.require(s.init.cfs.runnable_load_avg == ulong(0), "runnable_load_avg == 0");
        switch (bc.c.kind) {
        case 0: s.steps = {mk<A>(op::idle_update, later_jiffies<A>(in, bc, s.init))}; break;
        case 1: s.steps = {mk<A>(op::nohz_exit, later_jiffies<A>(in, bc, s.init))}; break;
        default: s.steps = {mk<A>(op::tick, ulong(0), s.init.last_load_update_tick + 1)}; break;
        }
        return s;
    }
    // Every update that samples a zero load leaves each cpu_load[i] where
    // it was or lower.
    // Out: the checks collected (the default), or a sink that judges
    // each one as it comes (first_violated()).
    template <class A, class Out = std::vector<Check<A>>>
    static Out checks(patch_level p, const cpuload::scenario<A> &s, const cpuload::trace<A> &t,
                      std::uint64_t, Out out = Out()) {
        using ulong = typename A::ulong;
        for (std::size_t k = 0; k < s.steps.size(); k++) {
            const auto &st = s.steps[k];
            const auto &b = before(s, t, k);
            typename A::boolean zero = false;
            switch (st.kind) {
            case op::tick:
            case op::update: zero = st.a == ulong(0); break;
            case op::idle_update:
            case op::nohz_exit: zero = b.cfs.runnable_load_avg == ulong(0); break;
            default: continue;
            }
            for (int i = 0; i < live_slots(p); i++)
                out.push_back({SC_LABEL("a zero-load update does not raise " + slot(i)), zero,
                               SC_LABEL(slot(i) + " after step " + std::to_string(k)), t.recs[k].after.cpu_load[i],
                               cmp::le, SC_LABEL(slot(i) + " before"), b.cpu_load[i]});
        }
        return out;
    }
};

// ---------------------------------------------------------------------
struct ConstantFixedPoint {
    static constexpr const char *id = "cpuload.constant_fixed_point";
    static constexpr bool overflow = false;
    static bool applies(patch_level) { return true; }
    static std::vector<Case> cases(patch_level, Arch) { return {{"tick", 0}}; }
    template <class A, class In> static cpuload::scenario<A> build(In &in, const BuildCtx &bc) {
        using ulong = typename A::ulong;
        cpuload::scenario<A> s{};
        ulong L = in.template var<ulong>("L", 0, bc.load_hi, true);
        for (auto &c : s.init.cpu_load)
            c = L;
        s.init.last_load_update_tick = in.template var<ulong>("last_load_update_tick", 0, bc.ulong_max - 1);
        s.init.cfs.runnable_load_avg = L;
        s.init.cfs.h_nr_running = in.template var<typename A::uint>("h_nr_running", 0, bc.dom.max_tasks);
        s.steps = {mk<A>(op::tick, L, s.init.last_load_update_tick + 1)};
        return s;
    }
    // A tick (one sample, pending_updates = 1) whose sample equals every
    // live cpu_load[i] leaves them all unchanged.
    // Out: the checks collected (the default), or a sink that judges
    // each one as it comes (first_violated()).
    template <class A, class Out = std::vector<Check<A>>>
    static Out checks(patch_level p, const cpuload::scenario<A> &s, const cpuload::trace<A> &t,
                      std::uint64_t, Out out = Out()) {
        for (std::size_t k = 0; k < s.steps.size(); k++) {
            const auto &st = s.steps[k];
            if (st.kind != op::tick)
                continue;
            const auto &b = before(s, t, k);
            typename A::boolean all_equal = true;
            for (int i = 0; i < live_slots(p); i++)
                all_equal = all_equal && b.cpu_load[i] == st.a;
            for (int i = 0; i < live_slots(p); i++)
                out.push_back({SC_LABEL("a constant load is a fixed point"), all_equal,
                               SC_LABEL(slot(i) + " after step " + std::to_string(k)), t.recs[k].after.cpu_load[i],
                               cmp::eq, SC_LABEL("the load L"), st.a});
        }
        return out;
    }
};

// ---------------------------------------------------------------------
// Convergence is proved through a one-tick lemma.  With L the load and
// s = 2^i, one tick maps c to
//     c > L:  floor(((s-1) c + L) / s),       so c' - L = floor((s-1)(c-L)/s)
//     c < L:  floor(((s-1) c + L + s-1) / s), so L - c' = floor((s-1)(L-c)/s)
// i.e. |c' - L| <= |c - L| (s-1)/s, and cpu_load[0] = L at once.  The
// solver checks exactly that statement on the reference (wrap included);
// iterating d -> floor(d (s-1)/s) from the largest distance in the domain
// then bounds the ticks to reach d = 0 (the map loses at least 1 per tick
// while d > 0, so it ends).
struct Converges {
    static constexpr const char *id = "cpuload.converges";
    static constexpr bool overflow = false;
    static bool applies(patch_level) { return true; }
    static std::vector<Case> cases(patch_level, Arch) { return {{"one tick", 0}}; }
    template <class A, class In> static cpuload::scenario<A> build(In &in, const BuildCtx &bc) {
        using ulong = typename A::ulong;
        cpuload::scenario<A> s{};
        s.init = any_rq<A>(in, bc);
        ulong L = in.template var<ulong>("L", 0, bc.load_hi, true);
        s.steps = {mk<A>(op::tick, L, s.init.last_load_update_tick + 1)};
        return s;
    }
    template <class A>
    static std::vector<Check<A>> lemma(patch_level p, const cpuload::scenario<A> &s, const cpuload::trace<A> &t) {
        std::vector<Check<A>> out;
        for (std::size_t k = 0; k < s.steps.size(); k++) {
            const auto &st = s.steps[k];
            if (st.kind != op::tick)
                continue;
            const auto &b = before(s, t, k);
            const auto &a = t.recs[k].after;
            out.push_back({"cpu_load[0] takes the sample", true, slot(0) + " after", a.cpu_load[0], cmp::eq,
                           "the load L", st.a});
            for (int i = 1; i < live_slots(p); i++) {
                Check<A> c{"one tick moves " + slot(i) + " (2^i-1)/2^i of the way to L", true,
                           slot(i) + " after", a.cpu_load[i], cmp::contracts, slot(i) + " before", b.cpu_load[i]};
                c.target = st.a;
                c.shift = i;
                out.push_back(c);
            }
        }
        return out;
    }
    template <class A>
    static std::vector<Check<A>> proof_checks(patch_level p, const cpuload::scenario<A> &s,
                                              const cpuload::trace<A> &t, const BuildCtx &) {
        return lemma(p, s, t);
    }
    // On a trace: when the scenario is at least `bound` ticks of one load L
    // (one tick per update), every live cpu_load[i] equals L from tick
    // `bound` on.
    // Out: the checks collected (the default), or a sink that judges
    // each one as it comes (first_violated()).
    template <class A, class Out = std::vector<Check<A>>>
    static Out checks(patch_level p, const cpuload::scenario<A> &s, const cpuload::trace<A> &t,
                      std::uint64_t bound, Out out = Out()) {
        if (bound == 0 || s.steps.size() < bound)
            return out;
        for (const auto &st : s.steps)
            if (st.kind != op::tick || !(st.a == s.steps[0].a))
                return out;
        for (std::size_t k = bound - 1; k < s.steps.size(); k++)
            for (int i = 0; i < live_slots(p); i++)
                out.push_back({SC_LABEL("reaches L within " + std::to_string(bound) + " ticks"), true,
                               SC_LABEL(slot(i) + " after tick " + std::to_string(k + 1)), t.recs[k].after.cpu_load[i],
                               cmp::eq, SC_LABEL("the load L"), s.steps[0].a});
        return out;
    }
};

// ---------------------------------------------------------------------
struct SourceLeTarget {
    static constexpr const char *id = "balance.source_le_target";
    static constexpr bool overflow = false;
    static bool applies(patch_level) { return true; }
    static std::vector<Case> cases(patch_level p, Arch) {
        std::vector<Case> c;
        int types = p <= patch_level::shi_1 ? cpuload::CPU_LOAD_IDX_MAX : 1;
        for (int bias = 0; bias < 2; bias++)
            for (int type = 0; type < types; type++)
                c.push_back({"type " + std::to_string(type) + (bias ? ", LB_BIAS" : ", NO_LB_BIAS"), type,
                             bias != 0});
        return c;
    }
    template <class A, class In> static cpuload::scenario<A> build(In &in, const BuildCtx &bc) {
        cpuload::scenario<A> s{};
        s.init = any_rq<A>(in, bc);
        s.kn.lb_bias = bc.c.lb_bias;
        s.kn.imbalance_pct = in.template var<typename A::uint>("imbalance_pct", bc.dom.pct_lo, bc.dom.pct_hi);
        s.steps = {mk<A>(op::balance, 0, 0, bc.c.idx)};
        return s;
    }
    // Out: the checks collected (the default), or a sink that judges
    // each one as it comes (first_violated()).
    template <class A, class Out = std::vector<Check<A>>>
    static Out checks(patch_level, const cpuload::scenario<A> &s, const cpuload::trace<A> &t,
                      std::uint64_t, Out out = Out()) {
        for (std::size_t k = 0; k < s.steps.size(); k++)
            if (s.steps[k].kind == op::balance)
                out.push_back({SC_LABEL("the source estimate never exceeds the target estimate"), true,
                               SC_LABEL("source_load(type " + std::to_string(s.steps[k].idx) + ")"), t.recs[k].out0,
                               cmp::le, SC_LABEL("target_load(type " + std::to_string(s.steps[k].idx) + ")"),
                               t.recs[k].out1});
        return out;
    }
};

// ---------------------------------------------------------------------
struct NohzBusyNotZeroed {
    static constexpr const char *id = "nohz.busy_not_zeroed";
    static constexpr bool overflow = false;
    static bool applies(patch_level) { return true; }
    static std::vector<Case> cases(patch_level p, Arch) { return pending_cases(p, "update_cpu_load_nohz", 0); }
    template <class A, class In> static cpuload::scenario<A> build(In &in, const BuildCtx &bc) {
        using ulong = typename A::ulong;
        cpuload::scenario<A> s{};
        s.init = any_rq<A>(in, bc);
        in.require(s.init.cfs.runnable_load_avg >= ulong(1), "runnable_load_avg >= 1");
        in.require(s.init.cfs.h_nr_running >= typename A::uint(1), "h_nr_running >= 1");
        s.steps = {mk<A>(op::nohz_exit, later_jiffies<A>(in, bc, s.init))};
        return s;
    }
    // A nohz update on a CPU with runnable cfs tasks and a non-zero
    // runnable load does not leave the instantaneous cpu_load at 0.
    // Out: the checks collected (the default), or a sink that judges
    // each one as it comes (first_violated()).
    template <class A, class Out = std::vector<Check<A>>>
    static Out checks(patch_level, const cpuload::scenario<A> &s, const cpuload::trace<A> &t,
                      std::uint64_t, Out out = Out()) {
        using ulong = typename A::ulong;
        for (std::size_t k = 0; k < s.steps.size(); k++) {
            const auto &st = s.steps[k];
            if (st.kind != op::nohz_exit)
                continue;
            const auto &b = before(s, t, k);
            out.push_back({SC_LABEL("a busy CPU's load is not zeroed by a nohz update"),
                           b.cfs.h_nr_running >= typename A::uint(1) && b.cfs.runnable_load_avg >= ulong(1) &&
                               !(st.a == b.last_load_update_tick),
                           SC_LABEL(slot(0) + " after step " + std::to_string(k)), t.recs[k].after.cpu_load[0],
                           cmp::ne, SC_LABEL("zero"), ulong(0)});
        }
        return out;
    }
};

// ---------------------------------------------------------------------
// No operation on the update and balance paths wraps.  The property is the
// set of no-wrap obligations itself; each entry point of the family is one
// case.
struct NoOverflow {
    static constexpr const char *id = "cpuload.no_overflow";
    static constexpr bool overflow = true;
    static bool applies(patch_level) { return true; }
    static std::vector<Case> cases(patch_level p, Arch) {
        std::vector<Case> c = {{"update_cpu_load_active", 0, true, -1, 0},
                               {"source_load/target_load", 1, true, -1, 3}};
        for (const Case &k : pending_cases(p, "update_idle_cpu_load", 1))
            c.push_back(k);
        for (const Case &k : pending_cases(p, "update_cpu_load_nohz", 2))
            c.push_back(k);
        return c;
    }
    template <class A, class In> static cpuload::scenario<A> build(In &in, const BuildCtx &bc) {
        cpuload::scenario<A> s{};
        s.init = any_rq<A>(in, bc);
        switch (bc.c.kind) {
        case 0:
            s.steps = {mk<A>(op::tick, s.init.cfs.runnable_load_avg, s.init.last_load_update_tick + 1)};
            break;
        case 1: s.steps = {mk<A>(op::idle_update, later_jiffies<A>(in, bc, s.init))}; break;
        case 2: s.steps = {mk<A>(op::nohz_exit, later_jiffies<A>(in, bc, s.init))}; break;
        default:
            s.kn.imbalance_pct = in.template var<typename A::uint>("imbalance_pct", bc.dom.pct_lo, bc.dom.pct_hi);
            s.steps = {mk<A>(op::balance, 0, 0, bc.c.idx)};
            break;
        }
        return s;
    }
    template <class A>
    static std::vector<Check<A>> checks(patch_level, const cpuload::scenario<A> &, const cpuload::trace<A> &,
                                        std::uint64_t) {
        return {};
    }
};

// ---------------------------------------------------------------------
template <class W> std::uint64_t u(const W &w) { return word_value(w); }

template <class A> std::string format_rq(const cpuload::rq<A> &r, patch_level p) {
    std::string s = "cpu_load=[";
    for (int i = 0; i < live_slots(p); i++)
        s += (i ? ", " : "") + std::to_string(u(r.cpu_load[i]));
    s += "] last_load_update_tick=" + std::to_string(u(r.last_load_update_tick)) +
         " runnable_load_avg=" + std::to_string(u(r.cfs.runnable_load_avg)) +
         " h_nr_running=" + std::to_string(u(r.cfs.h_nr_running));
    return s;
}

template <class A> std::string format_step(const cpuload::step<A> &st) {
    switch (st.kind) {
    case op::tick: return fmt::format("tick(load={}, jiffies={})", u(st.a), u(st.b));
    case op::idle_update: return fmt::format("update_idle_cpu_load(jiffies={})", u(st.a));
    case op::nohz_exit: return fmt::format("update_cpu_load_nohz(jiffies={})", u(st.a));
    case op::set_load: return fmt::format("set_load(runnable_load_avg={}, h_nr_running={})", u(st.a), u(st.n));
    case op::update: return fmt::format("__update_cpu_load(this_load={}, pending_updates={})", u(st.a), u(st.b));
    case op::decay: return fmt::format("decay_load_missed(load={}, missed_updates={}, idx={})", u(st.a), u(st.b), st.idx);
    case op::balance: return fmt::format("source_load/target_load(type={})", st.idx);
    }
    return "?";
}

template <class A>
std::string format_trace(patch_level p, const cpuload::scenario<A> &s, const cpuload::trace<A> &t) {
    std::string out = fmt::format("  initial  {}\n", format_rq(s.init, p));
    out += fmt::format("  knobs    LB_BIAS={} imbalance_pct={}\n", s.kn.lb_bias ? "on" : "off", u(s.kn.imbalance_pct));
    const std::size_t n = s.steps.size();
    for (std::size_t k = 0; k < n; k++) {
        if (n > 24 && k == 8) {
            out += fmt::format("  ... {} steps not shown ...\n", n - 16);
            k = n - 8;
        }
        const auto &st = s.steps[k];
        out += fmt::format("  step {:<3} {}\n", k, format_step(st));
        if (st.kind == op::decay)
            out += fmt::format("           = {}\n", u(t.recs[k].out0));
        else if (st.kind == op::balance)
            out += fmt::format("           source_load = {}, target_load = {}\n", u(t.recs[k].out0), u(t.recs[k].out1));
        else
            out += fmt::format("           -> {}\n", format_rq(t.recs[k].after, p));
    }
    return out;
}

template <class Inv, class A>
ReplayResult evaluate_inv(patch_level p, const cpuload::scenario<A> &s, std::uint64_t bound) {
    ReplayResult rr;
    wrap_log().clear();
    cpuload::trace<A> t = cpuload::simulate<A>(p, s);
    for (const auto &w : wrap_log())
        rr.wraps.push_back(w.what);
    wrap_log().clear();
    rr.trace = format_trace(p, s, t);
    if constexpr (Inv::overflow) {
        if (!rr.wraps.empty()) {
            rr.violated = true;
            rr.failed = "wrap-around: " + rr.wraps.front();
        }
        return rr;
    } else {
        for (const Check<A> &c : Inv::template checks<A>(p, s, t, bound)) {
            if (concrete_holds(c))
                continue;
            rr.violated = true;
            rr.failed = c.what;
            rr.lhs_name = c.lhs_name;
            rr.lhs = u(c.lhs);
            rr.op = cmp_text(c.op);
            rr.rhs_name = c.rhs_name;
            rr.rhs = u(c.rhs);
            if (c.op == cmp::contracts)
                rr.rhs_name += " (L = " + std::to_string(u(c.target)) + ")";
            break;
        }
        return rr;
    }
}

template <class Inv, class A> ReplayResult evaluate_lemma(patch_level p, const cpuload::scenario<A> &s) {
    ReplayResult rr;
    wrap_log().clear();
    cpuload::trace<A> t = cpuload::simulate<A>(p, s);
    wrap_log().clear();
    for (const Check<A> &c : Inv::template lemma<A>(p, s, t))
        if (!concrete_holds(c)) {
            rr.violated = true;
            rr.failed = c.what;
            return rr;
        }
    return rr;
}

std::uint64_t ticks_to_converge(std::uint64_t d0, int shift) {
    std::uint64_t ticks = 1, d = d0; // the first tick also sets cpu_load[0]
    const unsigned __int128 s = static_cast<unsigned __int128>(1) << shift;
    while (d > 0) {
        d = static_cast<std::uint64_t>(static_cast<unsigned __int128>(d) * (s - 1) / s);
        if (d > 0)
            ++ticks;
    }
    return ticks;
}

// One attempt at the proof (see redo_on_new_solver), on solvers of its own.
template <class Inv>
ProofResult prove_inv_once(const Variant &v, Arch a, const ProveOptions &o, unsigned attempt, std::string &poisoned) {
    auto t0 = std::chrono::steady_clock::now();
    ProofResult r;
    r.variant = v.id;
    r.invariant = Inv::id;
    r.arch = a;
    r.verdict = Verdict::PROVED;
    const LoadDomain &dom = load_domain(a);
    r.domain = dom.summary;

    auto run = [&]<class S, class C>() {
        std::uint64_t safe = dom.ulong_max;
        std::vector<std::string> unknown;
        JobSolvers js(o.timeout_ms);
        js.attempt = attempt;
        js.fault_empty_domain = o.fault_empty_domain;
        js.fault_false_base = o.fault_false_base;
        std::function<ReplayResult(const cpuload::scenario<C> &)> replay;
        if constexpr (std::is_same_v<Inv, Converges>)
            replay = [&](const cpuload::scenario<C> &sc) { return evaluate_lemma<Inv, C>(v.level, sc); };
        else
            replay = [&](const cpuload::scenario<C> &sc) { return evaluate_inv<Inv, C>(v.level, sc, 0); };
        // False when the case found the solvers in a wrong state: the
        // attempt ends there.
        auto take = [&](const Case &cs, CaseOutcome &co) {
            if (!co.poisoned.empty()) {
                poisoned = co.poisoned;
                r.verdict = Verdict::UNKNOWN;
                r.reason = co.reason;
                return false;
            }
            r.paths += co.paths;
            r.queries += co.queries;
            if constexpr (Inv::overflow)
                safe = std::min(safe, co.safe_load);
            if (co.verdict == Verdict::UNKNOWN)
                unknown.push_back(co.reason);
            if (co.verdict == Verdict::COUNTEREXAMPLE && !r.cex) {
                r.verdict = Verdict::COUNTEREXAMPLE;
                r.cex = co.cex;
                r.reason = cs.label + ": " + co.replay->failed;
            }
            return true;
        };
        const std::vector<Case> all = Inv::cases(v.level, a);
        // Cheap concrete probes of every case first: a counterexample found
        // there spares the symbolic exploration of all the other cases.
        if constexpr (!Inv::overflow) {
            for (const Case &cs : all) {
                CaseOutcome co = probe_case<Inv, S, C>(js, v, a, cs, replay);
                if (!co.poisoned.empty())
                    return (void)take(cs, co);
                if (co.verdict == Verdict::COUNTEREXAMPLE) {
                    take(cs, co);
                    break;
                }
            }
        }
        if (!r.cex || Inv::overflow)
            for (const Case &cs : all) {
                CaseOutcome co = prove_case<Inv, S, C>(js, v, a, cs, replay, safe, Inv::overflow);
                if (!take(cs, co))
                    return;
                if (r.cex && !Inv::overflow)
                    break;
            }
        if constexpr (Inv::overflow) {
            r.bound = safe;
            r.bound_kind = "largest safe load";
        }
        if (r.verdict == Verdict::PROVED && !unknown.empty()) {
            r.verdict = Verdict::UNKNOWN;
            r.reason = unknown.front();
        }
        if constexpr (std::is_same_v<Inv, Converges>) {
            std::uint64_t bound = converge_bound(v.level, a);
            r.bound = bound;
            r.bound_kind = "ticks";
            if (r.verdict == Verdict::COUNTEREXAMPLE) {
                // The lemma fails somewhere: look for a real non-converging
                // trace from the lemma's state with the lemma's load.
                cpuload::scenario<C> sc = scenario_from_json<C>(r.cex->reproducer, C::long_bits);
                auto L = sc.steps[0].a;
                auto j = sc.steps[0].b;
                sc.steps.clear();
                for (std::uint64_t k = 0; k < bound; k++)
                    sc.steps.push_back(mk<C>(op::tick, L, j + typename C::ulong(k)));
                ReplayResult rr = evaluate_inv<Inv, C>(v.level, sc, bound);
                if (rr.violated) {
                    r.cex->reproducer = scenario_to_json(sc);
                    r.reason = fmt::format("after {} ticks of load {}: {} = {}, not L", bound, u(L), rr.lhs_name, rr.lhs);
                } else {
                    r.verdict = Verdict::UNKNOWN;
                    r.reason = "the one-tick contraction lemma fails (" + r.reason +
                               "), yet the trace from that state converges; no bound proved";
                    r.cex.reset();
                }
            }
        }
    };
    if (a == Arch::lp64)
        run.template operator()<model::sym_lp64, checked_lp64>();
    else
        run.template operator()<model::sym_ilp32, checked_ilp32>();

    if (r.cex) {
        nlohmann::json claim = nlohmann::json::object();
        if (r.bound && r.bound_kind == "ticks")
            claim["bound_ticks"] = *r.bound;
        r.cex->reproducer = make_reproducer(v, a, Inv::id, r.cex->inputs, r.cex->reproducer, claim);
    }
    r.seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
    return r;
}

template <class Inv> ProofResult prove_inv(const Variant &v, Arch a, const ProveOptions &o) {
    return redo_on_new_solver(Inv::id, v.id, a, [&](unsigned no, std::string &poisoned) {
        return prove_inv_once<Inv>(v, a, o, no, poisoned);
    });
}

template <class Inv> ReplayResult replay_inv(const Variant &v, Arch a, const nlohmann::json &doc) {
    std::uint64_t bound = 0;
    if (doc.contains("claim") && doc["claim"].is_object() && doc["claim"].contains("bound_ticks")) {
        const auto &b = doc["claim"]["bound_ticks"];
        if (!b.is_number_unsigned())
            throw input_error("claim.bound_ticks: expected a non-negative integer");
        bound = b.get<std::uint64_t>();
    }
    try {
        if (a == Arch::lp64)
            return evaluate_inv<Inv, checked_lp64>(v.level, scenario_from_json<checked_lp64>(doc, 64), bound);
        return evaluate_inv<Inv, checked_ilp32>(v.level, scenario_from_json<checked_ilp32>(doc, 32), bound);
    } catch (const cpuload::unsupported_step &e) {
        throw input_error(std::string("reproducer: ") + e.what() + " (" + v.id + ")");
    }
}

template <class Inv> InvariantInfo entry(const char *statement) {
    return InvariantInfo{Inv::id, "cpuload", statement,
                         [](const Variant &v) { return v.family == "cpuload" && Inv::applies(v.level); },
                         &prove_inv<Inv>, &replay_inv<Inv>};
}


} // namespace

std::uint64_t converge_bound(patch_level p, Arch a) {
    if (p >= patch_level::shi_1_3)
        return 1;
    // The largest distance |c - L| in the domain is max_load itself.
    return ticks_to_converge(load_domain(a).max_load, cpuload::CPU_LOAD_IDX_MAX - 1);
}

// The fast_check an invariant id names; the one place the ids are matched.
static fast_check check_named(const std::string &inv) {
    if (inv == NoOverflow::id) return fast_check::no_overflow;
    if (inv == DecayMonotone::id) return fast_check::decay_monotone;
    if (inv == IdleDecay::id) return fast_check::idle_decay;
    if (inv == ConstantFixedPoint::id) return fast_check::constant_fixed_point;
    if (inv == Converges::id) return fast_check::converges;
    if (inv == SourceLeTarget::id) return fast_check::source_le_target;
    if (inv == NohzBusyNotZeroed::id) return fast_check::nohz_busy_not_zeroed;
    throw input_error("unknown cpuload invariant " + inv);
}

template <class A>
ReplayResult evaluate(const std::string &inv, patch_level p, const cpuload::scenario<A> &s, std::uint64_t bound) {
    switch (check_named(inv)) {
    case fast_check::no_overflow: return evaluate_inv<NoOverflow, A>(p, s, bound);
    case fast_check::decay_monotone: return evaluate_inv<DecayMonotone, A>(p, s, bound);
    case fast_check::idle_decay: return evaluate_inv<IdleDecay, A>(p, s, bound);
    case fast_check::constant_fixed_point: return evaluate_inv<ConstantFixedPoint, A>(p, s, bound);
    case fast_check::converges: return evaluate_inv<Converges, A>(p, s, bound);
    case fast_check::source_le_target: return evaluate_inv<SourceLeTarget, A>(p, s, bound);
    case fast_check::nohz_busy_not_zeroed: return evaluate_inv<NohzBusyNotZeroed, A>(p, s, bound);
    }
    throw input_error("unknown cpuload invariant " + inv);
}

template ReplayResult evaluate<checked_ilp32>(const std::string &, patch_level, const cpuload::scenario<checked_ilp32> &,
                                              std::uint64_t);
template ReplayResult evaluate<checked_lp64>(const std::string &, patch_level, const cpuload::scenario<checked_lp64> &,
                                             std::uint64_t);

// A sink for checks() that judges each check as it is made and keeps
// nothing, not even its text.
template <class A> struct JudgeEach {
    static constexpr bool text = false; // SC_LABEL builds no string
    bool failed = false;
    void push_back(const Check<A> &c) { failed = failed || !concrete_holds(c); }
    void reserve(std::size_t) {}
};

std::vector<fast_check> fast_checks(const std::vector<std::string> &invs) {
    std::vector<fast_check> out;
    for (const std::string &inv : invs)
        out.push_back(check_named(inv));
    return out;
}

template <class A>
int first_violated(const std::vector<fast_check> &checks, patch_level p, const cpuload::scenario<A> &s,
                   std::uint64_t converge_bound_ticks) {
    wrap_log().clear();
    cpuload::trace<A> t = cpuload::simulate<A>(p, s); // once, for every invariant
    bool wrapped = !wrap_log().empty();
    wrap_log().clear();
    using Judge = JudgeEach<A>;
    for (std::size_t k = 0; k < checks.size(); ++k) {
        bool bad = false;
        switch (checks[k]) {
        case fast_check::no_overflow: bad = wrapped; break;
        case fast_check::decay_monotone: bad = DecayMonotone::checks<A, Judge>(p, s, t, 0).failed; break;
        case fast_check::idle_decay: bad = IdleDecay::checks<A, Judge>(p, s, t, 0).failed; break;
        case fast_check::constant_fixed_point: bad = ConstantFixedPoint::checks<A, Judge>(p, s, t, 0).failed; break;
        case fast_check::converges: bad = Converges::checks<A, Judge>(p, s, t, converge_bound_ticks).failed; break;
        case fast_check::source_le_target: bad = SourceLeTarget::checks<A, Judge>(p, s, t, 0).failed; break;
        case fast_check::nohz_busy_not_zeroed: bad = NohzBusyNotZeroed::checks<A, Judge>(p, s, t, 0).failed; break;
        }
        if (bad)
            return static_cast<int>(k);
    }
    return -1;
}

template int first_violated<checked_ilp32>(const std::vector<fast_check> &, patch_level,
                                           const cpuload::scenario<checked_ilp32> &, std::uint64_t);
template int first_violated<checked_lp64>(const std::vector<fast_check> &, patch_level,
                                          const cpuload::scenario<checked_lp64> &, std::uint64_t);

void register_invariants(std::vector<InvariantInfo> &out) {
    out.push_back(entry<NoOverflow>(
        "no arithmetic on the cpu_load update, decay and balance paths wraps; reports the largest safe load"));
    out.push_back(entry<DecayMonotone>(
        "decay_load_missed(load, n, idx) is non-increasing in n, never above load, and monotone in load "
        "(variants with the decay: v3.13, shi-1)"));
    out.push_back(entry<IdleDecay>("with zero current load, an update never raises any cpu_load[i]"));
    out.push_back(entry<ConstantFixedPoint>(
        "a constant load L with one tick per update keeps cpu_load[i] == L"));
    out.push_back(entry<Converges>(
        "from any state, constant load L reaches cpu_load[i] == L within a bounded number of ticks; "
        "reports the bound"));
    out.push_back(entry<SourceLeTarget>("source_load(cpu, idx) <= target_load(cpu, idx)"));
    out.push_back(entry<NohzBusyNotZeroed>(
        "a nohz load update on a CPU with running CFS tasks and non-zero runnable load does not set its load to 0"));
}

} // namespace sc::proofs::cpuload_inv
