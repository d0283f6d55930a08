// The cpuload invariant catalogue.  Each invariant is
//  - a set of cases (concrete splits of small-domain inputs),
//  - a scenario builder with named, ranged holes (proofs/engine/inputs.h),
//  - checks over a scenario and its trace (proofs/invariant.h).
// The same builder and checks serve the proof (symbolic words), the replay
// of a reproducer and the fuzzer (concrete words).
#pragma once
#include <cstdint>
#include <string>

#include "proofs/domain.h"
#include "proofs/invariant.h"
#include "ref/checked.h"
#include "ref/cpuload_scenario.h"

namespace sc::proofs::cpuload_inv {

// Evaluate one invariant's checks on a concrete scenario run on the
// reference at patch level p.  claim_bound is the "converges" bound
// (ticks) a reproducer claims, 0 when there is none.  For the overflow
// invariant, "violated" means some operation wrapped.
template <class A>
ReplayResult evaluate(const std::string &invariant, cpuload::patch_level p, const cpuload::scenario<A> &s,
                      std::uint64_t claim_bound);

extern template ReplayResult evaluate<checked_ilp32>(const std::string &, cpuload::patch_level,
                                                     const cpuload::scenario<checked_ilp32> &, std::uint64_t);
extern template ReplayResult evaluate<checked_lp64>(const std::string &, cpuload::patch_level,
                                                    const cpuload::scenario<checked_lp64> &, std::uint64_t);

// The converges bound for a variant and data model: the number of ticks of
// constant load after which every cpu_load[i] equals it, from any state in
// the domain.  Derived from the one-tick contraction lemma the proof checks.
std::uint64_t converge_bound(cpuload::patch_level p, Arch a);

// The registry entries of the cpuload invariants (proofs/catalogue.cpp
// collects them).
void register_invariants(std::vector<InvariantInfo> &out);

} // namespace sc::proofs::cpuload_inv
