// The equivalence loop shared by every family: both sides run in one
// bit-vector exploration on the same symbolic inputs (exact machine
// arithmetic, wrap included), so a path condition covers the branches of
// both.  Per path the solver is asked for an input where some output or
// state field differs.  A model is replayed on the concrete instantiation
// of both sides and must differ there too, or it is an internal error.
// Where both sides build the very same term for an output (Z3 shares
// structurally equal terms), the two are equal for every input and no
// query is needed: equal code proves itself, and only real divergences
// cost solver time.
#pragma once
#include <functional>
#include <string>
#include <utility>
#include <vector>

#include "proofs/engine/engine.h"
#include "proofs/equiv/equiv.h"
#include "proofs/engine/inputs.h"
#include "proofs/invariant.h"

namespace sc::proofs {

// Every compared value as a 64-bit word: (reference, oracle).  Widening
// keeps equality exact.
template <class A> using Outs = std::vector<std::pair<std::string, std::pair<typename A::u64, typename A::u64>>>;

template <class S, class C> struct EquivCase {
    std::string function;
    std::vector<std::pair<std::string, std::uint64_t>> fixed; // the case split, shown with a distinguishing input
    bool lazy = true; // loop-free on symbolic values: no feasibility check per branch
    // Declare the inputs, then give the code that runs both sides on them.
    std::function<std::function<Outs<S>()>(SymInputs &)> sym;
    std::function<std::function<Outs<C>()>(ConcreteInputs &)> concrete;
};

// One generic lambda `[]<class A, class In>(In &in)` that declares the
// inputs and returns a runner `[=]() -> Outs<A>` gives both instantiations
// of a case.
template <class S, class C, class F>
EquivCase<S, C> equiv_case(std::string function, std::vector<std::pair<std::string, std::uint64_t>> fixed, F f,
                           bool lazy = true) {
    return {std::move(function), std::move(fixed), lazy,
            [f](SymInputs &in) { return f.template operator()<S>(in); },
            [f](ConcreteInputs &in) { return f.template operator()<C>(in); }};
}

template <class S, class C>
void run_equiv_cases(EquivResult &res, const std::vector<EquivCase<S, C>> &cases, unsigned timeout_ms) {
    z3::context ctx;
    model::Explorer ex(ctx, model::Encoding::bitvector, timeout_ms);
    z3::solver s(ctx);
    z3::params prm(ctx);
    prm.set("timeout", timeout_ms);
    s.set(prm);
    for (const auto &c : cases) {
        bool known = false; // this function already differs (another case of it)
        for (const auto &d : res.differences)
            known |= d.function == c.function;
        if (known)
            continue;
        ex.begin_case();
        s.push();
        SymInputs in(ex);
        ex.set_lazy(c.lazy);
        auto runner = c.sym(in);
        auto paths = ex.explore(runner);
        for (const auto &d : ex.domain())
            s.add(d);
        res.paths += paths.size();
        if (ex.path_limit_hit()) {
            res.verdict = EquivVerdict::UNKNOWN;
            res.reason = "path limit reached in " + c.function;
            return;
        }
        for (const auto &pa : paths) {
            z3::expr_vector diff(ctx);
            for (const auto &o : pa.value) {
                // Both sides often build the very same term: nothing to ask.
                if (o.second.first.e.id() == o.second.second.e.id())
                    continue;
                z3::expr d = (o.second.first.e != o.second.second.e).simplify();
                if (!d.is_false())
                    diff.push_back(d);
            }
            if (diff.empty())
                continue;
            s.push();
            s.add(pa.pc);
            s.add(z3::mk_or(diff));
            ++res.queries;
            z3::check_result r = s.check();
            if (r == z3::unknown) {
                res.verdict = EquivVerdict::UNKNOWN;
                res.reason = c.function + ": " + s.reason_unknown();
                return;
            }
            if (r == z3::sat) {
                auto named = model_inputs(in, s.get_model());
                ConcreteInputs cin(std::map<std::string, std::uint64_t>(named.begin(), named.end()));
                Outs<C> co = c.concrete(cin)();
                bool differs = false;
                for (const auto &o : co)
                    differs |= o.second.first != o.second.second;
                if (!differs)
                    throw internal_error("distinguishing input for " + c.function + " (" + res.variant + " vs " +
                                         res.oracle + ") gives equal outputs on the concrete sides");
                // One distinguishing input per function; the other
                // functions are still compared, so every difference shows.
                EquivDifference d{c.function, named, {}};
                d.inputs.insert(d.inputs.end(), c.fixed.begin(), c.fixed.end());
                for (const auto &o : co)
                    d.outputs.push_back({o.first, {o.second.first, o.second.second}});
                if (res.differences.empty()) {
                    res.function = d.function;
                    res.inputs = d.inputs;
                    res.outputs = d.outputs;
                }
                res.differences.push_back(std::move(d));
                s.pop();
                break;
            }
            s.pop();
        }
        s.pop();
        ex.end_case();
    }
    res.verdict = res.differences.empty() ? EquivVerdict::EQUIVALENT : EquivVerdict::DIFFERENT;
}

} // namespace sc::proofs
