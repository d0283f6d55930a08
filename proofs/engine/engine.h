// The proof engine, generic over an invariant description Inv:
//
//   struct Inv {
//     static constexpr const char *id;
//     static std::vector<Case> cases(patch_level, Arch);
//     template <class A, class In> static scenario<A> build(In &, const BuildCtx &);
//     template <class A> static std::vector<Check<A>> checks(patch_level, const scenario<A> &,
//                                                            const trace<A> &, std::uint64_t bound);
//     // optional: what the solver proves, when it is not checks() itself
//     template <class A> static std::vector<Check<A>> proof_checks(patch_level, const scenario<A> &,
//                                                                  const trace<A> &, const BuildCtx &);
//     static constexpr bool overflow;   // the property is "no obligation fails"
//   };
//
// For each case: build the symbolic scenario, check the domain is
// satisfiable (vacuity), explore the reference's paths, then
//  1. discharge the no-wrap obligations of the integer encoding; if one can
//     fail, the integer terms are not the machine's, so the case is redone
//     in the bit-vector encoding;
//  2. per path, ask for domain /\ pc /\ not(checks): unsat on all paths is
//     PROVED, sat gives a model, unknown is UNKNOWN with its reason;
//  3. ask whether any check's premise is reachable at all (a property whose
//     premise never holds proves nothing: UNKNOWN, "vacuous");
//  4. a model is turned back into named inputs, the scenario is rebuilt from
//     them on concrete words, and replayed: it must violate the invariant,
//     or the tool is wrong (internal_error).
#pragma once
#include <chrono>
#include <cstdio>
#include <functional>
#include <memory>
#include <optional>
#include <map>
#include <set>
#include <string>
#include <vector>

#include "model/explorer.h"
#include "proofs/engine/checks.h"
#include "proofs/domain.h"
#include "proofs/engine/inputs.h"
#include "proofs/invariant.h"
#include "proofs/report/reproducer.h"
#include "ref/cpuload_scenario.h"

namespace sc::proofs {

struct Case {
    std::string label;    // shown in UNKNOWN reasons
    int idx = 0;          // load index / load type
    bool lb_bias = true;
    std::int64_t n = -1;  // a concrete split value, or -1 for the symbolic rest
    int kind = 0;         // invariant-specific sub-scenario
    std::uint64_t from = 1; // the symbolic rest starts here
};

struct BuildCtx {
    const LoadDomain &dom;
    std::uint64_t load_hi; // upper bound used for load-like inputs
    Case c;
    std::uint64_t ulong_max;
};

struct CaseOutcome {
    Verdict verdict = Verdict::PROVED;
    std::string reason;
    std::size_t paths = 0, queries = 0;
    std::optional<Counterexample> cex;
    std::optional<ReplayResult> replay;
    std::uint64_t safe_load = 0; // overflow invariant: largest safe load
    std::string poisoned;        // how the job's solver went wrong (see redo_on_new_solver)
};

inline std::string z3_reason(z3::solver &s) {
    try {
        return s.reason_unknown();
    } catch (...) {
        return "unknown";
    }
}

// A case's domain that a solver called empty is asked again, of a fresh
// solver with Z3's default strategy and the whole timeout, before the
// verdict says "vacuous".  The first answer comes from an incremental
// solver that has been interrupted many times by its short leash, or from
// one of the retries; under heavy load one such answer called a domain
// empty that plain Z3 satisfies at once (pelt.running_converges, 734
// boundaries crossed, on a CI machine).  Returns the fresh answer; a sat
// here means the incremental solver's state went wrong, and the caller
// redoes the proof (redo_on_new_solver).
inline z3::check_result confirm_domain_empty(z3::context &ctx, const z3::expr_vector &domain, unsigned timeout_ms) {
    z3::solver fresh(ctx);
    z3::params p(ctx);
    p.set("timeout", timeout_ms);
    fresh.set(p);
    for (const auto &d : domain)
        fresh.add(d);
    return fresh.check();
}

// An incremental solver that called a satisfiable domain empty, or found
// its empty base unsatisfiable, is in a wrong state, and none of its unsat
// answers can be trusted: the proof is thrown away and done again from the
// start on a new Z3 context.  attempt(no, poisoned) runs attempt `no` (1,
// then 2) and, when a solver went wrong, says how in `poisoned` ("the
// incremental solver called the domain of case X empty"); that attempt's
// result is discarded.  The second attempt's verdict stands and says that
// it is a second attempt; a second wrong solver leaves no verdict.
template <class Attempt>
ProofResult redo_on_new_solver(const std::string &inv, const std::string &subject, Arch arch, Attempt &&attempt) {
    double spent = 0;
    std::string first;
    for (unsigned no = 1;; ++no) {
        std::string poisoned;
        ProofResult r = attempt(no, poisoned);
        r.seconds += spent;
        if (poisoned.empty()) {
            if (!first.empty())
                r.reason += (r.reason.empty() ? "" : "; ") +
                            std::string("done again from the start on new solvers, after ") + first;
            return r;
        }
        spent = r.seconds;
        std::fprintf(stderr, "schedcheck: warning: %s on %s %s: %s; %s\n", inv.c_str(), subject.c_str(),
                     std::string(arch_name(arch)).c_str(), poisoned.c_str(),
                     no == 1 ? "the proof starts again on new solvers" : "again: no verdict");
        if (no == 2) {
            r.verdict = Verdict::UNKNOWN;
            r.reason = "the solvers went wrong twice (first " + first + ", then " + poisoned + "); no verdict";
            r.cex.reset();
            r.bound.reset();
            return r;
        }
        first = poisoned;
    }
}

// A point of a case's domain found without a solver: every input at the
// bottom of its range, then every input at the top.  With the inputs
// replaced by constants, Z3's simplifier evaluates each domain term; when
// every one comes out true the point is a model and the domain is not
// empty.  Most domains hold at one of the two points, and a solver would
// otherwise bit-blast their 64-bit products first (0.1 to 0.5 s for each
// case of idlebal.cost_decay_monotone).  A term the simplifier cannot
// settle (a name that is not an input) leaves the question to the solver.
// A case may name a third point (`hint`: some inputs' values, the others at
// the bottom), for a domain that fixes an input's scale, as a crossing
// case fixes the number of periods in the time delta.
inline bool domain_witness(const SymInputs &in, const z3::expr_vector &domain,
                           const std::map<std::string, std::uint64_t> &hint = {}) {
    z3::context &ctx = domain.ctx();
    for (int point = 0; point < (hint.empty() ? 2 : 3); ++point) {
        z3::expr_vector src(ctx), dst(ctx);
        for (const InputDecl &d : in.decls()) {
            const auto it = in.consts().find(d.name);
            if (d.fixed || it == in.consts().end())
                continue;
            const z3::expr &x = it->second;
            const auto h = point == 2 ? hint.find(d.name) : hint.end();
            const std::uint64_t v = h != hint.end() ? h->second : point == 1 ? d.hi : d.lo;
            src.push_back(x);
            dst.push_back(value_like(x, v));
        }
        bool holds = true;
        for (z3::expr term : domain)
            if (!term.substitute(src, dst).simplify().is_true()) {
                holds = false;
                break;
            }
        if (holds)
            return true;
    }
    return false;
}

template <class S> struct SymArgs;
template <> struct SymArgs<model::sym_ilp32> { static constexpr unsigned bits = 32; };
template <> struct SymArgs<model::sym_lp64> { static constexpr unsigned bits = 64; };

// Values of the named inputs in a model.
inline std::vector<std::pair<std::string, std::uint64_t>> model_inputs(const SymInputs &in, const z3::model &m) {
    std::vector<std::pair<std::string, std::uint64_t>> out;
    for (const InputDecl &d : in.decls()) {
        if (d.fixed) {
            out.emplace_back(d.name, d.lo);
            continue;
        }
        z3::expr v = m.eval(in.consts().at(d.name), true);
        std::uint64_t x = 0;
        if (!v.is_numeral_u64(x))
            throw internal_error("model value of " + d.name + " is not a 64-bit numeral: " + v.to_string());
        out.emplace_back(d.name, x);
    }
    return out;
}

// Before any path is explored, run the concrete reference on a few dozen
// inputs from the corners of the domain.  A violation found this way is
// pinned in the solver (inputs fixed to its values, checked sat against the
// domain) and then reported like any other model, so a counterexample is
// still a model of the domain, replayed on the reference.  Returns whether
// one was found.
template <class Inv, class C, class OnModel>
bool probe_for_counterexample(const SymInputs &in, z3::solver &s, const BuildCtx &bc, const Case &cs,
                              const std::function<ReplayResult(const cpuload::scenario<C> &)> &replay,
                              OnModel &&on_model) {
    std::uint64_t seed = 0x9e3779b97f4a7c15ULL ^ (static_cast<std::uint64_t>(cs.idx) << 8) ^ cs.kind;
    auto next = [&] {
        seed ^= seed << 13;
        seed ^= seed >> 7;
        seed ^= seed << 17;
        return seed;
    };
    // A grid of small values when there are few free inputs (small values
    // are where truncation effects live), then random corners.
    std::vector<const InputDecl *> free;
    for (const InputDecl &d : in.decls())
        if (!d.fixed)
            free.push_back(&d);
    const int grid = free.size() <= 3 ? (free.size() <= 2 ? 64 : 12) : 0;
    long grid_points = 1;
    for (std::size_t k = 0; k < free.size() && grid; ++k)
        grid_points *= grid;
    if (!grid)
        grid_points = 0;
    for (long round = 0; round < grid_points + 64; ++round) {
        std::map<std::string, std::uint64_t> vals;
        if (round < grid_points) {
            long g = round;
            for (const InputDecl *d : free) {
                vals[d->name] = d->lo + std::min<std::uint64_t>(d->hi - d->lo, static_cast<std::uint64_t>(g % grid));
                g /= grid;
            }
        } else
        for (const InputDecl &d : in.decls()) {
            std::uint64_t hi = d.is_load ? std::min(d.hi, bc.dom.max_load) : d.hi, lo = d.lo, span = hi - lo;
            std::uint64_t pick;
            switch (next() % 7) {
            case 6: pick = lo + std::min<std::uint64_t>(span, next() % 16); break;
            case 0: pick = lo; break;
            case 1: pick = hi; break;
            case 2: pick = lo + std::min<std::uint64_t>(span, next() % 4); break;
            case 3: pick = hi - std::min<std::uint64_t>(span, next() % 4); break;
            case 4: pick = lo + (span == ~0ULL ? next() : next() % (span + 1)); break;
            default: pick = lo + std::min<std::uint64_t>(span, next() % 64); break;
            }
            vals[d.name] = d.fixed ? d.lo : pick;
        }
        try {
            ConcreteInputs cin(vals);
            BuildCtx cbc = bc;
            cbc.load_hi = bc.dom.max_load;
            cpuload::scenario<C> sc = Inv::template build<C>(cin, cbc);
            if (!replay(sc).violated)
                continue;
        } catch (const domain_violation &) {
            continue;
        }
        s.push();
        for (const auto &[name, x] : in.consts()) {
            auto it = vals.find(name);
            if (it != vals.end())
                s.add(x == value_like(x, it->second));
        }
        bool sat = s.check() == z3::sat;
        if (sat)
            on_model(s.get_model());
        s.pop();
        if (sat)
            return true;
    }
    return false;
}

// The solvers of one proof job, reused by all its cases (a fresh solver
// costs milliseconds, a scope push/pop microseconds).
struct JobSolvers {
    z3::context ctx;
    std::unique_ptr<model::Explorer> ex[2];
    std::unique_ptr<z3::solver> q[2];
    std::set<std::pair<unsigned, std::uint64_t>> safe_at; // obligation term id, bound
    // The terms safe_at names, kept alive: an AST id is unique only while
    // its term lives, and Z3 gives a freed id to the next new term.
    z3::expr_vector safe_terms{ctx};
    unsigned timeout_ms;
    bool integer_inexact = false; // an obligation failed: the integer encoding is not the machine's
    // Tests only (see ProveOptions): in attempt `attempt` of the proof, the
    // case_no-th case these solvers take (probes count) gets the fault.
    unsigned attempt = 1;
    std::uint64_t case_no = 0;
    ProveOptions::Fault fault_empty_domain, fault_false_base;
    explicit JobSolvers(unsigned timeout) : timeout_ms(timeout) {
        z3::params p(ctx);
        p.set("timeout", timeout);
        for (int e = 0; e < 2; ++e) {
            ex[e] = std::make_unique<model::Explorer>(ctx, static_cast<model::Encoding>(e), timeout);
            q[e] = std::make_unique<z3::solver>(ctx);
            q[e]->set(p);
        }
    }
};

template <class Inv, class S, class C>
CaseOutcome prove_case_scoped(JobSolvers &js, const Variant &v, Arch arch, const Case &cs,
                              const std::function<ReplayResult(const cpuload::scenario<C> &)> &replay,
                              std::uint64_t safe_cap, bool probe, bool probe_only) {
    const LoadDomain &dom = load_domain(arch);
    CaseOutcome out;
    z3::context &ctx = js.ctx;

    auto counterexample = [&](const SymInputs &in, const z3::model &m, const BuildCtx &bc) {
        auto named = model_inputs(in, m);
        ConcreteInputs cin(std::map<std::string, std::uint64_t>(named.begin(), named.end()));
        BuildCtx cbc = bc;
        cbc.load_hi = dom.max_load; // the counterexample must lie in the stated domain
        cpuload::scenario<C> sc = Inv::template build<C>(cin, cbc);
        ReplayResult rr = replay(sc);
        if (!rr.violated)
            throw internal_error("counterexample for " + std::string(Inv::id) + " on " + v.id + " " +
                                 std::string(arch_name(arch)) + " (" + cs.label +
                                 ") does not replay on the concrete reference: " + scenario_to_json(sc).dump());
        // Shrink for the reader: move each input towards the bottom of its
        // range while the concrete replay still violates the invariant.
        // Every candidate is rebuilt by the same builder (domain checked)
        // and replayed, so what is reported is still a real violation.
        auto violates = [&](const std::map<std::string, std::uint64_t> &vals, ReplayResult &res,
                            cpuload::scenario<C> &scn) {
            try {
                ConcreteInputs ci(vals);
                scn = Inv::template build<C>(ci, cbc);
                res = replay(scn);
                return res.violated;
            } catch (const domain_violation &) {
                return false;
            }
        };
        std::map<std::string, std::uint64_t> best(named.begin(), named.end());
        for (int pass = 0; pass < 2; ++pass)
            for (const InputDecl &d : in.decls()) {
                if (d.fixed)
                    continue;
                std::uint64_t cur = best[d.name];
                for (std::uint64_t cand : {d.lo, d.lo + 1, cur / 2 > d.lo ? cur / 2 : d.lo}) {
                    while (cand >= d.lo && cand < cur) {
                        auto trial = best;
                        trial[d.name] = cand;
                        ReplayResult r2;
                        cpuload::scenario<C> s2;
                        if (!violates(trial, r2, s2))
                            break;
                        best = trial;
                        cur = cand;
                        rr = r2;
                        sc = s2;
                        cand = cur / 2 >= d.lo ? cur / 2 : d.lo;
                        if (cand == cur)
                            break;
                    }
                }
            }
        for (auto &[k, x] : named)
            x = best[k];
        Counterexample ce;
        ce.inputs = named;
        ce.reproducer = scenario_to_json(sc);
        out.cex = ce;
        out.replay = rr;
        out.verdict = Verdict::COUNTEREXAMPLE;
    };

    std::vector<model::Encoding> encodings = {model::Encoding::integer, model::Encoding::bitvector};
    if (Inv::overflow)
        encodings = {model::Encoding::integer}; // exact up to the first wrap of each path: see below
    if (js.integer_inexact && !Inv::overflow)
        encodings = {model::Encoding::bitvector};
    for (model::Encoding enc : encodings) {
        model::Explorer &ex = *js.ex[static_cast<int>(enc)];
        z3::solver &s = *js.q[static_cast<int>(enc)];
        ex.activate();
        ex.begin_case();
        s.push();
        struct CaseScope {
            model::Explorer &ex;
            z3::solver &s;
            ~CaseScope() {
                ex.end_case();
                s.pop();
            }
        } scope{ex, s};
        SymInputs in(ex);
        BuildCtx bc{dom, Inv::overflow ? dom.ulong_max : dom.max_load, cs, dom.ulong_max};
        cpuload::scenario<S> sc = Inv::template build<S>(in, bc);

        for (const auto &d : ex.domain())
            s.add(d);
        z3::check_result dr = z3::sat;
        if (!domain_witness(in, ex.domain())) {
            ++out.queries;
            dr = s.check();
        }
        if (js.fault_empty_domain.at(js.case_no, js.attempt))
            dr = z3::unsat; // a test's stand-in for a solver that went wrong
        const bool confirmed = dr == z3::unsat;
        if (confirmed) {
            dr = confirm_domain_empty(s.ctx(), ex.domain(), js.timeout_ms);
            if (dr == z3::sat) {
                out.poisoned = "the incremental solver called the domain of case " + cs.label + " empty";
                out.verdict = Verdict::UNKNOWN;
                out.reason = out.poisoned + ", and a fresh solver satisfies it";
                return out;
            }
        }
        if (dr != z3::sat) {
            out.verdict = Verdict::UNKNOWN;
            out.reason = dr == z3::unsat ? "vacuous: the domain of case " + cs.label + " is empty"
                                         : "domain check: " + (confirmed ? "a fresh solver did not answer, after an empty answer" : z3_reason(s));
            return out;
        }

        bool found = probe && probe_for_counterexample<Inv, C>(in, s, bc, cs, replay, [&](const z3::model &m) {
                         counterexample(in, m, bc);
                     });
        // The overflow invariant goes on: it still wants the largest safe load.
        if ((found && !Inv::overflow) || probe_only)
            return out;

        auto paths = ex.explore([&] {
            cpuload::trace<S> tr = cpuload::simulate<S>(v.level, sc);
            // An invariant proves its checks on the trace, unless it states
            // a separate proof obligation (a lemma) of its own.
            if constexpr (requires { Inv::template proof_checks<S>(v.level, sc, tr, bc); })
                return Inv::template proof_checks<S>(v.level, sc, tr, bc);
            else
                return Inv::template checks<S>(v.level, sc, tr, 0);
        });
        out.paths += paths.size();
        if (ex.path_limit_hit()) {
            out.verdict = Verdict::UNKNOWN;
            out.reason = "path limit reached in case " + cs.label;
            return out;
        }

        if constexpr (Inv::overflow) {
            // Each obligation on its own, against the best bound so far
            // (cap): first without its path condition (a smaller query; if
            // it holds there it holds on the path), then with it.  Only an
            // obligation that fails at cap is bisected, and lowers cap.
            // Obligations are shared by many cases (same terms in the same
            // context); the inputs they mention have the same domain in
            // every case, so one found safe at cap stays safe.
            std::uint64_t cap = safe_cap;
            auto fails = [&](const z3::expr &pc, const z3::expr &holds, std::uint64_t M) {
                s.push();
                for (const auto &x : in.load_vars())
                    s.add(x.is_int() ? x <= value_like(x, M) : z3::ule(x, value_like(x, M)));
                s.add(pc);
                s.add(!holds);
                ++out.queries;
                z3::check_result r = s.check();
                if (r == z3::sat && M == dom.max_load && !out.cex)
                    counterexample(in, s.get_model(), bc);
                s.pop();
                return r;
            };
            z3::expr truth = ctx.bool_val(true);
            for (const auto &pa : paths) {
                for (const auto &ob : pa.obligations) {
                    auto key = std::make_pair(ob.holds.id(), cap);
                    if (js.safe_at.count(key))
                        continue;
                    if (fails(truth, ob.holds, cap) == z3::unsat) {
                        js.safe_at.insert(key); // safe on every path: it held without any path condition
                        js.safe_terms.push_back(ob.holds);
                        continue;
                    }
                    if (fails(pa.pc, ob.holds, cap) == z3::unsat)
                        continue; // safe on this path only
                    // Fails at cap (or unknown): is it within the domain?
                    if (cap >= dom.max_load) {
                        z3::check_result r = fails(pa.pc, ob.holds, dom.max_load);
                        if (r == z3::unknown) {
                            out.verdict = Verdict::UNKNOWN;
                            out.reason = "obligation (" + ob.what + ") of case " + cs.label + ": " + z3_reason(s);
                            return out;
                        }
                        if (r == z3::unsat && dom.max_load < cap) {
                            std::uint64_t lo = dom.max_load, hi = cap;
                            while (hi - lo > 1) {
                                std::uint64_t mid = lo + (hi - lo) / 2;
                                (fails(pa.pc, ob.holds, mid) == z3::unsat ? lo : hi) = mid;
                            }
                            cap = lo;
                            continue;
                        }
                    }
                    std::uint64_t lo = 0, hi = std::min(cap, dom.max_load);
                    while (hi - lo > 1) {
                        std::uint64_t mid = lo + (hi - lo) / 2;
                        (fails(pa.pc, ob.holds, mid) == z3::unsat ? lo : hi) = mid;
                    }
                    cap = lo;
                }
            }
            out.safe_load = cap;
            return out;
        } else {
            if (enc == model::Encoding::integer) {
                // 1. Are the integer terms the machine's?
                bool exact = true;
                std::set<unsigned> done;
                for (const auto &pa : paths) {
                    for (const auto &ob : pa.obligations) {
                        if (!done.insert(ob.holds.id()).second || js.safe_at.count({ob.holds.id(), 0}))
                            continue;
                        s.push();
                        s.add(!ob.holds);
                        ++out.queries;
                        z3::check_result r = s.check();
                        s.pop();
                        if (r == z3::unsat) {
                            js.safe_at.insert({ob.holds.id(), 0});
                            js.safe_terms.push_back(ob.holds);
                            continue;
                        }
                        s.push();
                        s.add(pa.pc && !ob.holds);
                        ++out.queries;
                        r = s.check();
                        s.pop();
                        if (r != z3::unsat) {
                            exact = false;
                            break;
                        }
                    }
                    if (!exact)
                        break;
                }
                if (!exact) {
                    js.integer_inexact = true; // later cases go straight to bit-vectors
                    continue;                  // redo this one on bit-vectors
                }
            }
            // 2. The property on every path.
            bool premise_reached = false;
            std::string unknown_reason;
            for (const auto &pa : paths) {
                z3::solver *qs = &s;
                // One query per check: each is a small slice of the path.
                for (const auto &chk : pa.value) {
                    qs->push();
                    qs->add(pa.pc);
                    qs->add(!check_holds(chk));
                    ++out.queries;
                    z3::check_result r = qs->check();
                    if (r == z3::sat) {
                        counterexample(in, qs->get_model(), bc);
                        qs->pop();
                        return out;
                    }
                    if (r == z3::unknown && unknown_reason.empty())
                        unknown_reason = z3_reason(*qs);
                    qs->pop();
                }
                // 3. Vacuity of the premise.
                if (!premise_reached) {
                    s.push();
                    s.add(pa.pc && any_guard(pa.value, ctx));
                    ++out.queries;
                    premise_reached = s.check() == z3::sat;
                    s.pop();
                }
            }
            if (!unknown_reason.empty()) {
                out.verdict = Verdict::UNKNOWN;
                out.reason = "solver gave up in case " + cs.label + ": " + unknown_reason;
            } else if (!premise_reached) {
                out.verdict = Verdict::UNKNOWN;
                out.reason = "vacuous: no input of case " + cs.label + " reaches the property's premise";
            }
            return out;
        }
    }
    return out;
}

// After a case, with its scope popped, the incremental solvers hold no
// assertion, and a check must answer sat (at once); unsat is a solver in a
// wrong state, caught at the latest case whose answers it may have spoilt.
// The query solvers are checked after every case, also one that asked them
// nothing: Z3 4.8 answers the next case's queries faster after such a
// check (cpuload.no_overflow on shi-1-5 lp64: 0.15 s with it, 1.1 s
// without), while the cases that ask nothing pay half a millisecond each.
// The path explorer checks its own when it was asked something.  A null
// query solver is skipped (the kprop engine checks its query solvers only
// as often as base_check_every<P>() says).  Returns how a solver went wrong, or "".
inline std::string base_check(z3::solver *const qs[], model::Explorer *const exs[], int n, const std::string &label,
                              bool fault, bool fault_explorer) {
    for (int e = 0; e < n; ++e) {
        if (exs[e]->base_unsat(fault && fault_explorer))
            return "the path explorer's solver found its empty base unsatisfiable after case " + label;
        if (!qs[e]) // kprop_engine.h: this solver's check is not due yet
            continue;
        if (fault && !fault_explorer)
            qs[e]->add(qs[e]->ctx().bool_val(false)); // a test's stand-in for a solver that went wrong
        if (qs[e]->check() == z3::unsat)
            return "the incremental solver found its empty base unsatisfiable after case " + label;
    }
    return "";
}

// One case on the job's solvers, then their base check.
template <class Inv, class S, class C>
CaseOutcome prove_case(JobSolvers &js, const Variant &v, Arch arch, const Case &cs,
                       const std::function<ReplayResult(const cpuload::scenario<C> &)> &replay,
                       std::uint64_t safe_cap = ~0ULL, bool probe = true, bool probe_only = false) {
    ++js.case_no;
    CaseOutcome out = prove_case_scoped<Inv, S, C>(js, v, arch, cs, replay, safe_cap, probe, probe_only);
    if (!out.poisoned.empty())
        return out;
    z3::solver *const qs[2] = {js.q[0].get(), js.q[1].get()};
    model::Explorer *const exs[2] = {js.ex[0].get(), js.ex[1].get()};
    const ProveOptions::Fault &f = js.fault_false_base;
    out.poisoned = base_check(qs, exs, 2, cs.label, f.at(js.case_no, js.attempt), f.explorer);
    if (!out.poisoned.empty()) {
        out.verdict = Verdict::UNKNOWN;
        out.reason = out.poisoned;
        out.cex.reset();
    }
    return out;
}

// Only the concrete probe of a case (see probe_for_counterexample).
template <class Inv, class S, class C>
CaseOutcome probe_case(JobSolvers &js, const Variant &v, Arch arch, const Case &cs,
                       const std::function<ReplayResult(const cpuload::scenario<C> &)> &replay) {
    return prove_case<Inv, S, C>(js, v, arch, cs, replay, ~0ULL, true, true);
}

} // namespace sc::proofs
