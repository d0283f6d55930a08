// The catalogue entry of an idlebal or wakeaffine invariant: the dispatch
// from a registry entry (Variant::code) to the template instance the engine
// (proofs/engine/kprop_engine.h) runs.  Included by one .cpp file per family, so
// that the two families' many instances compile in parallel.
#pragma once
#include <map>
#include <string>

#include <nlohmann/json.hpp>

#include "proofs/engine/kprop_engine.h"
#include "proofs/kernel/kernel_invariants.h"

namespace sc::proofs::balance_detail {

// Invariant P on implementation I: the proof, with what P adds to the
// result after it (a bound: template <class I> static void
// finish(ProofResult &)).  Header-only, so that an oracle plug-in runs the
// same text on its own code (proofs/kernel/plugin_prove.h).
template <class P, class I> ProofResult prove_on(const Variant &v, Arch a, const ProveOptions &o) {
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
}

// One catalogue entry: invariant P on family Fam.  An `oracle build`
// plug-in subject runs P inside the plug-in, on its own code, when the
// plug-in carries the family (proofs/kernel/kernel_invariants.h).
template <class P, class Fam> struct Entry {
    static bool applies(const Variant &v) {
        if (is_plugin_subject(v))
            return plugin_applies(v, P::id);
        // A built-in kernel oracle joins the family when the family can run
        // on its code (Fam::on_kernel).
        if (v.family != Fam::name && !(v.family == "kernel" && Fam::on_kernel(v)))
            return false;
        return Fam::with(v, []<class I>() { return P::template applies<I>(); });
    }
    static ProofResult prove(const Variant &v, Arch a, const ProveOptions &o) {
        if (is_plugin_subject(v))
            return plugin_prove(v, P::id, a, o);
        return Fam::with(v, [&]<class I>() { return prove_on<P, I>(v, a, o); });
    }
    static ReplayResult replay(const Variant &v, Arch a, const nlohmann::json &doc) {
        if (is_plugin_subject(v))
            return plugin_replay(v, P::id, a, doc);
        return Fam::with(v, [&]<class I>() { return kprop_replay_doc<P, I>(a, doc); });
    }
    // A plug-in's cases are not listed (its ABI carries no such entry).
    static std::vector<CaseInputs> cases(const Variant &v, Arch a) {
        if (is_plugin_subject(v))
            return {};
        return Fam::with(v, [&]<class I>() { return describe_cases<P, I>(a); });
    }
    static InvariantInfo info(const char *statement) {
        return {P::id, Fam::name, statement, &applies, &prove, &replay, true, &cases};
    }
};

} // namespace sc::proofs::balance_detail
