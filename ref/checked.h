// Concrete machine words that notice wrap-around.  Same results as the
// plain integers of ref/kernel.h, but each operation whose exact result does
// not fit appends a wrap_event to a thread-local log.  The fuzzers and the
// replay of "no overflow" counterexamples run the reference on these.
#pragma once
#include <concepts>
#include <cstdint>
#include <string>
#include <vector>

#include "ref/kernel.h"

namespace sc {

struct wrap_event {
    std::string what; // e.g. "32-bit multiplication 4294967295 * 120"
};

inline std::vector<wrap_event> &wrap_log() {
    thread_local std::vector<wrap_event> log;
    return log;
}

template <unsigned W> struct Checked {
    static_assert(W == 32 || W == 64);
    using raw = std::conditional_t<W == 64, std::uint64_t, std::uint32_t>;
    static constexpr std::uint64_t mask = W == 64 ? ~0ULL : 0xffffffffULL;
    raw v = 0;

    Checked() = default;
    template <std::integral I> Checked(I x) : v(static_cast<raw>(x)) {}
    template <unsigned W2>
        requires(W2 != W)
    Checked(const Checked<W2> &o) : v(static_cast<raw>(o.v)) {
        if (static_cast<std::uint64_t>(o.v) > mask)
            note("narrowing of " + std::to_string(o.v) + " to " + std::to_string(W) + " bits");
    }
    explicit operator bool() const { return v != 0; }
    std::uint64_t value() const { return v; }

    static void note(std::string s) { wrap_log().push_back({std::move(s)}); }
    static std::string bits() { return std::to_string(W) + "-bit "; }

    friend Checked operator+(Checked a, Checked b) {
        raw r = a.v + b.v;
        if (r < a.v)
            note(bits() + "addition " + std::to_string(a.v) + " + " + std::to_string(b.v));
        return Checked(r);
    }
    friend Checked operator-(Checked a, Checked b) {
        if (b.v > a.v)
            note(bits() + "subtraction " + std::to_string(a.v) + " - " + std::to_string(b.v));
        return Checked(static_cast<raw>(a.v - b.v));
    }
    friend Checked operator*(Checked a, Checked b) {
        raw r;
        if (__builtin_mul_overflow(a.v, b.v, &r))
            note(bits() + "multiplication " + std::to_string(a.v) + " * " + std::to_string(b.v));
        return Checked(r);
    }
    friend Checked operator/(Checked a, Checked b) {
        if (!b.v) {
            note(bits() + "division by zero");
            return Checked(0);
        }
        return Checked(static_cast<raw>(a.v / b.v));
    }
    friend Checked operator%(Checked a, Checked b) {
        if (!b.v) {
            note(bits() + "remainder by zero");
            return Checked(0);
        }
        return Checked(static_cast<raw>(a.v % b.v));
    }
    friend Checked operator>>(Checked a, Checked b) {
        if (b.v >= W) {
            note(bits() + "shift by " + std::to_string(b.v));
            return Checked(0);
        }
        return Checked(static_cast<raw>(a.v >> b.v));
    }
    friend Checked operator<<(Checked a, Checked b) {
        if (b.v >= W) {
            note(bits() + "shift by " + std::to_string(b.v));
            return Checked(0);
        }
        raw r = static_cast<raw>(a.v << b.v);
        if ((r >> b.v) != a.v)
            note(bits() + "left shift " + std::to_string(a.v) + " << " + std::to_string(b.v));
        return Checked(r);
    }
    Checked &operator+=(Checked b) { return *this = *this + b; }
    Checked &operator-=(Checked b) { return *this = *this - b; }
    Checked &operator*=(Checked b) { return *this = *this * b; }
    Checked &operator>>=(Checked b) { return *this = *this >> b; }
    Checked &operator<<=(Checked b) { return *this = *this << b; }

    friend bool operator==(Checked a, Checked b) { return a.v == b.v; }
    friend auto operator<=>(Checked a, Checked b) { return a.v <=> b.v; }
    friend bool operator!(Checked a) { return !a.v; }
};

template <unsigned A, unsigned B> constexpr unsigned checked_wider = A > B ? A : B;

#define SC_CHECKED_MIXED(OP)                                                                   \
    template <unsigned W1, unsigned W2>                                                        \
        requires(W1 != W2)                                                                     \
    auto operator OP(const Checked<W1> &a, const Checked<W2> &b) {                             \
        return Checked<checked_wider<W1, W2>>(a) OP Checked<checked_wider<W1, W2>>(b);         \
    }                                                                                          \
    template <unsigned W, std::integral I> auto operator OP(const Checked<W> &a, I b) {        \
        return a OP Checked<W>(b);                                                             \
    }                                                                                          \
    template <unsigned W, std::integral I> auto operator OP(I a, const Checked<W> &b) {        \
        return Checked<W>(a) OP b;                                                             \
    }
SC_CHECKED_MIXED(+)
SC_CHECKED_MIXED(-)
SC_CHECKED_MIXED(*)
SC_CHECKED_MIXED(/)
SC_CHECKED_MIXED(%)
SC_CHECKED_MIXED(>>)
SC_CHECKED_MIXED(<<)
SC_CHECKED_MIXED(==)
SC_CHECKED_MIXED(<)
SC_CHECKED_MIXED(<=)
SC_CHECKED_MIXED(>)
SC_CHECKED_MIXED(>=)
#undef SC_CHECKED_MIXED

struct checked_ilp32 {
    static constexpr Arch arch = Arch::ilp32;
    static constexpr unsigned long_bits = 32;
    using ulong = Checked<32>;
    using uint = Checked<32>;
    using u64 = Checked<64>;
    using boolean = bool;
};
struct checked_lp64 {
    static constexpr Arch arch = Arch::lp64;
    static constexpr unsigned long_bits = 64;
    using ulong = Checked<64>;
    using uint = Checked<32>;
    using u64 = Checked<64>;
    using boolean = bool;
};

} // namespace sc
