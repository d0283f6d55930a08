// The pelt and utilest invariants in the catalogue, and the subjects they
// run on: every reference variant of the family and the built-in kernel
// oracles (linux-6.1, linux-6.12), through proofs/kernel/kernel_iface.h.
#include "proofs/kernel/kernel_invariants.h"

#include <deque>
#include <filesystem>
#include <mutex>

#include "oracle_gen/linux_6_1.h"
#include "oracle_gen/linux_6_12.h"
#include "proofs/kernel/kernel_entries.h"
#include "proofs/kernel/oracle_plugin.h"

namespace sc::proofs {

const std::vector<Variant> &kernel_subjects() {
    static const std::vector<Variant> s = {
        {"linux-6.1", "kernel",
         "the PELT, util_est and newidle-cost functions extracted from Debian's linux-source-6.1 at build time", {}, 0},
        {"linux-6.12", "kernel",
         "the PELT, util_est and newidle-cost functions extracted from Debian's linux-source-6.12 at build time", {},
         1},
    };
    return s;
}

namespace {

// Oracles made by `oracle build`, loaded as plug-ins: subjects of family
// "kernel" whose invariants run inside the plug-in, on its own code.
struct PluginSubjects {
    std::mutex mu;
    std::string dir; // where find_subject() looks for an oracle it does not know
    std::deque<Variant> subjects; // stable addresses
    std::map<std::string, const Plugin *> plugin;
};
PluginSubjects &plugin_subjects() {
    static PluginSubjects p;
    return p;
}
const Plugin *plugin_of(const Variant &v) {
    if (v.family != "kernel")
        return nullptr;
    PluginSubjects &ps = plugin_subjects();
    std::lock_guard<std::mutex> g(ps.mu);
    auto it = ps.plugin.find(v.id);
    return it == ps.plugin.end() ? nullptr : it->second;
}

} // namespace

const Variant &add_plugin_subject(const std::string &name, const std::string &oracle_dir) {
    check_oracle_name(name, "--oracle");
    for (const Variant &k : kernel_subjects())
        if (k.id == name)
            return k;
    const Plugin &pl = load_plugin((std::filesystem::path(oracle_dir) / (name + ".so")).string(), name);
    PluginSubjects &ps = plugin_subjects();
    std::lock_guard<std::mutex> g(ps.mu);
    for (const Variant &v : ps.subjects)
        if (v.id == name)
            return v;
    ps.subjects.push_back({name, "kernel",
                           "the PELT, util_est and newidle-cost functions (those its tree has) of oracle " + name +
                               " (plug-in " + pl.path + ", made by `schedcheck oracle build`)",
                           {}, 0});
    ps.plugin[name] = &pl;
    return ps.subjects.back();
}

bool is_plugin_subject(const Variant &v) { return plugin_of(v) != nullptr; }

std::string plugin_release(const Variant &v) {
    const Plugin *pl = plugin_of(v);
    if (!pl)
        return "";
    for (const Variant &k : kernel_subjects()) {
        const std::string rel = k.id.substr(k.id.find('-') + 1); // "6.1"
        if (pl->version == rel || pl->version.rfind(rel + ".", 0) == 0)
            return k.id;
    }
    return "";
}

namespace {
// A plug-in's answer: 0 done, 1 does not apply, 2 bad input, else internal.
void check_plugin_answer(int rc, const char *id, const Plugin &pl, const std::string &error) {
    if (rc == 1)
        throw input_error(std::string(id) + " does not apply to oracle " + pl.oracle);
    if (rc == 2)
        throw input_error(error);
    if (rc != 0)
        throw internal_error(pl.oracle + " plug-in: " + error);
}
const Plugin &plugin_or_throw(const Variant &v) {
    if (const Plugin *pl = plugin_of(v))
        return *pl;
    throw internal_error(v.id + " is not a plug-in subject");
}
} // namespace

bool plugin_applies(const Variant &v, const char *id) { return plugin_or_throw(v).applies(id) == 1; }

ProofResult plugin_prove(const Variant &v, const char *id, Arch a, const ProveOptions &o) {
    const Plugin &pl = plugin_or_throw(v);
    ProofResult r;
    std::string error;
    check_plugin_answer(pl.prove(&r, &v, id, a, &o, &error), id, pl, error);
    return r;
}

ReplayResult plugin_replay(const Variant &v, const char *id, Arch a, const nlohmann::json &doc) {
    const Plugin &pl = plugin_or_throw(v);
    ReplayResult r;
    std::string error;
    check_plugin_answer(pl.replay(&r, id, a, &doc, &error), id, pl, error);
    return r;
}

void set_plugin_dir(const std::string &dir) {
    PluginSubjects &ps = plugin_subjects();
    std::lock_guard<std::mutex> g(ps.mu);
    ps.dir = dir;
}

const Variant *find_subject(std::string_view id) {
    if (const Variant *v = find_variant(id))
        return v;
    for (const Variant &k : kernel_subjects())
        if (k.id == id)
            return &k;
    PluginSubjects &ps = plugin_subjects();
    std::string dir;
    {
        std::lock_guard<std::mutex> g(ps.mu);
        for (const Variant &v : ps.subjects)
            if (v.id == id)
                return &v;
        dir = ps.dir;
    }
    // An oracle `oracle build` made, named by a reproducer: loaded from the
    // plug-in directory the user gave (--oracle-dir).
    const std::string name(id);
    if (!dir.empty() && valid_oracle_name(name) && std::filesystem::exists(std::filesystem::path(dir) / (name + ".so")))
        return &add_plugin_subject(name, dir);
    return nullptr;
}

namespace {

bool kernel_available(const Variant &v) {
#if SC_ORACLE_LINUX_6_1
    if (v.id == "linux-6.1")
        return true;
#endif
#if SC_ORACLE_LINUX_6_12
    if (v.id == "linux-6.12")
        return true;
#endif
    (void)v;
    return false;
}

// Calls f.template operator()<I>() with the PELT implementation of v.
template <class F> auto with_pelt(const Variant &v, F &&f) {
    using pv = pelt::version;
    if (v.family == "pelt") {
        switch (static_cast<pv>(v.code)) {
        case pv::v3_8: return f.template operator()<iface::RefPelt<pv::v3_8>>();
        case pv::v4_3: return f.template operator()<iface::RefPelt<pv::v4_3>>();
        case pv::v4_12: return f.template operator()<iface::RefPelt<pv::v4_12>>();
        case pv::v6_1: return f.template operator()<iface::RefPelt<pv::v6_1>>();
        case pv::v6_12: return f.template operator()<iface::RefPelt<pv::v6_12>>();
        }
    }
#if SC_ORACLE_LINUX_6_1
    if (v.id == "linux-6.1")
        return f.template operator()<iface::KernelPelt<oracle_gen::linux_6_1::kernel>>();
#endif
#if SC_ORACLE_LINUX_6_12
    if (v.id == "linux-6.12")
        return f.template operator()<iface::KernelPelt<oracle_gen::linux_6_12::kernel>>();
#endif
    throw input_error(v.id + " has no PELT functions in this build");
}

template <class F> auto with_utilest(const Variant &v, F &&f) {
    using uv = utilest::version;
    if (v.family == "utilest") {
        switch (static_cast<uv>(v.code)) {
        case uv::bellasi_v3: return f.template operator()<iface::RefUtilEst<uv::bellasi_v3>>();
        case uv::bellasi_v3_uncond: return f.template operator()<iface::RefUtilEst<uv::bellasi_v3_uncond>>();
        case uv::v6_1: return f.template operator()<iface::RefUtilEst<uv::v6_1>>();
        case uv::v6_12: return f.template operator()<iface::RefUtilEst<uv::v6_12>>();
        }
    }
#if SC_ORACLE_LINUX_6_1
    if (v.id == "linux-6.1")
        return f.template operator()<iface::KernelUtilEst<oracle_gen::linux_6_1::kernel, uv::v6_1>>();
#endif
#if SC_ORACLE_LINUX_6_12
    if (v.id == "linux-6.12")
        return f.template operator()<iface::KernelUtilEst<oracle_gen::linux_6_12::kernel, uv::v6_12>>();
#endif
    throw input_error(v.id + " has no util_est functions in this build");
}

template <class P, bool Pelt> struct Entry {
    template <class F> static auto with(const Variant &v, F &&f) {
        if constexpr (Pelt)
            return with_pelt(v, std::forward<F>(f));
        else
            return with_utilest(v, std::forward<F>(f));
    }
    static bool applies(const Variant &v) {
        if (is_plugin_subject(v))
            return plugin_applies(v, P::id);
        if (v.family != (Pelt ? "pelt" : "utilest") && !(v.family == "kernel" && kernel_available(v)))
            return false;
        return with(v, []<class I>() { return P::template applies<I>(); });
    }
    static ProofResult prove(const Variant &v, Arch a, const ProveOptions &o) {
        if (is_plugin_subject(v))
            return plugin_prove(v, P::id, a, o);
        return with(v, [&]<class I>() { return kentry::prove<P, I>(v, a, o); });
    }
    static ReplayResult replay(const Variant &v, Arch a, const nlohmann::json &doc) {
        if (is_plugin_subject(v))
            return plugin_replay(v, P::id, a, doc);
        return with(v, [&]<class I>() { return kentry::replay<P, I>(a, doc); });
    }
    // A plug-in's cases are not listed (its ABI carries no such entry).
    static std::vector<CaseInputs> cases(const Variant &v, Arch a) {
        if (is_plugin_subject(v))
            return {};
        return with(v, [&]<class I>() { return describe_cases<P, I>(a); });
    }
    static InvariantInfo info(const char *statement, bool in_review = true) {
        constexpr bool blind = [] {
            if constexpr (requires { P::shape_blind; })
                return P::shape_blind;
            else
                return false;
        }();
        return {P::id, Pelt ? "pelt" : "utilest", statement, &applies, &prove, &replay, in_review, &cases, blind};
    }
};

} // namespace

void register_kernel_invariants(std::vector<InvariantInfo> &out) {
    using namespace pelt_inv;
    out.push_back(Entry<TimeAccounted, true>::info(
        "after every update, now - last_update_time < 1024 ns and the clock moved by whole 1024 ns units: "
        "no elapsed nanosecond is lost across any sequence of updates"));
    out.push_back(Entry<DecayMonotone, true>::info(
        "decay_load(val, n) is never above val, non-increasing in n and non-decreasing in val (every 64-bit val, n)"));
    out.push_back(Entry<UtilBounded, true>::info(
        "a task's util_avg (and 6.x's runnable_avg) never exceeds 1024 at full capacity: by induction over one "
        "update with a proved bound on the sums, after a search of periodic traces from the zero sched_avg"));
    out.push_back(Entry<LoadBounded, true>::info(
        "a task's load_avg never exceeds its weight: by induction over one update with a proved bound on load_sum, "
        "the sums' half split by the boundaries crossed, after a search of periodic traces from the zero sched_avg",
        // 514 crossing cases per 6.x proof, 16 to 18 s per image and data
        // model: about 70 s of a review's 90.
        false));
    out.push_back(Entry<SumAvgConsistent, true>::info(
        "a non-zero load_avg, runnable_avg or util_avg never sits on a zero *_sum: by induction over one task "
        "update from every state where it holds (with proved bounds on the sums), base case the zero sched_avg, "
        "after a search of traces with a 2^32-period sleep"));
    out.push_back(Entry<pelt_inv::NoOverflow, true>::info(
        "no wrap changes a result: a task update gives the same sched_avg and return value as on every type twice "
        "as wide, each fitting its own type; a search of long sleeps from the zero sched_avg, then induction over "
        "one update (delta < 2^52 - 2^20 ns, every nice weight) with proved bounds on the sums"));
    out.push_back(Entry<RunningConverges, true>::info(
        "a task that keeps running at full capacity has util_avg >= 1022 at every update after a bound T (reported, "
        "in ms) and from then on: one-update lemmas on the deficit of util_sum below the divider's full level, "
        "proved by induction for updates up to 1024 periods (1.05 s) apart, and T derived from them by exact arithmetic, "
        "after a search of periodic traces from the zero sched_avg"));
    using namespace cfsrq_inv;
    out.push_back(Entry<NoUnderflowVisible, true>::info(
        "after any move of a task's PELT sums into or out of its cfs_rq (attach, detach, enqueue, dequeue, removed "
        "load), every cfs_rq average and sum is the exact clamped result: no wrap or 32-bit cut is visible"));
    out.push_back(Entry<CfsRqSumAvgConsistent, true>::info(
        "a non-zero load_avg, runnable_avg or util_avg of a cfs_rq never sits on a zero *_sum after a move: by "
        "induction over one move from every state where it holds, base case the zero cfs_rq"));
    out.push_back(Entry<AttachDetachRoundtrip, true>::info(
        "attach then detach of a task leaves the cfs_rq's averages exact and each sum S within [S, max(S, avg * "
        "PELT_MIN_DIVIDER)]"));
    using namespace utilest_inv;
    out.push_back(Entry<Bounded, false>::info(
        "with util_avg, runnable_avg and capacity <= 1024, estimates <= 1024 stay so at the end of an activation, "
        "and task_util_est() <= 1024"));
    out.push_back(Entry<EwmaBetween, false>::info(
        "the new EWMA lies between the old EWMA and the sample (util_avg), both inclusive"));
    out.push_back(Entry<FlagIsolated, false>::info(
        "the UTIL_AVG_UNCHANGED flag never shows: a zero estimate reads as 0 and adds 0 to the runqueue's sum "
        "(versions with the flag)"));
    out.push_back(Entry<NoUnderflow, false>::info(
        "dequeuing what was enqueued restores the runqueue's util_est sum exactly: it never wraps"));
    out.push_back(Entry<utilest_inv::NoOverflow, false>::info(
        "no wrap changes a result: an enqueue, a dequeue and the end of an activation give the same runqueue sum, "
        "estimate words and reader values as on every type twice as wide, each fitting its own type"));
    out.push_back(Entry<FilterSound, false>::info(
        "when util_est_update() skips an eligible sample because of the margin, the stored EWMA (and 6.1's "
        "enqueued) is within UTIL_EST_MARGIN (10) of it; the other skips are listed in the domain"));
}

} // namespace sc::proofs
