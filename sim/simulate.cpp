#include "sim/simulate.h"

#include <algorithm>
#include <filesystem>

#include <fmt/format.h>

#include "oracle_gen/linux_6_1.h"
#include "oracle_gen/linux_6_12.h"
#include "proofs/report/input_file.h"
#include "proofs/invariant.h"
#include "proofs/kernel/oracle_plugin.h"
#include "ref/pelt.h"
#include "ref/util_est.h"
#include "ref/variants.h"
#include "sim/run_model.h"

namespace sc::sim {

using proofs::input_error;

const std::vector<Field> &row_fields() {
    static const std::vector<Field> f = {
        {"load_avg", &Row::load_avg},
        {"runnable_avg", &Row::runnable_avg},
        {"util_avg", &Row::util_avg},
        {"load_sum", &Row::load_sum},
        {"runnable_sum", &Row::runnable_sum},
        {"util_sum", &Row::util_sum},
        {"period_contrib", &Row::period_contrib},
        {"last_update_time", &Row::last_update_time},
        {"util_est_enqueued", &Row::ue_enqueued},
        {"util_est_ewma", &Row::ue_ewma},
        {"rq_util_est", &Row::rq_util_est},
    };
    return f;
}

namespace {

std::vector<std::string> oracle_ids() {
    std::vector<std::string> v;
#if SC_ORACLE_LINUX_6_1
    v.push_back("linux-6.1");
#endif
#if SC_ORACLE_LINUX_6_12
    v.push_back("linux-6.12");
#endif
    return v;
}

} // namespace

std::string known_impls() {
    std::string s = "--variant takes a pelt/ or utilest/ variant id (pelt/v3.8, pelt/v4.3, pelt/v4.12, pelt/v6.1, "
                    "pelt/v6.12, utilest/v6.1, ...) or PELT+UTILEST (pelt/v4.12+utilest/bellasi-v3, pelt/v6.1+none); --oracle takes";
    auto o = oracle_ids();
    for (std::size_t i = 0; i < o.size(); ++i)
        s += (i ? ", " : " ") + o[i];
    return s + (o.empty() ? "" : ",") + " or the name of an oracle `oracle build` made (with --oracle-dir)";
}

Impl parse_impl(const std::string &spec, bool oracle, const std::string &oracle_dir) {
    Impl im;
    im.spec = spec;
    im.oracle = oracle;
    if (oracle) {
        auto o = oracle_ids();
        im.pelt = im.utilest = spec;
        if (std::find(o.begin(), o.end(), spec) != o.end()) {
            im.label = spec + " (kernel PELT and util_est)";
            return im;
        }
        // One `oracle build` made: its plug-in, checked against its manifest
        // before it is loaded (an unknown name says what to build).
        proofs::check_oracle_name(spec, "--oracle");
        im.plugin = (std::filesystem::path(oracle_dir) / (spec + ".so")).string();
        proofs::load_plugin(im.plugin, spec);
        im.label = spec + " (kernel code built by `oracle build`, " + im.plugin + ")";
        return im;
    }
    std::string p = spec, u;
    if (auto plus = spec.find('+'); plus != std::string::npos) {
        p = spec.substr(0, plus);
        u = spec.substr(plus + 1);
        if (u.empty())
            throw input_error("--variant \"" + proofs::excerpt(spec) + "\": nothing after '+'");
    }
    const Variant *pv = find_variant(p);
    if (pv && pv->family == "utilest" && u.empty()) {
        // A util_est variant alone: with the PELT of its release.
        u = p;
        p = pv->id == "utilest/v6.12" ? "pelt/v6.12" : pv->id == "utilest/v6.1" ? "pelt/v6.1" : "pelt/v4.12";
        pv = find_variant(p);
    } else if (pv && pv->family == "pelt" && u.empty() && spec.find('+') == std::string::npos) {
        // The release's own util_est; none before 4.17, which added it.
        if (pv->id == "pelt/v6.1")
            u = "utilest/v6.1";
        else if (pv->id == "pelt/v6.12")
            u = "utilest/v6.12";
    }
    if (!pv || pv->family != "pelt")
        throw input_error("--variant: \"" + proofs::excerpt(spec) + "\" is not a PELT or util_est variant (" +
                          known_impls() + ")");
    if (u == "none")
        u.clear(); // PELT alone
    else if (!u.empty()) {
        const Variant *uv = find_variant(u);
        if (!uv || uv->family != "utilest")
            throw input_error("--variant \"" + proofs::excerpt(spec) + "\": \"" + proofs::excerpt(u) +
                              "\" is not a util_est variant (see `schedcheck variants`)");
        if (pv->code < int(pelt::version::v4_12))
            throw input_error("--variant \"" + proofs::excerpt(spec) + "\": util_est needs pelt/v4.12 or later");
    }
    im.pelt = p;
    im.utilest = u;
    im.label = p + (u.empty() ? " (no util_est)" : " + " + u);
    return im;
}

namespace {

// util_est of a reference variant, called through plain function pointers:
// it runs a few times per activation, PELT at every event.
template <class A> struct UeOps {
    void (*enqueue)(utilest::cfs_rq<A> &, utilest::task<A> &);
    void (*dequeue)(utilest::cfs_rq<A> &, utilest::task<A> &, bool sleep);
    void (*update)(utilest::cfs_rq<A> &, utilest::task<A> &, bool sleep, typename A::ulong cap);
    int order; // see Order below
    bool one_word; // 6.12: a single util_est word
    int flag;      // cfs_se_util_change() after each average update: 0 none (bellasi), 1 v6.1, 2 v6.12
};

template <utilest::version V, class A> const UeOps<A> *ue_ops() {
    static const utilest::knobs kn{};
    static const UeOps<A> ops = {
        [](utilest::cfs_rq<A> &rq, utilest::task<A> &p) { utilest::util_est_enqueue<V, A>(rq, p, kn); },
        [](utilest::cfs_rq<A> &rq, utilest::task<A> &p, bool sleep) {
            utilest::util_est_dequeue<V, A>(rq, p, sleep, kn);
        },
        [](utilest::cfs_rq<A> &rq, utilest::task<A> &p, bool sleep, typename A::ulong cap) {
            if constexpr (utilest::has_util_est_update<V>)
                utilest::util_est_update<V, A>(rq, p, sleep, cap, kn);
        },
        utilest::is_bellasi<V> ? sample_in_dequeue_after : V == utilest::version::v6_12 ? sample_before : sample_after,
        V == utilest::version::v6_12,
        V == utilest::version::v6_1 ? 1 : V == utilest::version::v6_12 ? 2 : 0,
    };
    return &ops;
}

template <class A> const UeOps<A> *ue_ops_for(const std::string &id) {
    if (id.empty())
        return nullptr;
    using uv = utilest::version;
    switch (static_cast<uv>(find_variant(id)->code)) {
    case uv::bellasi_v3: return ue_ops<uv::bellasi_v3, A>();
    case uv::bellasi_v3_uncond: return ue_ops<uv::bellasi_v3_uncond, A>();
    case uv::v6_1: return ue_ops<uv::v6_1, A>();
    case uv::v6_12: return ue_ops<uv::v6_12, A>();
    }
    return nullptr;
}

// A reference variant: the PELT of version PV and, optionally, util_est.
// UE >= 0: util_est is that utilest::version, called directly (a release's
// own pair, pelt/v6.x with utilest/v6.x, the common case: 43.5 -> 46.0
// million updates/s in `schedcheck_bench simulate`); UE < 0: through the
// function pointers of `ue` (any pairing).
template <pelt::version PV, class A, int UE = -1> struct RefModel {
    using ulong = typename A::ulong;
    struct TaskState {
        pelt::sched_avg<A> sa;
        utilest::task<A> ue;
    };
    using Rq = utilest::cfs_rq<A>;
    static constexpr bool six = PV >= pelt::version::v6_1;
    const UeOps<A> *ue = nullptr;
    int ue_flag = 0; // ue->flag; only read when UE < 0
    static constexpr auto UV = static_cast<utilest::version>(UE);
    utilest::knobs kn{};

    bool has_ue() const { return ue != nullptr; }
    int order() const { return ue->order; }

    __attribute__((always_inline)) int update(TaskState &s, std::uint64_t now, ulong load, ulong runnable,
                                              int running, ulong weight) {
        int r = pelt::update_load_avg<PV, A>(now, s.sa, load, runnable, running, weight);
        // cfs_se_util_change() runs after every average update: called
        // directly (it is a bit test), not through a pointer; with UE fixed
        // the version is known here and only 6.x has the flag.
        if constexpr (UE >= 0) {
            if constexpr (UV == utilest::version::v6_1 || UV == utilest::version::v6_12)
                if (r)
                    utilest::cfs_se_util_change<UV, A>(s.ue, kn);
        } else if (r && ue_flag == 1) {
            utilest::cfs_se_util_change<utilest::version::v6_1, A>(s.ue, kn);
        } else if (r && ue_flag == 2) {
            utilest::cfs_se_util_change<utilest::version::v6_12, A>(s.ue, kn);
        }
        return r;
    }
    void sync(TaskState &s) {
        if constexpr (PV == pelt::version::v3_8) {
            s.ue.util_avg = 0;
        } else {
            s.ue.util_avg = s.sa.util_avg;
            s.ue.runnable_avg = s.sa.runnable_avg;
        }
    }
    void ue_enqueue(Rq &rq, TaskState &s) {
        sync(s);
        if constexpr (UE >= 0)
            utilest::util_est_enqueue<UV, A>(rq, s.ue, kn);
        else
            ue->enqueue(rq, s.ue);
    }
    void ue_dequeue(Rq &rq, TaskState &s, bool sleep) {
        sync(s);
        if constexpr (UE >= 0)
            utilest::util_est_dequeue<UV, A>(rq, s.ue, sleep, kn);
        else
            ue->dequeue(rq, s.ue, sleep);
    }
    void ue_update(Rq &rq, TaskState &s, ulong cap) {
        sync(s);
        if constexpr (UE >= 0)
            utilest::util_est_update<UV, A>(rq, s.ue, true, cap, kn);
        else
            ue->update(rq, s.ue, true, cap);
    }
    void reweight(TaskState &s, ulong weight) {
        if constexpr (six) {
            typename A::uint divider = pelt::PELT_MIN_DIVIDER + s.sa.period_contrib;
            s.sa.load_avg = ulong(sc::div_u64(std::uint64_t(weight) * s.sa.load_sum, divider));
        }
    }
    void rebase(TaskState &s, std::uint64_t lut) { s.sa.last_update_time = lut; }
    std::uint64_t lut(const TaskState &s) const { return s.sa.last_update_time; }
    void begin(TaskState &s, std::uint64_t now, bool saturated, ulong weight) {
        s.sa.last_update_time = now;
        if (saturated) {
            if constexpr (six)
                saturate(s.sa, weight);
            else
                throw input_error("a saturated start needs the 6.x PELT (pelt/v6.1, pelt/v6.12 or an oracle)");
        }
    }
    void fill(Row &r, const TaskState &s, const Rq &rq) const {
        const auto &a = s.sa;
        if constexpr (PV == pelt::version::v3_8) {
            // v3.8 keeps other fields: its contrib stands in load_avg, its
            // runnable and period series in load_sum and runnable_sum; it
            // has no utilization signal.
            r.load_avg = a.load_avg_contrib;
            r.runnable_avg = none;
            r.util_avg = none;
            r.load_sum = a.runnable_avg_sum;
            r.runnable_sum = a.runnable_avg_period;
            r.util_sum = none;
            r.period_contrib = a.runnable_avg_period % 1024;
        } else {
            r.load_avg = a.load_avg;
            r.runnable_avg = six ? std::uint64_t(a.runnable_avg) : none; // no runnable signal before 6.x
            r.util_avg = a.util_avg;
            r.load_sum = a.load_sum;
            r.runnable_sum = six ? std::uint64_t(a.runnable_sum) : none;
            r.util_sum = a.util_sum;
            r.period_contrib = a.period_contrib;
        }
        r.last_update_time = a.last_update_time;
        if (ue) {
            if (ue->one_word) {
                r.ue_enqueued = none;
                r.ue_ewma = s.ue.ewma & ~utilest::UTIL_AVG_UNCHANGED;
            } else {
                r.ue_enqueued = s.ue.enqueued & ~utilest::UTIL_AVG_UNCHANGED;
                r.ue_ewma = s.ue.ewma;
            }
            r.rq_util_est = rq.util_est_enqueued;
        } else {
            r.ue_enqueued = r.ue_ewma = r.rq_util_est = none;
        }
    }
};

template <class A> Result simulate_on(const Workload &wl, const Impl &impl, bool record, Start start) {
    if (!impl.plugin.empty()) {
        const proofs::Plugin &pl = proofs::load_plugin(impl.plugin, impl.spec);
        Result r;
        std::string error;
        int rc = pl.simulate(&wl, &impl, A::arch, record, static_cast<int>(start), &r, &error);
        if (rc == 2)
            throw input_error(impl.spec + ": " + error);
        if (rc != 0)
            throw proofs::internal_error("oracle plug-in " + impl.plugin + ": " + error);
        return r;
    }
    if (impl.oracle) {
#if SC_ORACLE_LINUX_6_1
        if (impl.pelt == "linux-6.1") {
            KernelModel<oracle_gen::linux_6_1::kernel, A> m;
            return run_any<decltype(m), A>(m, wl, impl, record, start);
        }
#endif
#if SC_ORACLE_LINUX_6_12
        if (impl.pelt == "linux-6.12") {
            KernelModel<oracle_gen::linux_6_12::kernel, A> m;
            return run_any<decltype(m), A>(m, wl, impl, record, start);
        }
#endif
        throw input_error("--oracle " + impl.spec + ": not built into this binary");
    }
    using pv = pelt::version;
    const UeOps<A> *ue = ue_ops_for<A>(impl.utilest);
    auto go = [&]<pv V>() {
        auto run = [&]<int UE>() {
            RefModel<V, A, UE> m;
            m.ue = ue;
            m.ue_flag = ue ? ue->flag : 0;
            return run_any<RefModel<V, A, UE>, A>(m, wl, impl, record, start);
        };
        // A release's own util_est: called directly.
        if constexpr (V == pv::v6_1) {
            if (impl.utilest == "utilest/v6.1")
                return run.template operator()<static_cast<int>(utilest::version::v6_1)>();
        } else if constexpr (V == pv::v6_12) {
            if (impl.utilest == "utilest/v6.12")
                return run.template operator()<static_cast<int>(utilest::version::v6_12)>();
        }
        return run.template operator()<-1>();
    };
    switch (static_cast<pv>(find_variant(impl.pelt)->code)) {
    case pv::v3_8: return go.template operator()<pv::v3_8>();
    case pv::v4_3: return go.template operator()<pv::v4_3>();
    case pv::v4_12: return go.template operator()<pv::v4_12>();
    case pv::v6_1: return go.template operator()<pv::v6_1>();
    case pv::v6_12: return go.template operator()<pv::v6_12>();
    }
    throw proofs::internal_error("unknown PELT version of " + impl.pelt);
}

} // namespace

Result simulate(const Workload &wl, const Impl &impl, Arch arch, bool record, Start start) {
    return arch == Arch::lp64 ? simulate_on<lp64>(wl, impl, record, start)
                              : simulate_on<ilp32>(wl, impl, record, start);
}

std::vector<Row> resample(const std::vector<Row> &rows, std::size_t ntasks, std::uint64_t step, std::uint64_t end) {
    std::vector<Row> out;
    std::vector<const Row *> cur(ntasks, nullptr);
    std::size_t i = 0;
    // From the multiple of step at or before the first row (a trace starts
    // late), so no empty samples are walked through.
    std::uint64_t first = rows.empty() ? 0 : rows.front().t / step * step;
    // Counted before they are made: a step of 1 ns over a long workload
    // would otherwise fill the memory.
    const std::uint64_t times = end > first ? (end - first) / step + 1 : 1;
    if (times > max_rows / std::max<std::size_t>(ntasks, 1))
        throw proofs::input_error(fmt::format("--every: {} sample times of {} task(s) are more than the {} rows "
                                              "simulate holds; choose a longer step",
                                              times, ntasks, max_rows));
    for (std::uint64_t t = first;; t += step) {
        while (i < rows.size() && rows[i].t <= t) {
            cur[rows[i].task] = &rows[i];
            ++i;
        }
        for (std::size_t k = 0; k < ntasks; ++k)
            if (cur[k]) {
                Row r = *cur[k];
                r.t = t;
                out.push_back(r);
            }
        if (t >= end || end - t < step)
            break;
    }
    return out;
}

Difference compare(const std::vector<Row> &a, const std::vector<Row> &b) {
    Difference d;
    const auto &fs = row_fields();
    std::vector<std::uint64_t> mx(fs.size(), 0);
    std::size_t n = std::min(a.size(), b.size());
    for (std::size_t i = 0; i < n; ++i)
        for (std::size_t f = 0; f < fs.size(); ++f) {
            std::uint64_t x = a[i].*fs[f].member, y = b[i].*fs[f].member;
            if (x == y || x == none || y == none)
                continue;
            if (!d.differ) {
                d.differ = true;
                d.first_t = a[i].t;
                d.first_task = a[i].task;
                d.first_field = fs[f].name;
                d.first_a = x;
                d.first_b = y;
            }
            mx[f] = std::max(mx[f], x > y ? x - y : y - x);
        }
    for (std::size_t f = 0; f < fs.size(); ++f)
        if (mx[f])
            d.max_abs.push_back({fs[f].name, mx[f]});
    return d;
}

} // namespace sc::sim
