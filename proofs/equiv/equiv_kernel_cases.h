// The equivalence cases of the pelt, utilest, idlebal and wakeaffine
// families against a kernel oracle class template K (oracle/pelt_codegen.h),
// as templates: the built-in oracles (proofs/equiv/equiv_kernel.cpp) and the
// plug-ins that `schedcheck oracle build` compiles (cli/oracle_build.cpp)
// instantiate them with their own K.
//
// Each kernel function is compared on its own, with every input and every
// state field symbolic over its whole machine range, except:
//   - period_contrib < 1024: the kernel only ever stores delta % 1024 there,
//     and a larger value makes get_pelt_divider() wrap to a division by 0;
//   - boolean inputs (sched_feat bits, task_sleep, a CPU's idleness, sync)
//     are split into cases.
#pragma once
#include <fmt/format.h>

#include "proofs/equiv/equiv_engine.h"
#include "proofs/kernel/kernel_state.h"
#include "proofs/kernel/oracle_plugin.h"
#include "ref/idle_balance.h"
#include "ref/pelt.h"
#include "ref/util_est.h"
#include "ref/variants.h"
#include "ref/wake_affine.h"

namespace sc::proofs::kequiv {

template <class A> using u64_t = typename A::u64;

// ---- PELT ----------------------------------------------------------------

template <class A, class In> pelt::sched_avg<A> declare_avg(In &in) {
    using u64 = typename A::u64;
    using uint = typename A::uint;
    using ulong = typename A::ulong;
    const std::uint64_t umax = ~std::uint64_t(0), uimax = 0xffffffffu;
    const std::uint64_t lmax = A::long_bits == 64 ? umax : uimax;
    pelt::sched_avg<A> sa{};
    sa.last_update_time = in.template var<u64>("last_update_time", 0, umax);
    sa.load_sum = in.template var<u64>("load_sum", 0, umax);
    sa.runnable_sum = in.template var<u64>("runnable_sum", 0, umax);
    sa.util_sum = in.template var<uint>("util_sum", 0, uimax);
    sa.period_contrib = in.template var<uint>("period_contrib", 0, 1023);
    sa.load_avg = in.template var<ulong>("load_avg", 0, lmax);
    sa.runnable_avg = in.template var<ulong>("runnable_avg", 0, lmax);
    sa.util_avg = in.template var<ulong>("util_avg", 0, lmax);
    return sa;
}

template <class A, class KS> void compare_avg(Outs<A> &out, const pelt::sched_avg<A> &r, const KS &k) {
    using u64 = typename A::u64;
    out.push_back({"last_update_time", {r.last_update_time, k.last_update_time}});
    out.push_back({"load_sum", {r.load_sum, k.load_sum}});
    out.push_back({"runnable_sum", {r.runnable_sum, k.runnable_sum}});
    out.push_back({"util_sum", {u64(r.util_sum), u64(k.util_sum)}});
    out.push_back({"period_contrib", {u64(r.period_contrib), u64(k.period_contrib)}});
    out.push_back({"load_avg", {u64(r.load_avg), u64(k.load_avg)}});
    out.push_back({"runnable_avg", {u64(r.runnable_avg), u64(k.runnable_avg)}});
    out.push_back({"util_avg", {u64(r.util_avg), u64(k.util_avg)}});
}

template <class A, class In> typename A::ulong declare_ulong(In &in, const std::string &name) {
    return in.template var<typename A::ulong>(name, 0, A::long_bits == 64 ? ~std::uint64_t(0) : 0xffffffffu);
}

template <class S, class C, pelt::version V, template <class> class K>
std::vector<EquivCase<S, C>> pelt_cases(EquivResult &res) {
    std::vector<EquivCase<S, C>> cs;
    const std::uint64_t umax = ~std::uint64_t(0);
    cs.push_back(equiv_case<S, C>("decay_load", {}, [=]<class A, class In>(In &in) {
        using u64 = typename A::u64;
        u64 val = in.template var<u64>("val", 0, umax), n = in.template var<u64>("n", 0, umax);
        return [=]() -> Outs<A> { return {{"result", {pelt::decay_load<V, A>(val, n), K<A>::decay_load(val, n)}}}; };
    }));
    // accumulate_sum(delta, ...) and ___update_load_sum(now, ...): a time,
    // the state, load, runnable and running; a count and the state out.
    auto sum_case = [=]<bool Accumulate>(const char *fn, const char *time_name) {
        return equiv_case<S, C>(fn, {}, [=]<class A, class In>(In &in) {
            using u64 = typename A::u64;
            u64 t = in.template var<u64>(time_name, 0, umax);
            const pelt::sched_avg<A> sa0 = declare_avg<A>(in);
            auto load = declare_ulong<A>(in, "load"), runnable = declare_ulong<A>(in, "runnable");
            auto running = in.template var<typename A::sint>("running", 0, 0xffffffffu);
            return [=]() -> Outs<A> {
                // Every path re-runs this from the declared inputs.
                pelt::sched_avg<A> sa = sa0;
                auto k = to_kernel<K<A>>(sa);
                u64 rr, kr;
                if constexpr (Accumulate) {
                    rr = u64(pelt::accumulate_sum<V, A>(t, sa, load, runnable, running));
                    kr = u64(K<A>::accumulate_sum(t, &k, load, runnable, running));
                } else {
                    rr = u64(pelt::___update_load_sum<V, A>(t, sa, load, runnable, running));
                    kr = u64(K<A>::___update_load_sum(t, &k, load, runnable, running));
                }
                Outs<A> out{{"result", {rr, kr}}};
                compare_avg(out, sa, k);
                return out;
            };
        });
    };
    // What a release does not have is listed as not compared.
    auto skip = [&](const char *fn, const char *since) {
        res.skipped.push_back(std::string(fn) + " (only in the oracle: the function first appears in " + since + ")");
    };
    if constexpr (V < pelt::version::v4_12) {
        skip("__accumulate_pelt_segments", "v4.12");
        skip("accumulate_sum", "v4.12");
    } else {
        cs.push_back(equiv_case<S, C>("__accumulate_pelt_segments", {}, [=]<class A, class In>(In &in) {
            using u64 = typename A::u64;
            using uint = typename A::uint;
            u64 periods = in.template var<u64>("periods", 0, umax);
            uint d1 = in.template var<uint>("d1", 0, 0xffffffffu), d3 = in.template var<uint>("d3", 0, 0xffffffffu);
            return [=]() -> Outs<A> {
                return {{"result",
                         {u64(pelt::__accumulate_pelt_segments<V, A>(periods, d1, d3)),
                          u64(K<A>::__accumulate_pelt_segments(periods, d1, d3))}}};
            };
        }));
        cs.push_back(sum_case.template operator()<true>("accumulate_sum", "delta"));
    }
    if constexpr (V < pelt::version::v6_1) {
        skip("get_pelt_divider", "v6.1");
        skip("___update_load_sum", "v6.1");
        skip("___update_load_avg", "v6.1");
    } else {
        cs.push_back(equiv_case<S, C>("get_pelt_divider", {}, [=]<class A, class In>(In &in) {
            pelt::sched_avg<A> sa = declare_avg<A>(in);
            return [=]() -> Outs<A> {
                auto k = to_kernel<K<A>>(sa);
                return {{"result", {u64_t<A>(pelt::get_pelt_divider<V, A>(sa)), u64_t<A>(K<A>::get_pelt_divider(&k))}}};
            };
        }));
        cs.push_back(sum_case.template operator()<false>("___update_load_sum", "now"));
        cs.push_back(equiv_case<S, C>("___update_load_avg", {}, [=]<class A, class In>(In &in) {
            const pelt::sched_avg<A> sa0 = declare_avg<A>(in);
            auto load = declare_ulong<A>(in, "load");
            return [=]() -> Outs<A> {
                // Every path re-runs this from the declared inputs.
                pelt::sched_avg<A> sa = sa0;
                auto k = to_kernel<K<A>>(sa);
                Outs<A> out;
                pelt::___update_load_avg<V, A>(sa, load);
                K<A>::___update_load_avg(&k, load);
                compare_avg(out, sa, k);
                return out;
            };
        }));
    }
    for (const auto &c : cs)
        res.compared.push_back(c.function);
    res.domain = fmt::format("every 64-bit time, sum and delta, every {}-bit load and average, every 32-bit "
                             "util_sum, int running and u32 segment; period_contrib 0..1023",
                             S::long_bits);
    return cs;
}

// ---- util_est ------------------------------------------------------------

template <class A, class In> utilest::task<A> declare_task(In &in, bool split) {
    utilest::task<A> p{};
    p.util_avg = declare_ulong<A>(in, "p.util_avg");
    p.runnable_avg = declare_ulong<A>(in, "p.runnable_avg");
    if (split)
        p.enqueued = in.template var<typename A::uint>("p.util_est.enqueued", 0, 0xffffffffu);
    p.ewma = in.template var<typename A::uint>(split ? "p.util_est.ewma" : "p.util_est", 0, 0xffffffffu);
    return p;
}

template <class A, class KT, class KR>
void compare_ue(Outs<A> &out, const utilest::task<A> &p, const KT &kp, const utilest::cfs_rq<A> &r, const KR &kr) {
    using u64 = typename A::u64;
    if constexpr (requires { kp.se.avg.util_est.enqueued; }) {
        out.push_back({"p.util_est.enqueued", {u64(p.enqueued), u64(kp.se.avg.util_est.enqueued)}});
        out.push_back({"p.util_est.ewma", {u64(p.ewma), u64(kp.se.avg.util_est.ewma)}});
        out.push_back({"cfs_rq.util_est.enqueued", {u64(r.util_est_enqueued), u64(kr.avg.util_est.enqueued)}});
    } else {
        out.push_back({"p.util_est", {u64(p.ewma), u64(kp.se.avg.util_est)}});
        out.push_back({"cfs_rq.util_est", {u64(r.util_est_enqueued), u64(kr.avg.util_est)}});
    }
}

template <class S, class C, utilest::version V, template <class> class K, bool Split>
std::vector<EquivCase<S, C>> utilest_cases(EquivResult &res) {
    std::vector<EquivCase<S, C>> cs;
    // One case per setting of the boolean inputs the function reads.
    auto both = [](const char *fn, bool fastup_too, bool sleep_too, auto make) {
        std::vector<EquivCase<S, C>> v;
        for (int ue = 0; ue < 2; ue++)
            for (int fu = 0; fu < (fastup_too ? 2 : 1); fu++)
                for (int sl = 0; sl < (sleep_too ? 2 : 1); sl++) {
                    std::vector<std::pair<std::string, std::uint64_t>> fixed = {{"UTIL_EST", std::uint64_t(ue)}};
                    if (fastup_too)
                        fixed.push_back({"UTIL_EST_FASTUP", std::uint64_t(fu)});
                    if (sleep_too)
                        fixed.push_back({"task_sleep", std::uint64_t(sl)});
                    v.push_back(make(fn, fixed, utilest::knobs{ue != 0, fu != 0}, sl != 0));
                }
        return v;
    };
    auto add = [&](std::vector<EquivCase<S, C>> v) {
        res.compared.push_back(v.front().function);
        cs.insert(cs.end(), v.begin(), v.end());
    };
    auto set_knobs = []<class A>(const utilest::knobs &kn) {
        K<A>::shim_feat_UTIL_EST = kn.UTIL_EST;
        K<A>::shim_feat_UTIL_EST_FASTUP = kn.UTIL_EST_FASTUP;
    };
    cs.push_back(equiv_case<S, C>("_task_util_est", {}, [=]<class A, class In>(In &in) {
        auto p = declare_task<A>(in, Split);
        return [=]() -> Outs<A> {
            auto kp = task_to_kernel<K<A>>(p);
            return {{"_task_util_est", {u64_t<A>(utilest::_task_util_est<V, A>(p)), u64_t<A>(K<A>::_task_util_est(&kp))}},
                    {"task_util_est", {u64_t<A>(utilest::task_util_est<V, A>(p)), u64_t<A>(K<A>::task_util_est(&kp))}}};
        };
    }));
    res.compared.push_back("_task_util_est");
    res.compared.push_back("task_util_est");
    auto rq_op = [&](bool enqueue) {
        return [=](const char *fn, std::vector<std::pair<std::string, std::uint64_t>> fixed, utilest::knobs kn, bool) {
            return equiv_case<S, C>(fn, fixed, [=]<class A, class In>(In &in) {
                const auto p0 = declare_task<A>(in, Split);
                utilest::cfs_rq<A> r0{};
                r0.util_est_enqueued = in.template var<typename A::uint>("cfs_rq.util_est", 0, 0xffffffffu);
                return [=]() -> Outs<A> {
                    auto p = p0;
                    auto r = r0;
                    auto kp = task_to_kernel<K<A>>(p);
                    auto kr = rq_to_kernel<K<A>>(r);
                    set_knobs.template operator()<A>(kn);
                    if (enqueue) {
                        utilest::util_est_enqueue<V, A>(r, p, kn);
                        K<A>::util_est_enqueue(&kr, &kp);
                    } else {
                        utilest::util_est_dequeue<V, A>(r, p, typename A::boolean(false), kn);
                        K<A>::util_est_dequeue(&kr, &kp);
                    }
                    Outs<A> out;
                    compare_ue(out, p, kp, r, kr);
                    return out;
                };
            });
        };
    };
    add(both("util_est_enqueue", false, false, rq_op(true)));
    add(both("util_est_dequeue", false, false, rq_op(false)));
    if constexpr (!utilest::has_util_est_update<V>) {
        res.skipped.push_back("util_est_update (only in the oracle)");
        res.skipped.push_back("cfs_se_util_change (only in the oracle)");
    } else {
        add(both("util_est_update", Split, true,
                 [=](const char *fn, std::vector<std::pair<std::string, std::uint64_t>> fixed, utilest::knobs kn,
                     bool sleep) {
                     return equiv_case<S, C>(fn, fixed, [=]<class A, class In>(In &in) {
                         const auto p0 = declare_task<A>(in, Split);
                         auto cap = declare_ulong<A>(in, "capacity");
                         return [=]() -> Outs<A> {
                             auto p = p0;
                             utilest::cfs_rq<A> r{};
                             auto kp = task_to_kernel<K<A>>(p);
                             auto kr = rq_to_kernel<K<A>>(r);
                             set_knobs.template operator()<A>(kn);
                             K<A>::shim_capacity = &cap;
                             utilest::util_est_update<V, A>(r, p, typename A::boolean(sleep), cap, kn);
                             K<A>::util_est_update(&kr, &kp, typename A::boolean(sleep));
                             K<A>::shim_capacity = nullptr;
                             Outs<A> out;
                             compare_ue(out, p, kp, r, kr);
                             return out;
                         };
                     });
                 }));
        add(both("cfs_se_util_change", false, false,
                 [=](const char *fn, std::vector<std::pair<std::string, std::uint64_t>> fixed, utilest::knobs kn, bool) {
                     return equiv_case<S, C>(fn, fixed, [=]<class A, class In>(In &in) {
                         const auto p0 = declare_task<A>(in, Split);
                         return [=]() -> Outs<A> {
                             auto p = p0;
                             auto kp = task_to_kernel<K<A>>(p);
                             set_knobs.template operator()<A>(kn);
                             utilest::cfs_se_util_change<V, A>(p, kn);
                             K<A>::cfs_se_util_change(&kp.se.avg);
                             Outs<A> out;
                             utilest::cfs_rq<A> r{};
                             auto kr = rq_to_kernel<K<A>>(r);
                             compare_ue(out, p, kp, r, kr);
                             return out;
                         };
                     });
                 }));
    }
    if constexpr (utilest::has_within_margin<V> && requires { K<C>::within_margin(0, 0); }) {
        cs.push_back(equiv_case<S, C>("within_margin", {}, [=]<class A, class In>(In &in) {
            using sint = typename A::sint;
            sint value = in.template var<sint>("value", 0, 0xffffffffu);
            sint margin = in.template var<sint>("margin", 0, 0xffffffffu);
            return [=]() -> Outs<A> {
                using u64 = typename A::u64;
                return {{"result",
                         {utilest::within_margin<V, A>(value, margin) ? u64(1) : u64(0),
                          K<A>::within_margin(value, margin) ? u64(1) : u64(0)}}};
            };
        }));
        res.compared.push_back("within_margin");
    }
    res.domain = fmt::format("every {}-bit util_avg, runnable_avg and capacity, every 32-bit util_est word; "
                             "UTIL_EST{} and task_sleep on and off",
                             S::long_bits, Split ? ", UTIL_EST_FASTUP" : "");
    return cs;
}

// ---- idlebal ------------------------------------------------------------

template <class A, class In> idlebal::sched_domain<A> declare_sd(In &in) {
    idlebal::sched_domain<A> sd{};
    sd.max_newidle_lb_cost = in.template var<typename A::u64>("sd.max_newidle_lb_cost", 0, ~std::uint64_t(0));
    sd.last_decay_max_lb_cost = declare_ulong<A>(in, "sd.last_decay_max_lb_cost");
    sd.newidle_call = in.template var<typename A::uint>("sd.newidle_call", 0, 0xffffffffu);
    sd.newidle_success = in.template var<typename A::uint>("sd.newidle_success", 0, 0xffffffffu);
    sd.newidle_ratio = in.template var<typename A::uint>("sd.newidle_ratio", 0, 0xffffffffu);
    return sd;
}

// stats: whether the kernel keeps the success statistics (an upstream
// tree, without the NI_RANDOM backport, has no such counts to compare).
template <class A, class KD>
void compare_sd(Outs<A> &out, const idlebal::sched_domain<A> &r, const KD &k, bool stats = true) {
    using u64 = typename A::u64;
    out.push_back({"sd.max_newidle_lb_cost", {r.max_newidle_lb_cost, k.max_newidle_lb_cost}});
    out.push_back({"sd.last_decay_max_lb_cost", {u64(r.last_decay_max_lb_cost), u64(k.last_decay_max_lb_cost)}});
    if (!stats)
        return;
    out.push_back({"sd.newidle_call", {u64(r.newidle_call), u64(k.newidle_call)}});
    out.push_back({"sd.newidle_success", {u64(r.newidle_success), u64(k.newidle_success)}});
    out.push_back({"sd.newidle_ratio", {u64(r.newidle_ratio), u64(k.newidle_ratio)}});
}

// The configurations of HZ a kernel is built with; each is a case.
inline constexpr int idlebal_hz[] = {100, 250, 300, 1000};

template <class S, class C, idlebal::version V, template <class> class K>
std::vector<EquivCase<S, C>> idlebal_cases(EquivResult &res) {
    std::vector<EquivCase<S, C>> cs;
    const std::uint64_t umax = ~std::uint64_t(0);
    cs.push_back(equiv_case<S, C>("update_avg", {}, [=]<class A, class In>(In &in) {
        using u64 = typename A::u64;
        u64 avg = in.template var<u64>("avg", 0, umax), sample = in.template var<u64>("sample", 0, umax);
        return [=]() -> Outs<A> {
            u64 r = avg, k = avg;
            idlebal::update_avg<V, A>(r, sample);
            K<A>::update_avg(&k, sample);
            return {{"avg", {r, k}}};
        };
    }));
    res.compared.push_back("update_avg");
    if constexpr (!idlebal::has_update_newidle_cost<V>) {
        res.skipped.push_back("update_newidle_cost (only in the oracle: the function first appears in 5.16)");
    } else {
        // The Debian trees' update_newidle_cost() counts successes
        // (update_newidle_stats()); an upstream one has no such argument.
        constexpr bool stats = kernel_has_ni_random<K>;
        if constexpr (stats) {
            cs.push_back(equiv_case<S, C>("update_newidle_stats", {}, [=]<class A, class In>(In &in) {
                const auto sd0 = declare_sd<A>(in);
                auto success = in.template var<typename A::uint>("success", 0, 0xffffffffu);
                return [=]() -> Outs<A> {
                    auto sd = sd0;
                    auto k = sd_to_kernel<typename K<A>::sched_domain>(sd);
                    idlebal::update_newidle_stats<V, A>(sd, success);
                    K<A>::update_newidle_stats(&k, success);
                    Outs<A> out;
                    compare_sd(out, sd, k);
                    return out;
                };
            }));
            res.compared.push_back("update_newidle_stats");
        }
        for (int hz : idlebal_hz)
            cs.push_back(equiv_case<S, C>("update_newidle_cost", {{"HZ", std::uint64_t(hz)}}, [=]<class A, class In>(
                                                                                                   In &in) {
                using u64 = typename A::u64;
                const auto sd0 = declare_sd<A>(in);
                u64 cost = in.template var<u64>("cost", 0, umax);
                auto success = in.template var<typename A::uint>("success", 0, 0xffffffffu);
                auto jiffies = declare_ulong<A>(in, "jiffies");
                return [=]() -> Outs<A> {
                    auto sd = sd0;
                    auto k = sd_to_kernel<typename K<A>::sched_domain>(sd);
                    idlebal::knobs<A> kn{};
                    kn.HZ = hz;
                    bool rr = idlebal::update_newidle_cost<V, A>(sd, cost, success, jiffies, kn);
                    K<A>::shim_jiffies = &jiffies;
                    K<A>::shim_HZ = hz;
                    bool kr;
                    if constexpr (stats)
                        kr = bool(K<A>::update_newidle_cost(&k, cost, success));
                    else
                        kr = bool(K<A>::update_newidle_cost(&k, cost));
                    K<A>::shim_jiffies = nullptr;
                    Outs<A> out{{"result", {u64(rr ? 1 : 0), u64(kr ? 1 : 0)}}};
                    compare_sd(out, sd, k, stats);
                    return out;
                };
            }));
        res.compared.push_back("update_newidle_cost");
        if constexpr (!stats)
            res.skipped.push_back("update_newidle_stats and update_newidle_cost's success counts (only in the "
                                  "reference: the NI_RANDOM backport of Debian's trees, which this tree lacks; its "
                                  "cost, decay stamp and result are compared)");
    }
    res.domain = fmt::format("every 64-bit average, sample and cost, every {}-bit jiffies and decay stamp, every "
                             "32-bit success count; HZ = 100, 250, 300 and 1000",
                             S::long_bits);
    return cs;
}

// ---- wakeaffine ---------------------------------------------------------

// A wake-up with every load, capacity, count and the domain's
// imbalance_pct symbolic; the booleans come from the case (wa_input and
// wa_kernel: proofs/kernel/kernel_state.h).
template <class A, class In>
wa_input<A> declare_wa(In &in, bool this_idle, bool prev_idle, bool sync) {
    using uint = typename A::uint;
    const std::uint64_t uimax = 0xffffffffu;
    wa_input<A> w{};
    auto cpu = [&](wakeaffine::cpu<A> &c, const std::string &n, bool idle) {
        c.weighted_cpuload = declare_ulong<A>(in, n + ".load_avg");
        c.nr_running = in.template var<uint>(n + ".nr_running", 0, uimax);
        c.power = declare_ulong<A>(in, n + ".cpu_capacity");
        c.idle = idle;
    };
    // cfs_load_avg + 1 is task_h_load()'s divisor: an average of ULONG_MAX
    // would make it 0 in both, and the kernel never gets near it.
    const std::uint64_t lmax = A::long_bits == 64 ? ~std::uint64_t(0) : uimax;
    auto task = [&](wakeaffine::task<A> &t, const std::string &n) {
        t.load_avg = declare_ulong<A>(in, n + ".se.avg.load_avg");
        t.cfs_h_load = declare_ulong<A>(in, n + ".cfs_rq.h_load");
        t.cfs_load_avg = in.template var<typename A::ulong>(n + ".cfs_rq.avg.load_avg", 0, lmax - 1);
    };
    cpu(w.e.this_rq, "this_rq", this_idle);
    cpu(w.e.prev_rq, "prev_rq", prev_idle);
    task(w.e.p, "p");
    task(w.e.curr, "current");
    w.k.imbalance_pct = in.template var<uint>("sd.imbalance_pct", 0, uimax);
    w.h_nr_queued = in.template var<uint>("this_rq.cfs.h_nr_queued", 0, uimax);
    w.h_nr_runnable = in.template var<uint>("this_rq.cfs.h_nr_runnable", 0, uimax);
    w.e.sync = sync;
    return w;
}

template <class S, class C, wakeaffine::version V, template <class> class K>
std::vector<EquivCase<S, C>> wakeaffine_cases(EquivResult &res) {
    std::vector<EquivCase<S, C>> cs;
    using P = std::vector<std::pair<std::string, std::uint64_t>>;
    auto flag = [](bool b) { return std::uint64_t(b ? 1 : 0); };
    // A CPU number as the u64 the outputs are compared in.
    auto as_u64 = []<class A, class I>(const I &x) { return typename A::u64(typename A::sint(x)); };

    cs.push_back(equiv_case<S, C>("task_h_load", {}, [=]<class A, class In>(In &in) {
        const wa_input<A> w = declare_wa<A>(in, false, false, false);
        return [=]() -> Outs<A> {
            wa_kernel<K<A>, A> k(w);
            return {{"task_h_load", {typename A::u64(wakeaffine::task_h_load<V, A>(w.e.p)),
                                     typename A::u64(K<A>::task_h_load(&k.p))}}};
        };
    }));
    res.compared.push_back("task_h_load");

    for (int bits = 0; bits < 16; ++bits) {
        const bool this_idle = bits & 1, prev_idle = bits & 2, share = bits & 4, sync = bits & 8;
        P params{{"this_idle", flag(this_idle)}, {"prev_idle", flag(prev_idle)}, {"cpus_share_cache", flag(share)},
                 {"sync", flag(sync)}};
        cs.push_back(equiv_case<S, C>("wake_affine_idle", params, [=]<class A, class In>(In &in) {
            wa_input<A> w = declare_wa<A>(in, this_idle, prev_idle, sync);
            w.k.cpus_share_cache = share;
            return [=]() -> Outs<A> {
                wa_kernel<K<A>, A> k(w);
                int r = wakeaffine::wake_affine_idle<V, A>(w.e, w.k);
                auto kr = K<A>::wake_affine_idle(typename A::sint(w.e.this_cpu), typename A::sint(w.e.prev_cpu),
                                                 typename A::sint(sync ? 1 : 0));
                return {{"target", {as_u64.template operator()<A>(r), as_u64.template operator()<A>(kr)}}};
            };
        }));
    }
    res.compared.push_back("wake_affine_idle");

    for (int bits = 0; bits < 4; ++bits) {
        const bool sync = bits & 1, bias = bits & 2;
        cs.push_back(equiv_case<S, C>("wake_affine_weight", P{{"sync", flag(sync)}, {"WA_BIAS", flag(bias)}},
                                      [=]<class A, class In>(In &in) {
            wa_input<A> w = declare_wa<A>(in, false, false, sync);
            w.k.WA_BIAS = bias;
            return [=]() -> Outs<A> {
                wa_kernel<K<A>, A> k(w);
                int r = wakeaffine::wake_affine_weight<V, A>(w.e, w.k);
                auto kr = K<A>::wake_affine_weight(&k.sd, &k.p, typename A::sint(w.e.this_cpu),
                                                   typename A::sint(w.e.prev_cpu), typename A::sint(sync ? 1 : 0));
                return {{"target", {as_u64.template operator()<A>(r), as_u64.template operator()<A>(kr)}}};
            };
        }));
    }
    res.compared.push_back("wake_affine_weight");

    // The composition: every feature, the two CPUs' idleness and whether
    // they share a cache; the loads stay symbolic.  All of them, so that a
    // wakeaffine proof of the reference carries over to the kernel
    // (proofs/equiv/carry_over.h) whatever case it was run in.
    for (int bits = 0; bits < 128; ++bits) {
        const bool wa_idle = bits & 1, wa_weight = bits & 2, sync = bits & 4, this_idle = bits & 8,
                   prev_idle = bits & 16, bias = bits & 32, share = bits & 64;
        P params{{"WA_IDLE", flag(wa_idle)},  {"WA_WEIGHT", flag(wa_weight)}, {"sync", flag(sync)},
                 {"this_idle", flag(this_idle)}, {"prev_idle", flag(prev_idle)}, {"WA_BIAS", flag(bias)},
                 {"cpus_share_cache", flag(share)}};
        cs.push_back(equiv_case<S, C>("wake_affine", params, [=]<class A, class In>(In &in) {
            wa_input<A> w = declare_wa<A>(in, this_idle, prev_idle, sync);
            w.k.WA_IDLE = wa_idle;
            w.k.WA_WEIGHT = wa_weight;
            w.k.WA_BIAS = bias;
            w.k.cpus_share_cache = share;
            return [=]() -> Outs<A> {
                wa_kernel<K<A>, A> k(w);
                int r = wakeaffine::wake_affine<V, A>(w.e, w.k);
                auto kr = K<A>::wake_affine(&k.sd, &k.p, typename A::sint(w.e.this_cpu),
                                            typename A::sint(w.e.prev_cpu), typename A::sint(sync ? 1 : 0));
                return {{"target", {as_u64.template operator()<A>(r), as_u64.template operator()<A>(kr)}}};
            };
        }));
    }
    res.compared.push_back("wake_affine");
    res.domain = fmt::format("every {}-bit load, capacity and task load (a task's cfs_rq load_avg below "
                             "ULONG_MAX), every 32-bit nr_running, queued count and imbalance_pct; this_cpu 0, "
                             "prev_cpu 1, nr_cpumask_bits 64; idleness, cache sharing, sync and the WA_ features "
                             "as cases",
                             S::long_bits);
    return cs;
}

template <class S, class C, class MakeCases> void run_kernel(EquivResult &res, MakeCases make, unsigned timeout_ms) {
    auto cases = make(res);
    run_equiv_cases<S, C>(res, cases, timeout_ms);
}


// Fills res (oracle and arch set) for variant v against oracle class K,
// whose task keeps util_est as {enqueued, ewma} when Split.
template <template <class> class K, bool Split>
void utilest_with_oracle(EquivResult &res, const Variant &v, unsigned timeout_ms);

template <template <class> class K, bool Split>
void prove_with_oracle(EquivResult &res, const Variant &v, unsigned timeout_ms) {
    bool lp = res.arch == Arch::lp64;
    if (v.family == "pelt") {
        auto ver = static_cast<pelt::version>(v.code);
        auto by = [&]<pelt::version V>() {
            if (lp)
                run_kernel<model::sym_lp64, lp64>(
                    res, [](EquivResult &r) { return pelt_cases<model::sym_lp64, lp64, V, K>(r); }, timeout_ms);
            else
                run_kernel<model::sym_ilp32, ilp32>(
                    res, [](EquivResult &r) { return pelt_cases<model::sym_ilp32, ilp32, V, K>(r); }, timeout_ms);
        };
        switch (ver) {
        case pelt::version::v3_8: return by.template operator()<pelt::version::v3_8>();
        case pelt::version::v4_3: return by.template operator()<pelt::version::v4_3>();
        case pelt::version::v4_12: return by.template operator()<pelt::version::v4_12>();
        case pelt::version::v6_1: return by.template operator()<pelt::version::v6_1>();
        case pelt::version::v6_12: return by.template operator()<pelt::version::v6_12>();
        }
    } else if (v.family == "utilest") {
        if constexpr (K<lp64>::shim_has_util_est)
            return utilest_with_oracle<K, Split>(res, v, timeout_ms);
        else
            throw input_error("oracle " + res.oracle + " holds PELT only (its source lacks util_est): there is no "
                              "util_est code to compare " + v.id + " with");
    } else if (v.family == "idlebal") {
        if constexpr (K<lp64>::shim_has_idlebal) {
            auto by = [&]<idlebal::version V>() {
                if (lp)
                    run_kernel<model::sym_lp64, lp64>(
                        res, [](EquivResult &r) { return idlebal_cases<model::sym_lp64, lp64, V, K>(r); }, timeout_ms);
                else
                    run_kernel<model::sym_ilp32, ilp32>(
                        res, [](EquivResult &r) { return idlebal_cases<model::sym_ilp32, ilp32, V, K>(r); },
                        timeout_ms);
            };
            using iv = idlebal::version;
            switch (static_cast<iv>(v.code)) {
            case iv::v3_11: return by.template operator()<iv::v3_11>();
            case iv::low_1: return by.template operator()<iv::low_1>();
            case iv::low_1_2: return by.template operator()<iv::low_1_2>();
            case iv::low_1_3: return by.template operator()<iv::low_1_3>();
            case iv::v6_1: return by.template operator()<iv::v6_1>();
            case iv::v6_12: return by.template operator()<iv::v6_12>();
            }
        } else {
            throw input_error("oracle " + res.oracle + " lacks the newidle cost helpers (update_avg, "
                              "update_newidle_cost): there is no idle-balance code to compare " + v.id + " with");
        }
    } else if (v.family == "wakeaffine") {
        if constexpr (K<lp64>::shim_has_wakeaffine) {
            if (static_cast<wakeaffine::version>(v.code) != wakeaffine::version::v6_1)
                throw input_error(v.id + " predates the kernel's wake_affine_idle() and wake_affine_weight() "
                                  "(its decision goes through effective_load()): only wakeaffine/v6.1 has "
                                  "the functions " + res.oracle + " holds");
            constexpr auto V = wakeaffine::version::v6_1;
            if (lp)
                run_kernel<model::sym_lp64, lp64>(
                    res, [](EquivResult &r) { return wakeaffine_cases<model::sym_lp64, lp64, V, K>(r); },
                    timeout_ms);
            else
                run_kernel<model::sym_ilp32, ilp32>(
                    res, [](EquivResult &r) { return wakeaffine_cases<model::sym_ilp32, ilp32, V, K>(r); },
                    timeout_ms);
        } else {
            throw input_error("oracle " + res.oracle + " lacks the wake-up placement (wake_affine() and the "
                              "helpers it calls): there is no wake_affine code to compare " + v.id + " with");
        }
    } else {
        throw input_error("oracle " + res.oracle + " holds PELT, util_est, idle-balance and wake_affine "
                          "functions; " + v.id + " is a " + v.family + " variant");
    }
}

// The util_est half of prove_with_oracle(), for oracles that have it.
template <template <class> class K, bool Split>
void utilest_with_oracle(EquivResult &res, const Variant &v, unsigned timeout_ms) {
    bool lp = res.arch == Arch::lp64;
    {
        auto ver = static_cast<utilest::version>(v.code);
        auto by = [&]<utilest::version V>() {
            if (lp)
                run_kernel<model::sym_lp64, lp64>(
                    res, [](EquivResult &r) { return utilest_cases<model::sym_lp64, lp64, V, K, Split>(r); },
                    timeout_ms);
            else
                run_kernel<model::sym_ilp32, ilp32>(
                    res, [](EquivResult &r) { return utilest_cases<model::sym_ilp32, ilp32, V, K, Split>(r); },
                    timeout_ms);
        };
        // The task's util_est layout must match the oracle's: {enqueued,
        // ewma} up to 6.1, one word from 6.12 on.
        using uv = utilest::version;
        if constexpr (Split) {
            switch (ver) {
            case uv::bellasi_v3: return by.template operator()<uv::bellasi_v3>();
            case uv::bellasi_v3_uncond: return by.template operator()<uv::bellasi_v3_uncond>();
            case uv::v6_1: return by.template operator()<uv::v6_1>();
            default: break;
            }
        } else if (ver == uv::v6_12) {
            return by.template operator()<uv::v6_12>();
        }
        throw input_error(v.id + " keeps util_est in another layout than " + res.oracle +
                          " (one word from 6.12 on, {enqueued, ewma} before): the functions do not "
                          "take the same state, so there is nothing to compare");
    }
}

} // namespace sc::proofs::kequiv

namespace sc::proofs {

// The body of a plug-in's entry point (proofs/kernel/oracle_plugin.h): errors
// become return codes, as exceptions must not cross the boundary.
template <template <class> class K, bool Split>
int plugin_equiv(EquivResult *res, const Variant *v, unsigned timeout_ms, std::string *error) {
    return plugin_guarded(error, [&] {
        kequiv::prove_with_oracle<K, Split>(*res, *v, timeout_ms);
        return 0;
    });
}

} // namespace sc::proofs
