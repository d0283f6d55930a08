// Symbolic execution by re-execution.
//
// explore(f) runs f (a call into ref/ code over Sym words) again and again.
// Each symbolic branch asks decide(cond):
//  - a condition that simplifies to a constant is not a branch at all;
//  - while replaying the prefix of a path already chosen, the recorded
//    decision is returned (forced ones included, so every re-run takes the
//    same way through one-sided branches as the run that found them);
//  - past the prefix, the solver checks which sides are feasible under the
//    path condition and the domain.  A one-sided branch is followed without
//    forking; a two-sided one takes "true" now and queues the "false" prefix.
// Each run yields one path: its condition, f's result, and the obligations
// (facts that must hold for the machine arithmetic to match the encoding)
// recorded along it.
#pragma once
#include "model/sym.h"

#include <cstddef>
#include <optional>
#include <set>
#include <stdexcept>
#include <string>
#include <unordered_map>
#include <unordered_set>
#include <utility>
#include <vector>

namespace sc::model {

struct Obligation {
    z3::expr pc;    // path condition at the operation
    z3::expr holds; // what must be true there
    std::string what;
    // The value the operation produced, when the obligation is about its
    // exactness: it matters only if that term is read (see Path::uses).
    // None: the obligation always matters.
    std::optional<z3::expr> term;
};

template <class R> struct Path {
    z3::expr pc;
    R value;
    std::vector<Obligation> obligations;
    // In the integer encoding, every term the path's control flow read, as
    // the code built it (before any simplification): branch conditions,
    // also those that folded to a constant or that the domain settled,
    // concretised values (shift counts, table indices) and the wrap tests
    // of modular operations.  With the result's own terms (a property's
    // checks), these are all that the path's verdict reads.
    std::vector<z3::expr> uses;
};

struct ExplorerStats {
    std::size_t runs = 0, feasibility_checks = 0, unknown_checks = 0, forced = 0, forks = 0;
    std::size_t settled = 0; // branches and concretisations decided by the domain's fixed terms
};

// The ids of `roots` and of all their subterms: what a path reads, for
// telling which of its obligations matter.  Z3 shares equal subterms, so a
// term built twice is found either way (which can only keep more).
std::unordered_set<unsigned> subterm_ids(const std::vector<z3::expr> &roots);

class Explorer {
  public:
    Explorer(z3::context &ctx, Encoding enc, unsigned timeout_ms, std::size_t max_paths = 100000);
    ~Explorer();
    Explorer(const Explorer &) = delete;
    Explorer &operator=(const Explorer &) = delete;

    z3::context &ctx() { return ctx_; }
    Encoding encoding() const { return enc_; }

    // Make this the explorer that Sym operations on this thread talk to
    // (the constructor does it too).
    void activate();

    // One explorer serves many cases of a proof: a case's domain lives in
    // a solver scope opened by begin_case and dropped by end_case.
    void begin_case();
    void end_case();

    // Lazy exploration forks on every undecided branch without asking the
    // solver: paths may be infeasible, which is sound wherever each path is
    // followed by a query that includes its path condition (an infeasible
    // path then answers unsat).  Only for code without loops on symbolic
    // values, where the path count stays small.
    void set_lazy(bool lazy) { lazy_ = lazy; }

    // In the integer encoding, an unsigned sum or difference and a change
    // of signedness are modelled as the machine does them (an
    // if-then-else on the wrap), where by default they record a no-wrap
    // obligation and a case whose wrap can happen is redone on
    // bit-vectors.  For code that wraps on purpose around arithmetic the
    // bit-vector solver cannot take, such as a division by a symbolic
    // divisor: in integers that is cheap, a bit-vector divider is not.
    // Products and narrowings still record obligations.
    void set_modular_wraps(bool on) { modular_ = on; }
    bool modular_wraps() const { return modular_ && enc_ == Encoding::integer; }
    // The value of such an operation: `wrapped` where `wraps` holds,
    // `plain` elsewhere.  Where the domain (and, exploring eagerly, the
    // path) rules out one side, that side's term alone, so that the
    // solver is not handed an if-then-else per operation; the answers of
    // a lazy exploration depend on the domain only and are kept per case.
    z3::expr select_wrap(const z3::expr &wraps, const z3::expr &wrapped, const z3::expr &plain);

    // Domain constraints hold on every path and in every query.  One of
    // the form "term == constant" (a crossing case's number of periods)
    // is also kept as a substitution: a branch or a concretisation whose
    // term that constant settles is decided by it, with no solver asked.
    void assume(const z3::expr &c);
    const z3::expr_vector &domain() const { return domain_; }

    template <class F> auto explore(F &&f) -> std::vector<Path<decltype(f())>> {
        using R = decltype(f());
        std::vector<Path<R>> paths;
        pending_.assign(1, {});
        path_limit_hit_ = false;
        while (!pending_.empty()) {
            if (paths.size() >= max_paths_) {
                path_limit_hit_ = true;
                break;
            }
            begin_run();
            try {
                R v = f();
                paths.push_back(Path<R>{path_condition(), std::move(v), std::move(obligations_), std::move(uses_)});
            } catch (const infeasible_path &) {
                // Both sides of a branch were unsat: the prefix itself was
                // infeasible (possible only after an "unknown"); drop it.
            } catch (...) {
                end_run();
                throw;
            }
            end_run();
        }
        return paths;
    }

    bool path_limit_hit() const { return path_limit_hit_; }
    const ExplorerStats &stats() const { return stats_; }

    // With no case open the solver holds nothing and must answer sat.
    // Unsat is a solver in a wrong state, whose prunings may have dropped
    // feasible paths (see redo_on_new_solver in proofs/engine/engine.h).
    // Asked only when the solver has checked something since the last
    // call.  `poison` (tests only) first adds false, as such a state would
    // answer.
    bool base_unsat(bool poison = false);

    // Called through the thread-local hooks in sym.h.
    bool decide(const z3::expr &cond);
    unsigned concretize(const z3::expr &v, unsigned lo, unsigned hi);
    void oblige(const z3::expr &holds, const std::string &what, const std::optional<z3::expr> &term = {});

  private:
    struct infeasible_path {};
    void begin_run();
    void end_run();
    z3::expr path_condition() const;
    z3::check_result check_with(const z3::expr &c);
    // A simplified term with the domain's fixed terms replaced by their
    // values, simplified again.
    z3::expr settle(const z3::expr &simplified) const;

    z3::context &ctx_;
    Encoding enc_;
    std::size_t max_paths_;
    z3::solver solver_;
    z3::expr_vector domain_;
    z3::expr_vector pc_;
    z3::expr_vector fixed_terms_, fixed_values_; // this case's "term == constant" assumptions
    std::vector<Obligation> obligations_;
    std::vector<z3::expr> uses_; // this run's Path::uses
    std::vector<bool> prefix_, trail_;
    std::set<unsigned> taken_;          // ids of the conditions taken on this path
    std::size_t pos_ = 0;
    bool modular_ = false;
    std::unordered_map<unsigned, std::pair<z3::expr, int>> wrap_sides_; // lazy: wraps term id -> (term, 0 never / 1 always / 2 either)
    std::vector<std::vector<bool>> pending_;
    bool running_ = false;
    bool lazy_ = false;
    std::size_t checks_at_base_ = 0; // feasibility_checks at the last base_unsat()
    unsigned scopes_ = 0; // solver scopes opened by this run
    bool path_limit_hit_ = false;
    ExplorerStats stats_;
    Explorer *prev_;
};

} // namespace sc::model
