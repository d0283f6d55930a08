// The catalogue entry of an idlebal or wakeaffine invariant: the dispatch
// from a registry entry (Variant::code) to the template instance the engine
// (proofs/kprop_engine.h) runs.  Included by one .cpp file per family, so
// that the two families' many instances compile in parallel.
#pragma once
#include <map>
#include <string>

#include <nlohmann/json.hpp>

#include "proofs/kprop_engine.h"

namespace sc::proofs::balance_detail {

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
    static std::vector<CaseInputs> cases(const Variant &v, Arch a) {
        return Fam::with(v, [&]<class I>() { return describe_cases<P, I>(a); });
    }
    static InvariantInfo info(const char *statement) {
        return {P::id, Fam::name, statement, &applies, &prove, &replay, true, &cases};
    }
};


} // namespace sc::proofs::balance_detail
