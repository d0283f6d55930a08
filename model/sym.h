// Symbolic machine words: the kernel's unsigned integer types as Z3 terms,
// behind the same operators as the concrete ones, so ref/ code compiles
// unchanged against them.
//
// Two encodings, chosen per exploration (see Explorer):
//  - integer: a W-bit value is a mathematical integer.  Every operation that
//    can leave [0, 2^W) records a "no wrap" obligation under the current
//    path condition and then continues with the exact result.  As long as
//    the obligations hold, the result equals the machine result, and linear
//    facts are cheap for the solver.
//  - bitvector: exact W-bit machine arithmetic, wrap included.  Used when
//    an obligation can fail, so that the wrapped value is what is reasoned
//    about, and for the overflow proofs themselves: here the obligations
//    are the solver's no-overflow predicates, cheap to bit-blast when one
//    factor is a constant.
// A branch on a symbolic condition (if, while, ?:, ||, &&) goes through
// SymBool::operator bool, which the explorer answers (see explorer.h).
#pragma once
#include <z3++.h>

#include <concepts>
#include <cstdint>
#include <string>

namespace sc::model {

enum class Encoding { integer, bitvector };

class Explorer;
Explorer &current();          // the explorer running on this thread
z3::context &current_ctx();
Encoding current_encoding();
void record_obligation(const z3::expr &holds, const std::string &what);
bool decide(const z3::expr &cond);
unsigned concretize(const z3::expr &v, unsigned lo, unsigned hi);

struct SymBool {
    z3::expr e;
    SymBool(bool b) : e(current_ctx().bool_val(b)) {}
    explicit SymBool(const z3::expr &x) : e(x) {}
    explicit operator bool() const { return decide(e); }
    friend SymBool operator!(const SymBool &a) { return SymBool(!a.e); }
    friend SymBool operator&&(const SymBool &a, const SymBool &b) { return SymBool(a.e && b.e); }
    friend SymBool operator||(const SymBool &a, const SymBool &b) { return SymBool(a.e || b.e); }
};
inline SymBool implies(const SymBool &a, const SymBool &b) { return SymBool(z3::implies(a.e, b.e)); }

// 2^k as an integer term (k up to 64, so built from its decimal text).
z3::expr int_pow2(unsigned k);

template <unsigned W> struct Sym {
    static_assert(W == 8 || W == 16 || W == 32 || W == 64);
    static constexpr std::uint64_t mask = W == 64 ? ~0ULL : ((1ULL << W) - 1);
    z3::expr e;

    static z3::expr lit(std::uint64_t v) {
        v &= mask;
        if (current_encoding() == Encoding::integer)
            return current_ctx().int_val(v);
        return current_ctx().bv_val(v, W);
    }
    static z3::expr max_int() { return current_ctx().int_val(mask); }

    Sym() : e(lit(0)) {}
    template <std::integral I> Sym(I v) : e(lit(static_cast<std::uint64_t>(v))) {}
    explicit Sym(const z3::expr &x) : e(x) {}

    // C's implicit conversions between unsigned widths: widening keeps the
    // value; narrowing keeps the low bits, which in the integer encoding is
    // an obligation that nothing is lost.
    template <unsigned W2>
        requires(W2 != W)
    Sym(const Sym<W2> &o) : e(o.e) {
        std::uint64_t v = 0;
        if (o.e.is_numeral() && o.e.is_numeral_u64(v) && (W >= W2 || v <= mask)) {
            e = lit(v); // a constant converts to the same term as a literal of this width
            return;
        }
        if (current_encoding() == Encoding::integer) {
            if constexpr (W < W2)
                record_obligation(o.e <= max_int(), "narrowing to " + std::to_string(W) + " bits");
        } else if constexpr (W < W2) {
            record_obligation(o.e.extract(W2 - 1, W) == current_ctx().bv_val(0, W2 - W),
                              "narrowing to " + std::to_string(W) + " bits");
            e = o.e.extract(W - 1, 0);
        } else {
            e = z3::zext(o.e, W - W2);
        }
    }

    // A symbolic word used as a condition: "!= 0".
    explicit operator bool() const;

    Sym &operator+=(const Sym &b) { return *this = *this + b; }
    Sym &operator-=(const Sym &b) { return *this = *this - b; }
    Sym &operator*=(const Sym &b) { return *this = *this * b; }
    Sym &operator>>=(const Sym &b) { return *this = *this >> b; }
    Sym &operator<<=(const Sym &b) { return *this = *this << b; }
    Sym &operator++() { return *this += 1; }

    static const char *name() {
        return W == 64 ? "64-bit" : W == 32 ? "32-bit" : W == 16 ? "16-bit" : "8-bit";
    }

    friend Sym operator+(const Sym &a, const Sym &b) {
        if (current_encoding() == Encoding::bitvector) {
            record_obligation(z3::bvadd_no_overflow(a.e, b.e, false), std::string(name()) + " addition");
            return Sym(a.e + b.e);
        }
        z3::expr r = a.e + b.e;
        record_obligation(r <= max_int(), std::string(name()) + " addition");
        return Sym(r);
    }
    friend Sym operator-(const Sym &a, const Sym &b) {
        if (current_encoding() == Encoding::bitvector) {
            record_obligation(z3::ule(b.e, a.e), std::string(name()) + " subtraction");
            return Sym(a.e - b.e);
        }
        z3::expr r = a.e - b.e;
        record_obligation(r >= 0, std::string(name()) + " subtraction");
        return Sym(r);
    }
    friend Sym operator*(const Sym &a, const Sym &b) {
        if (current_encoding() == Encoding::bitvector) {
            record_obligation(z3::bvmul_no_overflow(a.e, b.e, false), std::string(name()) + " multiplication");
            return Sym(a.e * b.e);
        }
        z3::expr r = a.e * b.e;
        record_obligation(r <= max_int(), std::string(name()) + " multiplication");
        return Sym(r);
    }
    friend Sym operator/(const Sym &a, const Sym &b) {
        record_obligation(b.e != lit(0), std::string(name()) + " division by zero");
        if (current_encoding() == Encoding::bitvector)
            return Sym(z3::udiv(a.e, b.e));
        return Sym(a.e / b.e); // both non-negative: floor == C truncation
    }
    friend Sym operator%(const Sym &a, const Sym &b) {
        record_obligation(b.e != lit(0), std::string(name()) + " remainder by zero");
        if (current_encoding() == Encoding::bitvector)
            return Sym(z3::urem(a.e, b.e));
        return Sym(z3::mod(a.e, b.e));
    }
    // Shifts by W or more are undefined in C: an obligation in both
    // encodings.  In the integer encoding a symbolic shift amount is split
    // into its feasible values, each a separate path.
    friend Sym operator>>(const Sym &a, const Sym &b) {
        if (current_encoding() == Encoding::bitvector) {
            record_obligation(z3::ult(b.e, lit(W)), std::string(name()) + " shift count");
            return Sym(z3::lshr(a.e, b.e));
        }
        record_obligation(b.e < static_cast<int>(W), std::string(name()) + " shift count");
        unsigned k = concretize(b.e, 0, W - 1);
        return Sym(a.e / int_pow2(k));
    }
    friend Sym operator<<(const Sym &a, const Sym &b) {
        if (current_encoding() == Encoding::bitvector) {
            record_obligation(z3::ult(b.e, lit(W)), std::string(name()) + " shift count");
            record_obligation(z3::lshr(z3::shl(a.e, b.e), b.e) == a.e, std::string(name()) + " left shift");
            return Sym(z3::shl(a.e, b.e));
        }
        record_obligation(b.e < static_cast<int>(W), std::string(name()) + " shift count");
        unsigned k = concretize(b.e, 0, W - 1);
        z3::expr r = a.e * int_pow2(k);
        record_obligation(r <= max_int(), std::string(name()) + " left shift");
        return Sym(r);
    }

    friend SymBool operator==(const Sym &a, const Sym &b) { return SymBool(a.e == b.e); }
    friend SymBool operator!=(const Sym &a, const Sym &b) { return SymBool(a.e != b.e); }
    // Unsigned facts the simplifier does not know about integer terms:
    // nothing is below 0, and 0 is below or equal to everything.  Settling
    // them here spares the explorer a solver check per such branch.
    static bool is_zero(const z3::expr &x) {
        std::uint64_t v = 1;
        return x.is_numeral() && x.is_numeral_u64(v) && v == 0;
    }
    friend SymBool operator<(const Sym &a, const Sym &b) {
        if (is_zero(b.e))
            return SymBool(false);
        return SymBool(current_encoding() == Encoding::integer ? a.e < b.e : z3::ult(a.e, b.e));
    }
    friend SymBool operator<=(const Sym &a, const Sym &b) {
        if (is_zero(a.e))
            return SymBool(true);
        return SymBool(current_encoding() == Encoding::integer ? a.e <= b.e : z3::ule(a.e, b.e));
    }
    friend SymBool operator>(const Sym &a, const Sym &b) { return b < a; }
    friend SymBool operator>=(const Sym &a, const Sym &b) { return b <= a; }
    friend SymBool operator!(const Sym &a) { return a == Sym(0); }
};

template <unsigned W> Sym<W>::operator bool() const { return bool(*this != Sym(0)); }

// Mixed operands follow C's usual arithmetic conversions for unsigned types:
// the narrower word is widened, an integer constant takes the word's type.
template <unsigned A, unsigned B> constexpr unsigned wider = A > B ? A : B;

#define SC_SYM_MIXED(OP, RET)                                                                  \
    template <unsigned W1, unsigned W2>                                                        \
        requires(W1 != W2)                                                                     \
    RET<wider<W1, W2>> operator OP(const Sym<W1> &a, const Sym<W2> &b) {                       \
        return Sym<wider<W1, W2>>(a) OP Sym<wider<W1, W2>>(b);                                 \
    }                                                                                          \
    template <unsigned W, std::integral I> RET<W> operator OP(const Sym<W> &a, I b) {          \
        return a OP Sym<W>(b);                                                                 \
    }                                                                                          \
    template <unsigned W, std::integral I> RET<W> operator OP(I a, const Sym<W> &b) {          \
        return Sym<W>(a) OP b;                                                                 \
    }

template <unsigned> using BoolOf = SymBool;
SC_SYM_MIXED(+, Sym)
SC_SYM_MIXED(-, Sym)
SC_SYM_MIXED(*, Sym)
SC_SYM_MIXED(/, Sym)
SC_SYM_MIXED(%, Sym)
SC_SYM_MIXED(>>, Sym)
SC_SYM_MIXED(<<, Sym)
SC_SYM_MIXED(==, BoolOf)
SC_SYM_MIXED(!=, BoolOf)
SC_SYM_MIXED(<, BoolOf)
SC_SYM_MIXED(<=, BoolOf)
SC_SYM_MIXED(>, BoolOf)
SC_SYM_MIXED(>=, BoolOf)
#undef SC_SYM_MIXED

// The symbolic data models, mirroring sc::ilp32 / sc::lp64.
struct sym_ilp32 {
    static constexpr unsigned long_bits = 32;
    using ulong = Sym<32>;
    using uint = Sym<32>;
    using u64 = Sym<64>;
    using boolean = SymBool;
};
struct sym_lp64 {
    static constexpr unsigned long_bits = 64;
    using ulong = Sym<64>;
    using uint = Sym<32>;
    using u64 = Sym<64>;
    using boolean = SymBool;
};

} // namespace sc::model
