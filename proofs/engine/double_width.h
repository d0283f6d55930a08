// The no-overflow invariants' yardstick: the same kernel code run on the
// same inputs with every integer type twice as wide (ref/kernel.h's
// double_width, model/sym.h's double_width_sym).  A wrap changes a result
// exactly when the two runs disagree on it, or when the wide result does
// not fit the field's own type.
//
// Kernel code wraps on purpose in places: a u32 cast of a 64-bit delta
// that is read only when below 1024, util_est's u32 difference read back
// through a u32.  Such a wrap is taken back by the same truncation at
// either width, so it passes; a check per arithmetic operation would flag
// it.  A wrap that loses bits does not come back, and fails.
#pragma once
#include <string>

#include "model/sym.h"
#include "proofs/engine/kprop_engine.h"
#include "ref/kernel.h"

namespace sc::proofs {

template <class A> struct double_width_of {
    using type = model::double_width_sym<A>;
};
template <> struct double_width_of<ilp32> {
    using type = double_width<ilp32>;
};
template <> struct double_width_of<lp64> {
    using type = double_width<lp64>;
};
template <class A> using DW = typename double_width_of<A>::type;

template <class T> constexpr unsigned width_of() {
    if constexpr (requires { T::bits; })
        return T::bits;
    else
        return 8 * sizeof(T);
}

// The two checks on one result: `machine` at the kernel's width, `exact`
// from the double-width run.  The exact value must fit the kernel's type
// (no bit above it), and equal the kernel's value.
template <class A, class M, class X>
void same_value(KOut<A> &o, const std::string &name, const M &machine, const X &exact) {
    using u64 = typename A::u64;
    constexpr unsigned w = width_of<M>();
    static_assert(width_of<X>() == 2 * w, "the exact value is twice as wide");
    const typename A::boolean t(true);
    const u64 above = u64(exact >> w);
    o.checks.push_back(KCheck<A>{"the exact " + name + " fits in its " + std::to_string(w) + "-bit type", t,
                                 "exact " + name + " >> " + std::to_string(w), above, cmp::eq, "0", u64(0)});
    // Below the type's top bit: u64(exact) is the exact value whenever the
    // first check holds (for a 64-bit field it keeps the low half).
    o.checks.push_back(KCheck<A>{"the kernel's " + name + " is the exact one", t, name + " (kernel's width)",
                                 u64(machine), cmp::eq, "exact " + name, u64(exact)});
}

// In the integer encoding there is no wider word to compare with (the
// integers are the exact values): a result is exact when the no-wrap
// obligations of the operations that made it hold, and the engine asks
// those of every term a check reads.  The check is that the value fits in
// its type, which reads it.
template <class A, class M> void exact_in_integers(KOut<A> &o, const std::string &name, const M &machine) {
    using u64 = typename A::u64;
    constexpr unsigned w = width_of<M>();
    const std::uint64_t top = w >= 64 ? ~std::uint64_t(0) : (std::uint64_t(1) << w) - 1;
    o.checks.push_back(KCheck<A>{"the kernel's " + name + " is exact and fits in its " + std::to_string(w) +
                                     "-bit type",
                                 typename A::boolean(true), name, u64(machine), cmp::le, std::to_string(top), u64(top)});
}

// Whether a symbolic run is in the integer encoding (never for a concrete
// replay, which compares with the wide run).
template <class A> bool in_integers() {
    if constexpr (is_concrete<A>)
        return false;
    else
        return model::current_encoding() == model::Encoding::integer;
}

// The exact value for a trace: its low 64 bits, and the bits above when
// there are any (concrete runs only).
template <class A, class X> void show_exact(KOut<A> &o, const std::string &name, const X &exact) {
    using u64 = typename A::u64;
    o.shown.push_back({"exact " + name, u64(exact)});
    if constexpr (is_concrete<A> && width_of<X>() > 64) {
        const u64 hi = u64(exact >> 64);
        if (hi)
            o.shown.push_back({"exact " + name + " >> 64", hi});
    }
}

} // namespace sc::proofs
