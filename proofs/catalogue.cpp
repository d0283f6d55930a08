#include "proofs/balance_invariants.h"
#include "proofs/cpuload_invariants.h"
#include "proofs/invariant.h"
#include "proofs/kernel/kernel_invariants.h"

namespace sc::proofs {

const std::vector<InvariantInfo> &invariants() {
    static const std::vector<InvariantInfo> all = [] {
        std::vector<InvariantInfo> v;
        cpuload_inv::register_invariants(v);
        register_kernel_invariants(v);
        register_balance_invariants(v);
        return v;
    }();
    return all;
}

const InvariantInfo *find_invariant(const std::string &id) {
    for (const InvariantInfo &i : invariants())
        if (i.id == id)
            return &i;
    return nullptr;
}

} // namespace sc::proofs
