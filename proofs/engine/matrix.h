// Running many proofs: the (variant, invariant, arch) jobs of a matrix, on
// a pool of threads (each proof has its own solver context).
#pragma once
#include <vector>

#include "proofs/invariant.h"

namespace sc::proofs {

struct Job {
    const Variant *variant;
    const InvariantInfo *invariant;
    Arch arch;
};

// Results in job order.  An internal_error in any job is rethrown.  After
// opt.cancel is set, the jobs not yet started are UNKNOWN, "cancelled".
std::vector<ProofResult> run_matrix(const std::vector<Job> &jobs, const ProveOptions &opt, unsigned threads);

// Every applicable (variant, invariant, arch) of the built-in catalogue.
std::vector<Job> full_matrix();

} // namespace sc::proofs
