// The property fuzzer's evaluation of the cpuload invariants: one
// simulation for all of them and no text, so that a scenario costs about
// what the reference arithmetic costs.  On a violation the fuzzer calls
// cpuload_inv::evaluate() for the report; both run the same checks.
#pragma once
#include <cstdint>
#include <string>
#include <vector>

#include "proofs/cpuload_invariants.h"

namespace sc::proofs::cpuload_inv {

// One cpuload invariant, named once when the fuzzer plans its checks so
// that no input pays for comparing id strings.
enum class fast_check : std::uint8_t {
    no_overflow,
    decay_monotone,
    idle_decay,
    constant_fixed_point,
    converges,
    source_le_target,
    nohz_busy_not_zeroed,
};

// The fast_check of each invariant id, in order; throws input_error on an
// id that is not a cpuload invariant.
std::vector<fast_check> fast_checks(const std::vector<std::string> &invariants);

// The index in `checks` of the first one the scenario violates
// (wrap-around for cpuload.no_overflow), or -1.  `converge_bound_ticks` is
// what cpuload.converges checks against (converge_bound()).
template <class A>
int first_violated(const std::vector<fast_check> &checks, cpuload::patch_level p, const cpuload::scenario<A> &s,
                   std::uint64_t converge_bound_ticks);

} // namespace sc::proofs::cpuload_inv
