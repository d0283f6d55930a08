// The proof engine's own guarantees: a counterexample that does not replay
// is an internal error; an empty domain or an unreachable premise is never
// PROVED.
#include <catch2/catch.hpp>

#include "proofs/engine/engine.h"
#include "proofs/kernel/kernel_invariants.h"

using namespace sc;
using namespace sc::proofs;
using cpuload::op;

namespace {

// "After one tick, cpu_load[0] differs from the sampled load": false for
// every input, so the solver finds a model at once.
struct FalseClaim {
    static constexpr const char *id = "test.false_claim";
    static constexpr bool overflow = false;
    template <class A, class In> static cpuload::scenario<A> build(In &in, const BuildCtx &bc) {
        cpuload::scenario<A> s{};
        auto L = in.template var<typename A::ulong>("L", 0, bc.load_hi, true);
        cpuload::step<A> st{op::tick};
        st.a = L;
        st.b = 1;
        s.steps = {st};
        return s;
    }
    template <class A>
    static std::vector<Check<A>> proof_checks(cpuload::patch_level, const cpuload::scenario<A> &s,
                                              const cpuload::trace<A> &t, const BuildCtx &) {
        return {{"claim", true, "cpu_load[0]", t.recs[0].after.cpu_load[0], cmp::ne, "L", s.steps[0].a}};
    }
};

// A property whose premise needs L > max_load: outside the domain.
struct Unreachable : FalseClaim {
    template <class A>
    static std::vector<Check<A>> proof_checks(cpuload::patch_level, const cpuload::scenario<A> &s,
                                              const cpuload::trace<A> &t, const BuildCtx &bc) {
        return {{"claim", s.steps[0].a > typename A::ulong(bc.dom.max_load), "cpu_load[0]",
                 t.recs[0].after.cpu_load[0], cmp::ne, "L", s.steps[0].a}};
    }
};

} // namespace

TEST_CASE("engine: a counterexample that does not replay is an internal error", "[engine]") {
    JobSolvers js(5000);
    const Variant &v = *find_variant("cpuload/v3.13");
    Case c{"only"};
    std::function<ReplayResult(const cpuload::scenario<checked_lp64> &)> lying = [](const auto &) {
        return ReplayResult{}; // "not violated"
    };
    CHECK_THROWS_AS((prove_case<FalseClaim, model::sym_lp64, checked_lp64>(js, v, Arch::lp64, c, lying, ~0ULL, false)),
                    internal_error);
}

TEST_CASE("engine: a counterexample that replays is reported with its inputs", "[engine]") {
    JobSolvers js(5000);
    const Variant &v = *find_variant("cpuload/v3.13");
    Case c{"only"};
    std::function<ReplayResult(const cpuload::scenario<checked_lp64> &)> honest = [](const auto &) {
        ReplayResult r;
        r.violated = true;
        return r;
    };
    CaseOutcome o = prove_case<FalseClaim, model::sym_lp64, checked_lp64>(js, v, Arch::lp64, c, honest, ~0ULL, false);
    CHECK(o.verdict == Verdict::COUNTEREXAMPLE);
    REQUIRE(o.cex.has_value());
    REQUIRE(o.cex->inputs.size() == 1);
    CHECK(o.cex->inputs[0].first == "L");
    CHECK(o.cex->inputs[0].second <= load_domain(Arch::lp64).max_load);
}

TEST_CASE("engine: a premise no input reaches gives UNKNOWN (vacuous), never PROVED", "[engine]") {
    JobSolvers js(5000);
    const Variant &v = *find_variant("cpuload/v3.13");
    Case c{"only"};
    std::function<ReplayResult(const cpuload::scenario<checked_lp64> &)> replay = [](const auto &) {
        return ReplayResult{};
    };
    CaseOutcome o = prove_case<Unreachable, model::sym_lp64, checked_lp64>(js, v, Arch::lp64, c, replay, ~0ULL, false);
    CHECK(o.verdict == Verdict::UNKNOWN);
    CHECK(o.reason.find("vacuous") != std::string::npos);
}

// "No two 32-bit numbers multiply to N", N = 1921618823 * 1282972393 (two
// primes): true only at the factors, i.e. factoring, which no solver does in
// 200 ms.  The answer must be UNKNOWN with a reason, not PROVED.
struct Factoring : FalseClaim {
    template <class A, class In> static cpuload::scenario<A> build(In &in, const BuildCtx &) {
        cpuload::scenario<A> s{};
        cpuload::step<A> st{op::decay};
        st.a = in.template var<typename A::ulong>("p", 2, 0xffffffffULL);
        st.b = in.template var<typename A::ulong>("q", 2, 0xffffffffULL);
        st.idx = 1;
        s.steps = {st};
        return s;
    }
    template <class A>
    static std::vector<Check<A>> proof_checks(cpuload::patch_level, const cpuload::scenario<A> &s,
                                              const cpuload::trace<A> &, const BuildCtx &) {
        typename A::ulong prod = s.steps[0].a * s.steps[0].b;
        return {{"no factors", true, "p * q", prod, cmp::ne, "N", typename A::ulong(2465383899778153439ULL)}};
    }
};

TEST_CASE("engine: a solver timeout is UNKNOWN with its reason", "[engine]") {
    JobSolvers js(200);
    const Variant &v = *find_variant("cpuload/v3.13");
    Case c{"only"};
    std::function<ReplayResult(const cpuload::scenario<checked_lp64> &)> replay = [](const auto &) {
        return ReplayResult{};
    };
    CaseOutcome o = prove_case<Factoring, model::sym_lp64, checked_lp64>(js, v, Arch::lp64, c, replay, ~0ULL, false);
    CHECK(o.verdict == Verdict::UNKNOWN);
    CHECK_FALSE(o.reason.empty());
}

TEST_CASE("engine: the largest safe load is the tightest multiplication's bound", "[engine][overflow]") {
    // By hand: in v3.13 the largest factor any load is multiplied by is
    // degrade_factor[4][0] = 120 (decay over one missed tick at index 4),
    // so the largest load for which nothing wraps is floor(ULONG_MAX / 120).
    // Other operations (old * 15 + new + 15, ...) allow more.
    const InvariantInfo *inv = find_invariant("cpuload.no_overflow");
    REQUIRE(inv);
    const Variant &v = *find_variant("cpuload/v3.13");
    ProofResult r32 = inv->prove(v, Arch::ilp32, ProveOptions{});
    REQUIRE(r32.bound.has_value());
    CHECK(*r32.bound == 4294967295ULL / 120); // 35791394
    CHECK(r32.verdict == Verdict::COUNTEREXAMPLE); // 32-bit loads reach ULONG_MAX
    ProofResult r64 = inv->prove(v, Arch::lp64, ProveOptions{});
    REQUIRE(r64.bound.has_value());
    CHECK(*r64.bound == 18446744073709551615ULL / 120); // 153722867280912930
    CHECK(r64.verdict == Verdict::PROVED); // the domain stops at 2^40
    // shi-1-5 on ilp32: total * imbalance_pct with imbalance_pct up to 1000.
    ProofResult p = inv->prove(*find_variant("cpuload/shi-1-5"), Arch::ilp32, ProveOptions{});
    REQUIRE(p.bound.has_value());
    CHECK(*p.bound == 4294967295ULL / 1000); // 4294967
}

TEST_CASE("engine: an empty domain is confirmed by a fresh solver before it is called vacuous", "[engine]") {
    z3::context ctx;
    const z3::expr x = ctx.int_const("x");
    // The domain of a crossing case: ((x div 1024) div 1024) == 734 with
    // x >= 0 holds for x = 734 * 2^20, so it is not empty.
    z3::expr_vector full(ctx);
    full.push_back(x >= 0);
    full.push_back((x / 1024) / 1024 == 734);
    CHECK(confirm_domain_empty(ctx, full, 10000) == z3::sat);
    // x >= 0 and x < 0 has no model.
    z3::expr_vector empty(ctx);
    empty.push_back(x >= 0);
    empty.push_back(x < 0);
    CHECK(confirm_domain_empty(ctx, empty, 10000) == z3::unsat);
}

TEST_CASE("engine: a domain point found by evaluation answers the domain check without a solver", "[engine]") {
    using u64 = model::sym_lp64::u64;
    z3::context ctx;
    for (model::Encoding enc : {model::Encoding::bitvector, model::Encoding::integer}) {
        model::Explorer ex(ctx, enc, 10000);
        ex.activate();
        ex.begin_case();
        SymInputs in(ex);
        // idlebal's lemma domain: x = y = 0 satisfies it (0 * 253 / 256 = 0).
        const u64 x = in.var<u64>("x", 0, std::uint64_t(1) << 42);
        const u64 y = in.var<u64>("y", 0, std::uint64_t(1) << 42);
        in.require(x <= y, "x <= y");
        in.require(x * u64(253) / u64(256) <= y, "x * 253 / 256 <= y");
        CHECK(domain_witness(in, ex.domain()));
        // z in 3..10 with z >= 10: the top of the range, 10, satisfies it.
        const u64 z = in.var<u64>("z", 3, 10);
        in.require(z >= u64(10), "z >= 10");
        CHECK(domain_witness(in, ex.domain()));
        ex.end_case();

        // Not empty, but neither end is a model (z = 5 only): the solver
        // has to answer.
        ex.begin_case();
        SymInputs in2(ex);
        const u64 w = in2.var<u64>("w", 3, 10);
        in2.require(w == u64(5), "w == 5");
        CHECK_FALSE(domain_witness(in2, ex.domain()));
        // A case's hint names the point: w = 5 (the rest at the bottom).
        CHECK(domain_witness(in2, ex.domain(), {{"w", 5}}));
        // A hint that is not a model is no witness: w = 6, or w = 5 with
        // another input outside its range.
        CHECK_FALSE(domain_witness(in2, ex.domain(), {{"w", 6}}));
        const u64 t = in2.var<u64>("t", 1, 2);
        CHECK_FALSE(domain_witness(in2, ex.domain(), {{"w", 5}, {"t", 3}}));
        CHECK(domain_witness(in2, ex.domain(), {{"w", 5}, {"t", 2}}));
        ex.end_case();

        // Empty: no point can be a witness.
        ex.begin_case();
        SymInputs in3(ex);
        const u64 v = in3.var<u64>("v", 3, 10);
        in3.require(v < u64(3), "v < 3");
        CHECK_FALSE(domain_witness(in3, ex.domain()));
        ex.end_case();
    }
}

// The cpuload proofs' solvers (one pair per proof job) go wrong the way the
// kernel families' do (tests/test_kernel_invariants.cpp), and are treated
// the same way: the proof is done again on a new Z3 context, and a second
// wrong solver leaves no verdict.  The wrong state is injected.  On
// shi-1-3, idle_decay_nonincreasing has three cases (its entry points, no
// pending_updates split), each probed first and then proved: the job's
// solvers take them as cases 1-3 (probes) and 4-6 (proofs).
TEST_CASE("engine: a cpuload proof whose solver went wrong is done again on a new solver", "[engine]") {
    const Variant *v = find_subject("cpuload/shi-1-3");
    REQUIRE(v != nullptr);
    const InvariantInfo *i = find_invariant("cpuload.idle_decay_nonincreasing");
    REQUIRE(i != nullptr);
    const ProofResult plain = i->prove(*v, Arch::lp64, ProveOptions{});
    REQUIRE(plain.verdict == Verdict::PROVED);
    auto check_redone = [&](const ProofResult &r, const std::string &first) {
        CHECK(r.verdict == Verdict::PROVED);
        CHECK(r.paths == plain.paths);
        CHECK(r.reason == plain.reason + (plain.reason.empty() ? "" : "; ") +
                              "done again from the start on new solvers, after " + first);
    };

    // A domain answer "empty" that a fresh solver contradicts: in the probe
    // of the second case, then in the proof of the same case.
    ProveOptions probe;
    probe.fault_empty_domain = {2, 1};
    check_redone(i->prove(*v, Arch::lp64, probe),
                 "the incremental solver called the domain of case update_cpu_load_nohz empty");
    ProveOptions proof;
    proof.fault_empty_domain = {5, 1};
    check_redone(i->prove(*v, Arch::lp64, proof),
                 "the incremental solver called the domain of case update_cpu_load_nohz empty");

    // A real false in the base after the first proved case: caught by the
    // base check at the end of that case.
    ProveOptions base;
    base.fault_false_base = {4, 1};
    check_redone(i->prove(*v, Arch::lp64, base),
                 "the incremental solver found its empty base unsatisfiable after case update_idle_cpu_load");
    // The same in the path explorer's solver, whose unsat answers prune
    // paths (the cpuload explorer asks it at every branch).
    base.fault_false_base = {4, 1, true};
    check_redone(i->prove(*v, Arch::lp64, base),
                 "the path explorer's solver found its empty base unsatisfiable after case update_idle_cpu_load");

    // Twice: no verdict, whatever the first attempt had found.
    proof.fault_empty_domain.attempts = 2;
    const ProofResult none = i->prove(*v, Arch::lp64, proof);
    CHECK(none.verdict == Verdict::UNKNOWN);
    CHECK(none.reason == "the solvers went wrong twice (first the incremental solver called the domain of case "
                         "update_cpu_load_nohz empty, then the incremental solver called the domain of case "
                         "update_cpu_load_nohz empty); no verdict");
    CHECK(!none.cex);

    // The overflow proof, whose largest safe load rests on unsat answers,
    // reports no bound when it has no verdict.
    const InvariantInfo *o = find_invariant("cpuload.no_overflow");
    REQUIRE(o != nullptr);
    ProveOptions first;
    first.fault_false_base = {1, 2};
    const ProofResult unsafe = o->prove(*find_subject("cpuload/shi-1"), Arch::lp64, first);
    CHECK(unsafe.verdict == Verdict::UNKNOWN);
    CHECK(!unsafe.bound);
}
