// The oracle registry and equivalence entry point, and the cpuload cases
// against the seed-000 patch images (oracle/, generated at build time).
// The loop that explores both sides and asks the solver is shared with the
// kernel oracles: proofs/equiv/equiv_engine.h.
#include "proofs/equiv/equiv.h"

#include <chrono>
#include <filesystem>
#include <fmt/format.h>

#include "oracle_gen/seed000.h"
#include "proofs/domain.h"
#include "proofs/engine/engine.h"
#include "proofs/equiv/equiv_engine.h"
#include "proofs/equiv/equiv_kernel.h"
#include "proofs/kernel/oracle_plugin.h"
#include "proofs/invariant.h"
#include "proofs/report/report.h"
#include "ref/cpuload.h"

namespace sc::proofs {

const char *equiv_name(EquivVerdict v) {
    return v == EquivVerdict::EQUIVALENT ? "EQUIVALENT" : v == EquivVerdict::DIFFERENT ? "DIFFERENT" : "UNKNOWN";
}

namespace {

using cpuload::patch_level;

constexpr std::uint64_t pct_lo = 100, pct_hi = 1000;

struct ECase {
    std::string function; // decay_load_missed, __update_cpu_load, source_load/target_load
    int idx = 0;          // decay index, or load type
    std::int64_t pending = -1;
    bool lb_bias = true;
    std::uint64_t pct = 125;
};


template <class A> struct EIn {
    typename A::ulong cpu_load[5];
    typename A::ulong load, n, runnable;
};

template <class A, class In> EIn<A> declare(In &in, const ECase &c, std::uint64_t umax) {
    using ulong = typename A::ulong;
    EIn<A> x{};
    if (c.function == "decay_load_missed") {
        x.load = in.template var<ulong>("load", 0, umax);
        x.n = in.template var<ulong>("missed_updates", 0, umax);
    } else if (c.function == "__update_cpu_load") {
        for (int i = 0; i < 5; i++)
            x.cpu_load[i] = in.template var<ulong>("cpu_load[" + std::to_string(i) + "]", 0, umax);
        x.load = in.template var<ulong>("this_load", 0, umax);
        x.n = c.pending >= 0 ? in.template fixed<ulong>("pending_updates", c.pending)
                             : in.template var<ulong>("pending_updates", 130, umax);
    } else {
        for (int i = 0; i < 5; i++)
            x.cpu_load[i] = in.template var<ulong>("cpu_load[" + std::to_string(i) + "]", 0, umax);
        x.runnable = in.template var<ulong>("runnable_load_avg", 0, umax);
    }
    return x;
}

// Run both sides on the inputs; every output and state field as a pair.
template <template <class> class O, class A, patch_level P> Outs<A> run(const EIn<A> &x, const ECase &c) {
    using ulong = typename A::ulong;
    using u64 = typename A::u64;
    using OA = O<A>;
    Outs<A> out;
    typename OA::rq orq{};
    cpuload::rq<A> r{};
    for (int i = 0; i < 5; i++)
        r.cpu_load[i] = x.cpu_load[i];
    if constexpr (OA::has_load_array) {
        for (int i = 0; i < 5; i++)
            orq.cpu_load[i] = x.cpu_load[i];
    } else {
        orq.cpu_load = x.cpu_load[0];
    }
    // A slot the oracle's runqueue does not have keeps its value.
    auto oslot = [&](int i) -> ulong {
        if constexpr (OA::has_load_array)
            return orq.cpu_load[i];
        else
            return i == 0 ? orq.cpu_load : x.cpu_load[i];
    };
    if (c.function == "decay_load_missed") {
        if constexpr (P <= patch_level::shi_1 && requires { OA::decay_load_missed(ulong(0), ulong(0), 1); })
            out.push_back({"result", {u64(cpuload::decay_load_missed<A>(x.load, x.n, c.idx)),
                                      u64(OA::decay_load_missed(x.load, x.n, c.idx))}});
    } else if (c.function == "__update_cpu_load") {
        cpuload::__update_cpu_load<A, P>(r, x.load, x.n);
        if constexpr (requires { OA::__update_cpu_load(&orq, x.load, x.n); })
            OA::__update_cpu_load(&orq, x.load, x.n);
        else
            OA::__update_cpu_load(&orq, x.load);
        for (int i = 0; i < 5; i++)
            out.push_back({"cpu_load[" + std::to_string(i) + "]", {u64(r.cpu_load[i]), u64(oslot(i))}});
    } else {
        r.cfs.runnable_load_avg = x.runnable;
        orq.cfs.runnable_load_avg = x.runnable;
        OA::shim_rq = &orq;
        OA::shim_feat_LB_BIAS = c.lb_bias;
        ulong os, ot;
        if constexpr (requires { OA::source_load(0, 0); })
            os = OA::source_load(0, c.idx);
        else
            os = OA::source_load(0);
        if constexpr (OA::target_arg == 2)
            ot = OA::target_load(0, c.idx);
        else if constexpr (OA::target_arg == 3)
            ot = OA::target_load(0, static_cast<int>(c.pct));
        else
            ot = OA::target_load(0);
        OA::shim_rq = nullptr;
        out.push_back({"source_load", {u64(cpuload::source_load<A, P>(r, c.idx, c.lb_bias)), u64(os)}});
        out.push_back({"target_load",
                       {u64(cpuload::target_load<A, P>(r, c.idx, typename A::uint(c.pct), c.lb_bias)), u64(ot)}});
    }
    return out;
}

// Does the oracle's list of extracted definitions name this one?
bool has_def(const char *const *list, const char *name) {
    for (; *list; ++list)
        if (std::string(*list) == name)
            return true;
    return false;
}

template <template <class> class O, class S, class C, patch_level P>
void prove(EquivResult &res, const char *const *has, unsigned timeout_ms) {
    const LoadDomain &dom = load_domain(res.arch);
    std::vector<ECase> cases;
    bool ref_decay = P <= patch_level::shi_1, o_decay = has_def(has, "decay_load_missed");
    if (ref_decay && o_decay) {
        res.compared.push_back("decay_load_missed");
        for (int idx = 1; idx < 5; idx++)
            cases.push_back({"decay_load_missed", idx});
    } else if (ref_decay || o_decay) {
        res.skipped.push_back(std::string("decay_load_missed (only in the ") + (ref_decay ? "reference)" : "oracle)"));
    }
    if (has_def(has, "__update_cpu_load")) {
        res.compared.push_back("__update_cpu_load");
        for (std::int64_t p = 1; p < 130; p++)
            cases.push_back({"__update_cpu_load", 0, p});
        cases.push_back({"__update_cpu_load", 0, -1});
    }
    if (has_def(has, "source_load") && has_def(has, "target_load")) {
        res.compared.push_back("source_load");
        res.compared.push_back("target_load");
        bool types = P <= patch_level::shi_1 || requires { O<C>::source_load(0, 0); } || O<C>::target_arg == 2;
        bool pcts = P >= patch_level::shi_1_5 || O<C>::target_arg == 3;
        for (int bias = 0; bias < 2; bias++)
            for (int t = 0; t < (types ? 5 : 1); t++)
                for (std::uint64_t pct = pcts ? pct_lo : 125; pct <= (pcts ? pct_hi : 125); pct++)
                    cases.push_back({"source_load/target_load", t, -1, bias != 0, pct});
    }
    res.domain = fmt::format("all {}-bit values of every load and cpu_load[] input; pending_updates >= 1; "
                             "imbalance_pct {}..{}; load types 0..4; LB_BIAS on and off",
                             S::long_bits, pct_lo, pct_hi);
    if (res.compared.empty()) {
        res.verdict = EquivVerdict::UNKNOWN;
        res.reason = "the oracle and the variant have no function in common";
        return;
    }

    std::vector<EquivCase<S, C>> ecs;
    for (const ECase &c : cases) {
        std::vector<std::pair<std::string, std::uint64_t>> fixed;
        if (c.function == "decay_load_missed")
            fixed = {{"idx", static_cast<std::uint64_t>(c.idx)}};
        if (c.function == "source_load/target_load")
            fixed = {{"type", static_cast<std::uint64_t>(c.idx)}, {"LB_BIAS", c.lb_bias}, {"imbalance_pct", c.pct}};
        // No loop depends on a symbolic value except in the decay: explore
        // the rest lazily (every path is followed by a query anyway).
        bool lazy = c.function == "source_load/target_load" || (c.function == "__update_cpu_load" && c.pending >= 0);
        const std::uint64_t umax = dom.ulong_max;
        ecs.push_back(equiv_case<S, C>(
            c.function, fixed,
            [c, umax]<class A, class In>(In &in) {
                EIn<A> x = declare<A>(in, c, umax);
                return [x, c]() { return run<O, A, P>(x, c); };
            },
            lazy));
    }
    run_equiv_cases<S, C>(res, ecs, timeout_ms);
}

} // namespace

std::vector<std::string> definition_list(const char *const *names) {
    std::vector<std::string> v;
    for (; *names; ++names)
        v.push_back(*names);
    return v;
}

std::vector<OracleInfo> oracles() {
    std::vector<OracleInfo> out;
#if SC_SEED000
    std::string src = oracle_gen::seed000_source;
    out.push_back({"seed000-pre", "pre-image of the series in " + src, true, "", definition_list(oracle_gen::seed000_pre_has),
                   "cpuload/v3.13", false, {}});
    out.push_back({"seed000-post3", "after patches 1-3 of " + src, true, "", definition_list(oracle_gen::seed000_post3_has),
                   "cpuload/shi-1-3", false, {}});
    out.push_back({"seed000-post5", "after all patches of " + src, true, "", definition_list(oracle_gen::seed000_post5_has),
                   "cpuload/shi-1-5", false, {}});
#else
    for (const char *id : {"seed000-pre", "seed000-post3", "seed000-post5"})
        out.push_back({id, "seed 000 patch images", false, oracle_gen::seed000_reason, {}, "", false, {}});
#endif
    for (auto &o : kernel_oracles())
        out.push_back(std::move(o));
    return out;
}

EquivResult prove_equivalence(const Variant &v, const std::string &oracle, Arch a, unsigned timeout_ms,
                              const std::string &oracle_dir) {
    std::vector<OracleInfo> all = oracles();
    const OracleInfo *info = nullptr;
    std::string ids;
    for (const auto &o : all) {
        ids += (ids.empty() ? "" : ", ") + o.id;
        if (o.id == oracle)
            info = &o;
    }
    if (!info) {
        check_oracle_name(oracle, "--oracle");
        std::string so = (std::filesystem::path(oracle_dir) / (oracle + ".so")).string();
        if (!std::filesystem::exists(so))
            throw input_error("unknown oracle \"" + oracle + "\" (built in: " + ids + "; no plug-in " + so +
                              " either: `schedcheck oracle build` makes one)");
        return prove_with_plugin(so, v, oracle, a, timeout_ms);
    }
    if (!info->available)
        throw input_error("oracle " + oracle + " is not available in this build: " + info->reason);
    EquivResult res;
    res.variant = v.id;
    res.oracle = oracle;
    res.arch = a;
    auto t0 = std::chrono::steady_clock::now();
    if (oracle.rfind("linux-", 0) == 0) {
        prove_kernel_equivalence(res, v, timeout_ms);
        res.seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
        return res;
    }
    if (v.family != "cpuload")
        throw input_error("oracle " + oracle + " holds cpuload functions; " + v.id + " is not a cpuload variant");
#if SC_SEED000
    auto go = [&]<template <class> class O>(const char *const *has) {
        cpuload::with_patch_level(v.level, [&]<patch_level P>() {
            if (a == Arch::lp64)
                prove<O, model::sym_lp64, lp64, P>(res, has, timeout_ms);
            else
                prove<O, model::sym_ilp32, ilp32, P>(res, has, timeout_ms);
            return 0;
        });
    };
    if (oracle == "seed000-pre")
        go.template operator()<oracle_gen::seed000_pre>(oracle_gen::seed000_pre_has);
    else if (oracle == "seed000-post3")
        go.template operator()<oracle_gen::seed000_post3>(oracle_gen::seed000_post3_has);
    else
        go.template operator()<oracle_gen::seed000_post5>(oracle_gen::seed000_post5_has);
#endif
    res.seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
    return res;
}

std::string equiv_text(const EquivResult &r) {
    std::string o = fmt::format("{} vs {} ({}): {}  [{:.2f} s, {} paths, {} queries]\n", r.variant, r.oracle,
                                arch_name(r.arch), equiv_name(r.verdict), r.seconds, r.paths, r.queries);
    std::string fns;
    for (const auto &f : r.compared)
        fns += (fns.empty() ? "" : ", ") + f;
    o += "  compared: " + fns + "\n";
    for (const auto &s : r.skipped)
        o += "  not compared: " + s + "\n";
    o += "  domain:   " + r.domain + "\n";
    if (!r.reason.empty())
        o += "  reason:   " + r.reason + "\n";
    if (r.verdict == EquivVerdict::DIFFERENT) {
        std::vector<EquivDifference> ds = r.differences;
        if (ds.empty())
            ds.push_back({r.function, r.inputs, r.outputs});
        if (ds.size() > 1) {
            std::string fs;
            for (const auto &d : ds)
                fs += (fs.empty() ? "" : ", ") + d.function;
            o += fmt::format("  {} functions differ: {}\n", ds.size(), fs);
        }
        for (const auto &d : ds) {
            o += "  distinguishing input for " + d.function + ", replayed on both sides:\n";
            for (const auto &[k, v] : d.inputs)
                o += fmt::format("    {:<22} = {}\n", k, with_hex(v));
            o += fmt::format("    {:<22}   {:>22}   {:>22}\n", "output", "reference", "oracle");
            for (const auto &[k, v] : d.outputs)
                o += fmt::format("    {:<22}   {:>22}   {:>22}{}\n", k, v.first, v.second,
                                 v.first != v.second ? "   <-" : "");
        }
    }
    return o;
}

nlohmann::json equiv_json(const EquivResult &r) {
    nlohmann::json j = {{"variant", r.variant},   {"oracle", r.oracle},     {"arch", std::string(arch_name(r.arch))},
                        {"verdict", equiv_name(r.verdict)}, {"seconds", r.seconds}, {"paths", r.paths},
                        {"queries", r.queries},   {"domain", r.domain},     {"reason", r.reason},
                        {"compared", r.compared}, {"skipped", r.skipped},   {"distinguishing", nullptr}};
    if (r.verdict == EquivVerdict::DIFFERENT) {
        nlohmann::json in = nlohmann::json::object(), out = nlohmann::json::object();
        for (const auto &[k, v] : r.inputs)
            in[k] = v;
        for (const auto &[k, v] : r.outputs)
            out[k] = {{"reference", v.first}, {"oracle", v.second}};
        j["distinguishing"] = {{"function", r.function}, {"inputs", in}, {"outputs", out}};
        nlohmann::json all = nlohmann::json::array();
        for (const auto &d : r.differences) {
            nlohmann::json di = nlohmann::json::object(), dout = nlohmann::json::object();
            for (const auto &[k, v] : d.inputs)
                di[k] = v;
            for (const auto &[k, v] : d.outputs)
                dout[k] = {{"reference", v.first}, {"oracle", v.second}};
            all.push_back({{"function", d.function}, {"inputs", di}, {"outputs", dout}});
        }
        j["differences"] = all;
    }
    return j;
}

} // namespace sc::proofs
