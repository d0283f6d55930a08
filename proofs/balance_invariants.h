// The idlebal and wakeaffine invariants in the catalogue (seed 002, seed
// 003), on every reference variant of the two families.
#pragma once
#include <vector>

#include "proofs/invariant.h"

namespace sc::proofs {

void register_balance_invariants(std::vector<InvariantInfo> &out);
void register_idlebal_invariants(std::vector<InvariantInfo> &out);
void register_wakeaffine_invariants(std::vector<InvariantInfo> &out);

} // namespace sc::proofs
