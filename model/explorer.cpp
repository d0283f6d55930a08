#include "model/explorer.h"

#include <string>

namespace sc::model {

namespace {
thread_local Explorer *tl_current = nullptr;
}

Explorer &current() {
    if (!tl_current)
        throw std::logic_error("symbolic operation with no explorer on this thread");
    return *tl_current;
}
z3::context &current_ctx() { return current().ctx(); }
Encoding current_encoding() { return current().encoding(); }
void record_obligation(const z3::expr &holds, const std::string &what) { current().oblige(holds, what); }
void record_obligation(const z3::expr &term, const z3::expr &holds, const std::string &what) {
    current().oblige(holds, what, term);
}
bool modular_wraps() { return current().modular_wraps(); }
z3::expr select_wrap(const z3::expr &wraps, const z3::expr &wrapped, const z3::expr &plain) {
    return current().select_wrap(wraps, wrapped, plain);
}
bool decide(const z3::expr &cond) { return current().decide(cond); }
unsigned concretize(const z3::expr &v, unsigned lo, unsigned hi) { return current().concretize(v, lo, hi); }

std::unordered_set<unsigned> subterm_ids(const std::vector<z3::expr> &roots) {
    std::unordered_set<unsigned> seen;
    std::vector<z3::expr> todo(roots);
    while (!todo.empty()) {
        z3::expr e = todo.back();
        todo.pop_back();
        if (!seen.insert(e.id()).second || !e.is_app())
            continue;
        for (unsigned i = 0; i < e.num_args(); ++i)
            todo.push_back(e.arg(i));
    }
    return seen;
}

z3::expr int_pow2(unsigned k) {
    // 2^k for k <= 64 as decimal text: int_val(uint64_t) cannot hold 2^64.
    unsigned __int128 v = static_cast<unsigned __int128>(1) << k;
    std::string s;
    do {
        s.insert(s.begin(), char('0' + static_cast<int>(v % 10)));
        v /= 10;
    } while (v);
    return current_ctx().int_val(s.c_str());
}

Explorer::Explorer(z3::context &ctx, Encoding enc, unsigned timeout_ms, std::size_t max_paths)
    : ctx_(ctx), enc_(enc), max_paths_(max_paths), solver_(ctx), domain_(ctx), pc_(ctx),
      fixed_terms_(ctx), fixed_values_(ctx), prev_(tl_current) {
    z3::params p(ctx);
    p.set("timeout", timeout_ms);
    solver_.set(p);
    tl_current = this;
}

Explorer::~Explorer() { tl_current = prev_; }

void Explorer::activate() { tl_current = this; }

void Explorer::begin_case() {
    solver_.push();
    domain_ = z3::expr_vector(ctx_);
    fixed_terms_ = z3::expr_vector(ctx_);
    fixed_values_ = z3::expr_vector(ctx_);
    wrap_sides_.clear();
}

void Explorer::end_case() {
    solver_.pop();
    domain_ = z3::expr_vector(ctx_);
    fixed_terms_ = z3::expr_vector(ctx_);
    fixed_values_ = z3::expr_vector(ctx_);
    wrap_sides_.clear();
}

bool Explorer::base_unsat(bool poison) {
    if (poison)
        solver_.add(ctx_.bool_val(false));
    if (stats_.feasibility_checks == checks_at_base_)
        return false;
    checks_at_base_ = stats_.feasibility_checks;
    return solver_.check() == z3::unsat;
}

void Explorer::assume(const z3::expr &c) {
    domain_.push_back(c);
    solver_.add(c);
    const z3::expr s = c.simplify();
    auto fix = [&](const z3::expr &e) {
        if (!e.is_app() || e.decl().decl_kind() != Z3_OP_EQ || e.num_args() != 2)
            return;
        const z3::expr a = e.arg(0), b = e.arg(1);
        if (b.is_numeral() && !a.is_numeral()) {
            fixed_terms_.push_back(a);
            fixed_values_.push_back(b);
        } else if (a.is_numeral() && !b.is_numeral()) {
            fixed_terms_.push_back(b);
            fixed_values_.push_back(a);
        }
    };
    if (s.is_app() && s.decl().decl_kind() == Z3_OP_AND)
        for (unsigned i = 0; i < s.num_args(); ++i)
            fix(s.arg(i));
    else
        fix(s);
}

// Sound on every path of the case: the domain, which each query holds,
// makes each fixed term equal to its value.
z3::expr Explorer::settle(const z3::expr &simplified) const {
    z3::expr e = simplified;
    return e.substitute(fixed_terms_, fixed_values_).simplify();
}

void Explorer::begin_run() {
    prefix_ = std::move(pending_.back());
    pending_.pop_back();
    pos_ = 0;
    trail_.clear();
    pc_ = z3::expr_vector(ctx_);
    obligations_.clear();
    uses_.clear();
    taken_.clear();
    running_ = true;
    ++stats_.runs;
}

void Explorer::end_run() {
    running_ = false;
    if (scopes_)
        solver_.pop(scopes_);
    scopes_ = 0;
}

z3::expr Explorer::path_condition() const {
    if (pc_.empty())
        return ctx_.bool_val(true);
    return z3::mk_and(pc_);
}

z3::check_result Explorer::check_with(const z3::expr &c) {
    solver_.push();
    solver_.add(c);
    z3::check_result r = solver_.check();
    solver_.pop();
    ++stats_.feasibility_checks;
    if (r == z3::unknown)
        ++stats_.unknown_checks;
    return r;
}

bool Explorer::decide(const z3::expr &cond) {
    if (!running_)
        throw std::logic_error("symbolic branch outside an exploration");
    if (enc_ == Encoding::integer)
        uses_.push_back(cond);
    z3::expr c = cond.simplify();
    if (c.is_true())
        return true;
    if (c.is_false())
        return false;
    if (!fixed_terms_.empty()) {
        // Decided by the domain's fixed terms: no branch, as for a
        // constant, and the same on every replay.
        const z3::expr k = settle(c);
        if (k.is_true() || k.is_false()) {
            ++stats_.settled;
            return k.is_true();
        }
    }

    bool take;
    if (pos_ < prefix_.size()) {
        take = prefix_[pos_++];
    } else if (taken_.count(c.id()) || taken_.count((!c).id())) {
        // The path already decided this very condition (both sides of a
        // differential run branch alike): forced, no solver needed.
        take = taken_.count(c.id()) != 0;
        ++stats_.forced;
    } else {
        // "unknown" counts as feasible: exploring a path too many is sound,
        // dropping a real one is not.  With the true side unsat the false
        // side is sat, as the path so far is; only after an "unknown" may
        // the path itself be empty.
        bool t_sat = lazy_ || check_with(c) != z3::unsat;
        bool f_sat = lazy_ || t_sat || stats_.unknown_checks ? lazy_ || check_with(!c) != z3::unsat : true;
        if (!t_sat && !f_sat)
            throw infeasible_path{};
        take = t_sat;
        if (t_sat && f_sat) {
            std::vector<bool> alt = trail_;
            alt.push_back(false);
            pending_.push_back(std::move(alt));
            ++stats_.forks;
        } else {
            ++stats_.forced;
        }
    }
    trail_.push_back(take);
    z3::expr taken = take ? c : !c;
    pc_.push_back(taken);
    taken_.insert(taken.id());
    if (!lazy_) { // a lazy run asks the solver nothing: do not make it digest the path
        solver_.push();
        solver_.add(taken);
        ++scopes_;
    }
    return take;
}

unsigned Explorer::concretize(const z3::expr &v, unsigned lo, unsigned hi) {
    if (enc_ == Encoding::integer)
        uses_.push_back(v);
    z3::expr s = v.simplify();
    if (!s.is_numeral() && !fixed_terms_.empty()) {
        const z3::expr k = settle(s);
        if (k.is_numeral()) {
            s = k;
            ++stats_.settled;
        }
    }
    if (s.is_numeral()) {
        std::uint64_t k = 0;
        if (s.is_numeral_u64(k) && k >= lo && k <= hi)
            return static_cast<unsigned>(k);
    }
    if (!lazy_) {
        // A value the path already fixes (a crossing case fixes the number
        // of periods, so every shift and table index taken from it): one
        // model names the candidate and one query shows that no other
        // value is possible.  No branch is recorded, and a replayed prefix
        // finds the same single value.
        ++stats_.feasibility_checks;
        if (solver_.check() == z3::sat) {
            std::uint64_t k = 0;
            z3::expr m = solver_.get_model().eval(v, true);
            if (m.is_numeral_u64(k) && k >= lo && k <= hi &&
                check_with(v != ctx_.num_val(static_cast<unsigned>(k), v.get_sort())) == z3::unsat)
                return static_cast<unsigned>(k);
        }
        // Several values: ask the solver at each branch and halve the
        // range, about 2 log2(hi - lo) queries per value instead of one per
        // smaller value.  Each leaf is one value, as below; the conditions
        // do not depend on any model, so a replayed prefix takes the same
        // branches.
        while (lo < hi) {
            unsigned mid = lo + (hi - lo) / 2;
            z3::expr m = ctx_.num_val(mid, v.get_sort());
            if (decide(v.is_bv() ? z3::ule(v, m) : v <= m))
                hi = mid;
            else
                lo = mid + 1;
        }
        return lo;
    }
    for (unsigned k = lo; k < hi; ++k)
        if (decide(v == ctx_.num_val(k, v.get_sort())))
            return k;
    // The remaining value: any other is excluded by the branches above and
    // by the caller's obligation that v lies in [lo, hi].
    return hi;
}

z3::expr Explorer::select_wrap(const z3::expr &wraps, const z3::expr &wrapped, const z3::expr &plain) {
    uses_.push_back(wraps);
    const z3::expr w = wraps.simplify();
    if (w.is_true())
        return wrapped;
    if (w.is_false())
        return plain;
    int side = -1;
    if (lazy_) {
        auto it = wrap_sides_.find(w.id());
        if (it != wrap_sides_.end())
            side = it->second.second;
    }
    if (side < 0) {
        // "unknown" keeps both sides.
        side = check_with(w) == z3::unsat ? 0 : check_with(!w) == z3::unsat ? 1 : 2;
        if (lazy_)
            wrap_sides_.insert_or_assign(w.id(), std::make_pair(w, side));
    }
    return side == 0 ? plain : side == 1 ? wrapped : z3::ite(w, wrapped, plain);
}

void Explorer::oblige(const z3::expr &holds, const std::string &what, const std::optional<z3::expr> &term) {
    z3::expr h = holds.simplify();
    if (h.is_true())
        return;
    obligations_.push_back(Obligation{path_condition(), h, what, term});
}

} // namespace sc::model
