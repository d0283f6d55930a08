// Evaluating property checks: as one solver formula over symbolic words, or
// directly on concrete words, naming the first check that fails.
#pragma once
#include <string>
#include <vector>

#include "model/sym.h"
#include "proofs/invariant.h"

namespace sc::proofs {

inline const char *cmp_text(cmp c) {
    switch (c) {
    case cmp::le: return "<=";
    case cmp::eq: return "==";
    case cmp::ne: return "!=";
    case cmp::contracts: return "contracts towards";
    }
    return "?";
}

// |x - t| as a term, in the encoding of x.
inline z3::expr dist_term(const z3::expr &x, const z3::expr &t, bool integer, unsigned wide) {
    if (integer)
        return z3::ite(x >= t, x - t, t - x);
    z3::expr xw = z3::zext(x, wide - x.get_sort().bv_size());
    z3::expr tw = z3::zext(t, wide - t.get_sort().bv_size());
    return z3::ite(z3::uge(xw, tw), xw - tw, tw - xw);
}

template <class S> z3::expr check_holds(const Check<S> &c) {
    const z3::expr &l = c.lhs.e, &r = c.rhs.e;
    bool integer = l.is_int();
    z3::expr body = l.ctx().bool_val(true);
    switch (c.op) {
    case cmp::le: body = integer ? l <= r : z3::ule(l, r); break;
    case cmp::eq: body = l == r; break;
    case cmp::ne: body = l != r; break;
    case cmp::contracts: {
        // |after - L| * 2^k <= |before - L| * (2^k - 1), computed without
        // wrap (integers, or bit-vectors 16 bits wider than the word).
        unsigned wide = integer ? 0 : l.get_sort().bv_size() + 16;
        z3::expr da = dist_term(l, c.target.e, integer, wide);
        z3::expr db = dist_term(r, c.target.e, integer, wide);
        std::uint64_t s = 1ULL << c.shift;
        if (integer)
            body = da * l.ctx().int_val(s) <= db * l.ctx().int_val(s - 1);
        else
            body = z3::ule(da * l.ctx().bv_val(s, wide), db * l.ctx().bv_val(s - 1, wide));
        break;
    }
    }
    return z3::implies(c.guard.e, body);
}

template <class S> z3::expr all_hold(const std::vector<Check<S>> &cs, z3::context &ctx) {
    z3::expr_vector v(ctx);
    for (const auto &c : cs)
        v.push_back(check_holds(c));
    return v.empty() ? ctx.bool_val(true) : z3::mk_and(v);
}

template <class S> z3::expr any_guard(const std::vector<Check<S>> &cs, z3::context &ctx) {
    z3::expr_vector v(ctx);
    for (const auto &c : cs)
        v.push_back(c.guard.e);
    return v.empty() ? ctx.bool_val(false) : z3::mk_or(v);
}

template <class W> std::uint64_t word_value(const W &w) {
    if constexpr (std::is_integral_v<W>)
        return w;
    else
        return w.value();
}

// Concrete: does c hold?
template <class A> bool concrete_holds(const Check<A> &c) {
    if (!c.guard)
        return true;
    unsigned __int128 l = word_value(c.lhs), r = word_value(c.rhs), t = word_value(c.target);
    switch (c.op) {
    case cmp::le: return l <= r;
    case cmp::eq: return l == r;
    case cmp::ne: return l != r;
    case cmp::contracts: {
        unsigned __int128 da = l >= t ? l - t : t - l, db = r >= t ? r - t : t - r;
        unsigned __int128 s = static_cast<unsigned __int128>(1) << c.shift;
        return da * s <= db * (s - 1);
    }
    }
    return true;
}

} // namespace sc::proofs
