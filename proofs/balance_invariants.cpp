// The idlebal and wakeaffine invariants in the catalogue, and the dispatch
// from a registry entry (Variant::code) to the template instance the engine
// (proofs/kprop_engine.h) runs.
#include "proofs/balance_invariants.h"

#include <fmt/format.h>

#include "proofs/idlebal_invariants.h"
#include "proofs/wakeaffine_invariants.h"

namespace sc::proofs {

namespace {

// Calls f.template operator()<I>() with the implementation behind v.
template <class F> auto with_idlebal(const Variant &v, F &&f) {
    using iv = idlebal::version;
    using idlebal_inv::RefIdleBal;
    if (v.family == "idlebal") {
        switch (static_cast<iv>(v.code)) {
        case iv::v3_11: return f.template operator()<RefIdleBal<iv::v3_11>>();
        case iv::low_1: return f.template operator()<RefIdleBal<iv::low_1>>();
        case iv::low_1_2: return f.template operator()<RefIdleBal<iv::low_1_2>>();
        case iv::low_1_3: return f.template operator()<RefIdleBal<iv::low_1_3>>();
        case iv::v6_1: return f.template operator()<RefIdleBal<iv::v6_1>>();
        case iv::v6_12: return f.template operator()<RefIdleBal<iv::v6_12>>();
        }
    }
    throw input_error(v.id + " has no idle-balance functions");
}

template <class F> auto with_wakeaffine(const Variant &v, F &&f) {
    using wv = wakeaffine::version;
    using wakeaffine_inv::RefWakeAffine;
    if (v.family == "wakeaffine") {
        switch (static_cast<wv>(v.code)) {
        case wv::v2_6_37: return f.template operator()<RefWakeAffine<wv::v2_6_37>>();
        case wv::pjt_1: return f.template operator()<RefWakeAffine<wv::pjt_1>>();
        case wv::pjt_1_3: return f.template operator()<RefWakeAffine<wv::pjt_1_3>>();
        case wv::v3_13: return f.template operator()<RefWakeAffine<wv::v3_13>>();
        case wv::v6_1: return f.template operator()<RefWakeAffine<wv::v6_1>>();
        }
    }
    throw input_error(v.id + " has no wake_affine functions");
}

struct WakeAffineFamily {
    static constexpr const char *name = "wakeaffine";
    template <class F> static auto with(const Variant &v, F &&f) { return with_wakeaffine(v, std::forward<F>(f)); }
};

struct IdleBalFamily {
    static constexpr const char *name = "idlebal";
    template <class F> static auto with(const Variant &v, F &&f) { return with_idlebal(v, std::forward<F>(f)); }
};

// One catalogue entry: invariant P on family Fam.  P may add to the
// result after the proof (a bound): template <class I> static void
// finish(ProofResult &).
template <class P, class Fam> struct Entry {
    static bool applies(const Variant &v) {
        if (v.family != Fam::name)
            return false;
        return Fam::with(v, []<class I>() { return P::template applies<I>(); });
    }
    static ProofResult prove(const Variant &v, Arch a, const ProveOptions &o) {
        return Fam::with(v, [&]<class I>() {
            std::string dom = P::template domain<I>(a);
            ProofResult r;
            if constexpr (requires { P::custom_prove; })
                r = a == Arch::lp64 ? P::template prove_custom<I, model::sym_lp64, lp64>(v, a, o, dom)
                                    : P::template prove_custom<I, model::sym_ilp32, ilp32>(v, a, o, dom);
            else
                r = a == Arch::lp64 ? prove_kprop<P, I, model::sym_lp64, lp64>(v, a, o, dom)
                                    : prove_kprop<P, I, model::sym_ilp32, ilp32>(v, a, o, dom);
            if constexpr (requires { P::template finish<I>(r); })
                P::template finish<I>(r);
            return r;
        });
    }
    static ReplayResult replay(const Variant &v, Arch a, const nlohmann::json &doc) {
        std::string label = doc.value("case", std::string());
        std::map<std::string, std::uint64_t> vals;
        if (doc.contains("inputs") && doc["inputs"].is_object())
            for (auto it = doc["inputs"].begin(); it != doc["inputs"].end(); ++it) {
                if (!it.value().is_number_integer() ||
                    (!it.value().is_number_unsigned() && it.value().get<std::int64_t>() < 0))
                    throw input_error("inputs." + it.key().substr(0, 64) + ": expected an unsigned integer");
                vals[it.key()] = it.value().get<std::uint64_t>();
            }
        return Fam::with(v, [&]<class I>() {
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
    static InvariantInfo info(const char *statement) { return {P::id, Fam::name, statement, &applies, &prove, &replay}; }
};

} // namespace

void register_balance_invariants(std::vector<InvariantInfo> &out) {
    using namespace idlebal_inv;
    out.push_back(Entry<AvgIdleCapped, IdleBalFamily>::info(
        "avg_idle never exceeds the cap the wake-up applies (2 * sysctl up to low-1-2, 2 * "
        "rq->max_idle_balance_cost from low-1-3 on), at any point of any trace (induction over one step)"));
    out.push_back(Entry<AvgIdleNoJump, IdleBalFamily>::info(
        "one wake-up sample moves avg_idle towards the sample by at most 1/8 of the difference: 8*|move| <= "
        "|sample - avg_idle|, + 7 ns for a falling sample where update_avg() shifts (>> 3 rounds down)"));
    out.push_back(Entry<CostDecayMonotone, IdleBalFamily>::info(
        "a periodic rebalance never raises a domain's max_newidle_lb_cost and is monotone in it; reports the time "
        "a 2^42 ns cost needs to decay to 0 (ms, HZ 100)"));
    out.push_back(Entry<Recovers, IdleBalFamily>::info(
        "after one expensive newidle balance (<= 2^30 ns), balancing at the lowest domain is allowed again "
        "(whenever avg_idle >= sysctl) within a bounded time; reports it in ms (HZ 100)"));
    out.push_back(Entry<SkipSound, IdleBalFamily>::info(
        "a newidle balance is cut short for cost only when avg_idle is below the cost the variant compares it "
        "with, and goes on whenever it is not (NI_RANDOM dice skips aside)"));
    out.push_back(Entry<idlebal_inv::NoOverflow, IdleBalFamily>::info(
        "no arithmetic of a wake-up, newidle balance or periodic rebalance wraps where the code does not mean it "
        "to (update_avg()'s difference is an exact s64)"));
    using namespace wakeaffine_inv;
    out.push_back(Entry<wakeaffine_inv::NoOverflow, WakeAffineFamily>::info(
        "no arithmetic of the wake_affine() decision wraps where the code does not mean it to, signed or unsigned; "
        "reports the largest safe load"));
    out.push_back(Entry<HotNotMoved, WakeAffineFamily>::info(
        "with NO_HOT_AFFINE on, a wakee cache-hot on prev_cpu is never pulled to this_cpu"));
    // wakeaffine.effective_load_monotone and wakeaffine.decision_symmetric
    // (proofs/wakeaffine_invariants.h) are not in the catalogue yet: their
    // proofs did not finish within the family's time budget (the symbolic
    // 64-bit divisions of effective_load(), the 2^20 loads of the decision),
    // so they would hold the matrix up.  Register them here once they do:
    //     out.push_back(Entry<EffectiveLoadMonotone, WakeAffineFamily>::info(
    //         "adding more weight to a group's cfs_rq never lowers effective_load() there (one group level)"));
    //     out.push_back(Entry<DecisionSymmetric, WakeAffineFamily>::info(
    //         "swapping the two CPUs' loads changes the decision consistently: pulled to the busier this_cpu implies "
    //         "pulled once it is the lighter; equal loads are one state, decided by the variant's tie rule"));
}

} // namespace sc::proofs
