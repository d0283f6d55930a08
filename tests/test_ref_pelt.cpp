// Unit tests of the PELT reference family (ref/pelt.h), five releases, both
// data models.
//
// Expected values are worked out by hand (or regenerated from the
// definition of y) and the arithmetic is written next to each check.  The
// only constants used in the derivations:
//   y = 2^(-1/32);  inv[k] = runnable_avg_yN_inv[k] = floor((2^32-1) y^k)
//   inv[0] = 0xffffffff = 4294967295, inv[1] = 0xfa83b2da = 4202935002,
//   inv[2] = 0xf5257d14 = 4112874772, inv[31] = 0x82cd8698
//   decay_load(v, n) = ((v >> n/32) * inv[n%32]) >> 32   (exact product)
//   LOAD_AVG_MAX = 47742, PELT_MIN_DIVIDER = 47742 - 1024 = 46718
// None of these values was taken from the output of the code under test.
#include <catch2/catch.hpp>

#include "ref/kernel.h"
#include "ref/pelt.h"

#include <cmath>
#include <cstdint>
#include <string>

namespace {

namespace pl = sc::pelt;
using pl::version;
using V = pl::version;

constexpr std::uint64_t operator""_u64(unsigned long long v) { return v; }

template <class A> std::uint64_t u(const typename A::u64 &x) { return x; }

} // namespace

// ---------------------------------------------------------------------------
// Tables and constants, regenerated from y = 2^(-1/32)
// ---------------------------------------------------------------------------

TEST_CASE("pelt: runnable_avg_yN_inv is floor((2^32-1) y^k)", "[ref_pelt][table]") {
    // The kernel's generator (Documentation/scheduler/sched-pelt.c) computes
    //   y = pow(0.5, 1/32.0); x = (unsigned)(((1UL<<32)-1) * pow(y, k))
    // in double, i.e. it truncates (2^32 - 1) y^k, not 2^32 y^k (which would
    // not fit for k = 0).  Both the generator's own double recipe and the
    // closed form 2^(-k/32) in long double give every entry exactly
    // (tolerance 0; a 1-unit tolerance was allowed for but is not needed).
    const double y = std::pow(0.5, 1 / 32.0);
    for (unsigned k = 0; k < 32; ++k) {
        const auto gen = static_cast<std::uint32_t>(4294967295.0 * std::pow(y, k));
        const long double yk = std::pow(2.0L, -static_cast<long double>(k) / 32.0L);
        const auto exact = static_cast<std::uint64_t>(std::floor(4294967295.0L * yk));
        INFO("k = " << k);
        CHECK(pl::runnable_avg_yN_inv.v[k] == gen);
        CHECK(pl::runnable_avg_yN_inv.v[k] == exact);
    }
    CHECK(pl::runnable_avg_yN_inv.v[0] == 0xffffffffu);
    // y^16 = 1/sqrt(2): floor((2^32-1) * 0.70710678...) = 0xb504f333
    CHECK(pl::runnable_avg_yN_inv.v[16] == 0xb504f333u);
}

TEST_CASE("pelt: runnable_avg_yN_sum follows the truncating recurrence", "[ref_pelt][table]") {
    // v3.8..v4.11 generator: s_1 = (int)(1024 y), s_k = (int)(s_{k-1} y + 1024 y).
    const double y = std::pow(0.5, 1 / 32.0);
    int s = 1024;
    CHECK(pl::runnable_avg_yN_sum.v[0] == 0u);
    for (unsigned k = 1; k <= 32; ++k) {
        s = (k == 1) ? static_cast<int>(s * y) : static_cast<int>(s * y + 1024 * y);
        INFO("k = " << k);
        CHECK(pl::runnable_avg_yN_sum.v[k] == static_cast<std::uint32_t>(s));
    }
    // 1024 y = 1002.06 -> 1002; it never exceeds the true partial sum.
    CHECK(pl::runnable_avg_yN_sum.v[1] == 1002u);
    long double exact = 0;
    for (unsigned k = 1; k <= 32; ++k) {
        exact += 1024.0L * std::pow(2.0L, -static_cast<long double>(k) / 32.0L);
        CHECK(pl::runnable_avg_yN_sum.v[k] <= exact);
    }
}

TEST_CASE("pelt: LOAD_AVG_MAX is the generator's converged integer sum", "[ref_pelt][table]") {
    // The generator iterates max = ((max * y_inv) >> 32) + 1024 from 1024,
    // y_inv = (long)((2^32-1) y), until max stops changing; n counts the
    // steps and, less one, is LOAD_AVG_MAX_N.  (The true series limit is
    // 1024/(1-y) = 47788.5; truncation at every step stops it at 47742.)
    const double y = std::pow(0.5, 1 / 32.0);
    const std::int64_t y_inv = static_cast<std::int64_t>(4294967295.0 * y);
    CHECK(y_inv == 0xfa83b2da);
    std::int64_t max = 1024, last = 0;
    int n = -1;
    for (;; n++) {
        if (n > -1)
            max = ((max * y_inv) >> 32) + 1024;
        if (last == max)
            break;
        last = max;
    }
    n--;
    CHECK(max == pl::LOAD_AVG_MAX);
    CHECK(n == static_cast<int>(pl::LOAD_AVG_MAX_N));
    CHECK(pl::LOAD_AVG_PERIOD == 32u);
    CHECK(pl::PELT_MIN_DIVIDER == 46718u);
}

// ---------------------------------------------------------------------------
// decay_load
// ---------------------------------------------------------------------------

TEMPLATE_TEST_CASE("pelt: decay_load halves every 32 periods", "[ref_pelt][decay]", sc::lp64,
                   sc::ilp32) {
    using A = TestType;
    // n = 32: 1000 >> 1 = 500; 500 * 0xffffffff = 499*2^32 + (2^32 - 500)
    // -> 499: the table's entry 0 loses one unit.
    CHECK(pl::decay_load<V::v3_8, A>(1000, 32) == 499u);
    CHECK(pl::decay_load<V::v4_3, A>(1000, 32) == 499u);
    CHECK(pl::decay_load<V::v4_12, A>(1000, 32) == 499u);
    CHECK(pl::decay_load<V::v6_1, A>(1000, 32) == 499u);
    CHECK(pl::decay_load<V::v6_12, A>(1000, 32) == 499u);
    // n = 64: 1000 >> 2 = 250 -> 249
    CHECK(pl::decay_load<V::v6_1, A>(1000, 64) == 249u);
    // n = 1: 1000 * 4202935002 / 2^32 = 978.57 -> 978
    CHECK(pl::decay_load<V::v6_1, A>(1000, 1) == 978u);
    CHECK(pl::decay_load<V::v3_8, A>(1000, 1) == 978u);
    // LOAD_AVG_MAX * y = 47742 * 4202935002 / 2^32 = 46718.x: the identity
    // LOAD_AVG_MAX*y == LOAD_AVG_MAX - 1024 the 6.x divider relies on.
    CHECK(pl::decay_load<V::v6_1, A>(pl::LOAD_AVG_MAX, 1) == pl::LOAD_AVG_MAX - 1024);
    // n = 2015 = 62*32 + 31: 2^63 >> 62 = 2; 2 * 0x82cd8698 = 0x1059b0d30 -> 1
    CHECK(pl::decay_load<V::v6_1, A>(1_u64 << 63, 2015) == 1u);
    // n = 2016 = 63*32: 2^63 >> 63 = 1; 1 * 0xffffffff >> 32 = 0
    CHECK(pl::decay_load<V::v6_1, A>(1_u64 << 63, 2016) == 0u);
}

TEMPLATE_TEST_CASE("pelt: decay_load is 0 beyond 63 half-lives", "[ref_pelt][decay]", sc::lp64,
                   sc::ilp32) {
    using A = TestType;
    const std::uint64_t all = ~0_u64;
    CHECK(pl::decay_load<V::v3_8, A>(all, 2017) == 0u);
    CHECK(pl::decay_load<V::v4_3, A>(all, 2017) == 0u);
    CHECK(pl::decay_load<V::v4_12, A>(all, 2017) == 0u);
    CHECK(pl::decay_load<V::v6_1, A>(all, 2017) == 0u);
    CHECK(pl::decay_load<V::v6_12, A>(all, ~0_u64) == 0u);
    // The check is on the 64-bit n, before it is cut to 32 bits:
    // n = 2^32 + 1 would be local_n = 1 otherwise.
    CHECK(pl::decay_load<V::v6_1, A>(1000, (1_u64 << 32) + 1) == 0u);
}

TEMPLATE_TEST_CASE("pelt: decay_load with n == 0 differs between releases", "[ref_pelt][decay]",
                   sc::lp64, sc::ilp32) {
    using A = TestType;
    // v3.8/v4.3 return val for n == 0.
    CHECK(pl::decay_load<V::v3_8, A>(1000, 0) == 1000u);
    CHECK(pl::decay_load<V::v4_3, A>(1000, 0) == 1000u);
    // v4.12+: val * 0xffffffff >> 32 = val - 1 for 1 <= val <= 2^32
    //   (val*(2^32-1) = (val-1)*2^32 + (2^32-val)).
    CHECK(pl::decay_load<V::v4_12, A>(1000, 0) == 999u);
    CHECK(pl::decay_load<V::v6_1, A>(1000, 0) == 999u);
    CHECK(pl::decay_load<V::v6_12, A>(1000, 0) == 999u);
    CHECK(pl::decay_load<V::v6_1, A>(0, 0) == 0u);
    CHECK(pl::decay_load<V::v6_1, A>(1, 0) == 0u);
    // 2^33 * (2^32-1) >> 32 = 2^33 - 2
    CHECK(pl::decay_load<V::v6_1, A>(1_u64 << 33, 0) == (1_u64 << 33) - 2);
    CHECK(pl::decay_load<V::v3_8, A>(1_u64 << 33, 0) == 1_u64 << 33);
}

TEMPLATE_TEST_CASE("pelt: v3.8 decay_load wraps the 64-bit product", "[ref_pelt][decay]",
                   sc::lp64, sc::ilp32) {
    using A = TestType;
    // val = 2^33, n = 1: exact product 2^33 * 0xfa83b2da >> 32 = 2 * 0xfa83b2da
    //   = 0x1f50765b4 = 8405870004.
    // v3.8 forms val *= 0xfa83b2da in 64 bits: 0x1f50765b4 * 2^32 mod 2^64 keeps
    //   only 0xf50765b4 in the upper half -> 0xf50765b4 = 4110902708.
    CHECK(pl::decay_load<V::v3_8, A>(1_u64 << 33, 1) == 0xf50765b4u);
    CHECK(pl::decay_load<V::v4_12, A>(1_u64 << 33, 1) == 0x1f50765b4_u64);
    CHECK(pl::decay_load<V::v6_1, A>(1_u64 << 33, 1) == 0x1f50765b4_u64);
    // v4.3 is modelled with the lossless product too (see the report).
    CHECK(pl::decay_load<V::v4_3, A>(1_u64 << 33, 1) == 0x1f50765b4_u64);
    // Below 2^32 (times a < 2^32 factor) nothing wraps: 2^32 >> 1 * 0xffffffff
    //   (n = 32) = 2^64 - 2^32 fits -> 2^32 - 1.
    CHECK(pl::decay_load<V::v3_8, A>(1_u64 << 33, 32) == 0xffffffffu);
}

// ---------------------------------------------------------------------------
// __compute_runnable_contrib (v3.8, v4.3) and __accumulate_pelt_segments
// ---------------------------------------------------------------------------

TEMPLATE_TEST_CASE("pelt: __compute_runnable_contrib", "[ref_pelt][contrib]", sc::lp64,
                   sc::ilp32) {
    using A = TestType;
    CHECK(pl::__compute_runnable_contrib<V::v3_8, A>(0) == 0u);
    CHECK(pl::__compute_runnable_contrib<V::v3_8, A>(1) == 1002u);
    CHECK(pl::__compute_runnable_contrib<V::v4_3, A>(32) == 23371u);
    // n = 33: one block: 0/2 + 23371 = 23371, n = 1 left;
    //   decay_load(23371, 1) = 23371 * 4202935002 / 2^32 = 22870.x -> 22870;
    //   + yN_sum[1] = 1002 -> 23872 (true sum 23883.07, never above it)
    CHECK(pl::__compute_runnable_contrib<V::v3_8, A>(33) == 23872u);
    // n = 64: one block (n = 32 left, loop stops): decay_load(23371, 32) =
    //   11685 * 0xffffffff >> 32 = 11684; + 23371 -> 35055 (true 35073.06)
    CHECK(pl::__compute_runnable_contrib<V::v4_3, A>(64) == 35055u);
    // From LOAD_AVG_MAX_N on: the limit itself.
    CHECK(pl::__compute_runnable_contrib<V::v3_8, A>(345) == 47742u);
    CHECK(pl::__compute_runnable_contrib<V::v3_8, A>(1_u64 << 40) == 47742u);
}

TEMPLATE_TEST_CASE("pelt: __accumulate_pelt_segments", "[ref_pelt][contrib]", sc::lp64,
                   sc::ilp32) {
    using A = TestType;
    // p = 1, d1 = 24, d3 = 76:
    //   c1 = decay_load(24, 1) = 24 * 4202935002 / 2^32 = 23.49 -> 23
    //   c2 = 47742 - decay_load(47742, 1) - 1024 = 47742 - 46718 - 1024 = 0
    //   c3 = 76                                      -> 99
    CHECK(pl::__accumulate_pelt_segments<V::v6_1, A>(1, 24, 76) == 99u);
    CHECK(pl::__accumulate_pelt_segments<V::v4_12, A>(1, 24, 76) == 99u);
    // p = 2, d1 = 1024, d3 = 0:
    //   c1 = 1024 * 4112874772 / 2^32 = 980.5 -> 980
    //   c2 = 47742 - decay_load(47742, 2) - 1024 = 47742 - 45717 - 1024 = 1001
    //   (1024 y = 1002.06, so c2 is one full period of weight y, floored twice)
    CHECK(pl::__accumulate_pelt_segments<V::v6_12, A>(2, 1024, 0) == 1981u);
    // p = 3000: c1 = 0 (n > 2016), c2 = 47742 - 0 - 1024 = 46718; + d3 = 5
    CHECK(pl::__accumulate_pelt_segments<V::v6_1, A>(3000, 1024, 5) == 46723u);
}

// ---------------------------------------------------------------------------
// accumulate_sum (6.x and v4.12)
// ---------------------------------------------------------------------------

TEMPLATE_TEST_CASE("pelt: accumulate_sum within one period and across one boundary",
                   "[ref_pelt][accumulate]", sc::lp64, sc::ilp32) {
    using A = TestType;
    pl::sched_avg<A> sa{};

    // period_contrib = 0, delta = 1000: no boundary, contrib = 1000.
    CHECK(pl::accumulate_sum<V::v6_1, A>(1000, sa, 1, 1, 1) == 0u);
    CHECK(sa.period_contrib == 1000u);
    CHECK(u<A>(sa.load_sum) == 1000u);          // 1 * 1000
    CHECK(u<A>(sa.runnable_sum) == 1024000u);   // 1 * 1000 << 10
    CHECK(sa.util_sum == 1024000u);             // 1000 << 10

    // delta = 100 more: 1000 + 100 = 1100 -> p = 1, d1 = 24, d3 = 76.
    //   load_sum     = decay_load(1000, 1) + 99 = 978 + 99 = 1077
    //   runnable_sum = decay_load(1024000, 1) + (99 << 10)
    //                = 1024000 * 4202935002 / 2^32 = 1002057.9 -> 1002057
    //                  + 101376 = 1103433;  util_sum likewise
    CHECK(pl::accumulate_sum<V::v6_1, A>(100, sa, 1, 1, 1) == 1u);
    CHECK(sa.period_contrib == 76u);
    CHECK(u<A>(sa.load_sum) == 1077u);
    CHECK(u<A>(sa.runnable_sum) == 1103433u);
    CHECK(sa.util_sum == 1103433u);

    // v4.12 with load as the weight: same numbers for weight 1 (the default
    // scales are exact); no runnable_sum in that release.
    pl::sched_avg<A> old{};
    CHECK(pl::accumulate_sum<V::v4_12, A>(1000, old, 1, 0, 1) == 0u);
    CHECK(pl::accumulate_sum<V::v4_12, A>(100, old, 1, 0, 1) == 1u);
    CHECK(u<A>(old.load_sum) == 1077u);
    CHECK(old.util_sum == 1103433u);
    CHECK(u<A>(old.runnable_sum) == 0u);
    CHECK(old.period_contrib == 76u);
}

TEMPLATE_TEST_CASE("pelt: accumulate_sum over a long idle gap decays to 0",
                   "[ref_pelt][accumulate]", sc::lp64, sc::ilp32) {
    using A = TestType;
    pl::sched_avg<A> sa{};
    sa.load_sum = 1077;
    sa.runnable_sum = 1103433;
    sa.util_sum = 1103433;
    sa.period_contrib = 76;
    // 2100 periods idle: (2150400 + 76) / 1024 = 2100 > 2016 -> all sums 0;
    // 2150476 % 1024 = 76 stays the position.
    CHECK(pl::accumulate_sum<V::v6_1, A>(1024 * 2100, sa, 0, 0, 0) == 2100u);
    CHECK(u<A>(sa.load_sum) == 0u);
    CHECK(u<A>(sa.runnable_sum) == 0u);
    CHECK(sa.util_sum == 0u);
    CHECK(sa.period_contrib == 76u);
}

TEMPLATE_TEST_CASE("pelt: accumulate_sum returns the period count cut to 32 bits",
                   "[ref_pelt][accumulate]", sc::lp64, sc::ilp32) {
    using A = TestType;
    // delta = 2^42 us from period_contrib 0: p = 2^32, returned as u32 -> 0.
    // The sums were updated all the same: the old 5000 decays to 0
    // (p > 2016) and the new part is c1 = decay_load(1024, 2^32) = 0,
    // c2 = 47742 - 0 - 1024 = 46718, c3 = 0 -> load_sum = 46718.
    pl::sched_avg<A> sa{};
    sa.load_sum = 5000;
    CHECK(pl::accumulate_sum<V::v6_1, A>(1_u64 << 42, sa, 1, 1, 1) == 0u);
    CHECK(u<A>(sa.load_sum) == 46718u);
    CHECK(sa.period_contrib == 0u);
    // Through the uniform step, now = 2^52 ns: the sums are those of an
    // always-busy entity, yet no average is recomputed.
    pl::sched_avg<A> sb{};
    sb.load_sum = 5000;
    CHECK(pl::update_load_avg<V::v6_1, A>(1_u64 << 52, sb, 1, 1, 1, 1024) == 0);
    CHECK(u<A>(sb.load_sum) == 46718u);
    CHECK(sb.load_avg == 0u);
    CHECK(u<A>(sb.last_update_time) == 1_u64 << 52);
}

TEST_CASE("pelt: accumulate_sum products are unsigned long wide", "[ref_pelt][accumulate][width]") {
    // load = 2^23, contrib = 1000: 2^23 * 1000 = 8388608000
    //   lp64: as is; ilp32: mod 2^32 = 8388608000 - 4294967296 = 4093640704
    // runnable = 5000: 5000 * 1000 << 10 = 5120000000
    //   ilp32: 5120000000 - 4294967296 = 825032704
    pl::sched_avg<sc::lp64> a{};
    pl::sched_avg<sc::ilp32> b{};
    CHECK(pl::accumulate_sum<V::v6_1, sc::lp64>(1000, a, 1u << 23, 5000, 0) == 0u);
    CHECK(pl::accumulate_sum<V::v6_1, sc::ilp32>(1000, b, 1u << 23, 5000, 0) == 0u);
    CHECK(a.load_sum == 8388608000u);
    CHECK(b.load_sum == 4093640704u);
    CHECK(a.runnable_sum == 5120000000u);
    CHECK(b.runnable_sum == 825032704u);
}

// ---------------------------------------------------------------------------
// ___update_load_sum / ___update_load_avg / get_pelt_divider (6.x)
// ---------------------------------------------------------------------------

TEMPLATE_TEST_CASE("pelt: ___update_load_sum time handling", "[ref_pelt][update]", sc::lp64,
                   sc::ilp32) {
    using A = TestType;

    SECTION("time going backwards resynchronises and accounts nothing") {
        pl::sched_avg<A> sa{};
        sa.last_update_time = 10000;
        sa.load_sum = 123;
        sa.period_contrib = 7;
        CHECK(pl::___update_load_sum<V::v6_1, A>(5000, sa, 1, 1, 1) == 0);
        CHECK(u<A>(sa.last_update_time) == 5000u);
        CHECK(u<A>(sa.load_sum) == 123u);
        CHECK(sa.period_contrib == 7u);
    }
    SECTION("less than 1024ns is not a unit yet") {
        pl::sched_avg<A> sa{};
        CHECK(pl::___update_load_sum<V::v6_12, A>(1023, sa, 1, 1, 1) == 0);
        CHECK(u<A>(sa.last_update_time) == 0u);
        CHECK(u<A>(sa.load_sum) == 0u);
        CHECK(sa.period_contrib == 0u);
    }
    SECTION("last_update_time advances by whole 1024ns units") {
        pl::sched_avg<A> sa{};
        // 5000ns = 4 units + 904ns: 4 us accounted, the 904ns kept for later
        CHECK(pl::___update_load_sum<V::v6_1, A>(5000, sa, 1, 1, 1) == 0);
        CHECK(u<A>(sa.last_update_time) == 4096u);
        CHECK(u<A>(sa.load_sum) == 4u);
        CHECK(sa.period_contrib == 4u);
        // 5000 again: 904ns since 4096, still no unit
        CHECK(pl::___update_load_sum<V::v6_1, A>(5000, sa, 1, 1, 1) == 0);
        CHECK(u<A>(sa.last_update_time) == 4096u);
        // 5120 = 4096 + 1024: one more unit, and the 904ns were not lost
        CHECK(pl::___update_load_sum<V::v6_1, A>(5120, sa, 1, 1, 1) == 0);
        CHECK(u<A>(sa.last_update_time) == 5120u);
        CHECK(u<A>(sa.load_sum) == 5u);
    }
    SECTION("not runnable means neither runnable nor running") {
        pl::sched_avg<A> sa{};
        // 2000 units, load 0: p = 1, nothing accrues although running = 1
        CHECK(pl::___update_load_sum<V::v6_1, A>(2000 * 1024, sa, 0, 1, 1) == 1);
        CHECK(sa.util_sum == 0u);
        CHECK(u<A>(sa.runnable_sum) == 0u);
        CHECK(sa.period_contrib == 976u); // 2000 % 1024
    }
}

TEMPLATE_TEST_CASE("pelt: ___update_load_avg divides by the position-dependent maximum",
                   "[ref_pelt][update]", sc::lp64, sc::ilp32) {
    using A = TestType;
    pl::sched_avg<A> sa{};
    sa.period_contrib = 500;
    sa.load_sum = 20000;
    sa.runnable_sum = 40000000;
    sa.util_sum = 30000000;
    // divider = 47742 - 1024 + 500 = 47218
    CHECK(pl::get_pelt_divider<V::v6_1, A>(sa) == 47218u);
    pl::___update_load_avg<V::v6_1, A>(sa, 1024);
    CHECK(sa.load_avg == 433u);     // 1024 * 20000 / 47218 = 433.7
    CHECK(sa.runnable_avg == 847u); // 40000000 / 47218 = 847.1
    CHECK(sa.util_avg == 635u);     // 30000000 / 47218 = 635.3
    // period_contrib 0: divider 46718 = PELT_MIN_DIVIDER
    sa.period_contrib = 0;
    CHECK(pl::get_pelt_divider<V::v6_12, A>(sa) == 46718u);
}

TEST_CASE("pelt: ___update_load_avg load_avg is cut to unsigned long",
          "[ref_pelt][update][width]") {
    // load_sum = 2^40, load = 2^20, divider 47218: 2^60 / 47218 = 24416991499149
    //   lp64 keeps it; ilp32: 24416991499149 mod 2^32 = 102421389
    pl::sched_avg<sc::lp64> a{};
    pl::sched_avg<sc::ilp32> b{};
    a.load_sum = b.load_sum = 1_u64 << 40;
    a.period_contrib = b.period_contrib = 500;
    pl::___update_load_avg<V::v6_1, sc::lp64>(a, 1u << 20);
    pl::___update_load_avg<V::v6_1, sc::ilp32>(b, 1u << 20);
    CHECK(a.load_avg == 24416991499149u);
    CHECK(b.load_avg == 102421389u);
}

// ---------------------------------------------------------------------------
// The older update functions
// ---------------------------------------------------------------------------

TEMPLATE_TEST_CASE("pelt: v4.3 and v3.8 set last_update_time to now", "[ref_pelt][update]",
                   sc::lp64, sc::ilp32) {
    using A = TestType;
    pl::sched_avg<A> s43{}, s38{}, s412{};
    CHECK(pl::__update_load_avg<V::v4_3, A>(5000, s43, 1, 1) == 0);
    CHECK(u<A>(s43.last_update_time) == 5000u); // the 904ns remainder is dropped
    CHECK(pl::__update_entity_runnable_avg<V::v3_8, A>(5000, s38, 1) == 0);
    CHECK(u<A>(s38.last_update_time) == 5000u);
    CHECK(pl::___update_load_avg<V::v4_12, A>(5000, s412, 1, 1) == 0);
    CHECK(u<A>(s412.last_update_time) == 4096u);

    // Time going backwards: every release resynchronises.
    s43.last_update_time = s38.last_update_time = s412.last_update_time = 10000;
    CHECK(pl::__update_load_avg<V::v4_3, A>(9000, s43, 1, 1) == 0);
    CHECK(pl::__update_entity_runnable_avg<V::v3_8, A>(9000, s38, 1) == 0);
    CHECK(pl::___update_load_avg<V::v4_12, A>(9000, s412, 1, 1) == 0);
    CHECK(u<A>(s43.last_update_time) == 9000u);
    CHECK(u<A>(s38.last_update_time) == 9000u);
    CHECK(u<A>(s412.last_update_time) == 9000u);
}

TEMPLATE_TEST_CASE("pelt: v4.3 rounds piecewise, v4.12 and 6.x in closed form",
                   "[ref_pelt][update]", sc::lp64, sc::ilp32) {
    using A = TestType;
    // State: 1000us into a period, load_sum 1000, weight 1; 100us more.
    // v4.3:  top up 24 first: 1000 + 24 = 1024; decay once:
    //        1024 * 4202935002 / 2^32 = 1002.06 -> 1002; no full period
    //        (contrib 0); + 76 -> 1078
    // v4.12/6.x: decay_load(1000, 1) + decay_load(24, 1) + 0 + 76
    //        = 978 + 23 + 76 = 1077
    pl::sched_avg<A> s43{};
    s43.period_contrib = 1000;
    s43.load_sum = 1000;
    CHECK(pl::__update_load_avg<V::v4_3, A>(100 * 1024, s43, 1, 0) == 1);
    CHECK(u<A>(s43.load_sum) == 1078u);
    CHECK(s43.period_contrib == 76u);
    CHECK(s43.load_avg == 0u); // 1078 / 47742

    pl::sched_avg<A> s61{};
    s61.period_contrib = 1000;
    s61.load_sum = 1000;
    CHECK(pl::___update_load_sum<V::v6_1, A>(100 * 1024, s61, 1, 0, 0) == 1);
    CHECK(u<A>(s61.load_sum) == 1077u);

    // v4.3 again, 960us on: 76 + 960 >= 1024.  Top up 948: 2026; decay once:
    //   2026 * 4202935002 / 2^32 = 1982.6 -> 1982; + 12 -> 1994
    CHECK(pl::__update_load_avg<V::v4_3, A>(100 * 1024 + 960 * 1024, s43, 1, 0) == 1);
    CHECK(u<A>(s43.load_sum) == 1994u);
    CHECK(s43.period_contrib == 12u);
}

TEMPLATE_TEST_CASE("pelt: v3.8 takes the period position from runnable_avg_period",
                   "[ref_pelt][update]", sc::lp64, sc::ilp32) {
    using A = TestType;
    pl::sched_avg<A> sa{};
    sa.runnable_avg_sum = 1000;
    sa.runnable_avg_period = 1000;
    // Same 100us step as above: both sums 1024 -> decay 1002 -> + 76 = 1078.
    CHECK(pl::__update_entity_runnable_avg<V::v3_8, A>(100 * 1024, sa, 1) == 1);
    CHECK(sa.runnable_avg_sum == 1078u);
    CHECK(sa.runnable_avg_period == 1078u);
    // The open period really holds 76us, but v3.8 reads 1078 % 1024 = 54:
    // 960 more makes 1014 < 1024, so no boundary (v4.3 sees 76 + 960 >= 1024).
    CHECK(pl::__update_entity_runnable_avg<V::v3_8, A>(100 * 1024 + 960 * 1024, sa, 1) == 0);
    CHECK(sa.runnable_avg_sum == 2038u); // 1078 + 960
    CHECK(sa.runnable_avg_period == 2038u);
    // Not runnable: only the period grows.
    // 2038 % 1024 = 1014, + 5 < 1024: still no boundary.
    CHECK(pl::__update_entity_runnable_avg<V::v3_8, A>(100 * 1024 + 965 * 1024, sa, 0) == 0);
    CHECK(sa.runnable_avg_sum == 2038u);
    CHECK(sa.runnable_avg_period == 2043u);
}

TEMPLATE_TEST_CASE("pelt: v3.8 load_avg_contrib", "[ref_pelt][update]", sc::lp64, sc::ilp32) {
    using A = TestType;
    pl::sched_avg<A> sa{};
    // 1024 * 20000 / (40000 + 1) = 511.98 -> 511
    sa.runnable_avg_sum = 20000;
    sa.runnable_avg_period = 40000;
    pl::__update_task_entity_contrib<V::v3_8, A>(sa, 1024);
    CHECK(sa.load_avg_contrib == 511u);
    // The product is cut to u32 on both data models:
    //   47000 * 131072 = 6160384000 -> - 2^32 = 1865416704; / 47001 = 39688.9
    sa.runnable_avg_sum = 47000;
    sa.runnable_avg_period = 47000;
    pl::__update_task_entity_contrib<V::v3_8, A>(sa, 131072);
    CHECK(sa.load_avg_contrib == 39688u);
    // A fresh entity: 0 / (0 + 1)
    pl::sched_avg<A> fresh{};
    pl::__update_task_entity_contrib<V::v3_8, A>(fresh, 1024);
    CHECK(fresh.load_avg_contrib == 0u);
}

TEST_CASE("pelt: v4.3 weight * delta_w is unsigned long wide", "[ref_pelt][update][width]") {
    // Fresh entity, weight 2^23, 1024us: the whole step completes the open
    // period (delta_w = 1024), no full period, d3 = 0.
    //   lp64:  2^23 * 1024 = 2^33; decay once: 2 * 0xfa83b2da = 8405870004;
    //          load_avg = 8405870004 / 47742 = 176068.9 -> 176068
    //   ilp32: 2^33 mod 2^32 = 0 -> everything 0
    pl::sched_avg<sc::lp64> a{};
    pl::sched_avg<sc::ilp32> b{};
    CHECK(pl::__update_load_avg<V::v4_3, sc::lp64>(1024 * 1024, a, 1u << 23, 0) == 1);
    CHECK(pl::__update_load_avg<V::v4_3, sc::ilp32>(1024 * 1024, b, 1u << 23, 0) == 1);
    CHECK(a.load_sum == 8405870004u);
    CHECK(a.load_avg == 176068u);
    CHECK(b.load_sum == 0u);
    CHECK(b.load_avg == 0u);
}

TEMPLATE_TEST_CASE("pelt: v4.12 keeps running without weight, 6.x does not", "[ref_pelt][update]",
                   sc::lp64, sc::ilp32) {
    using A = TestType;
    // Fresh, 2000us, weight/load 0, running 1: p = 1, d1 = 1024, d3 = 976.
    // v4.12: contrib = decay_load(1024, 1) + 0 + 976 = 1002 + 976 = 1978;
    //        util_sum = 1978 * 1024 = 2025472; util_avg = 2025472 / 47742 = 42.4
    pl::sched_avg<A> s412{};
    CHECK(pl::___update_load_avg<V::v4_12, A>(2000 * 1024, s412, 0, 1) == 1);
    CHECK(s412.util_sum == 2025472u);
    CHECK(s412.util_avg == 42u);
    CHECK(u<A>(s412.load_sum) == 0u);
    // 6.x: load 0 clears running.
    pl::sched_avg<A> s61{};
    CHECK(pl::update_load_avg<V::v6_1, A>(2000 * 1024, s61, 0, 1, 1, 1024) == 1);
    CHECK(s61.util_sum == 0u);
    CHECK(s61.util_avg == 0u);
}

// ---------------------------------------------------------------------------
// The uniform step: convergence and release differences
// ---------------------------------------------------------------------------

namespace {
template <version Ver, class A> pl::sched_avg<A> always_running(unsigned ms) {
    pl::sched_avg<A> sa{};
    std::uint64_t now = 0;
    for (unsigned i = 0; i < ms; ++i) {
        now += 1000000; // 1ms
        pl::update_load_avg<Ver, A>(now, sa, 1, 1, 1, 1024);
    }
    return sa;
}
} // namespace

TEMPLATE_TEST_CASE("pelt: an always-running entity converges to ~1024", "[ref_pelt][converge]",
                   sc::lp64, sc::ilp32) {
    using A = TestType;
    // 1000 updates of 1ms = 1000 * 10^6 / 1024 = 976562.5 us.  After ~976
    // periods y^976 ~ 2^-30, so the start no longer matters and a busy sum
    // is its maximum for the current position pc in the period:
    //   sum ~= (LOAD_AVG_MAX - 1024) + pc  (times 1024 for util in 6.x/4.12).
    // Each period's decay floors at most one unit of the sum, and those
    // losses add up to less than 1/(1-y) ~ 47 units -- about one unit of the
    // average.  Hence, with a margin of 3 for the divisions:
    //   6.x:  util = 1024 * sum / (46718 + pc) -> in [1021, 1024]
    //   v4.12: pc = 976562 % 1024 = 690 (remainders carried):
    //          util ~ 1024 * 47408 / 47742 = 1016.8 -> in [1013, 1017]
    //   v4.3:  every step accounts 976us and drops 576ns (last = now):
    //          976000 % 1024 = 128 -> 1024 * 46846 / 47742 = 1004.8 -> [1001, 1005]
    //   v3.8:  runnable_avg_sum == runnable_avg_period = P > 1023, so
    //          1024 * P / (P + 1) = 1024 - 1024/(P+1) -> exactly 1023.
    const auto s61 = always_running<V::v6_1, A>(1000);
    CHECK(s61.util_avg >= 1021u);
    CHECK(s61.util_avg <= 1024u);
    CHECK(s61.load_avg >= 1021u); // weight 1024, load_sum counted in plain us
    CHECK(s61.load_avg <= 1024u);
    CHECK(s61.runnable_avg >= 1021u);
    CHECK(s61.runnable_avg <= 1024u);
    CHECK(s61.period_contrib == 690u);

    const auto s412 = always_running<V::v4_12, A>(1000);
    CHECK(s412.period_contrib == 690u);
    CHECK(s412.util_avg >= 1013u);
    CHECK(s412.util_avg <= 1017u);
    CHECK(s412.load_avg >= 1013u); // weight 1024 folded into load_sum
    CHECK(s412.load_avg <= 1017u);

    const auto s43 = always_running<V::v4_3, A>(1000);
    CHECK(s43.period_contrib == 128u);
    CHECK(s43.util_avg >= 1001u);
    CHECK(s43.util_avg <= 1005u);
    CHECK(s43.load_avg >= 1001u);
    CHECK(s43.load_avg <= 1005u);

    const auto s38 = always_running<V::v3_8, A>(1000);
    CHECK(s38.load_avg_contrib == 1023u);
    CHECK(s38.runnable_avg_sum == s38.runnable_avg_period);
}

TEMPLATE_TEST_CASE("pelt: last_update_time after three 1ms steps", "[ref_pelt][converge]",
                   sc::lp64, sc::ilp32) {
    using A = TestType;
    // 3 * 10^6 ns: v4.12/6.x consume floor(3e6 / 1024) = 2929 units = 2999296ns
    // and keep the rest; v3.8/v4.3 are at now.
    CHECK(u<A>(always_running<V::v6_1, A>(3).last_update_time) == 2999296u);
    CHECK(u<A>(always_running<V::v6_12, A>(3).last_update_time) == 2999296u);
    CHECK(u<A>(always_running<V::v4_12, A>(3).last_update_time) == 2999296u);
    CHECK(u<A>(always_running<V::v4_3, A>(3).last_update_time) == 3000000u);
    CHECK(u<A>(always_running<V::v3_8, A>(3).last_update_time) == 3000000u);
}

TEMPLATE_TEST_CASE("pelt: update_load_avg reports recomputation", "[ref_pelt][converge]", sc::lp64,
                   sc::ilp32) {
    using A = TestType;
    // 1000us from a fresh state: no boundary, nothing recomputed, anywhere.
    pl::sched_avg<A> a{}, b{}, c{}, d{};
    CHECK(pl::update_load_avg<V::v6_1, A>(1000 * 1024, a, 1, 1, 1, 1024) == 0);
    CHECK(pl::update_load_avg<V::v4_12, A>(1000 * 1024, b, 1, 1, 1, 1024) == 0);
    CHECK(pl::update_load_avg<V::v4_3, A>(1000 * 1024, c, 1, 1, 1, 1024) == 0);
    CHECK(pl::update_load_avg<V::v3_8, A>(1000 * 1024, d, 1, 1, 1, 1024) == 0);
    // 100us more crosses the first boundary in every release.
    CHECK(pl::update_load_avg<V::v6_1, A>(1100 * 1024, a, 1, 1, 1, 1024) == 1);
    CHECK(pl::update_load_avg<V::v4_12, A>(1100 * 1024, b, 1, 1, 1, 1024) == 1);
    CHECK(pl::update_load_avg<V::v4_3, A>(1100 * 1024, c, 1, 1, 1, 1024) == 1);
    CHECK(pl::update_load_avg<V::v3_8, A>(1100 * 1024, d, 1, 1, 1, 1024) == 1);
    // 6.x: load_avg = 1024 * 1077 / (46718 + 76) = 1102848 / 46794 = 23.57 -> 23
    CHECK(a.load_avg == 23u);
    // v4.12: the weight is folded in before the decay:
    //   1024 * 1000 = 1024000 -> decay_load(1024000, 1) = 1002057
    //   + 1024 * 99 = 101376 -> 1103433; / 47742 = 23.1 -> 23
    CHECK(u<A>(b.load_sum) == 1103433u);
    CHECK(b.load_avg == 23u);
    // v3.8: 1024 * 1078 / 1079 = 1023.05 -> 1023
    CHECK(d.load_avg_contrib == 1023u);
}

TEMPLATE_TEST_CASE("pelt: v6.1 and v6.12 agree", "[ref_pelt][converge]", sc::lp64, sc::ilp32) {
    using A = TestType;
    // Identical arithmetic in the two releases: a mixed run must match bit
    // for bit (a check of the variant plumbing, not of values).
    pl::sched_avg<A> a{}, b{};
    std::uint64_t now = 0, x = 12345;
    for (int i = 0; i < 3000; ++i) {
        x = x * 6364136223846793005ULL + 1442695040888963407ULL;
        now += (x >> 40) & 0x3fffff; // up to ~4ms
        const unsigned on = (x >> 20) & 1, run = on & ((x >> 21) & 1);
        const auto ra = pl::update_load_avg<V::v6_1, A>(now, a, on, on, run, 1024);
        const auto rb = pl::update_load_avg<V::v6_12, A>(now, b, on, on, run, 1024);
        REQUIRE(ra == rb);
    }
    CHECK(u<A>(a.load_sum) == u<A>(b.load_sum));
    CHECK(u<A>(a.runnable_sum) == u<A>(b.runnable_sum));
    CHECK(a.util_sum == b.util_sum);
    CHECK(a.period_contrib == b.period_contrib);
    CHECK(a.load_avg == b.load_avg);
    CHECK(a.util_avg == b.util_avg);
}

TEST_CASE("pelt: version names", "[ref_pelt]") {
    CHECK(std::string(pl::version_name(V::v3_8)) == "v3.8");
    CHECK(std::string(pl::version_name(V::v4_3)) == "v4.3");
    CHECK(std::string(pl::version_name(V::v4_12)) == "v4.12");
    CHECK(std::string(pl::version_name(V::v6_1)) == "v6.1");
    CHECK(std::string(pl::version_name(V::v6_12)) == "v6.12");
}
