// The property fuzzer's evaluation of the cpuload invariants: one
// simulation for all of them and no text, so that a scenario costs about
// what the reference arithmetic costs.  On a violation the fuzzer calls
// cpuload_inv::evaluate() for the report; both run the same checks.
#pragma once
#include <string>
#include <vector>

#include "proofs/cpuload_invariants.h"

namespace sc::proofs::cpuload_inv {

// The index in `invariants` of the first one the scenario violates
// (wrap-around for cpuload.no_overflow), or -1.  `converge_bound_ticks` is
// what cpuload.converges checks against (converge_bound()).
template <class A>
int first_violated(const std::vector<std::string> &invariants, cpuload::patch_level p, const cpuload::scenario<A> &s,
                   std::uint64_t converge_bound_ticks);

} // namespace sc::proofs::cpuload_inv
