// What the kernel-invariant engine does when its incremental solver gives
// up on a query (proofs/engine/kprop_engine.h).  The incremental solver carries
// what earlier cases left (learnt lemmas, the arithmetic set-up for
// incremental use) and may give up on a query that a fresh solver settles
// at once, so fresh solvers are asked in turn, each with a short timeout
// and a different strategy:
//   - Z3's default solver (1.5 s on bit-vectors, 0.5 s on integers);
//   - on the integer encoding only, its older arithmetic solver (often
//     quick on products of two inputs);
//   - on the integer encoding only, nlsat on the real relaxation of the
//     query.  Only its unsat is taken: a relaxation without a model proves
//     that the integer query has none, while a real model says nothing
//     about the integers.  It settles at once some products the others
//     take seconds on;
//   - another random seed;
// and last one solver with the whole timeout.  The strategy that answered
// goes first next time: the cases of a proof ask similar queries.
#pragma once
#include <algorithm>
#include <atomic>
#include <chrono>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <optional>
#include <string>
#include <vector>

#include <z3++.h>

namespace sc::proofs {

class SolverRetry {
  public:
    SolverRetry(z3::context &ctx, unsigned timeout_ms) : ctx_(ctx), timeout_ms_(timeout_ms) {}

    // s gave up (unknown): ask fresh solvers with its assertions.  Returns
    // the answer (unknown if every strategy gave up); `answered` holds the
    // fresh solver that gave it, whose model a sat answer reads.  Each
    // solver asked counts in `queries`.
    z3::check_result retry(z3::solver &s, bool integer, std::optional<z3::solver> &answered,
                           std::size_t &queries) {
        return retry(s.assertions(), integer, answered, queries);
    }
    // The same for a query given as its assertions (a slice of one).
    z3::check_result retry(const z3::expr_vector &as, bool integer, std::optional<z3::solver> &answered,
                           std::size_t &queries) {
        const auto t0 = std::chrono::steady_clock::now();
        dump(as);
        z3::check_result r = z3::unknown;
        for (std::size_t n = 0; r == z3::unknown && n <= order_.size(); ++n) {
            const Strategy st = n < order_.size() ? order_[n] : Strategy::last;
            // The arithmetic strategies say nothing new about bit-vectors.
            if ((st == Strategy::nlsat || st == Strategy::arith2) && !integer)
                continue;
            ++queries;
            r = st == Strategy::nlsat ? relaxed(as, answered) : fresh(as, st, integer, answered);
            if (dump_dir())
                std::fprintf(stderr, "slow query: strategy %d %s after %.3f s\n", static_cast<int>(st),
                             r == z3::unsat ? "unsat" : r == z3::sat ? "sat" : "unknown",
                             std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count());
            if (r != z3::unknown && n > 0 && n < order_.size())
                std::rotate(order_.begin(), order_.begin() + n, order_.begin() + n + 1);
        }
        return r;
    }

  private:
    enum class Strategy { plain, arith2, nlsat, seed, last };

    z3::check_result fresh(const z3::expr_vector &as, Strategy st, bool integer, std::optional<z3::solver> &answered) {
        answered.emplace(ctx_);
        z3::params fp(ctx_);
        // A fresh solver bit-blasts the whole query before it searches,
        // which alone can take a few hundred ms: bit-vectors get a longer
        // first try (idlebal's update_avg bounds answer in 0.5 s).
        fp.set("timeout", st == Strategy::last ? timeout_ms_ : std::min(timeout_ms_, integer ? 500u : 1500u));
        fp.set("random_seed", st == Strategy::seed ? 7u : st == Strategy::last ? 14u : 0u);
        if (st == Strategy::arith2)
            fp.set("arith.solver", 2u);
        answered->set(fp);
        for (const auto &a : as)
            answered->add(a);
        return answered->check();
    }
    // nlsat on the real relaxation: unsat or unknown, never sat.
    z3::check_result relaxed(const z3::expr_vector &as, std::optional<z3::solver> &answered) {
        z3::solver nl = z3::try_for(z3::tactic(ctx_, "qfnra-nlsat"), std::min(timeout_ms_, 100u)).mk_solver();
        for (const auto &a : as)
            nl.add(a);
        try {
            if (nl.check() == z3::unsat) {
                answered.emplace(nl);
                return z3::unsat;
            }
        } catch (const z3::exception &) {
            // the tactic refused the query: the other strategies answer
        }
        return z3::unknown;
    }
    // SCHEDCHECK_DUMP_SLOW=DIR keeps each query the incremental solver gave
    // up on, for study with the z3 command line, and prints what each
    // strategy answered.
    static const char *dump_dir() {
        static const char *dir = std::getenv("SCHEDCHECK_DUMP_SLOW");
        return dir;
    }
    void dump(const z3::expr_vector &as) {
        if (!dump_dir())
            return;
        z3::solver s(ctx_);
        for (const auto &a : as)
            s.add(a);
        static std::atomic<unsigned> n{0};
        std::ofstream(std::string(dump_dir()) + "/q" + std::to_string(n++) + ".smt2") << s.to_smt2();
    }

    z3::context &ctx_;
    unsigned timeout_ms_;
    std::vector<Strategy> order_ = {Strategy::plain, Strategy::arith2, Strategy::nlsat, Strategy::seed};
};

} // namespace sc::proofs
