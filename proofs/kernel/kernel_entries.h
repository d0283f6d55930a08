// The pelt and utilest invariants as one list, and the two things done with
// an invariant P on an implementation I (proofs/kernel/kernel_iface.h): prove it,
// and replay a reproducer of it.  Header-only, so that the same text runs
// in this binary (reference variants, built-in kernel oracles) and in an
// oracle plug-in made at run time by `schedcheck oracle build`, whose
// kernel class exists only there (proofs/kernel/plugin_prove.h).
#pragma once
#include <map>
#include <string>
#include <string_view>
#include <tuple>

#include <nlohmann/json.hpp>

#include "proofs/cfsrq_invariants.h"
#include "proofs/pelt_invariants.h"
#include "proofs/utilest_invariants.h"

namespace sc::proofs::kentry {

// In catalogue order.
using PeltInvariants = std::tuple<pelt_inv::TimeAccounted, pelt_inv::DecayMonotone, pelt_inv::UtilBounded,
                                  pelt_inv::LoadBounded, pelt_inv::SumAvgConsistent, pelt_inv::NoOverflow,
                                  pelt_inv::RunningConverges>;
// The moves between a task and its cfs_rq (proofs/cfsrq_invariants.h).
using PeltCfsRqInvariants = std::tuple<cfsrq_inv::NoUnderflowVisible, cfsrq_inv::CfsRqSumAvgConsistent,
                                       cfsrq_inv::AttachDetachRoundtrip>;
using UtilEstInvariants = std::tuple<utilest_inv::Bounded, utilest_inv::EwmaBetween, utilest_inv::FlagIsolated,
                                     utilest_inv::NoUnderflow, utilest_inv::FilterSound, utilest_inv::NoOverflow>;

// Calls f.template operator()<P>() for the invariant of Tuple named id;
// false when Tuple has none.
template <class Tuple, class F> bool with_invariant(std::string_view id, F &&f) {
    return [&]<std::size_t... k>(std::index_sequence<k...>) {
        bool found = false;
        ((!found && std::tuple_element_t<k, Tuple>::id == id
              ? (f.template operator()<std::tuple_element_t<k, Tuple>>(), found = true)
              : false),
         ...);
        return found;
    }(std::make_index_sequence<std::tuple_size_v<Tuple>>());
}

// A state invariant (P::induction) is proved by induction: its cases are
// the base case and the step from every state where it holds (labelled
// "induction step..."), and may include search cases that run traces from
// the initial state.  A step that fails from such a state is not a
// counterexample, as that state need not be reachable: the verdict is
// UNKNOWN, with the failing step attached.  A failing base case or search
// trace starts from the initial state: a real counterexample.
template <class P, class I> ProofResult prove(const Variant &v, Arch a, const ProveOptions &o) {
    std::string dom = P::template domain<I>(a);
    ProofResult r = a == Arch::lp64 ? prove_kprop<P, I, model::sym_lp64, lp64>(v, a, o, dom)
                                    : prove_kprop<P, I, model::sym_ilp32, ilp32>(v, a, o, dom);
    if constexpr (requires { P::induction; })
        if (r.verdict == Verdict::COUNTEREXAMPLE && r.reason.rfind("case induction step", 0) == 0) {
            r.verdict = Verdict::UNKNOWN;
            r.reason = "not inductive: " + r.reason +
                       " breaks it from a state where it holds (attached); that state is not shown reachable";
        }
    // What an invariant derives from its proved cases (a time bound).
    if constexpr (requires { P::template conclude<I>(r); })
        P::template conclude<I>(r);
    return r;
}

// A reproducer's "case" and "inputs", run on I's concrete code.
template <class P, class I> ReplayResult replay(Arch a, const nlohmann::json &doc) {
    return kprop_replay_doc<P, I>(a, doc);
}

} // namespace sc::proofs::kentry
