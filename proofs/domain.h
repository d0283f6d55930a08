// The input domain the cpuload proofs quantify over, per data model.  Every
// bound here is printed with the verdict; the comment next to it gives the
// kernel fact it rests on.
#pragma once
#include <cstdint>
#include <string>

#include "ref/kernel.h"

namespace sc::proofs {

struct LoadDomain {
    std::uint64_t ulong_max;     // 2^BITS_PER_LONG - 1
    std::uint64_t max_load;      // largest runnable load of one runqueue
    std::uint64_t max_tasks;     // PID_MAX_LIMIT
    std::uint64_t pct_lo, pct_hi; // sd->imbalance_pct
    std::string summary;         // one line, printed with every verdict
};

const LoadDomain &load_domain(Arch a);

} // namespace sc::proofs
