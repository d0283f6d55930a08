// Equivalence of the pelt and utilest variants with the PELT and util_est
// functions of a kernel release (the linux-* oracles).
#pragma once
#include <vector>

#include "proofs/equiv/equiv.h"
#include "ref/variants.h"

namespace sc::proofs {

// The linux-* oracles built into this binary, available or not (and why).
std::vector<OracleInfo> kernel_oracles();

// Fills res (its oracle and arch already set).  Throws input_error when the
// variant has nothing in common with the oracle.
void prove_kernel_equivalence(EquivResult &res, const Variant &v, unsigned timeout_ms);

} // namespace sc::proofs
