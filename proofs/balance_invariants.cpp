// The idlebal and wakeaffine invariants in the catalogue: one .cpp file per
// family (idlebal_catalogue.cpp, wakeaffine_catalogue.cpp).
#include "proofs/balance_invariants.h"

namespace sc::proofs {

void register_balance_invariants(std::vector<InvariantInfo> &out) {
    register_idlebal_invariants(out);
    register_wakeaffine_invariants(out);
}

} // namespace sc::proofs
