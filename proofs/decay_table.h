// Self-check of an extracted PELT decay table: regenerate it, and
// LOAD_AVG_MAX, from their definitions and report every difference.
//   y^32 = 1/2, so y = 2^(-1/32);
//   runnable_avg_yN_inv[k] = floor((2^32 - 1) * y^k), k = 0..31;
//   LOAD_AVG_MAX is the fixed point of max = ((max * y_inv) >> 32) + 1024
//   from max = 1024, with y_inv = floor((2^32 - 1) * y): the converged
//   sum 1024 * (1 + y + y^2 + ...) as the kernel's integer arithmetic
//   reaches it (the real series sums to about 47788).
#pragma once
#include <cmath>
#include <cstdint>
#include <string>
#include <vector>

namespace sc::proofs {

inline std::uint32_t decay_table_entry(unsigned k) {
    // long double: 64-bit mantissa, so the floor of a 32-bit product is exact
    return static_cast<std::uint32_t>(4294967295.0L * std::pow(2.0L, -static_cast<long double>(k) / 32.0L));
}

inline std::uint64_t converged_load_avg_max() {
    const std::uint64_t y_inv = decay_table_entry(1);
    std::uint64_t max = 1024, last = 0;
    while (max != last) {
        last = max;
        max = ((max * y_inv) >> 32) + 1024;
    }
    return max;
}

// Differences between an extracted table / LOAD_AVG_MAX and the
// regenerated ones, one line each; empty when they agree.
template <class Table> std::vector<std::string> check_decay_table(const Table &t, std::uint64_t load_avg_max) {
    std::vector<std::string> diffs;
    if (t.size() != 32)
        diffs.push_back("runnable_avg_yN_inv has " + std::to_string(t.size()) + " entries, not 32");
    for (unsigned k = 0; k < t.size() && k < 32; ++k)
        if (t.v[k] != decay_table_entry(k))
            diffs.push_back("runnable_avg_yN_inv[" + std::to_string(k) + "] = " + std::to_string(t.v[k]) +
                            ", regenerated " + std::to_string(decay_table_entry(k)));
    if (load_avg_max != converged_load_avg_max())
        diffs.push_back("LOAD_AVG_MAX = " + std::to_string(load_avg_max) + ", regenerated " +
                        std::to_string(converged_load_avg_max()));
    return diffs;
}

} // namespace sc::proofs
