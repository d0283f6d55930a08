// Concrete integer models of the two kernel data models, and the few
// helpers that kernel code takes from <linux/kernel.h>.
//
// Reference code in ref/ is templated on an "arithmetic" A that names the
// kernel's integer types.  A concrete A maps them to machine integers of
// the right width, so the instantiated code is the same machine code as the
// kernel's own C.  The symbolic A (model/) maps them to solver terms.
#pragma once
#include <cstddef>
#include <cstdint>
#include <string_view>
#include <type_traits>

namespace sc {

enum class Arch { ilp32, lp64 };

inline std::string_view arch_name(Arch a) { return a == Arch::ilp32 ? "ilp32" : "lp64"; }

// 32-bit kernels: long and pointers are 32 bits wide.
struct ilp32 {
    static constexpr Arch arch = Arch::ilp32;
    static constexpr unsigned long_bits = 32;
    using ulong = std::uint32_t;
    using slong = std::int32_t;
    using uint = std::uint32_t; // also the kernel's u32
    using sint = std::int32_t;
    using u64 = std::uint64_t;
    using s64 = std::int64_t;
    using boolean = bool;
};

// 64-bit kernels: long is 64 bits, int stays 32.
struct lp64 {
    static constexpr Arch arch = Arch::lp64;
    static constexpr unsigned long_bits = 64;
    using ulong = std::uint64_t;
    using slong = std::int64_t;
    using uint = std::uint32_t;
    using sint = std::int32_t;
    using u64 = std::uint64_t;
    using s64 = std::int64_t;
    using boolean = bool;
};

// The data models with every type twice as wide (see model/sym.h's
// double_width_sym): the concrete side of the no-overflow invariants.
__extension__ typedef unsigned __int128 u128;
__extension__ typedef __int128 s128;
template <class A> struct double_width;
template <> struct double_width<ilp32> {
    static constexpr Arch arch = Arch::ilp32;
    static constexpr unsigned long_bits = 32;
    using ulong = std::uint64_t;
    using slong = std::int64_t;
    using uint = std::uint64_t;
    using sint = std::int64_t;
    using u64 = u128;
    using s64 = s128;
    using boolean = bool;
};
template <> struct double_width<lp64> {
    static constexpr Arch arch = Arch::lp64;
    static constexpr unsigned long_bits = 64;
    using ulong = u128;
    using slong = s128;
    using uint = std::uint64_t;
    using sint = std::int64_t;
    using u64 = u128;
    using s64 = s128;
    using boolean = bool;
};

// The kernel's min()/max() on two values of one type.
template <class T> inline T kmin(const T &a, const T &b) { return a < b ? a : b; }
template <class T> inline T kmax(const T &a, const T &b) { return a > b ? a : b; }

// A constant kernel table.  Indexed by a machine integer it is a plain
// array access; indexed by a symbolic word, table_lookup() (found by
// argument-dependent lookup in model/sym.h) turns it into a term.
template <class T, std::size_t N> struct ktable {
    T v[N];
    static constexpr std::size_t size() { return N; }
    template <class I> constexpr auto operator[](const I &i) const {
        if constexpr (std::is_integral_v<I> || std::is_same_v<I, u128>)
            return v[static_cast<std::size_t>(i)];
        else
            return table_lookup(v, i);
    }
};

// (a * mul) >> shift for a 64-bit a and a 32-bit mul, without a 128-bit
// product: split a into 32-bit halves.  The low half's product fits in 64
// bits; the high half's product is already a multiple of 2^32, so for
// shift <= 32 it contributes exactly (ah * mul) << (32 - shift).  The sum
// is floor(a * mul / 2^shift), which is below 2^64 for shift >= 32.
template <class U64, class U32> inline U64 mul_u64_u32_shr(U64 a, U32 mul, unsigned shift) {
    if constexpr (std::is_integral_v<U64>) {
        return static_cast<U64>((static_cast<unsigned __int128>(a) * mul) >> shift);
    } else if constexpr (std::is_same_v<U64, u128>) {
        // A double-width run: the exact product is a 192-bit number; for
        // shift <= 64 its two 64-bit-halves products give the result mod
        // 2^128, as the symbolic term does.
        const u128 m = static_cast<std::uint64_t>(mul);
        const u128 lo = (a & ~std::uint64_t(0)) * m, hi = (a >> 64) * m;
        return (hi << (64 - shift)) + (lo >> shift);
    } else if constexpr (requires { mul_u64_u32_shr_term(a, U64(mul), shift); }) {
        return mul_u64_u32_shr_term(a, U64(mul), shift); // symbolic words: one exact term
    } else {
        U64 m = U64(mul);
        U64 al = a & U64(0xffffffffu), ah = a >> 32;
        U64 ret = (al * m) >> shift;
        if (ah != U64(0))
            ret += (ah * m) << (32 - shift);
        return ret;
    }
}

// u64 / u32, the kernel's div_u64().
template <class U64, class U32> inline U64 div_u64(U64 dividend, U32 divisor) { return dividend / U64(divisor); }

// a -> b, for statements built without branching (works on bool and on
// symbolic booleans alike).
inline bool implies(bool a, bool b) { return !a || b; }

} // namespace sc
