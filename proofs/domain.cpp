#include "proofs/domain.h"

#include <algorithm>

namespace sc::proofs {

// Largest runnable load of one runqueue.
//
// In v3.13 cfs_rq->runnable_load_avg is the sum of the load_avg_contrib of
// the entities queued on the root cfs_rq, and each contribution is at most
// the entity's weight (SCHED_LOAD_RESOLUTION is 0 in v3.13, so weights are
// unscaled).  A task weighs at most 88761 (nice -20); a group entity at most
// MAX_SHARES = 2^18.  There are at most PID_MAX_LIMIT entities: 2^15 on
// 32-bit kernels, 2^22 on 64-bit ones.  Hence
//   max_load = PID_MAX_LIMIT * 2^18: 2^33 (more than ULONG_MAX, so every
//   32-bit value is possible) on ilp32, 2^40 on lp64.
// cpu_load[] values are averages of such samples and obey the same bound.
//
// sd->imbalance_pct: the kernel's own topologies use 110..125; the sysctl
// accepts any int, but below 100 the "watermark" would favour the busier
// CPU, which no configuration intends.  1000 is a generous ceiling.
const LoadDomain &load_domain(Arch a) {
    static const LoadDomain ilp32{
        0xffffffffULL, 0xffffffffULL, 1ULL << 15, 100, 1000,
        "ilp32: loads <= 4294967295 (PID_MAX_LIMIT 2^15 x MAX_SHARES 2^18 exceeds ULONG_MAX), "
        "h_nr_running <= 32768, 100 <= imbalance_pct <= 1000"};
    static const LoadDomain lp64{
        ~0ULL, 1ULL << 40, 1ULL << 22, 100, 1000,
        "lp64: loads <= 2^40 = 1099511627776 (PID_MAX_LIMIT 2^22 x MAX_SHARES 2^18), "
        "h_nr_running <= 4194304, 100 <= imbalance_pct <= 1000"};
    return a == Arch::ilp32 ? ilp32 : lp64;
}

} // namespace sc::proofs
