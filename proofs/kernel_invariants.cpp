// The pelt and utilest invariants in the catalogue, and the subjects they
// run on: every reference variant of the family and the built-in kernel
// oracles (linux-6.1, linux-6.12), through proofs/kernel_iface.h.
#include "proofs/kernel_invariants.h"

#include "oracle_gen/linux_6_1.h"
#include "oracle_gen/linux_6_12.h"
#include "proofs/pelt_invariants.h"
#include "proofs/utilest_invariants.h"

namespace sc::proofs {

const std::vector<Variant> &kernel_subjects() {
    static const std::vector<Variant> s = {
        {"linux-6.1", "kernel",
         "the PELT and util_est functions extracted from Debian's linux-source-6.1 at build time", {}, 0},
        {"linux-6.12", "kernel",
         "the PELT and util_est functions extracted from Debian's linux-source-6.12 at build time", {}, 1},
    };
    return s;
}

const Variant *find_subject(std::string_view id) {
    if (const Variant *v = find_variant(id))
        return v;
    for (const Variant &k : kernel_subjects())
        if (k.id == id)
            return &k;
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
        if (v.family != (Pelt ? "pelt" : "utilest") && !(v.family == "kernel" && kernel_available(v)))
            return false;
        return with(v, []<class I>() { return P::template applies<I>(); });
    }
    static ProofResult prove(const Variant &v, Arch a, const ProveOptions &o) {
        return with(v, [&]<class I>() {
            std::string dom = P::template domain<I>(a);
            return a == Arch::lp64 ? prove_kprop<P, I, model::sym_lp64, lp64>(v, a, o, dom)
                                   : prove_kprop<P, I, model::sym_ilp32, ilp32>(v, a, o, dom);
        });
    }
    static ReplayResult replay(const Variant &v, Arch a, const nlohmann::json &doc) {
        std::string label = doc.value("case", std::string());
        std::map<std::string, std::uint64_t> vals;
        if (doc.contains("inputs") && doc["inputs"].is_object())
            for (auto it = doc["inputs"].begin(); it != doc["inputs"].end(); ++it) {
                if (!it.value().is_number_integer() || (!it.value().is_number_unsigned() && it.value().get<std::int64_t>() < 0))
                    throw input_error("inputs." + it.key().substr(0, 64) + ": expected an unsigned integer");
                vals[it.key()] = it.value().get<std::uint64_t>();
            }
        return with(v, [&]<class I>() {
            for (const KCase &c : P::template cases<I>(a))
                if (c.label == label) {
                    try {
                        return a == Arch::lp64 ? kprop_replay<P, I, lp64>(c, vals) : kprop_replay<P, I, ilp32>(c, vals);
                    } catch (const domain_violation &e) {
                        throw input_error(std::string("inputs: ") + e.what());
                    }
                }
            throw input_error("case: \"" + label.substr(0, 80) + "\" is not a case of " + P::id);
        });
    }
    static InvariantInfo info(const char *statement) {
        return {P::id, Pelt ? "pelt" : "utilest", statement, &applies, &prove, &replay};
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
}

} // namespace sc::proofs
