// A proof carried over from a reference variant to a kernel proved
// equivalent to it, or to another variant proved equivalent to the same
// kernel.
//
// An invariant is one template for every implementation: it reaches the
// implementation only through the kernel-shaped interface
// (proofs/kernel/kernel_iface.h).  When every function that a proof of
// the variant reached is EQUIVALENT to the kernel's (`equiv`: every input
// in the function's domain, the same outputs and state; other functions
// may differ), and every call
// stayed in that domain (noted as an obligation of the variant's proof),
// then the kernel's proof would take the same paths through the same
// values: its verdict is the variant's.  Two variants whose functions are
// each EQUIVALENT to one kernel's are equivalent to each other.  A PROVED is carried as it is; a
// counterexample is replayed on the kernel's own code, and one that does
// not replay there is an internal error.
//
// run_matrix() carries a built-in kernel's pelt or wakeaffine proof from
// the variant of its release (linux-6.1 from pelt/v6.1 or wakeaffine/v6.1,
// linux-6.12 from pelt/v6.12), and
// pelt/v6.12's from pelt/v6.1's through linux-6.1, and, for an invariant
// whose text reads no release shape (InvariantInfo::shape_blind),
// pelt/v6.1's from pelt/v4.12's through linux-6.1, when the source is one
// of its jobs; anything else, or any condition not met, is proved directly.
#pragma once
#include <optional>
#include <set>
#include <string>
#include <vector>

#include "proofs/engine/matrix.h"
#include "proofs/equiv/equiv.h"
#include "proofs/invariant.h"

namespace sc::proofs {

// Where a proof of an invariant on a subject may be carried from: the
// variant proved first, and the kernel oracle that both are to be proved
// equivalent to (the subject itself when it is that kernel).
struct CarryPlan {
    std::string from;
    std::string via;
    // The equivalences the plan needs, as (variant, kernel) pairs.
    std::vector<std::pair<std::string, std::string>> equivalences(const Variant &subject) const;
};

// The plan for invariant i on subject, or nothing: pelt and wakeaffine
// invariants only, built-in kernels only.
std::optional<CarryPlan> carry_source(const Variant &subject, const InvariantInfo &i);

// For each job, the job of the same invariant and data model that its
// plan carries it from, when that job is in the list: what run_matrix()
// waits for and assign_shards() keeps together.
std::vector<std::optional<std::size_t>> carry_sources(const std::vector<Job> &jobs);

// The subject's result from the source's (src, whose proof reached the
// functions `used`) and the plan's equivalences on the same data model
// (eqs, in the plan's order), or nothing when a condition fails (the
// caller proves it directly).  Throws internal_error when a carried
// counterexample does not replay.
std::optional<ProofResult> carry_over(const Variant &subject, const InvariantInfo &i, Arch a,
                                      const ProofResult &src, const std::set<std::string> &used,
                                      const CarryPlan &plan, const std::vector<EquivResult> &eqs);

} // namespace sc::proofs
