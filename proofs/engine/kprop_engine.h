// The proof engine for invariants written against the kernel-shaped
// interface (proofs/kernel/kernel_iface.h): pelt and utilest, on a reference
// variant or on a kernel oracle alike.
//
// An invariant P supplies
//   static constexpr const char *id;
//   template <class I> static std::vector<KCase> cases(Arch);
//   template <class I, class A, class In> static Runner<A> build(In &, const KCase &);
//   static constexpr bool integer_first;  // try the integer encoding first
// where I is an implementation (RefPelt<V>, KernelPelt<K>, ...) and build()
// declares the named inputs of one case and returns the code that runs the
// implementation on them and states the checks.  The same build() runs on
// SymInputs (one solver constant per input) and on ConcreteInputs (a
// model's values), so a counterexample is rebuilt by the code that stated
// the property.
//
// Per case: the domain must be satisfiable (vacuity); the implementation's
// paths are explored; in the integer encoding every no-wrap obligation is
// discharged first, and a case where one can fail is redone on bit-vectors
// (exact machine arithmetic); then per path and per check the solver is
// asked for domain /\ pc /\ guard /\ not(check).  unsat everywhere (and a
// reachable guard somewhere) is PROVED; a model is replayed on the concrete
// implementation and must violate the check there, or it is an internal
// error; unknown is UNKNOWN with the solver's reason.
#pragma once
#include <algorithm>
#include <atomic>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <functional>
#include <map>
#include <optional>
#include <set>
#include <string>
#include <type_traits>
#include <unordered_map>
#include <unordered_set>
#include <vector>

#include "model/explorer.h"
#include "proofs/engine/checks.h"
#include "proofs/engine/engine.h"
#include "proofs/engine/inputs.h"
#include "proofs/invariant.h"
#include "proofs/engine/query_cache.h"
#include "proofs/engine/query_slice.h"
#include "proofs/engine/solver_retry.h"

namespace sc::proofs {

// Checks compare 64-bit words: every kernel value widens to u64 exactly.
template <class A> struct Wide {
    using ulong = typename A::u64;
    using boolean = typename A::boolean;
};
template <class A> using KCheck = Check<Wide<A>>;

// What a run of a case gives: the checks, and named values for the trace
// of a concrete replay (ignored by the solver).  `lines` is free text for
// that trace (a timeline, a decision); an invariant fills it only on a
// concrete run (see is_concrete), where the values are plain numbers.
template <class A> struct KOut {
    std::vector<KCheck<A>> checks;
    std::vector<std::pair<std::string, typename A::u64>> shown;
    std::vector<std::string> lines;
};
template <class A> using Runner = std::function<KOut<A>()>;

struct KCase {
    KCase() = default;
    KCase(std::string l, std::int64_t n_ = -1, int k = 0, std::vector<std::pair<std::string, std::uint64_t>> f = {})
        : label(std::move(l)), n(n_), kind(k), fixed(std::move(f)) {}

    std::string label;
    std::int64_t n = -1; // a concrete split value, or -1
    int kind = 0;        // invariant-specific sub-case
    std::vector<std::pair<std::string, std::uint64_t>> fixed; // shown with a counterexample
    // A search case is never explored symbolically: its build() runs a
    // trace from the initial state only on concrete inputs, and the engine
    // replays the points P::search_points<I>(arch, case) one by one.  A
    // point that breaks a check is a counterexample like any other (pinned
    // in the solver's domain, replayed, shrunk); none proves nothing, and
    // the case adds "searched: <search>" to the result's reason.
    bool search = false;
    std::string searched; // what the points cover, for that note
    // Overrides P::integer_first for this case (some cases of one invariant
    // are cheap in integers and costly on bit-vectors, others the reverse).
    std::optional<bool> integer_first;
    // Overrides P::lazy for this case (a case whose domain fixes most
    // branches is cheaper when the explorer asks the solver at each).
    std::optional<bool> lazy;
    // Inputs of a point that may satisfy the domain (the others at the
    // bottom of their ranges), tried before the solver is asked whether
    // the domain is empty (domain_witness in proofs/engine/engine.h).
    std::map<std::string, std::uint64_t> witness;
    // The position in the case list of an earlier case this one follows
    // from, through a lemma that P::build_lemma<I, A>(in, case) states as
    // checks over every value of the case's inputs.  When that case was
    // proved in this attempt and the lemma's checks are all unsat, this
    // case is proved without asking its own checks; otherwise (the lemma
    // fails, or the solver does not settle it on a short leash) it is
    // proved directly like any other.  The lemma is checked on the
    // implementation, never assumed: what P states is only which case to
    // try it from.
    std::optional<std::size_t> follows_from;
};

// Whether A is a concrete arithmetic (a search case's trace runs only there).
template <class A> constexpr bool is_concrete = std::is_same_v<typename A::boolean, bool>;

// P's search points for case c; none when P has no search cases.
template <class P, class I>
std::vector<std::map<std::string, std::uint64_t>> search_points_of(Arch a, const KCase &c) {
    if constexpr (requires { P::template search_points<I>(a, c); })
        return P::template search_points<I>(a, c);
    else
        return {};
}

// The result of replaying concrete inputs.
template <class A> ReplayResult kprop_replay_run(const KOut<A> &o) {
    ReplayResult rr;
    std::string trace;
    for (const auto &l : o.lines)
        trace += "  " + l + "\n";
    for (const auto &[name, v] : o.shown)
        trace += "  " + name + " = " + std::to_string(word_value(v)) + "\n";
    rr.trace = trace;
    ReplayStep st{"replay", {}};
    for (const auto &[name, v] : o.shown)
        st.values.push_back({name, word_value(v)});
    rr.steps.push_back(std::move(st));
    for (const auto &c : o.checks) {
        if (concrete_holds(c))
            continue;
        rr.violated = true;
        rr.failed = c.what;
        rr.lhs_name = c.lhs_name;
        rr.rhs_name = c.rhs_name;
        rr.op = cmp_text(c.op);
        rr.lhs = word_value(c.lhs);
        rr.rhs = word_value(c.rhs);
        break;
    }
    return rr;
}

template <class P, class I, class C> ReplayResult kprop_replay(const KCase &cs, const std::map<std::string, std::uint64_t> &vals) {
    ConcreteInputs in(vals);
    Runner<C> run = P::template build<I, C>(in, cs);
    return kprop_replay_run<C>(run());
}

// A reproducer's "case" and "inputs" (JSON), run on I's concrete code.
// The cases are listed once per P, I and data model and found by label
// through an index: a crossing split has two thousand of them, and the
// fuzz harness over the proofs' domains replays one point per run.
template <class P, class I> ReplayResult kprop_replay_doc(Arch a, const nlohmann::json &doc) {
    struct Listed {
        std::vector<KCase> cases;
        std::map<std::string, std::size_t, std::less<>> by_label;
        explicit Listed(Arch arch) : cases(P::template cases<I>(arch)) {
            for (std::size_t i = 0; i < cases.size(); ++i)
                by_label.emplace(cases[i].label, i);
        }
    };
    static const Listed listed[2] = {Listed(Arch::ilp32), Listed(Arch::lp64)};
    const Listed &l = listed[a == Arch::lp64 ? 1 : 0];

    std::string label = doc.value("case", std::string());
    std::map<std::string, std::uint64_t> vals;
    if (doc.contains("inputs") && doc["inputs"].is_object())
        for (auto it = doc["inputs"].begin(); it != doc["inputs"].end(); ++it) {
            if (!it.value().is_number_integer() ||
                (!it.value().is_number_unsigned() && it.value().template get<std::int64_t>() < 0))
                throw input_error("inputs." + it.key().substr(0, 64) + ": expected an unsigned integer");
            vals[it.key()] = it.value().template get<std::uint64_t>();
        }
    const auto found = l.by_label.find(label);
    if (found == l.by_label.end())
        throw input_error("case: \"" + label.substr(0, 80) + "\" is not a case of " + P::id);
    const KCase &c = l.cases[found->second];
    try {
        return a == Arch::lp64 ? kprop_replay<P, I, lp64>(c, vals) : kprop_replay<P, I, ilp32>(c, vals);
    } catch (const domain_violation &e) {
        throw input_error(std::string("inputs: ") + e.what());
    }
}

// Concrete candidates for a case, before any path is explored: the corners
// of each input's range and pseudo-random values (seeded by the case).  A
// violation found this way is pinned in the solver and reported like any
// model, so it is still a model of the domain, replayed on the concrete
// implementation.  It spares exploring code whose paths are many (loops
// over periods) when an input breaks it anyway.
inline std::vector<std::map<std::string, std::uint64_t>> probe_points(const std::vector<InputDecl> &decls,
                                                                      std::uint64_t seed) {
    std::vector<std::map<std::string, std::uint64_t>> pts;
    auto next = [&] {
        seed ^= seed << 13;
        seed ^= seed >> 7;
        seed ^= seed << 17;
        return seed;
    };
    for (int round = 0; round < 48; ++round) {
        std::map<std::string, std::uint64_t> v;
        for (const InputDecl &d : decls) {
            std::uint64_t span = d.hi - d.lo, pick;
            switch (d.fixed ? 0 : round < 2 ? round : static_cast<int>(next() % 6)) {
            case 0: pick = d.lo; break;
            case 1: pick = d.hi; break;
            case 2: pick = d.lo + std::min<std::uint64_t>(span, next() % 2048); break;
            case 3: pick = d.hi - std::min<std::uint64_t>(span, next() % 2048); break;
            default: pick = d.lo + (span == ~0ULL ? next() : next() % (span + 1)); break;
            }
            v[d.name] = pick;
        }
        pts.push_back(std::move(v));
    }
    return pts;
}

// The cases of P on I, each with the inputs it declares and their ranges
// (InvariantInfo::cases).  build() only declares there: nothing runs.
template <class P, class I, class C> std::vector<CaseInputs> describe_cases(Arch a) {
    std::vector<CaseInputs> out;
    for (const KCase &c : P::template cases<I>(a)) {
        DeclRecorder rec;
        (void)P::template build<I, C>(rec, c);
        CaseInputs ci{c.label, c.search, {}};
        for (const InputDecl &d : rec.decls())
            ci.inputs.push_back({d.name, d.lo, d.hi});
        out.push_back(std::move(ci));
    }
    return out;
}
template <class P, class I> std::vector<CaseInputs> describe_cases(Arch a) {
    return a == Arch::lp64 ? describe_cases<P, I, lp64>(a) : describe_cases<P, I, ilp32>(a);
}

// P::domain_first: try each check against the case's domain alone first
// (see the check loop below).
template <class P> constexpr bool domain_first() {
    if constexpr (requires { P::domain_first; })
        return P::domain_first;
    else
        return false;
}

// The incremental solvers' leash: a query on them that does not answer
// within it goes to fresh solvers (see ask() in prove_kprop()).  A longer
// leash for the batch queries was measured and does not pay: of the
// batches of pelt.decay_monotone on v4.3 ilp32 that miss 30 ms, about half
// answer by 60 ms and a third not by 200 ms, so what the answered ones save
// the others lose (47 s with 30 ms, 95 s with 200 ms; pelt.load_bounded on
// v6.1 lp64: 42 and 49 s with 30 and 150 ms, beside another job).
inline constexpr unsigned QUICK_LEASH_MS = 30;

// P::base_check_every: the query solvers' base check runs after case
// numbers 1, N, 2N, ... and after the last case (see prove_kprop_once());
// N is 1 by default.  The first case is checked so that a proof that stops
// at its second case (v3.8's pelt.decay_monotone counterexample) still
// publishes the first case's answers for the other width.  The check
// costs Z3 4.8 about 3 ms whatever the case asked, and it also tidies the
// solver up: the next case's queries are faster after it.  Which of the two
// weighs more depends on the invariant: pelt.decay_monotone's 2,050 small
// cases gain from spacing the checks out (v4.3 and v4.12 lp64, one after
// the other: 50.6 -> 40.9 s), utilest.no_overflow's loses (utilest/v6.1
// lp64 8.0 -> 16.5 s).
template <class P> constexpr unsigned base_check_every() {
    if constexpr (requires { P::base_check_every; })
        return P::base_check_every;
    else
        return 1;
}

// P::domain_leash_ms: how long the domain-first query of a check may take
// (QUICK_LEASH_MS by default).  Where a check term
// recurs on every path of a case and its path conditions cost the solver
// 0.1 s a query, a longer leash once per term pays for itself.
template <class P> constexpr unsigned domain_leash_ms() {
    if constexpr (requires { P::domain_leash_ms; })
        return P::domain_leash_ms;
    else
        return QUICK_LEASH_MS;
}

// P::path_batch: on bit-vectors, ask a path's remaining checks in one full
// query before asking them one by one.  It pays where the path conditions
// are costly to bit-blast and the checks hold (wakeaffine.no_overflow's
// bounded rounds: v2.6.37 lp64 16.6 -> 8.9 s); elsewhere the joint query
// is slower than its parts (the idlebal matrix went from 30 to 55 s).
template <class P> constexpr bool path_batch() {
    if constexpr (requires { P::path_batch; })
        return P::path_batch;
    else
        return false;
}

// P::share_quick_answers: the short batch queries' unsat answers go
// through the query cache, as the full queries' always do.  It pays where
// releases share a case's code and so its queries (pelt.decay_monotone:
// v4.3, v4.12 and v6.1 lp64 141 -> 84 s one after the other); where no
// query recurs, printing each one for its key costs about a tenth
// (pelt.load_bounded on v6.1 lp64: 56 -> 62 s).
template <class P> constexpr bool share_quick_answers() {
    if constexpr (requires { P::share_quick_answers; })
        return P::share_quick_answers;
    else
        return false;
}

// P::modular_wraps: the integer encoding models unsigned sums and
// differences and changes of signedness with their wraps (see
// Explorer::set_modular_wraps), so that code which wraps on purpose stays
// in integers.  wakeaffine.effective_load_monotone: a division by the
// group's symbolic weight, followed by a difference that goes negative
// through unsigned long, did not finish on bit-vectors in minutes and is
// settled in integers in 0.2 to 0.4 s per variant.
template <class P> constexpr bool modular_wraps() {
    if constexpr (requires { P::modular_wraps; })
        return P::modular_wraps;
    else
        return false;
}

// P::older_arith<I>(): the incremental solvers use Z3's older arithmetic
// solver (arith.solver=2) for this implementation.  Per invariant and
// shape, as it cuts some proofs and slows others: 6.x's
// pelt.load_bounded (divisions by 2^10 and 2^32 of products by table
// constants) 89 -> 49 s on pelt/v6.12 lp64, while v4.12's
// pelt.util_bounded (a weight times a contribution) went from 80 s to
// more than 200 s.
template <class P, class I> constexpr bool older_arith() {
    if constexpr (requires { P::template older_arith<I>(); })
        return P::template older_arith<I>();
    else
        return false;
}

// What one attempt at a proof learnt about its own solvers: `poisoned`
// says how a solver was caught in a wrong state: the incremental one
// called a case's domain empty while a fresh solver satisfies it, or one
// (incremental or path explorer's) called its base (every case's scope
// popped, no assertion left) unsatisfiable.  Such
// a solver has lost its footing (seen under heavy load on CI machines,
// with Z3 4.8's incremental solvers interrupted many times by their
// leash), and every unsat it gave may be wrong.  So a case's unsat answers
// stay `pending`, out of the process's query cache where other proofs
// would read them, until its solvers have passed the base check at the
// end of the case; a wrong state caught there, or by a domain answer,
// also takes back what earlier cases published (`cached`).
struct KpropAttempt {
    unsigned no = 1;
    std::string poisoned; // "the incremental solver called the domain of case X empty", ...
    std::unordered_set<std::string> pending; // this case's unsat queries, not yet published
    std::vector<std::string> cached;         // the query-cache entries it published
};

// One case on an explorer and its query solver: the explorer's case and a
// solver scope, opened here and closed on every way out of the case.
struct CaseScope {
    model::Explorer &ex;
    z3::solver &s;
    CaseScope(model::Explorer &e, z3::solver &sv, bool lazy, bool modular_wraps) : ex(e), s(sv) {
        ex.activate();
        ex.begin_case();
        ex.set_lazy(lazy);
        ex.set_modular_wraps(modular_wraps);
        s.push();
    }
    CaseScope(const CaseScope &) = delete;
    CaseScope &operator=(const CaseScope &) = delete;
    ~CaseScope() {
        ex.end_case();
        s.pop();
    }
};

template <class P, class I, class S, class C>
ProofResult prove_kprop_once(const Variant &subject, Arch arch, const ProveOptions &opt, const std::string &domain_text,
                             KpropAttempt &attempt) {
    auto t0 = std::chrono::steady_clock::now();
    ProofResult res;
    res.variant = subject.id;
    res.invariant = P::id;
    res.arch = arch;
    res.domain = domain_text;
    res.verdict = Verdict::PROVED;

    z3::context ctx;
    z3::params prm(ctx);
    prm.set("timeout", opt.timeout_ms);
    model::Explorer exs[2] = {model::Explorer(ctx, model::Encoding::integer, opt.timeout_ms),
                              model::Explorer(ctx, model::Encoding::bitvector, opt.timeout_ms)};
    z3::solver solvers[2] = {z3::solver(ctx), z3::solver(ctx)};
    // The incremental solvers get a short leash (see ask() below).
    z3::params quick(ctx);
    quick.set("timeout", std::min(opt.timeout_ms, QUICK_LEASH_MS));
    if constexpr (older_arith<P, I>())
        quick.set("arith.solver", 2u);
    for (auto &s : solvers)
        s.set(quick);
    bool premise_reached = false;
    std::string unknown, searched;

    auto finish = [&] {
        res.seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
        return res;
    };

    // One query on top of what s holds, answered from the run's cache of
    // unsat queries when it can be; when the incremental solver gives up,
    // fresh ones are asked (proofs/engine/solver_retry.h).  Returns the solver that
    // answered, whose model a sat answer reads.
    std::optional<z3::solver> fresh;
    SolverRetry retry(ctx, opt.timeout_ms);
    //
    // A query the incremental solver gives up on is also known by its
    // slice (proofs/engine/query_slice.h): the conjuncts that share an
    // input with the check.  A slice recorded unsat settles every query it
    // is a slice of; one not yet known is asked first, on fresh solvers,
    // and recorded when unsat, so that other subjects and data models that
    // ask the same question about the same arithmetic find it.  A slice
    // that is not unsat sends the whole query to them, as before: a model
    // always comes from the whole query.  (Slices are cut only here: for
    // the many queries that the incremental solver answers at once, the
    // cut would cost more than it saves.)
    auto ask = [&](z3::solver &s, z3::check_result &r) -> z3::solver & {
        ++res.queries;
        fresh.reset();
        std::string key;
        auto known = [&](const std::string &k) { return query_cache::known_unsat(k) || attempt.pending.count(k); };
        if (query_cache::enabled()) {
            key = query_cache::canonical(s.to_smt2());
            if (known(key)) {
                r = z3::unsat;
                return s;
            }
        }
        r = s.check();
        if (r == z3::unknown) {
            const bool integer = &s == &solvers[static_cast<int>(model::Encoding::integer)];
            std::optional<z3::expr_vector> slice;
            if (query_cache::enabled() && (slice = query_slice(ctx, s.assertions()))) {
                z3::solver text(ctx);
                for (const auto &a : *slice)
                    text.add(a);
                std::string slice_key = query_cache::canonical(text.to_smt2());
                // Unsat here makes the whole query unsat: both texts are kept.
                if (known(slice_key)) {
                    r = z3::unsat;
                    if (!key.empty())
                        attempt.pending.insert(std::move(key));
                    return s;
                }
                r = retry.retry(*slice, integer, fresh, res.queries);
                if (r == z3::unsat) {
                    attempt.pending.insert(std::move(slice_key)); // published after the case's base check
                    if (!key.empty())
                        attempt.pending.insert(std::move(key));
                    return *fresh;
                }
                fresh.reset();
            }
            r = retry.retry(s, integer, fresh, res.queries);
        }
        if (r == z3::unsat && !key.empty())
            attempt.pending.insert(std::move(key)); // published after the case's base check
        return fresh ? *fresh : s;
    };

    // Pins the inputs of a concrete point in s (a search or probe point
    // that broke a check), so that the solver's model is that point.
    auto pin = [&](z3::solver &s, const SymInputs &in, const std::map<std::string, std::uint64_t> &pt) {
        for (const auto &[name, x] : in.consts())
            if (auto it = pt.find(name); it != pt.end())
                s.add(x == value_like(x, it->second));
    };

    // A model's inputs, replayed and shrunk: the verdict COUNTEREXAMPLE.
    auto report = [&](const KCase &cs, const SymInputs &in, std::vector<std::pair<std::string, std::uint64_t>> named,
                      const std::string &what) {
        std::map<std::string, std::uint64_t> vals(named.begin(), named.end());
        ReplayResult rr = kprop_replay<P, I, C>(cs, vals);
        if (!rr.violated)
            throw internal_error(std::string("counterexample for ") + P::id + " on " + subject.id + " " +
                                 std::string(arch_name(arch)) + " (" + cs.label +
                                 ") does not replay on the concrete implementation");
        // Shrink for the reader: each input towards the bottom of its range
        // while the concrete replay still fails.
        for (int pass = 0; pass < 2; ++pass)
            for (const InputDecl &d : in.decls()) {
                if (d.fixed)
                    continue;
                std::uint64_t cur = vals[d.name];
                for (std::uint64_t cand : {d.lo, d.lo + 1, d.lo + (cur - d.lo) / 2}) {
                    while (cand >= d.lo && cand < cur) {
                        auto trial = vals;
                        trial[d.name] = cand;
                        ReplayResult r2;
                        try {
                            r2 = kprop_replay<P, I, C>(cs, trial);
                        } catch (const domain_violation &) {
                            break;
                        }
                        if (!r2.violated)
                            break;
                        vals = trial;
                        cur = cand;
                        cand = d.lo + (cur - d.lo) / 2;
                        if (cand == cur)
                            break;
                    }
                }
            }
        for (auto &[k, x] : named)
            x = vals[k];
        for (const auto &f : cs.fixed)
            if (!vals.count(f.first))
                named.push_back(f);
        Counterexample ce;
        ce.inputs = named;
        nlohmann::json claim = {{"violated", true}, {"check", what}};
        ce.reproducer = make_reproducer(subject, arch, P::id, named, nlohmann::json{{"case", cs.label}}, claim);
        res.cex = ce;
        res.verdict = Verdict::COUNTEREXAMPLE;
        res.reason = "case " + cs.label;
    };

    // SCHEDCHECK_TRACE_CASES=1 prints each case's paths, queries and time
    // (to stderr), and each check or obligation that took 0.1 s or more:
    // where a slow proof spends its time.
    static const bool trace_cases = std::getenv("SCHEDCHECK_TRACE_CASES") != nullptr;
    // ask(), timed only when tracing; `what` names the query if it is slow.
    auto traced_ask = [&](z3::solver &s, z3::check_result &r, model::Encoding enc, auto &&what) -> z3::solver & {
        if (!trace_cases)
            return ask(s, r);
        const auto tq = std::chrono::steady_clock::now();
        z3::solver &answered = ask(s, r);
        const double sec = std::chrono::duration<double>(std::chrono::steady_clock::now() - tq).count();
        if (sec >= 0.1)
            std::fprintf(stderr, "  slow %s (%.3f s, %s)\n", what().c_str(), sec,
                         enc == model::Encoding::integer ? "integers" : "bit-vectors");
        return answered;
    };
    // One query on the incremental solver's short leash, never retried:
    // true only on unsat.  A batch of queries is asked this way first;
    // anything but unsat sends them one by one through ask().  Where the
    // invariant asks for it (share_quick_answers), an unsat answer is
    // shared through the query cache as ask()'s are: releases whose code
    // is the same for a case ask the very same batch, and only the first
    // solves it.  SCHEDCHECK_QUICK_CACHE=0 leaves them out of the cache.
    static const bool quick_cache = [] {
        const char *e = std::getenv("SCHEDCHECK_QUICK_CACHE");
        return share_quick_answers<P>() && !(e && std::string(e) == "0");
    }();
    auto quick_unsat = [&](z3::solver &s, const z3::expr &e, unsigned leash_ms = QUICK_LEASH_MS) {
        s.push();
        s.add(e);
        ++res.queries;
        std::string key;
        if (quick_cache && query_cache::enabled()) {
            key = query_cache::canonical(s.to_smt2());
            if (query_cache::known_unsat(key) || attempt.pending.count(key)) {
                if (trace_cases)
                    std::fprintf(stderr, "  short query: known unsat\n");
                s.pop();
                return true;
            }
            // SCHEDCHECK_DUMP_SHORT=DIR keeps the text of each short query
            // the cache did not know: two runs that should share answers
            // can be compared file by file.
            static const char *const dump_short = std::getenv("SCHEDCHECK_DUMP_SHORT");
            if (const char *dir = dump_short) {
                static std::atomic<unsigned> dumped{0};
                std::ofstream(std::string(dir) + "/s" + std::to_string(dumped++) + ".smt2") << key;
            }
        }
        if (leash_ms != QUICK_LEASH_MS) {
            z3::params longer(ctx);
            longer.set("timeout", std::min(opt.timeout_ms, leash_ms));
            s.set(longer);
        }
        const auto t0 = trace_cases ? std::chrono::steady_clock::now() : std::chrono::steady_clock::time_point{};
        const z3::check_result r = s.check();
        if (trace_cases)
            std::fprintf(stderr, "  short query: %s (%.1f ms)\n",
                         r == z3::unsat ? "unsat" : r == z3::sat ? "sat" : "no answer",
                         std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - t0).count());
        if (leash_ms != QUICK_LEASH_MS)
            s.set(quick);
        s.pop();
        if (r == z3::unsat && !key.empty())
            attempt.pending.insert(std::move(key)); // published after the case's base check
        return r == z3::unsat;
    };
    // The attempt ends here, its solver caught in a wrong state (`what`
    // says how); prove_kprop() starts again.
    auto went_wrong = [&](std::string what, const std::string &more) {
        attempt.poisoned = std::move(what);
        res.verdict = Verdict::UNKNOWN;
        res.reason = attempt.poisoned + more;
        return finish();
    };
    static const bool batch = !std::getenv("SCHEDCHECK_NO_BATCH");
    // A case with `follows_from`: its lemma, on bit-vectors (exact machine
    // arithmetic), every check of every path in one short query.  True only
    // when that query is unsat; anything else sends the case to its own
    // checks, so a lemma that fails or is slow costs one leash and nothing
    // more.
    auto lemma_settles = [&](const KCase &cs) -> bool {
        if constexpr (requires(SymInputs &in, const KCase &c) { P::template build_lemma<I, S>(in, c); }) {
            model::Explorer &ex = exs[static_cast<int>(model::Encoding::bitvector)];
            z3::solver &s = solvers[static_cast<int>(model::Encoding::bitvector)];
            CaseScope scope(ex, s, true, false);
            SymInputs in(ex);
            Runner<S> run = P::template build_lemma<I, S>(in, cs);
            for (const auto &d : ex.domain())
                s.add(d);
            auto paths = ex.explore(run);
            res.paths += paths.size();
            if (ex.path_limit_hit())
                return false;
            z3::expr_vector any_fails(ctx);
            for (const auto &pa : paths)
                if (!pa.value.checks.empty())
                    any_fails.push_back(pa.pc && !all_hold(pa.value.checks, ctx));
            return !any_fails.empty() && quick_unsat(s, z3::mk_or(any_fails));
        } else {
            throw internal_error(std::string(P::id) + ": case " + cs.label + " follows from another by a lemma, "
                                 "and the invariant states none");
        }
    };
    std::vector<char> proved; // per case: proved in this attempt
    std::size_t by_lemma = 0;
    std::uint64_t case_no = 0;
    // The query solvers' base check (below) covers each solver used since
    // the previous one; a case's unsat answers reach the query cache only
    // once a check after it passed.
    unsigned used_encs = 0;
    const std::vector<KCase> all_cases = P::template cases<I>(arch);
    proved.assign(all_cases.size(), 0);
    for (const KCase &cs : all_cases) {
        if (opt.cancelled()) {
            res.verdict = Verdict::UNKNOWN;
            res.reason = "cancelled";
            return finish();
        }
        auto tc = std::chrono::steady_clock::now();
        std::size_t q0 = res.queries, p0 = res.paths;
        struct TraceCase {
            bool on;
            const KCase &cs;
            std::chrono::steady_clock::time_point t;
            const std::size_t &q, &p;
            std::size_t q0, p0;
            ~TraceCase() {
                if (on)
                    std::fprintf(stderr, "case %s: %zu paths, %zu queries, %.3f s\n", cs.label.c_str(), p - p0,
                                 q - q0, std::chrono::duration<double>(std::chrono::steady_clock::now() - t).count());
            }
        } trace{trace_cases, cs, tc, res.queries, res.paths, q0, p0};
        ++case_no;
        const std::size_t case_at = &cs - all_cases.data();
        std::vector<model::Encoding> encs = {model::Encoding::bitvector};
        if (cs.integer_first.value_or(P::integer_first))
            encs = {model::Encoding::integer, model::Encoding::bitvector};
        bool case_unknown = false;
        if (cs.follows_from && *cs.follows_from < case_at && proved[*cs.follows_from] && lemma_settles(cs)) {
            ++by_lemma;
            used_encs |= 1u << static_cast<int>(model::Encoding::bitvector);
            encs.clear(); // nothing left to ask of this case
        }
        for (model::Encoding enc : encs) {
            model::Explorer &ex = exs[static_cast<int>(enc)];
            z3::solver &s = solvers[static_cast<int>(enc)];
            // Lazy exploration asks the solver nothing per branch, which pays
            // for loop-free code; where the case split decides most branches
            // only through the domain, asking prunes the dead ones early.
            bool lazy = true;
            if (cs.lazy)
                lazy = *cs.lazy;
            else if constexpr (requires { P::lazy; })
                lazy = P::lazy;
            CaseScope scope(ex, s, lazy, modular_wraps<P>());
            SymInputs in(ex);
            Runner<S> run = P::template build<I, S>(in, cs);
            for (const auto &d : ex.domain())
                s.add(d);
            z3::check_result dr = z3::sat;
            z3::solver &ds = domain_witness(in, ex.domain(), cs.witness) ? s : ask(s, dr);
            if (opt.fault_empty_domain.at(case_no, attempt.no))
                dr = z3::unsat; // a test's stand-in for a solver that went wrong
            const bool confirmed = dr == z3::unsat;
            if (confirmed) {
                dr = confirm_domain_empty(ctx, ex.domain(), opt.timeout_ms);
                if (dr == z3::sat)
                    return went_wrong("the incremental solver called the domain of case " + cs.label + " empty",
                                      ", and a fresh solver satisfies it");
            }
            if (dr != z3::sat) {
                res.verdict = Verdict::UNKNOWN;
                res.reason = dr == z3::unsat ? "vacuous: the domain of case " + cs.label + " is empty"
                                             : "domain check of case " + cs.label + ": " + (confirmed ? "a fresh solver did not answer, after an empty answer" : z3_reason(ds));
                return finish();
            }

            if (cs.search) {
                for (const auto &pt : search_points_of<P, I>(arch, cs)) {
                    ReplayResult pr;
                    try {
                        pr = kprop_replay<P, I, C>(cs, pt);
                    } catch (const domain_violation &e) {
                        throw internal_error(std::string("search point of ") + P::id + " (" + cs.label +
                                             ") is outside its domain: " + e.what());
                    }
                    if (!pr.violated)
                        continue;
                    s.push();
                    pin(s, in, pt);
                    z3::check_result pr2;
                    z3::solver &ps = ask(s, pr2);
                    if (pr2 != z3::sat)
                        throw internal_error(std::string("search point of ") + P::id + " (" + cs.label +
                                             ") is not a model of its domain");
                    auto named = model_inputs(in, ps.get_model());
                    s.pop();
                    report(cs, in, named, pr.failed);
                    return finish();
                }
                searched += (searched.empty() ? "" : "; ") + cs.searched;
                break;
            }

            // The concrete probe (once per case, in the first encoding).
            if (enc == encs.front())
                for (const auto &pt : probe_points(in.decls(), 0x9e3779b97f4a7c15ULL ^ case_no)) {
                    ReplayResult pr;
                    try {
                        pr = kprop_replay<P, I, C>(cs, pt);
                    } catch (const domain_violation &) {
                        continue;
                    }
                    if (!pr.violated)
                        continue;
                    s.push();
                    pin(s, in, pt);
                    z3::check_result pr2;
                    z3::solver &ps = ask(s, pr2);
                    if (pr2 == z3::sat) {
                        auto named = model_inputs(in, ps.get_model());
                        s.pop();
                        report(cs, in, named, pr.failed);
                        return finish();
                    }
                    s.pop();
                }

            // Traced: the explorer's share of the case (its feasibility checks).
            const auto te = trace_cases ? std::chrono::steady_clock::now() : std::chrono::steady_clock::time_point{};
            const std::size_t f0 = ex.stats().feasibility_checks, s0 = ex.stats().settled;
            auto paths = ex.explore(run);
            if (trace_cases)
                std::fprintf(stderr, "  explored: %zu feasibility checks, %zu settled by the domain, %.3f s\n",
                             ex.stats().feasibility_checks - f0, ex.stats().settled - s0,
                             std::chrono::duration<double>(std::chrono::steady_clock::now() - te).count());
            res.paths += paths.size();
            if (ex.path_limit_hit()) {
                res.verdict = Verdict::UNKNOWN;
                res.reason = "path limit reached in case " + cs.label;
                return finish();
            }
            if (enc == model::Encoding::integer) {
                // Are the integer terms the machine's on every path?
                // One obligation term can be recorded on several paths; it
                // must hold under each of their conditions, so it is asked
                // once under their disjunction (not only on the first path).
                bool exact = true;
                struct Recorded {
                    z3::expr holds;
                    z3::expr_vector pcs; // the conditions of the paths that recorded it
                    std::string what;
                };
                std::map<unsigned, Recorded> where;
                std::vector<unsigned> order;
                std::size_t unread = 0;
                for (const auto &pa : paths) {
                    // Only the terms the path reads need to be the
                    // machine's: its control flow (Path::uses) and its
                    // checks.  A wrap in a term neither reaches (v4.12's
                    // weighted load_sum, for a property of util_avg) changes
                    // no answer of this case, so its obligation is not asked.
                    std::vector<z3::expr> read = pa.uses;
                    for (const auto &chk : pa.value.checks)
                        read.push_back(check_holds(chk));
                    const auto ids = model::subterm_ids(read);
                    for (const auto &ob : pa.obligations) {
                        if (ob.term && !ids.count(ob.term->id())) {
                            ++unread;
                            continue;
                        }
                        auto it = where.find(ob.holds.id());
                        if (it == where.end()) {
                            it = where.emplace(ob.holds.id(), Recorded{ob.holds, z3::expr_vector(ctx), ob.what}).first;
                            order.push_back(ob.holds.id());
                        }
                        it->second.pcs.push_back(pa.pc);
                    }
                }
                if (trace_cases && unread)
                    std::fprintf(stderr, "  %zu obligations on terms no check or branch reads, not asked\n", unread);
                // All of them in one short query first: unsat there settles
                // every obligation at once (the disjunction has no model iff
                // none of its members has); otherwise each is asked alone.
                z3::expr_vector any_inexact(ctx);
                for (unsigned id : order) {
                    const Recorded &o = where.at(id);
                    any_inexact.push_back(z3::mk_or(o.pcs) && !o.holds);
                }
                // (Asking the obligations and the checks below in one short
                // query was slower: on v4.12's pelt.util_bounded it missed
                // the leash where the two apart answer in time.)
                const bool all_exact = batch && !order.empty() && quick_unsat(s, z3::mk_or(any_inexact));
                for (unsigned id : order) {
                    if (all_exact)
                        break;
                    const Recorded &o = where.at(id);
                    s.push();
                    s.add(z3::mk_or(o.pcs) && !o.holds);
                    z3::check_result r;
                    traced_ask(s, r, enc, [] { return std::string("exactness obligation"); });
                    s.pop();
                    if (r != z3::unsat) {
                        exact = false;
                        if (trace_cases)
                            std::fprintf(stderr, "  not exact in integers: %s; redone on bit-vectors\n",
                                         o.what.c_str());
                        break;
                    }
                }
                if (!exact)
                    continue; // redo this case on bit-vectors
            }
            // Each check term's answer against the domain alone, by AST id.
            // The map holds the term itself: an id is unique only while its
            // AST lives, and a freed one may be given to another term.
            std::unordered_map<unsigned, std::pair<z3::expr, bool>> domain_answer;
            // Every check of every path in one short query first: unsat
            // proves them all.  Otherwise (a model, or no answer within the
            // leash) each check is asked alone, in order, which finds the
            // first one that fails and gives it the full timeout.
            z3::expr_vector any_fails(ctx);
            for (const auto &pa : paths)
                if (!pa.value.checks.empty())
                    any_fails.push_back(pa.pc && !all_hold(pa.value.checks, ctx));
            // On bit-vectors the short query rarely answers and only adds its
            // leash to every case (idlebal's no_overflow, avg_idle_no_jump):
            // there the checks go one by one at once.
            const bool all_proved = batch && enc == model::Encoding::integer && !any_fails.empty() &&
                                    quick_unsat(s, z3::mk_or(any_fails));
            for (const auto &pa : paths) {
                // The checks left for the full query: none when the batch
                // proved them all, and none that the domain alone implies.
                // A check that the domain alone implies needs no path
                // condition: with fewer assumptions an unsat answer is a
                // stronger result, so it is sound to stop there.  The
                // path's branch conditions can cost the solver seconds on a
                // bound that the input ranges settle in milliseconds; when
                // the short query does not answer unsat, the full query
                // below decides.
                std::vector<const KCheck<S> *> todo;
                for (const auto &chk : pa.value.checks) {
                    if (all_proved)
                        break;
                    if (domain_first<P>()) {
                        // One check term recurs on many paths (the paths
                        // differ in branches it does not read): its answer
                        // against the case's domain is asked once.
                        const z3::expr holds = check_holds(chk);
                        auto [it, fresh_term] = domain_answer.try_emplace(holds.id(), holds, false);
                        if (fresh_term)
                            it->second.second = quick_unsat(s, !holds, domain_leash_ms<P>());
                        if (it->second.second)
                            continue;
                    }
                    todo.push_back(&chk);
                }
                // On bit-vectors, where the invariant asks for it, a path's
                // remaining checks in one full query: the solver bit-blasts
                // the path condition (products by constants, comparisons of
                // them) once rather than once per check.  Unsat proves them
                // all; otherwise one by one.
                if (path_batch<P>() && batch && enc == model::Encoding::bitvector && todo.size() > 1) {
                    z3::expr_vector all(ctx);
                    for (const KCheck<S> *c : todo)
                        all.push_back(check_holds(*c));
                    s.push();
                    s.add(pa.pc);
                    s.add(!z3::mk_and(all));
                    z3::check_result r;
                    traced_ask(s, r, enc, [&] { return "the path's " + std::to_string(todo.size()) + " checks at once"; });
                    s.pop();
                    if (r == z3::unsat)
                        todo.clear();
                }
                for (const KCheck<S> *cp : todo) {
                    const KCheck<S> &chk = *cp;
                    s.push();
                    s.add(pa.pc);
                    s.add(!check_holds(chk));
                    z3::check_result r;
                    z3::solver &answered = traced_ask(s, r, enc, [&] { return "check: " + chk.what; });
                    if (r == z3::unknown && std::getenv("SCHEDCHECK_DUMP_UNKNOWN"))
                        std::fprintf(stderr, "unknown query (%s):\n%s\n", chk.what.c_str(), s.to_smt2().c_str());
                    if (r == z3::unknown && unknown.empty())
                        unknown = "case " + cs.label + ", " + chk.what + ": " + z3_reason(answered);
                    case_unknown = case_unknown || r == z3::unknown;
                    if (r == z3::sat) {
                        auto named = model_inputs(in, answered.get_model());
                        s.pop();
                        report(cs, in, named, chk.what);
                        return finish();
                    }
                    s.pop();
                }
                if (!premise_reached) {
                    s.push();
                    s.add(pa.pc && any_guard(pa.value.checks, ctx));
                    z3::check_result r;
                    ask(s, r);
                    premise_reached = r == z3::sat;
                    s.pop();
                }
            }
            break; // this case is done in this encoding
        }
        // Every check unsat (a search case proves nothing).
        proved[case_at] = !cs.search && !case_unknown;
        // The solvers, their scopes popped, must find their empty bases
        // satisfiable (base_check in engine.h).  The path explorers' after
        // every case that asked them anything, as their unsat answers prune
        // paths.  The query solvers' after every case, or where the
        // invariant says so after the cases base_check_every<P>() names
        // (the first, every N-th and the last): a solver found in a wrong
        // state throws the whole attempt away with what it published
        // (prove_kprop), so a later check loses nothing but time.  A PROVED verdict always
        // follows a passing check after the last case; a counterexample is
        // replayed on the concrete code, whatever the solver's state.
        for (model::Encoding enc : encs)
            used_encs |= 1u << static_cast<int>(enc);
        const ProveOptions::Fault &f = opt.fault_false_base;
        const bool fault = f.at(case_no, attempt.no);
        // A test's stand-in for a solver that went wrong, caught when its
        // check is due.
        if (fault && !f.explorer)
            for (model::Encoding enc : encs)
                solvers[static_cast<int>(enc)].add(ctx.bool_val(false));
        const bool due = case_no == 1 || case_no % base_check_every<P>() == 0 || &cs == &all_cases.back();
        // Every encoding used since the last check: an explorer that was
        // asked nothing since its own last check answers at once.
        z3::solver *qs[2];
        model::Explorer *es[2];
        int n = 0;
        for (int e = 0; e < 2; ++e)
            if (used_encs & (1u << e)) {
                qs[n] = due ? &solvers[e] : nullptr;
                es[n++] = &exs[e];
            }
        if (std::string wrong = base_check(qs, es, n, cs.label, fault && f.explorer, f.explorer); !wrong.empty())
            return went_wrong(std::move(wrong), "");
        if (!due)
            continue; // this case's unsat answers wait for the next check
        used_encs = 0;
        for (const std::string &key : attempt.pending) {
            query_cache::record_unsat(key);
            attempt.cached.push_back(key);
        }
        attempt.pending.clear();
    }
    if (!unknown.empty()) {
        res.verdict = Verdict::UNKNOWN;
        res.reason = "solver gave up in " + unknown;
    } else if (!premise_reached) {
        res.verdict = Verdict::UNKNOWN;
        res.reason = "vacuous: no input reaches the property's premise";
    }
    if (!searched.empty())
        res.reason += (res.reason.empty() ? "" : "; ") + std::string("searched without a violation: ") + searched;
    if constexpr (requires { P::lemma_text; })
        if (by_lemma)
            res.reason += (res.reason.empty() ? "" : "; ") + std::to_string(by_lemma) + " of " +
                          std::to_string(all_cases.size()) + " cases from an earlier one by " + P::lemma_text +
                          ", checked per case";
    return finish();
}

// A proof whose incremental solver went wrong is thrown away with the
// query-cache entries it published, and done again (redo_on_new_solver).
template <class P, class I, class S, class C>
ProofResult prove_kprop(const Variant &subject, Arch arch, const ProveOptions &opt, const std::string &domain_text) {
    return redo_on_new_solver(P::id, subject.id, arch, [&](unsigned no, std::string &poisoned) {
        KpropAttempt attempt;
        attempt.no = no;
        ProofResult r = prove_kprop_once<P, I, S, C>(subject, arch, opt, domain_text, attempt);
        if (!attempt.poisoned.empty()) {
            query_cache::forget(attempt.cached);
            poisoned = attempt.poisoned;
        }
        return r;
    });
}

} // namespace sc::proofs
