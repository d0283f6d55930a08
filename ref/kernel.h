// Concrete integer models of the two kernel data models, and the few
// helpers that kernel code takes from <linux/kernel.h>.
//
// Reference code in ref/ is templated on an "arithmetic" A that names the
// kernel's integer types.  A concrete A maps them to machine integers of
// the right width, so the instantiated code is the same machine code as the
// kernel's own C.  The symbolic A (model/) maps them to solver terms.
#pragma once
#include <cstdint>
#include <string_view>

namespace sc {

enum class Arch { ilp32, lp64 };

inline std::string_view arch_name(Arch a) { return a == Arch::ilp32 ? "ilp32" : "lp64"; }

// 32-bit kernels: long and pointers are 32 bits wide.
struct ilp32 {
    static constexpr Arch arch = Arch::ilp32;
    static constexpr unsigned long_bits = 32;
    using ulong = std::uint32_t;
    using uint = std::uint32_t;
    using u64 = std::uint64_t;
    using boolean = bool;
};

// 64-bit kernels: long is 64 bits, int stays 32.
struct lp64 {
    static constexpr Arch arch = Arch::lp64;
    static constexpr unsigned long_bits = 64;
    using ulong = std::uint64_t;
    using uint = std::uint32_t;
    using u64 = std::uint64_t;
    using boolean = bool;
};

// The kernel's min()/max() on two values of one type.
template <class T> inline T kmin(const T &a, const T &b) { return a < b ? a : b; }
template <class T> inline T kmax(const T &a, const T &b) { return a > b ? a : b; }

// a -> b, for statements built without branching (works on bool and on
// symbolic booleans alike).
inline bool implies(bool a, bool b) { return !a || b; }

} // namespace sc
