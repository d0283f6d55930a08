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
#include <stdexcept>
#include <string>
#include <type_traits>

namespace sc::model {

enum class Encoding { integer, bitvector };

class Explorer;
Explorer &current();          // the explorer running on this thread
z3::context &current_ctx();
Encoding current_encoding();
void record_obligation(const z3::expr &holds, const std::string &what);
// The same about the exactness of one computed term: it matters only where
// that term is read (Path::uses, a property's checks).
void record_obligation(const z3::expr &term, const z3::expr &holds, const std::string &what);
bool modular_wraps(); // see Explorer::set_modular_wraps
z3::expr select_wrap(const z3::expr &wraps, const z3::expr &wrapped, const z3::expr &plain);
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

// A W-bit machine word, unsigned (S false, the kernel's u32, u64,
// unsigned long) or signed (S true: int, long, s64).  Signed words are
// two's complement in the bit-vector encoding and a range [-2^(W-1),
// 2^(W-1)) in the integer encoding, where leaving the range is an
// obligation, as it is undefined behaviour in C.
template <unsigned W, bool S = false> struct Word;
template <unsigned W> using Sym = Word<W, false>;
template <unsigned W> using SSym = Word<W, true>;

// C's usual arithmetic conversions on two words: the wider one wins; of
// two words of one width, the unsigned one.  (Every word here has at least
// int's rank, so no promotion happens first.)
template <unsigned W1, bool S1, unsigned W2, bool S2> struct common_word {
    static constexpr unsigned W = W1 > W2 ? W1 : W2;
    static constexpr bool S = W1 == W2 ? (S1 && S2) : (W1 > W2 ? S1 : S2);
    using type = Word<W, S>;
};
// A native integer operand takes part with its own width and signedness,
// after the integer promotions (anything narrower than int becomes int).
template <std::integral I> constexpr unsigned native_bits = sizeof(I) < 4 ? 32 : 8 * sizeof(I);
template <std::integral I> constexpr bool native_signed = sizeof(I) < 4 ? true : std::is_signed_v<I>;

template <unsigned W, bool S> struct Word {
    // 128 bits only in the bit-vector encoding: the double-width runs of
    // the no-overflow invariants (double_width<A> below).
    static_assert(W == 8 || W == 16 || W == 32 || W == 64 || W == 128);
    static constexpr std::uint64_t mask = W >= 64 ? ~0ULL : ((1ULL << W) - 1);
    static constexpr bool is_signed = S;
    static constexpr unsigned bits = W;
    z3::expr e;

    // The machine value with these bits, as a term of the current encoding.
    static z3::expr lit(std::uint64_t bits) {
        bits &= mask;
        if constexpr (W == 128) {
            if (current_encoding() != Encoding::bitvector)
                throw std::logic_error("128-bit words exist only in the bit-vector encoding");
            return z3::zext(current_ctx().bv_val(bits, 64), 64);
        }
        if (current_encoding() == Encoding::bitvector)
            return current_ctx().bv_val(bits, W);
        if constexpr (W <= 64)
            if (S && (bits >> (W - 1)) & 1)
                return current_ctx().int_val(static_cast<std::int64_t>(bits | ~mask));
        return current_ctx().int_val(bits);
    }
    static z3::expr max_int() {
        return S ? current_ctx().int_val(static_cast<std::int64_t>(mask >> 1)) : current_ctx().int_val(mask);
    }
    static z3::expr min_int() {
        return S ? current_ctx().int_val(-static_cast<std::int64_t>(mask >> 1) - 1) : current_ctx().int_val(0);
    }
    // The value as the integer encoding sees it (range check in words).
    static z3::expr in_range(const z3::expr &x) { return min_int() <= x && x <= max_int(); }

    // The machine bits of a constant term, if it is one.
    static bool constant_bits(const z3::expr &x, std::uint64_t &bits) {
        if (!x.is_numeral())
            return false;
        if (x.is_bv())
            return x.is_numeral_u64(bits);
        std::int64_t v = 0;
        if (x.is_numeral_i64(v)) {
            bits = static_cast<std::uint64_t>(v);
            return true;
        }
        return x.is_numeral_u64(bits);
    }

    Word() : e(lit(0)) {}
    template <std::integral I> Word(I v) : e(lit(static_cast<std::uint64_t>(v))) {
        if constexpr (W == 128 && std::is_signed_v<I>)
            if (v < 0)
                e = z3::sext(current_ctx().bv_val(static_cast<std::uint64_t>(v), 64), 64);
    }
    explicit Word(const z3::expr &x) : e(x) {}

    // C's implicit conversions between words: the value is kept when it
    // fits; otherwise the low W bits are kept (two's complement).  In the
    // integer encoding "it fits" is an obligation.  In the bit-vector
    // encoding only narrowing records one; a change of signedness at one
    // width is a reinterpretation of the same bits, which kernel code does
    // on purpose (`(s64)delta < 0`).
    template <unsigned W2, bool S2>
        requires(W2 != W || S2 != S)
    Word(const Word<W2, S2> &o) : e(o.e) {
        std::uint64_t bits = 0;
        if (W <= 64 && W2 <= 64 && Word<W2, S2>::constant_bits(o.e, bits)) {
            if (S2 && W2 < 64 && ((bits >> (W2 - 1)) & 1))
                bits |= ~Word<W2, S2>::mask; // sign-extend the source value
            e = lit(bits);
            return;
        }
        const std::string what = std::string("conversion to ") + name();
        if (current_encoding() == Encoding::integer) {
            bool fits = W > W2 ? (S || !S2) : (W == W2 ? S == S2 : false);
            if (fits)
                return;
            // With modular wraps, a change of signedness (at one width, or
            // a signed word widened to an unsigned one) is the same bits
            // read the other way: add or take away 2^W where the value
            // falls outside this word's range.  A narrowing stays an
            // obligation.
            if (W >= W2 && modular_wraps()) {
                e = S ? select_wrap(o.e > max_int(), o.e - int_pow2(W), o.e)
                      : select_wrap(o.e < 0, o.e + int_pow2(W), o.e);
                return;
            }
            record_obligation(o.e, in_range(o.e), what);
            return;
        }
        if constexpr (W < W2) {
            e = o.e.extract(W - 1, 0);
            z3::expr back = S ? z3::sext(e, W2 - W) : z3::zext(e, W2 - W);
            record_obligation(e, back == o.e, what);
        } else if constexpr (W > W2) {
            e = S2 ? z3::sext(o.e, W - W2) : z3::zext(o.e, W - W2);
        }
    }

    // A word used as a condition: "!= 0".
    explicit operator bool() const;

    template <class B> Word &operator+=(const B &b) { return *this = Word(*this + b); }
    template <class B> Word &operator-=(const B &b) { return *this = Word(*this - b); }
    template <class B> Word &operator*=(const B &b) { return *this = Word(*this * b); }
    template <class B> Word &operator/=(const B &b) { return *this = Word(*this / b); }
    template <class B> Word &operator%=(const B &b) { return *this = Word(*this % b); }
    template <class B> Word &operator>>=(const B &b) { return *this = Word(*this >> b); }
    template <class B> Word &operator<<=(const B &b) { return *this = Word(*this << b); }
    template <class B> Word &operator&=(const B &b) { return *this = Word(*this & b); }
    template <class B> Word &operator|=(const B &b) { return *this = Word(*this | b); }
    template <class B> Word &operator^=(const B &b) { return *this = Word(*this ^ b); }
    Word &operator++() { return *this += Word(1); }
    Word &operator--() { return *this -= Word(1); }
    // Postfix, as C's x++ (the kernel text increments a counter this way).
    Word operator++(int) {
        Word old = *this;
        ++*this;
        return old;
    }
    Word operator--(int) {
        Word old = *this;
        --*this;
        return old;
    }

    static const char *name() {
        if (W == 128)
            return S ? "signed 128-bit" : "128-bit";
        if (S)
            return W == 64 ? "signed 64-bit" : W == 32 ? "signed 32-bit" : W == 16 ? "signed 16-bit" : "signed 8-bit";
        return W == 64 ? "64-bit" : W == 32 ? "32-bit" : W == 16 ? "16-bit" : "8-bit";
    }
    static std::string op(const char *what) { return std::string(name()) + " " + what; }
    static bool bv() { return current_encoding() == Encoding::bitvector; }

    friend Word operator+(const Word &a, const Word &b) {
        if (bv()) {
            z3::expr ok = z3::bvadd_no_overflow(a.e, b.e, S);
            if (S)
                ok = ok && z3::bvadd_no_underflow(a.e, b.e);
            z3::expr r = a.e + b.e;
            record_obligation(r, ok, op("addition"));
            return Word(r);
        }
        z3::expr r = a.e + b.e;
        // Modular wraps: two unsigned words sum to below 2^(W+1), so one
        // subtraction of 2^W gives the machine's sum.
        if (!S && modular_wraps())
            return Word(select_wrap(r > max_int(), r - int_pow2(W), r));
        record_obligation(r, S ? in_range(r) : r <= max_int(), op("addition"));
        return Word(r);
    }
    friend Word operator-(const Word &a, const Word &b) {
        if (bv()) {
            z3::expr r = a.e - b.e;
            record_obligation(r,
                              S ? z3::bvsub_no_overflow(a.e, b.e) && z3::bvsub_no_underflow(a.e, b.e, true)
                                : z3::ule(b.e, a.e),
                              op("subtraction"));
            return Word(r);
        }
        z3::expr r = a.e - b.e;
        if (!S && modular_wraps())
            return Word(select_wrap(r < 0, r + int_pow2(W), r));
        record_obligation(r, S ? in_range(r) : r >= 0, op("subtraction"));
        return Word(r);
    }
    friend Word operator*(const Word &a, const Word &b) {
        if (bv()) {
            z3::expr ok = z3::bvmul_no_overflow(a.e, b.e, S);
            if (S)
                ok = ok && z3::bvmul_no_underflow(a.e, b.e);
            z3::expr r = a.e * b.e;
            record_obligation(r, ok, op("multiplication"));
            return Word(r);
        }
        z3::expr r = a.e * b.e;
        // Modular wraps, for a product by a constant c: the exact product is
        // below c * 2^W and the machine keeps it mod 2^W, which is linear (a
        // division by a numeral).  s64 * unsigned long scales a negative
        // difference this way on purpose (6.1's prev_eff_load).  A product
        // of two unknowns stays an obligation.
        if (!S && modular_wraps() && (a.e.is_numeral() || b.e.is_numeral()))
            return Word(select_wrap(r > max_int(), z3::mod(r, int_pow2(W)), r));
        record_obligation(r, S ? in_range(r) : r <= max_int(), op("multiplication"));
        return Word(r);
    }
    // Division and remainder truncate toward zero, as in C.
    friend Word operator/(const Word &a, const Word &b) {
        record_obligation(b.e != lit(0), op("division by zero"));
        std::uint64_t d = 0;
        if (bv() && constant_bits(b.e, d) && d > 1 && (d & (d - 1)) == 0 && (!S || d < (mask >> 1))) {
            // By a constant 2^k: the same value as shifts, which the solver
            // takes far more easily than a divider circuit.  Truncation
            // towards zero for a negative dividend: add 2^k - 1 first.
            const unsigned k = static_cast<unsigned>(__builtin_ctzll(d));
            if (!S)
                return Word(z3::lshr(a.e, lit(k)));
            z3::expr bias = z3::lshr(z3::ashr(a.e, lit(W - 1)), lit(W - k));
            return Word(z3::ashr(a.e + bias, lit(k)));
        }
        if (bv())
            return Word(S ? a.e / b.e : z3::udiv(a.e, b.e)); // z3's '/' on bit-vectors is bvsdiv
        if (!S)
            return Word(a.e / b.e); // both non-negative: floor == truncation
        z3::expr q = z3::abs(a.e) / z3::abs(b.e);
        return Word(z3::ite((a.e >= 0) == (b.e >= 0), q, -q));
    }
    friend Word operator%(const Word &a, const Word &b) {
        record_obligation(b.e != lit(0), op("remainder by zero"));
        if (bv())
            return Word(S ? z3::srem(a.e, b.e) : z3::urem(a.e, b.e));
        if (!S)
            return Word(z3::mod(a.e, b.e));
        return Word(a.e - (a / b).e * b.e);
    }
    // Shifts by W or more are undefined in C: an obligation in both
    // encodings.  In the integer encoding a symbolic shift amount is split
    // into its feasible values, each a separate path.  Right-shifting a
    // negative signed value is arithmetic (what gcc and clang do).
    friend Word operator>>(const Word &a, const Word &b) {
        if (bv()) {
            record_obligation(z3::ult(b.e, lit(W)), op("shift count"));
            return Word(S ? z3::ashr(a.e, b.e) : z3::lshr(a.e, b.e));
        }
        record_obligation(b.e >= 0 && b.e < static_cast<int>(W), op("shift count"));
        unsigned k = concretize(b.e, 0, W - 1);
        if (!S)
            return Word(a.e / int_pow2(k));
        return Word(z3::ite(a.e >= 0, a.e / int_pow2(k), -((-a.e + int_pow2(k) - 1) / int_pow2(k))));
    }
    friend Word operator<<(const Word &a, const Word &b) {
        if (bv()) {
            record_obligation(z3::ult(b.e, lit(W)), op("shift count"));
            z3::expr r = z3::shl(a.e, b.e);
            record_obligation(r, (S ? z3::ashr(r, b.e) : z3::lshr(r, b.e)) == a.e, op("left shift"));
            return Word(r);
        }
        record_obligation(b.e >= 0 && b.e < static_cast<int>(W), op("shift count"));
        unsigned k = concretize(b.e, 0, W - 1);
        z3::expr r = a.e * int_pow2(k);
        record_obligation(r, S ? in_range(r) : r <= max_int(), op("left shift"));
        return Word(r);
    }

    // Bitwise operations work on the bits; the integer encoding goes
    // through a W-bit vector and back.
    static z3::expr to_bits(const z3::expr &x) { return bv() ? x : z3::int2bv(W, x); }
    static Word from_bits(const z3::expr &x) { return Word(bv() ? x : z3::bv2int(x, S)); }
    friend Word operator&(const Word &a, const Word &b) { return from_bits(to_bits(a.e) & to_bits(b.e)); }
    friend Word operator|(const Word &a, const Word &b) { return from_bits(to_bits(a.e) | to_bits(b.e)); }
    friend Word operator^(const Word &a, const Word &b) { return from_bits(to_bits(a.e) ^ to_bits(b.e)); }
    friend Word operator~(const Word &a) { return from_bits(~to_bits(a.e)); }
    // Negation: modular for unsigned words, an obligation for signed ones.
    friend Word operator-(const Word &a) {
        if (bv()) {
            if (S)
                record_obligation(z3::bvneg_no_overflow(a.e), op("negation"));
            return Word(-a.e);
        }
        if (S) {
            z3::expr r = -a.e;
            record_obligation(r, a.e != min_int(), op("negation"));
            return Word(r);
        }
        return Word(z3::ite(a.e == 0, a.e, int_pow2(W) - a.e));
    }

    friend SymBool operator==(const Word &a, const Word &b) { return SymBool(a.e == b.e); }
    friend SymBool operator!=(const Word &a, const Word &b) { return SymBool(a.e != b.e); }
    // Unsigned facts the simplifier does not know about integer terms:
    // nothing is below 0, and 0 is below or equal to everything.  Settling
    // them here spares the explorer a solver check per such branch.
    static bool is_zero(const z3::expr &x) {
        std::uint64_t v = 1;
        return x.is_numeral() && x.is_numeral_u64(v) && v == 0;
    }
    friend SymBool operator<(const Word &a, const Word &b) {
        if (!S && is_zero(b.e))
            return SymBool(false);
        if (!bv())
            return SymBool(a.e < b.e);
        return SymBool(S ? a.e < b.e : z3::ult(a.e, b.e)); // z3's '<' on bit-vectors is signed
    }
    friend SymBool operator<=(const Word &a, const Word &b) {
        if (!S && is_zero(a.e))
            return SymBool(true);
        if (!bv())
            return SymBool(a.e <= b.e);
        return SymBool(S ? a.e <= b.e : z3::ule(a.e, b.e));
    }
    friend SymBool operator>(const Word &a, const Word &b) { return b < a; }
    friend SymBool operator>=(const Word &a, const Word &b) { return b <= a; }
    friend SymBool operator!(const Word &a) { return a == Word(0); }
};

template <unsigned W, bool S> Word<W, S>::operator bool() const { return bool(*this != Word(0)); }

// Mixed operands follow C's usual arithmetic conversions (common_word);
// a native integer operand takes part with its own type.
#define SC_SYM_MIXED(OP, RET)                                                                      \
    template <unsigned W1, bool S1, unsigned W2, bool S2>                                          \
        requires(W1 != W2 || S1 != S2)                                                             \
    auto operator OP(const Word<W1, S1> &a, const Word<W2, S2> &b) {                               \
        using C = typename common_word<W1, S1, W2, S2>::type;                                      \
        return RET<C>(C(a) OP C(b));                                                               \
    }                                                                                              \
    template <unsigned W, bool S, std::integral I> auto operator OP(const Word<W, S> &a, I b) {    \
        using C = typename common_word<W, S, native_bits<I>, native_signed<I>>::type;              \
        return RET<C>(C(a) OP C(b));                                                               \
    }                                                                                              \
    template <unsigned W, bool S, std::integral I> auto operator OP(I a, const Word<W, S> &b) {    \
        using C = typename common_word<native_bits<I>, native_signed<I>, W, S>::type;              \
        return RET<C>(C(a) OP C(b));                                                               \
    }

template <class C> using SameWord = C;
template <class> using BoolOf = SymBool;
SC_SYM_MIXED(+, SameWord)
SC_SYM_MIXED(-, SameWord)
SC_SYM_MIXED(*, SameWord)
SC_SYM_MIXED(/, SameWord)
SC_SYM_MIXED(%, SameWord)
SC_SYM_MIXED(&, SameWord)
SC_SYM_MIXED(|, SameWord)
SC_SYM_MIXED(^, SameWord)
SC_SYM_MIXED(==, BoolOf)
SC_SYM_MIXED(!=, BoolOf)
SC_SYM_MIXED(<, BoolOf)
SC_SYM_MIXED(<=, BoolOf)
SC_SYM_MIXED(>, BoolOf)
SC_SYM_MIXED(>=, BoolOf)
#undef SC_SYM_MIXED

// A shift has the type of its (promoted) left operand; the count is only
// a number of bits.
template <unsigned W, bool S, unsigned W2, bool S2>
    requires(W2 != W || S2 != S)
Word<W, S> operator>>(const Word<W, S> &a, const Word<W2, S2> &b) { return a >> Word<W, S>(b); }
template <unsigned W, bool S, unsigned W2, bool S2>
    requires(W2 != W || S2 != S)
Word<W, S> operator<<(const Word<W, S> &a, const Word<W2, S2> &b) { return a << Word<W, S>(b); }
template <unsigned W, bool S, std::integral I> Word<W, S> operator>>(const Word<W, S> &a, I b) {
    return a >> Word<W, S>(b);
}
template <unsigned W, bool S, std::integral I> Word<W, S> operator<<(const Word<W, S> &a, I b) {
    return a << Word<W, S>(b);
}
template <unsigned W, bool S, std::integral I> auto operator>>(I a, const Word<W, S> &b) {
    using C = Word<native_bits<I>, native_signed<I>>;
    return C(a) >> C(b);
}
template <unsigned W, bool S, std::integral I> auto operator<<(I a, const Word<W, S> &b) {
    using C = Word<native_bits<I>, native_signed<I>>;
    return C(a) << C(b);
}

// A constant table read at a symbolic index: an if-then-else chain over
// the entries in the bit-vector encoding (no path split); in the integer
// encoding the index is split into its feasible values.  An index outside
// the table is an obligation.
template <class T, std::size_t N, unsigned W, bool S>
Word<native_bits<T>, native_signed<T>> table_lookup(const T (&v)[N], const Word<W, S> &i) {
    using R = Word<native_bits<T>, native_signed<T>>;
    record_obligation((Word<W, S>(0) <= i && i < Word<W, S>(N)).e, "table index");
    if (current_encoding() == Encoding::integer)
        return R(v[concretize(i.e, 0, static_cast<unsigned>(N - 1))]);
    z3::expr r = R(v[N - 1]).e;
    for (std::size_t k = N - 1; k-- > 0;)
        r = z3::ite(i.e == Word<W, S>(k).e, R(v[k]).e, r);
    return R(r);
}

// The symbolic data models, mirroring sc::ilp32 / sc::lp64.
struct sym_ilp32 {
    static constexpr unsigned long_bits = 32;
    using ulong = Sym<32>;
    using slong = SSym<32>;
    using uint = Sym<32>;
    using sint = SSym<32>;
    using u64 = Sym<64>;
    using s64 = SSym<64>;
    using boolean = SymBool;
};
struct sym_lp64 {
    static constexpr unsigned long_bits = 64;
    using ulong = Sym<64>;
    using slong = SSym<64>;
    using uint = Sym<32>;
    using sint = SSym<32>;
    using u64 = Sym<64>;
    using s64 = SSym<64>;
    using boolean = SymBool;
};

// mul_u64_u32_shr(a, mul, shift): a * mul formed exactly (a 96-bit
// product, as the kernel's 128-bit or hi/lo implementations both do), then
// shifted right and cut to 64 bits.  One term instead of the hi/lo split:
// in the integer encoding it stays linear in a for a constant mul, which is
// what lets a decay by a table factor be proved without bit-blasting.
inline Word<64, false> mul_u64_u32_shr_term(const Word<64, false> &a, const Word<64, false> &mul, unsigned shift) {
    using W64 = Word<64, false>;
    if (W64::bv()) {
        z3::expr p = z3::zext(a.e, 64) * z3::zext(mul.e, 64);
        return W64(z3::lshr(p, current_ctx().bv_val(shift, 128)).extract(63, 0));
    }
    z3::expr r = (a.e * mul.e) / int_pow2(shift);
    record_obligation(r, r <= W64::max_int(), "mul_u64_u32_shr result fits in 64 bits");
    return W64(r);
}
// The same on the 128-bit words of a double-width run: the product is
// formed in 192 bits, enough for a 128-bit a and a mul below 2^64 (the
// double-width u32 it comes from).
inline Word<128, false> mul_u64_u32_shr_term(const Word<128, false> &a, const Word<128, false> &mul, unsigned shift) {
    using W128 = Word<128, false>;
    z3::expr p = z3::zext(a.e, 64) * z3::zext(mul.e.extract(63, 0), 128);
    return W128(z3::lshr(p, current_ctx().bv_val(shift, 192)).extract(127, 0));
}

// The data models with every type twice as wide (int 64 bits, long 64 or
// 128, u64 128), for the no-overflow invariants: the kernel's code run on
// them computes what it would if no value had to wrap at its own width.
// long_bits stays the kernel's, as it names a configuration (the weight
// resolution), not a width.
template <class A> struct double_width_sym {
    static constexpr unsigned long_bits = A::long_bits;
    using ulong = Sym<2 * A::long_bits>;
    using slong = SSym<2 * A::long_bits>;
    using uint = Sym<64>;
    using sint = SSym<64>;
    using u64 = Sym<128>;
    using s64 = SSym<128>;
    using boolean = SymBool;
};

} // namespace sc::model
