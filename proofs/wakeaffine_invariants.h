// The wake_affine invariants (seed 003), written once against the
// kernel-shaped entry points of ref/wake_affine.h: effective_load(),
// task_hot() and the decision wake_affine() (read through affine(), true
// when the wakee is pulled to this_cpu), so that a kernel oracle of the
// family can supply the same later.
//
// Each is a property of one decision, with no state to carry: every input
// is symbolic except the C++ booleans of the interface (sync, the
// sched_feat()s, the 6.1 idle bits, a SCHED_IDLE wakee) and the load index,
// which are split into cases.  Tasks and CPUs are in the root group (depth
// 0: effective_load() is the identity) except in
// effective_load_monotone, which takes one group level.  "Loads" are the
// CPUs' loads, the tasks' weights and the 6.1 PELT loads; CPU capacities
// (power_of(), capacity_of()) are fixed at 1024, imbalance_pct at 125 and nr_running at 2 (see any_cpu()).
#pragma once
#include <fmt/format.h>

#include <algorithm>
#include <chrono>
#include <map>
#include <optional>
#include <stdexcept>
#include <string>
#include <vector>

#include "proofs/engine/kprop_engine.h"
#include "proofs/kernel/iface_uses.h"
#include "proofs/pelt_invariants.h"
#include "ref/wake_affine.h"

namespace sc::proofs::wakeaffine_inv {

using pelt_inv::eq;
using pelt_inv::le;
using wakeaffine::version;

template <version V> struct RefWakeAffine {
    static constexpr version shape = V;
    template <class A> struct on {
        static typename A::slong effective_load(const wakeaffine::tg_path<A> &path, typename A::slong wl,
                                                typename A::slong wg, const wakeaffine::knobs<A> &k) {
            // 6.1 has none (effective_load_monotone does not apply to it);
            // the branch only keeps the dispatch compiling.
            if constexpr (wakeaffine::has_effective_load<V>)
                return wakeaffine::effective_load<V, A>(path, wl, wg, k);
            else
                throw std::logic_error("effective_load() does not exist in this version");
        }
        static bool task_hot(const wakeaffine::task<A> &p, typename A::u64 now, const wakeaffine::knobs<A> &k) {
            return wakeaffine::task_hot<V, A>(p, now, k);
        }
        static bool affine(const wakeaffine::wake_env<A> &e, const wakeaffine::knobs<A> &k,
                           wakeaffine::wa_trace<A> *tr) {
            // 6.1's decision is wake_affine() and the helpers it calls, each
            // compared with a kernel's by `equiv`: noted all four, whichever
            // the case reaches, so that a carried proof needs all four
            // EQUIVALENT (proofs/equiv/carry_over.h).
            if constexpr (V == version::v6_1)
                for (const char *f : {"wake_affine", "wake_affine_idle", "wake_affine_weight", "task_h_load"})
                    iface::note_use(f);
            return wakeaffine::affine<V, A>(e, k, tr);
        }
    };
};

template <class I> constexpr version V_of = I::shape;
template <class I> constexpr bool is_61 = I::shape == version::v6_1;
// The CPU load is rq->load.weight (up to pjt-1-3), not a PELT average.
template <class I> constexpr bool weight_loads = I::shape <= version::pjt_1_3;

constexpr std::uint64_t U64_MAX = ~std::uint64_t(0);
constexpr std::uint64_t U32_MAX = 0xffffffffu;
constexpr std::uint64_t S64_MAX = U64_MAX >> 1;
constexpr std::uint64_t CAP_MAX = 1024;       // SCHED_CAPACITY_SCALE
constexpr std::uint64_t NICE_WEIGHT_MIN = 15, NICE_WEIGHT_MAX = 88761;
constexpr std::uint64_t LOAD_MAX_DEFAULT = 1u << 20; // decision_symmetric: about 1000 nice-0 tasks
constexpr int SD_LLC_SIZE = 4;

template <class A> constexpr std::uint64_t ulong_max = A::long_bits == 64 ? U64_MAX : U32_MAX;

// ---------------------------------------------------------------------------
// Cases: sync, the load index (0, or 1 with LB_BIAS), and per version the
// features: NO_HOT_AFFINE and a SCHED_IDLE wakee (pjt-1-3); WA_IDLE,
// WA_BIAS and the idle bits of both CPUs (6.1; WA_WEIGHT on, this_cpu and
// prev_cpu sharing the LLC).
struct WaCase {
    bool sync = false;
    int wake_idx = 0;
    bool no_hot = true, idle_policy = false;
    bool wa_idle = true, wa_bias = true, this_idle = false, prev_idle = false;
};
inline int encode(const WaCase &c) {
    return int(c.sync) | c.wake_idx << 1 | int(c.no_hot) << 3 | int(c.idle_policy) << 4 | int(c.wa_idle) << 5 |
           int(c.wa_bias) << 6 | int(c.this_idle) << 7 | int(c.prev_idle) << 8;
}
inline WaCase decode(int k) {
    WaCase c;
    c.sync = k & 1;
    c.wake_idx = (k >> 1) & 3;
    c.no_hot = (k >> 3) & 1;
    c.idle_policy = (k >> 4) & 1;
    c.wa_idle = (k >> 5) & 1;
    c.wa_bias = (k >> 6) & 1;
    c.this_idle = (k >> 7) & 1;
    c.prev_idle = (k >> 8) & 1;
    return c;
}
template <class I> KCase make_case(const WaCase &c) {
    std::string l = c.sync ? "sync" : "not sync";
    std::vector<std::pair<std::string, std::uint64_t>> fixed = {{"sync", std::uint64_t(c.sync)}};
    if constexpr (!is_61<I>) {
        l += fmt::format(", wake_idx {}", c.wake_idx);
        fixed.push_back({"wake_idx", std::uint64_t(c.wake_idx)});
    }
    if constexpr (V_of<I> == version::pjt_1_3) {
        l += fmt::format(", NO_HOT_AFFINE {}{}", c.no_hot ? "on" : "off", c.idle_policy ? ", SCHED_IDLE wakee" : "");
        fixed.push_back({"NO_HOT_AFFINE", std::uint64_t(c.no_hot)});
    }
    if constexpr (is_61<I>) {
        l += fmt::format(", WA_IDLE {}, WA_BIAS {}, this_cpu {}, prev_cpu {}", c.wa_idle ? "on" : "off",
                         c.wa_bias ? "on" : "off", c.this_idle ? "idle" : "busy", c.prev_idle ? "idle" : "busy");
        fixed.push_back({"WA_IDLE", std::uint64_t(c.wa_idle)});
        fixed.push_back({"WA_BIAS", std::uint64_t(c.wa_bias)});
    }
    return KCase{l, -1, encode(c), fixed};
}
template <class I> std::vector<KCase> decision_cases() {
    std::vector<KCase> cs;
    for (int sync = 0; sync < 2; ++sync) {
        WaCase c;
        c.sync = sync;
        if constexpr (is_61<I>) {
            for (int wi = 0; wi < 2; ++wi)
                for (int wb = 0; wb < 2; ++wb)
                    for (int ti = 0; ti < 2; ++ti)
                        for (int pi = 0; pi < 2; ++pi) {
                            c.wa_idle = wi, c.wa_bias = wb, c.this_idle = ti, c.prev_idle = pi;
                            cs.push_back(make_case<I>(c));
                        }
        } else {
            for (int idx = 0; idx < 2; ++idx) {
                c.wake_idx = idx;
                if constexpr (V_of<I> == version::pjt_1_3) {
                    for (int nh = 0; nh < 2; ++nh)
                        for (int ip = 0; ip < 2; ++ip) {
                            c.no_hot = nh, c.idle_policy = ip;
                            cs.push_back(make_case<I>(c));
                        }
                } else {
                    cs.push_back(make_case<I>(c));
                }
            }
        }
    }
    return cs;
}

// ---------------------------------------------------------------------------
// Inputs of one decision, loads up to L.

// Capacities are fixed at SCHED_CAPACITY_SCALE and nr_running at 2 (1..2
// in 6.1, where only "== 1" is asked): a symbolic factor would make every
// product and cpu_avg_load_per_task()'s division a full multiplier or
// divider circuit, beyond the family's time budget.  The domain texts say so.
template <class I, class A, class In>
wakeaffine::cpu<A> any_cpu(In &in, const std::string &n, std::uint64_t L, bool idle) {
    using ulong = typename A::ulong;
    wakeaffine::cpu<A> c;
    c.weighted_cpuload = in.template var<ulong>(n + ".load", 0, L, true);
    c.cpu_load_idx = in.template var<ulong>(n + ".cpu_load[idx]", 0, L, true);
    if constexpr (is_61<I>)
        c.nr_running = in.template var<typename A::uint>(n + ".nr_running", 1, 2);
    else
        c.nr_running = in.template fixed<typename A::uint>(n + ".nr_running", 2);
    c.power = in.template fixed<ulong>(n + ".capacity", CAP_MAX);
    c.clock_task = in.template var<typename A::u64>(n + ".clock_task", 0, U64_MAX);
    c.idle = idle;
    return c;
}

// With plain_h_load, 6.1's task_h_load() is read at h_load 1 over a
// cfs_rq load_avg of 0, so that it is the task's load_avg (0..L): its
// division by a symbolic load + 1 is a divider circuit per call.
template <class I, class A, class In>
wakeaffine::task<A> any_task(In &in, const std::string &n, std::uint64_t L, bool weights_are_loads,
                             bool plain_h_load = false) {
    using ulong = typename A::ulong;
    wakeaffine::task<A> t;
    t.weight = weights_are_loads ? in.template var<ulong>(n + ".weight", 0, L, true)
                                 : in.template var<ulong>(n + ".weight", NICE_WEIGHT_MIN, NICE_WEIGHT_MAX);
    if constexpr (V_of<I> == version::pjt_1_3)
        t.exec_start = in.template var<typename A::u64>(n + ".exec_start", 0, U64_MAX);
    if constexpr (V_of<I> == version::v3_13)
        t.wakee_flips = in.template var<ulong>(n + ".wakee_flips", 0, 1u << 20);
    if constexpr (is_61<I>) {
        t.load_avg = in.template var<ulong>(n + ".load_avg", 0, L, true);
        if (plain_h_load) {
            t.cfs_h_load = in.template fixed<ulong>(n + ".cfs_rq.h_load", 1);
            t.cfs_load_avg = in.template fixed<ulong>(n + ".cfs_rq.load_avg", 0);
            return t;
        }
        t.cfs_h_load = in.template var<ulong>(n + ".cfs_rq.h_load", 0, L, true);
        // Below ULONG_MAX: task_h_load() divides by it + 1.
        t.cfs_load_avg = in.template var<ulong>(n + ".cfs_rq.load_avg", 0, std::min(L, ulong_max<A> - 1), true);
    }
    return t;
}

template <class I, class A, class In> wakeaffine::knobs<A> any_knobs(In &in, const WaCase &c) {
    wakeaffine::knobs<A> k;
    // The affine domain's default (sd_init()); fixed for the reason above.
    k.imbalance_pct = in.template fixed<typename A::uint>("imbalance_pct", 125);
    k.wake_idx = c.wake_idx;
    k.LB_BIAS = true;
    k.NO_HOT_AFFINE = c.no_hot;
    k.WA_IDLE = c.wa_idle;
    k.WA_WEIGHT = true;
    k.WA_BIAS = c.wa_bias;
    k.cpus_share_cache = true;
    k.sd_llc_size = SD_LLC_SIZE;
    if constexpr (V_of<I> == version::pjt_1_3)
        k.sysctl_sched_migration_cost = in.template var<typename A::uint>("sysctl_sched_migration_cost", 0, U32_MAX);
    return k;
}

template <class I, class A, class In>
wakeaffine::wake_env<A> any_wakeup(In &in, const WaCase &c, std::uint64_t L, bool weights_are_loads,
                                   bool plain_h_load = false) {
    wakeaffine::wake_env<A> e;
    e.this_rq = any_cpu<I, A>(in, "this_cpu", L, c.this_idle);
    e.prev_rq = any_cpu<I, A>(in, "prev_cpu", L, c.prev_idle);
    e.p = any_task<I, A>(in, "p", L, weights_are_loads, plain_h_load);
    e.curr = any_task<I, A>(in, "current", L, weights_are_loads, plain_h_load);
    e.p.idle_policy = c.idle_policy;
    e.sync = c.sync;
    // Up to pjt-1-3 a CPU's load is rq->load.weight, which counts the
    // running waker: this_cpu's load is at least current's weight.
    if constexpr (weight_loads<I>)
        in.require(e.curr.weight <= e.this_rq.weighted_cpuload, "current.weight <= this_cpu.load (current runs there)");
    return e;
}

// ---------------------------------------------------------------------------
// The decision as a reviewer reads it.
template <class I, class A>
void decision_lines(KOut<A> &o, const std::string &title, const wakeaffine::wake_env<A> &e,
                    const wakeaffine::knobs<A> &k, const wakeaffine::wa_trace<A> &tr, bool pulled) {
    if constexpr (is_concrete<A>) {
        auto cpu = [](const wakeaffine::cpu<A> &c) {
            return fmt::format("load {}, cpu_load[idx] {}, nr_running {}, capacity {}{}", std::uint64_t(c.weighted_cpuload),
                               std::uint64_t(c.cpu_load_idx), std::uint64_t(c.nr_running), std::uint64_t(c.power),
                               c.idle ? ", idle" : "");
        };
        o.lines.push_back(title + ":");
        o.lines.push_back("  this_cpu: " + cpu(e.this_rq));
        o.lines.push_back("  prev_cpu: " + cpu(e.prev_rq));
        if constexpr (is_61<I>) {
            // 6.1 weighs a task by task_h_load(): load_avg * h_load / (cfs_rq load_avg + 1).
            auto h = [](const wakeaffine::task<A> &t) {
                return fmt::format("load_avg {}, h_load {}, cfs_rq load_avg {}", std::uint64_t(t.load_avg),
                                   std::uint64_t(t.cfs_h_load), std::uint64_t(t.cfs_load_avg));
            };
            o.lines.push_back("  wakee: " + h(e.p));
            o.lines.push_back("  waker: " + h(e.curr));
            o.lines.push_back(fmt::format("  sync {}, imbalance_pct {}", e.sync ? 1 : 0, std::uint64_t(k.imbalance_pct)));
        } else {
            o.lines.push_back(fmt::format("  wakee weight {}, waker weight {}, sync {}, imbalance_pct {}",
                                          std::uint64_t(e.p.weight), std::uint64_t(e.curr.weight), e.sync ? 1 : 0,
                                          std::uint64_t(k.imbalance_pct)));
        }
        if constexpr (is_61<I>)
            o.lines.push_back(fmt::format("  idle target {}, weight target {} (this_cpu {}, prev_cpu {}, none {})",
                                          tr.idle_target, tr.weight_target, e.this_cpu, e.prev_cpu, e.nr_cpumask_bits));
        else
            o.lines.push_back(fmt::format("  this_load {}, load (prev) {}{}{}", std::int64_t(tr.this_load),
                                          std::int64_t(tr.load), tr.hot ? ", wakee cache-hot on prev_cpu" : "",
                                          tr.wide ? ", wake_wide" : ""));
        if constexpr (requires { I::kernel; }) {
            // The kernel's effective loads stay inside its wake_affine_weight();
            // what 6.1's formula makes of the same inputs is shown beside its
            // decision, so that a kernel that weighs otherwise shows it.
            if (tr.weight_target != -1) {
                wakeaffine::wa_trace<A> f;
                const int ft = wakeaffine::wake_affine_weight<version::v6_1, A>(e, k, &f);
                if (!f.weighed)
                    o.lines.push_back("  6.1's formula on these inputs: the waker outweighs this_cpu's load: this_cpu");
                else {
                    o.lines.push_back(fmt::format("  6.1's formula on these inputs (< pulls): {}",
                                                  ft == e.this_cpu ? "this_cpu" : "no answer (prev_cpu)"));
                    o.lines.push_back(fmt::format("    this_eff_load {} vs prev_eff_load {}",
                                                  std::int64_t(f.this_eff_load), std::int64_t(f.prev_eff_load)));
                }
                o.lines.push_back(fmt::format("  the kernel's wake_affine_weight(): {} (its loads not visible)",
                                              tr.weight_target == e.this_cpu ? "this_cpu" : "no CPU (prev_cpu)"));
            }
        } else if (is_61<I> && !tr.weighed) {
            if (tr.weight_target != -1)
                o.lines.push_back("  the waker outweighs this_cpu's load: this_cpu, no effective loads compared");
        } else
            o.lines.push_back(fmt::format("  this_eff_load {}  vs  prev_eff_load {}  ({} pulls)",
                                          std::int64_t(tr.this_eff_load), std::int64_t(tr.prev_eff_load),
                                          is_61<I> ? "<" : "<="));
        o.lines.push_back(fmt::format("  decision: {}", pulled ? "pull the wakee to this_cpu" : "leave it on prev_cpu"));
    }
}

// ---------------------------------------------------------------------------
// wakeaffine.decision_symmetric: swapping the two CPUs' loads changes the
// decision consistently.  "Consistently": the decision is monotone in the
// loads, so when this_cpu carries the larger load a >= b (on both load
// readings, the current and the cpu_load[idx] one) and the wakee is pulled
// anyway, it is still pulled once the loads are swapped (this_cpu the
// lighter).  A swap of equal loads is the same state: the decision is the
// variant's tie rule, the same both ways (up to v3.13 equal effective
// loads pull ("<="), 6.1 pulls only on "<", a sync wake-up's +1 making its
// tie a pull).  Capacities, nr_running and the idle bits stay with their
// CPU.  Loads up to 2^20, task weights of nice levels.
struct DecisionSymmetric {
    static constexpr const char *id = "wakeaffine.decision_symmetric";
    static constexpr bool integer_first = false;
    // Before 6.1 a sync wake-up takes the waker off this_load by adding its
    // unsigned negation (a wrap on purpose), which the integer encoding
    // follows only with modular wraps; on bit-vectors the two decisions of
    // a query did not finish in 600 s over the older variants.
    static constexpr bool modular_wraps = true;
    template <class I> static bool applies() { return true; }
    template <class I> static std::string domain(Arch) {
        return "root task groups; CPU and PELT loads 0..2^20, task weights 15..88761, capacities 1024, "
               "imbalance_pct 125, nr_running 2 (6.1: 1..2); a >= b on both load readings" +
               std::string(is_61<I> ? "; task_h_load() at h_load 1 over a cfs_rq load_avg of 0, so the task's "
                                      "load_avg (its division by a symbolic load is left out)"
                                    : "") +
               std::string(requires { I::kernel; } ? "; the kernel's own wake_affine() through its shims, no "
                                                     "delayed-dequeue task on this_cpu (6.12)"
                                                   : "") +
               std::string(weight_loads<I> ? "; current.weight <= both CPUs' loads (rq->load.weight counts the waker)"
                                           : "") +
               "; sync, wake_idx 0/1 and the features split into cases";
    }
    // 6.1 splits each case by where the wakee's load t falls against the
    // two CPU loads b <= a: prev_eff_load's cpu_load(prev) - t wraps in
    // unsigned long (meant: a negative s64) exactly when t exceeds it.
    // Where neither state wraps (t <= b) the case is linear in integers;
    // the two others stay on bit-vectors.
    template <class I> static std::vector<KCase> cases(Arch) {
        std::vector<KCase> cs = decision_cases<I>();
        if constexpr (!is_61<I>) {
            for (KCase &c : cs)
                c.integer_first = true;
            return cs;
        }
        std::vector<KCase> split;
        for (const KCase &c : cs)
            for (int n = 0; n < 3; ++n) {
                KCase s = c;
                s.n = n;
                s.label += n == 0 ? ", t <= b" : n == 1 ? ", b < t <= a" : ", t > a";
                s.integer_first = n == 0;
                split.push_back(s);
            }
        return split;
    }
    template <class I, class A, class In> static Runner<A> build(In &in, const KCase &c) {
        const WaCase w = decode(c.kind);
        const wakeaffine::knobs<A> k = any_knobs<I, A>(in, w);
        const wakeaffine::wake_env<A> e = any_wakeup<I, A>(in, w, LOAD_MAX_DEFAULT, false, true);
        in.require(e.prev_rq.weighted_cpuload <= e.this_rq.weighted_cpuload, "prev_cpu.load <= this_cpu.load");
        if constexpr (is_61<I>) {
            const auto &t = e.p.load_avg, &a = e.this_rq.weighted_cpuload, &b = e.prev_rq.weighted_cpuload;
            if (c.n == 0)
                in.require(t <= b, "t <= b");
            else if (c.n == 1)
                in.require(b < t && t <= a, "b < t <= a");
            else
                in.require(a < t, "t > a");
        }
        in.require(e.prev_rq.cpu_load_idx <= e.this_rq.cpu_load_idx, "prev_cpu.cpu_load[idx] <= this_cpu.cpu_load[idx]");
        // The swapped state is a state too: current still runs on this_cpu.
        if constexpr (weight_loads<I>)
            in.require(e.curr.weight <= e.prev_rq.weighted_cpuload, "current.weight <= prev_cpu.load");
        return [=]() {
            using U = typename I::template on<A>;
            wakeaffine::wake_env<A> s = e;
            s.this_rq.weighted_cpuload = e.prev_rq.weighted_cpuload;
            s.prev_rq.weighted_cpuload = e.this_rq.weighted_cpuload;
            s.this_rq.cpu_load_idx = e.prev_rq.cpu_load_idx;
            s.prev_rq.cpu_load_idx = e.this_rq.cpu_load_idx;
            wakeaffine::wa_trace<A> t1, t2;
            const bool heavy = U::affine(e, k, &t1);
            const bool light = U::affine(s, k, &t2);
            KOut<A> o;
            o.checks.push_back(eq<A>("pulled to the busier this_cpu, so pulled once this_cpu is the lighter",
                                     typename A::boolean(heavy), "pulled after the swap", typename A::u64(light ? 1 : 0),
                                     "1", typename A::u64(1)));
            decision_lines<I>(o, "this_cpu the busier", e, k, t1, heavy);
            decision_lines<I>(o, "loads swapped", s, k, t2, light);
            return o;
        };
    }
};

// wakeaffine.hot_not_moved (pjt-1-3, the variant with NO_HOT_AFFINE): with
// the feature on, a wakee that is cache-hot on prev_cpu (task_hot()
// against prev_cpu's clock_task) is never pulled.
struct HotNotMoved {
    static constexpr const char *id = "wakeaffine.hot_not_moved";
    static constexpr bool integer_first = false;
    template <class I> static bool applies() { return wakeaffine::has_no_hot_affine<I::shape>; }
    template <class I> static std::string domain(Arch) {
        return "NO_HOT_AFFINE on; any clocks, exec_start and sysctl_sched_migration_cost; SCHED_IDLE wakee or not; "
               "root task groups, loads 0..2^20, capacities 1024, imbalance_pct 125, nr_running 2; sync and wake_idx "
               "0/1 split into cases";
    }
    template <class I> static std::vector<KCase> cases(Arch) {
        std::vector<KCase> cs;
        for (const KCase &c : decision_cases<I>())
            if (decode(c.kind).no_hot)
                cs.push_back(c);
        return cs;
    }
    template <class I, class A, class In> static Runner<A> build(In &in, const KCase &c) {
        const WaCase w = decode(c.kind);
        const wakeaffine::knobs<A> k = any_knobs<I, A>(in, w);
        const wakeaffine::wake_env<A> e = any_wakeup<I, A>(in, w, LOAD_MAX_DEFAULT, false);
        return [=]() {
            using U = typename I::template on<A>;
            const bool hot = U::task_hot(e.p, e.prev_rq.clock_task, k);
            wakeaffine::wa_trace<A> tr;
            const bool pulled = U::affine(e, k, &tr);
            KOut<A> o;
            o.checks.push_back(eq<A>("a cache-hot wakee is not pulled", typename A::boolean(hot), "pulled",
                                     typename A::u64(pulled ? 1 : 0), "0", typename A::u64(0)));
            o.shown = {{"prev_cpu clock_task", e.prev_rq.clock_task}, {"p.exec_start", e.p.exec_start},
                       {"sysctl_sched_migration_cost", typename A::u64(k.sysctl_sched_migration_cost)}};
            decision_lines<I>(o, "the wake-up", e, k, tr, pulled);
            return o;
        };
    }
};

// ---------------------------------------------------------------------------
// wakeaffine.effective_load_monotone (the variants with effective_load():
// v2.6.37 .. v3.13; 6.1 has none): adding more weight to a group's cfs_rq
// on a CPU never lowers the estimated change of the root-level load there.
// One group level under the root; the wakee's call, effective_load(tg,
// w, w): w1 <= w2 in 0..88761.  Group state: tg->shares 2..2^18
// (MIN_SHARES..MAX_SHARES), the group entity's weight at most the shares,
// the cfs_rq weights and the group's total 0..2^20 with this CPU's
// published part within the total.
//
// v2.6.37 breaks it: under ASYM_EFF_LOAD a zero wl returns 0 at once (a
// pure removal counts as no change), while the formula, fed the weight
// that left since the shares were computed (my_q->load.weight below
// my_q->rq_weight), goes negative for a small positive w: S 5, s 3, rw 3,
// load.weight 0, w 1 gives wl = wg = 1 - 3, a = 5 * 1, b = 15 - 6 = 9,
// wl = 3 * (5 - 9) / 9 = -1 < 0.
//
// From pjt-1 on it holds.  With R the rest of the group's weight (pjt-1:
// tg->load_weight - my_q->load_contribution; v3.13: tg->load_avg -
// my_q->tg_load_contrib; R >= 0 in this domain) and q my_q->load.weight,
// the divisor is R + q + w and the dividend (q + w) * S: for R > 0 the
// new entity weight is floor(S * (q + w) / (R + q + w)), and x / (R + x)
// grows with x; for R = 0 the "wl < lw" test fails and it is S, the same
// for every w.  The MIN_SHARES floor and the subtraction of
// se->load.weight (unsigned long, read back as long: exact, the result in
// [2 - S, S]) keep the order.  The products stay below 2^39 (ilp32: 2^28).
//
// The division by the symbolic R + q + w is a divider circuit on
// bit-vectors that the solver did not settle in minutes; in integers it is
// settled in about a second, so the proof runs in integers with the
// unsigned wraps modelled exactly (modular_wraps: the last subtraction
// goes negative on purpose).  A product that can wrap (v2.6.37's signed
// s * (a - b) on ilp32) still sends the case to bit-vectors.
struct EffectiveLoadMonotone {
    static constexpr const char *id = "wakeaffine.effective_load_monotone";
    static constexpr bool integer_first = true;
    static constexpr bool modular_wraps = true;
    // Eager exploration: a wrap is then ruled out under the path's
    // conditions too (the quotient of "wl < lw" is below the shares only
    // on that path), which leaves the solver fewer if-then-else terms.
    static constexpr bool lazy = false;
    template <class I> static bool applies() { return wakeaffine::has_effective_load<V_of<I>>; }
    template <class I> static std::string domain(Arch a) {
        return a == Arch::lp64
                   ? "one group level; w1 <= w2 in 0..88761 (effective_load(tg, w, w)); tg->shares 2..2^18, the "
                     "group entity's weight <= shares, cfs_rq and group weights 0..2^20, this CPU's published part <= "
                     "the group's total; ASYM_EFF_LOAD on"
                   : "one group level; w1 <= w2 in 0..88761 (effective_load(tg, w, w)); tg->shares 2..1024 (the "
                     "default), the group entity's weight <= shares, cfs_rq and group weights 0..2^16, this CPU's "
                     "published part <= the group's total; ASYM_EFF_LOAD on (on ilp32 the 32-bit long products of "
                     "larger groups wrap at once)";
    }
    template <class I> static std::vector<KCase> cases(Arch a) {
        KCase c{"one group level", -1, 0, {}};
        // v2.6.37's s * (a - b) wraps a 32-bit long: straight to bit-vectors,
        // explored lazily (a feasibility check through a bit-vector
        // divider costs seconds: 1.3 s lazily, 92 s eagerly).
        if (V_of<I> == version::v2_6_37 && a == Arch::ilp32) {
            c.integer_first = false;
            c.lazy = true;
        }
        return {c};
    }
    template <class I, class A, class In> static Runner<A> build(In &in, const KCase &) {
        using ulong = typename A::ulong;
        using slong = typename A::slong;
        // ilp32: small enough that v2.6.37's divisor S*rw + s*wg cannot wrap
        // to -1 under a LONG_MIN dividend (a trap in the concrete replay).
        constexpr std::uint64_t W = A::long_bits == 64 ? 1u << 20 : 1u << 16;
        constexpr std::uint64_t SH = A::long_bits == 64 ? 1u << 18 : 1u << 10;
        wakeaffine::tg_path<A> path;
        path.depth = 1;
        wakeaffine::tg_level<A> &se = path.level[0];
        se.tg_shares = in.template var<ulong>("tg->shares", 2, SH);
        se.se_load_weight = in.template var<ulong>("se->load.weight", 0, SH);
        in.require(se.se_load_weight <= se.tg_shares, "se->load.weight <= tg->shares");
        se.my_q_load_weight = in.template var<ulong>("my_q->load.weight", 0, W);
        if constexpr (V_of<I> == version::v2_6_37) {
            se.my_q_shares = in.template var<ulong>("my_q->shares", 0, SH);
            in.require(se.my_q_shares <= se.tg_shares, "my_q->shares <= tg->shares");
            se.my_q_rq_weight = in.template var<ulong>("my_q->rq_weight", 0, W);
        } else if constexpr (V_of<I> == version::v3_13) {
            se.tg_load_avg = in.template var<slong>("tg->load_avg", 0, W);
            se.my_q_tg_load_contrib = in.template var<ulong>("my_q->tg_load_contrib", 0, W);
            in.require(se.my_q_tg_load_contrib <= ulong(se.tg_load_avg), "my_q->tg_load_contrib <= tg->load_avg");
        } else {
            se.tg_load_weight = in.template var<typename A::sint>("tg->load_weight", 0, W);
            se.my_q_load_contribution = in.template var<ulong>("my_q->load_contribution", 0, W);
            in.require(se.my_q_load_contribution <= ulong(se.tg_load_weight),
                       "my_q->load_contribution <= tg->load_weight");
        }
        const ulong w1 = in.template var<ulong>("w1", 0, NICE_WEIGHT_MAX);
        const ulong w2 = in.template var<ulong>("w2", 0, NICE_WEIGHT_MAX);
        in.require(w1 <= w2, "w1 <= w2");
        if constexpr (V_of<I> == version::v2_6_37) {
            // C traps on LONG_MIN / -1: keep the concrete replay alive by
            // leaving out the inputs whose divisor S*rw + s*wg (long,
            // wrapping) is -1.
            for (const ulong &w : {w1, w2}) {
                const slong more = slong(se.my_q_load_weight - se.my_q_rq_weight);
                const slong b = slong(se.tg_shares) * slong(se.my_q_rq_weight) +
                                slong(se.my_q_shares) * (slong(w) + more);
                in.require(b != slong(-1), "S*rw + s*wg != -1 (the divisor of effective_load())");
            }
        }
        wakeaffine::knobs<A> k;
        k.ASYM_EFF_LOAD = true;
        return [=]() {
            using U = typename I::template on<A>;
            const slong e1 = U::effective_load(path, slong(w1), slong(w1), k);
            const slong e2 = U::effective_load(path, slong(w2), slong(w2), k);
            KOut<A> o;
            typename A::boolean t(true);
            // The signed comparison is a branch: the path where it fails
            // carries e2 < e1 in its condition, and its check cannot hold.
            using u64 = typename A::u64;
            const bool lowered = bool(e2 < e1);
            o.checks.push_back(eq<A>("more weight added never lowers the effective load", t,
                                     "effective_load(w2) < effective_load(w1)", u64(lowered ? 1 : 0), "0", u64(0)));
            if constexpr (is_concrete<A>)
                o.lines.push_back(fmt::format("effective_load(tg, w1 = {}, w1) = {}; effective_load(tg, w2 = {}, w2) = {}",
                                              std::uint64_t(w1), std::int64_t(e1), std::uint64_t(w2), std::int64_t(e2)));
            return o;
        };
    }
};

// ---------------------------------------------------------------------------
// wakeaffine.no_overflow: no arithmetic of the decision wraps where the
// code does not mean it to, signed or unsigned.  Each check restates one
// operation's operands from the inputs (root task groups):
//   v2.6.37 (unsigned long): this_load - current's weight on a sync wake-up
//     (this is the wrap v2.6.38's s64 loads removed), the two effective
//     load products 100 * power(prev) * (this_load + w) and
//     (100 + (pct - 100) / 2) * power(this) * load, this_load +
//     target_load(prev);
//   pjt-1 .. v3.13 (s64): the same products in s64; v3.13's
//     sd_llc_size * wakee_flips (unsigned long);
//   6.1: task_h_load()'s load_avg * h_load (unsigned long), and the
//     effective loads in s64: (load(this) [- h_load(current)] + h_load(p))
//     * 100 * capacity(prev) and |load(prev) - h_load(p)| * (100 + (pct -
//     100) / 2) * capacity(this) (the difference may go negative: on lp64
//     through a u64 wrap the code means, exact in two's complement).
// The largest safe load is found as cpuload finds it: the largest L such
// that the property is PROVED with every load (CPU loads, task weights,
// PELT loads) in 0..L; it is then checked that L + 1 has a counterexample.
struct NoOverflow {
    static constexpr const char *id = "wakeaffine.no_overflow";
    static constexpr bool integer_first = false;
    // Each check restates an operation's operands from the inputs, so the
    // input ranges often settle it without the path's conditions.
    static constexpr bool domain_first = true;
    // In the integer encoding (6.1's rounds below the whole range), the
    // wraps the code means stay exact: an unsigned load minus task_h_load()
    // read back as s64, and that difference scaled by the capacity through
    // unsigned long.  The checks restate every operand themselves, so
    // modelling those wraps hides nothing they test.
    static constexpr bool modular_wraps = true;
    // The paths of a sync wake-up carry the products of both effective
    // loads in their conditions: their checks are asked together first.
    static constexpr bool path_batch = true;
    // A sync wake-up's this_load (target_load(this) - current's weight, in
    // s64) is one term on every path of its case: asked once against the
    // domain alone with a 500 ms leash, its bound is settled for all of
    // them, where each path's conditions cost 0.1 s a query (lp64:
    // pjt-1-3 13.7 -> 1.6 s, v3.13 9.5 -> 0.8 s, v2.6.37 9.7 -> 5.2 s).
    static constexpr unsigned domain_leash_ms = 500;
    // The load bound of the current proof (the whole range by default, and
    // for replays); the search narrows it on this thread.
    static std::uint64_t &limit() {
        thread_local std::uint64_t l = U64_MAX;
        return l;
    }
    static constexpr bool custom_prove = true;
    static bool is_load_name(const std::string &n) {
        auto ends = [&](const std::string &suf) {
            return n.size() >= suf.size() && n.compare(n.size() - suf.size(), suf.size(), suf) == 0;
        };
        return ends(".load") || ends(".weight") || n.find("cpu_load[idx]") != std::string::npos ||
               n.find("load_avg") != std::string::npos || n.find("h_load") != std::string::npos;
    }
    // The corner of a case at load L: every load L, capacities 1024,
    // imbalance_pct 200, one task running, every other input at the bottom
    // of its range.
    // 6.1's second corner (spread) puts each task's cfs_rq load_avg at 0:
    // task_h_load() is then load_avg * h_load, up to L^2, where at L it is
    // about L.
    template <class I, class C>
    static std::map<std::string, std::uint64_t> corner(const KCase &cs, std::uint64_t L, bool spread = false) {
        ConcreteInputs probe({});
        (void)build<I, C>(probe, cs);
        auto vals = probe.values();
        for (auto &[n, x] : vals) {
            if (is_load_name(n))
                // task_h_load()'s divisor cfs_rq load_avg + 1 stays below
                // ULONG_MAX + 1 (its input range).
                x = n.find("cfs_rq.load_avg") == std::string::npos ? L : spread ? 0 : std::min(L, ulong_max<C> - 1);
            else if (n.find("capacity") != std::string::npos)
                x = CAP_MAX;
            else if (n == "imbalance_pct")
                x = 200;
            else if (n.find("nr_running") != std::string::npos)
                x = 1;
        }
        return vals;
    }
    static std::uint64_t max_load(const Counterexample &ce) {
        std::uint64_t m = 0;
        for (const auto &[n, x] : ce.inputs)
            if (is_load_name(n))
                m = std::max(m, x);
        return m;
    }
    // The verdict over the whole load range, then the largest safe load:
    // the smallest load at which a corner of some case wraps (a concrete
    // search), minus one, proved safe by the engine; a counterexample below
    // it moves the candidate under that counterexample's largest load.
    template <class I, class S, class C>
    static ProofResult prove_custom(const Variant &v, Arch a, const ProveOptions &o, const std::string &dom) {
        auto t0 = std::chrono::steady_clock::now();
        struct Reset {
            ~Reset() { limit() = U64_MAX; }
        } reset;
        const std::uint64_t full = a == Arch::lp64 ? U64_MAX : U32_MAX;
        limit() = full;
        // Some of these queries take seconds (bit-vector products of two
        // loads); a loaded CI machine must not turn them into UNKNOWN.
        ProveOptions wide = o;
        wide.timeout_ms = std::max(o.timeout_ms, 60000u);
        ProofResult r = prove_kprop<NoOverflow, I, S, C>(v, a, wide, dom);
        r.bound_kind = "largest safe load";
        auto done = [&] {
            r.seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
            return r;
        };
        if (r.verdict == Verdict::PROVED) {
            r.bound = full;
            return done();
        }
        if (r.verdict != Verdict::COUNTEREXAMPLE)
            return done();
        const auto cases_ = cases<I>(a);
        auto fails = [&](std::uint64_t L) {
            for (const KCase &cs : cases_)
                for (bool spread : {false, true})
                    try {
                        if ((!spread || is_61<I>) &&
                            kprop_replay<NoOverflow, I, C>(cs, corner<I, C>(cs, L, spread)).violated)
                            return true;
                    } catch (const domain_violation &) {
                        // A corner outside a case's domain shows nothing.
                    }
            return false;
        };
        std::uint64_t hi = fails(full) ? full : max_load(*r.cex);
        std::uint64_t lo = 0; // the smallest failing load is in [lo, hi]
        if (!fails(hi))
            hi = full;
        while (lo < hi) {
            std::uint64_t mid = lo + (hi - lo) / 2;
            if (fails(mid))
                hi = mid;
            else
                lo = mid + 1;
        }
        // The prover settles the bound: `bad` is a load known to wrap (the
        // largest load of a counterexample found under some limit), `ok` one
        // proved safe; the corner estimate is tried first, then bisection.
        // Counterexamples found by the probe often mix one huge load with
        // small ones, so lowering the limit to just under their largest
        // load alone can take many rounds: bisection bounds them.
        std::uint64_t bad = std::min(lo, max_load(*r.cex));
        std::optional<std::uint64_t> ok;
        std::uint64_t cand = bad ? bad - 1 : 0;
        // Near the bound a round is a hard proof (bit-vector products of
        // two loads): the rounds get a short query timeout and the search
        // a time budget; a bound not settled within them is given as the
        // interval that is known, and the verdict stands.
        ProveOptions ro = o;
        ro.timeout_ms = std::min(o.timeout_ms, 2000u);
        const double budget = 45;
        const auto t_rounds = std::chrono::steady_clock::now();
        auto spent = [&] {
            return std::chrono::duration<double>(std::chrono::steady_clock::now() - t_rounds).count();
        };
        for (int round = 0; round < 48 && spent() < budget; ++round) {
            limit() = cand;
            ProofResult q = prove_kprop<NoOverflow, I, S, C>(v, a, ro, dom);
            r.queries += q.queries;
            r.paths += q.paths;
            if (std::getenv("SCHEDCHECK_TRACE_CASES"))
                std::fprintf(stderr, "largest safe load: limit %llu: %s in %.1f s\n", (unsigned long long)cand,
                             verdict_name(q.verdict), q.seconds);
            if (q.verdict == Verdict::PROVED)
                ok = cand;
            else if (q.verdict == Verdict::COUNTEREXAMPLE)
                bad = std::min(bad, max_load(*q.cex));
            else
                break; // the solver gave up near the bound
            if (ok && *ok + 1 >= bad) {
                r.bound = *ok;
                r.reason += fmt::format("; every load <= {} is safe (PROVED), load {} wraps", *ok, *ok + 1);
                return done();
            }
            if (bad == 0)
                break;
            const std::uint64_t base = ok ? *ok : 0;
            cand = base + (bad - 1 - base) / 2;
            if (!ok && round == 0)
                cand = bad - 1; // the counterexample's load minus one first
        }
        if (bad == 0)
            r.reason += "; no safe load: it wraps even with every load 0";
        else
            r.reason += fmt::format("; largest safe load not settled within {:.0f} s: {}load {} wraps (replayed)",
                                    budget, ok ? fmt::format("every load <= {} is safe (PROVED), ", *ok) : "",
                                    bad);
        return done();
    }
    // Every reference variant.  Not on the kernels' own wake_affine(): its
    // effective loads stay inside the function, and the checks restate the
    // operands from the reference's formula, so on a kernel they would
    // test the reference again, not the kernel's arithmetic.
    template <class I> static bool applies() { return !requires { I::kernel; }; }
    template <class I> static std::string domain(Arch a) {
        return fmt::format("root task groups; every load (CPU loads, task weights, PELT loads) 0..{}, capacities "
                           "1024, imbalance_pct 125, nr_running 2 (6.1: 1..2){}{}; sync, wake_idx 0/1 and the "
                           "features split into cases",
                           a == Arch::lp64 ? "U64_MAX" : "U32_MAX",
                           V_of<I> == version::v3_13 ? ", wakee_flips 0..2^20, sd_llc_size 4" : "",
                           weight_loads<I> ? ", current.weight <= this_cpu.load (rq->load.weight counts the waker)" : "");
    }
    // 6.1 below the full range (the largest safe load's rounds, where no
    // product wraps): integers first, with modular wraps for the
    // subtractions and scalings the code means.  On bit-vectors each
    // task_h_load() is a multiplier and a divider circuit (more than 5
    // minutes per round); the first round, over the whole range, finds its
    // counterexample on bit-vectors in a second.
    template <class I> static std::vector<KCase> cases(Arch a) {
        auto cs = decision_cases<I>();
        if (is_61<I> && limit() < (a == Arch::lp64 ? U64_MAX : U32_MAX))
            for (auto &c : cs)
                c.integer_first = true;
        return cs;
    }
    template <class I, class A, class In> static Runner<A> build(In &in, const KCase &c) {
        using u64 = typename A::u64;
        using ulong = typename A::ulong;
        const WaCase w = decode(c.kind);
        const std::uint64_t L = std::min(limit(), ulong_max<A>);
        const wakeaffine::knobs<A> k = any_knobs<I, A>(in, w);
        const wakeaffine::wake_env<A> e = any_wakeup<I, A>(in, w, L, true);
        return [=]() {
            using U = typename I::template on<A>;
            wakeaffine::wa_trace<A> tr;
            const bool pulled = U::affine(e, k, &tr);
            KOut<A> o;
            typename A::boolean t(true);
            const u64 smax = u64(S64_MAX);
            const u64 pct2 = u64(100) + (u64(k.imbalance_pct) - u64(100)) / u64(2);
            // x * f <= lim with f > 0 holds exactly when x <= floor(lim / f).
            // f is a product of fixed inputs, so the quotient folds to a
            // constant, where x * f would be a multiplier circuit (2 to 7 s
            // per bit-vector query on ilp32, where the product was asked).
            auto fits = [&](const std::string &what, typename A::boolean g, const std::string &xn, u64 x,
                            const std::string &fn, u64 f, u64 lim) {
                o.checks.push_back(le<A>(what, g, xn, x, "LIMIT / (" + fn + ")", lim / f));
            };
            if constexpr (!is_61<I>) {
                const u64 lim = wakeaffine::signed_loads<I::shape> ? smax : u64(ulong_max<A>);
                const u64 T0 = u64(wakeaffine::target_load<I::shape, A>(e.this_rq, k.wake_idx, k));
                const u64 Ld = u64(wakeaffine::source_load<I::shape, A>(e.prev_rq, k.wake_idx, k));
                const u64 wc = u64(e.curr.weight), wp = u64(e.p.weight);
                bool reached = true;
                if constexpr (V_of<I> == version::pjt_1_3)
                    reached = !tr.hot;
                if constexpr (V_of<I> == version::v3_13) {
                    o.checks.push_back(le<A>("sd_llc_size * p->wakee_flips does not wrap (unsigned long)",
                                             typename A::boolean(reached) && e.p.wakee_flips > ulong(SD_LLC_SIZE),
                                             "p->wakee_flips", u64(e.p.wakee_flips), "ULONG_MAX / sd_llc_size",
                                             u64(ulong_max<A> / SD_LLC_SIZE)));
                    reached = reached && !tr.wide;
                }
                const typename A::boolean go(reached);
                if constexpr (!wakeaffine::signed_loads<I::shape>) {
                    if (w.sync)
                        o.checks.push_back(le<A>("sync: this_load - current's weight does not wrap (unsigned long)", go,
                                                 "current's weight", wc, "this_load", T0));
                }
                // this_load after the sync adjustment, as the code had it.
                const u64 TL = u64(tr.this_load);
                typename A::boolean prod = go;
                if constexpr (wakeaffine::signed_loads<I::shape>)
                    prod = go && tr.this_load > typename A::s64(0);
                else
                    prod = go && TL != u64(0);
                o.checks.push_back(le<A>("this_load + w does not wrap", prod, "w", wp, "LIMIT - this_load", lim - TL));
                fits("100 * power(prev) * (this_load + w) does not wrap", prod, "(this_load + w)", TL + wp,
                     "100 * power(prev)", u64(100) * u64(e.prev_rq.power), lim);
                fits("(100 + (pct - 100) / 2) * power(this) * load does not wrap", prod, "load", Ld,
                     "pct' * power(this)", pct2 * u64(e.this_rq.power), lim);
                const u64 TLp = u64(wakeaffine::target_load<I::shape, A>(e.prev_rq, k.wake_idx, k));
                o.checks.push_back(le<A>("this_load + target_load(prev) does not wrap",
                                         go && typename A::boolean(!tr.balanced) && tr.this_load <= tr.load,
                                         "target_load(prev)", TLp, "LIMIT - this_load", lim - TL));
            } else {
                const u64 lm = u64(ulong_max<A>);
                auto h_load_fits = [&](const char *who, const wakeaffine::task<A> &p) {
                    const std::string what = std::string("task_h_load(") + who + "): load_avg * h_load does not wrap (unsigned long)";
                    if constexpr (A::long_bits == 32)
                        o.checks.push_back(le<A>(what, t, "load_avg * h_load", u64(p.load_avg) * u64(p.cfs_h_load),
                                                 "ULONG_MAX", lm));
                    else {
                        // The check is guarded by h_load != 0; its divisor
                        // is 1 where h_load is 0, so that no run divides by
                        // 0 to state it (an if-then-else, not a branch).
                        u64 h = u64(p.cfs_h_load);
                        if constexpr (is_concrete<A>)
                            h = h ? h : u64(1);
                        else
                            h = u64(z3::ite((h == u64(0)).e, u64(1).e, h.e));
                        o.checks.push_back(le<A>(what, p.cfs_h_load != ulong(0), "load_avg", u64(p.load_avg),
                                                 "ULONG_MAX / h_load", lm / h));
                    }
                };
                h_load_fits("p", e.p);
                // wake_affine_weight() runs when the idle test had no answer;
                // a sync waker heavier than this_cpu's load returns early.
                const u64 task_load = u64(wakeaffine::task_h_load<I::shape, A>(e.p));
                const u64 th = u64(e.this_rq.weighted_cpuload);
                typename A::boolean weighed(tr.weight_target != -1);
                u64 base = th;
                if (w.sync) {
                    h_load_fits("current", e.curr);
                    const u64 cur = u64(wakeaffine::task_h_load<I::shape, A>(e.curr));
                    weighed = weighed && cur <= th;
                    base = th - cur;
                }
                o.checks.push_back(le<A>("load(this) + h_load(p) does not wrap", weighed, "h_load(p)", task_load,
                                         "S64_MAX - load(this)", smax - base));
                fits("this_eff_load does not wrap (s64)", weighed, "(load(this) + h_load(p))", base + task_load,
                     w.wa_bias ? "100 * capacity(prev)" : "capacity(prev)",
                     (w.wa_bias ? u64(100) : u64(1)) * u64(e.prev_rq.power), smax);
                const u64 pv = u64(e.prev_rq.weighted_cpuload);
                const u64 diff = pv >= task_load ? pv - task_load : task_load - pv;
                fits("prev_eff_load does not wrap (s64)", weighed, "|load(prev) - h_load(p)|", diff,
                     w.wa_bias ? "pct' * capacity(this)" : "capacity(this)",
                     (w.wa_bias ? pct2 : u64(1)) * u64(e.this_rq.power), smax);
            }
            decision_lines<I>(o, "the wake-up", e, k, tr, pulled);
            return o;
        };
    }
};

} // namespace sc::proofs::wakeaffine_inv
