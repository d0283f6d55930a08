// Unit tests of the concrete cpu_load reference (ref/cpuload.h,
// ref/cpuload_scenario.h, ref/checked.h) on both data models.
//
// Every expected value below is worked out by hand from seed 000:
//   degrade_zero_ticks = {0, 8, 32, 64, 128}
//   degrade_factor     = row 1 {64, 32, 8, 0, ...}
//                        row 2 {96, 72, 40, 12, 1, 0, ...}
//                        row 3 {112, 98, 75, 43, 15, 1, 0, ...}
//                        row 4 {120, 112, 98, 76, 45, 16, 2, 0}
//   decay for n missed ticks: for each set bit j of n, load = load*f[idx][j] >> 7
//   averaging: cpu_load[i] = (old*(2^i-1) + new (+ 2^i-1 if new > old)) >> i
// The arithmetic is written next to each assertion.  None of these values
// was taken from the output of the code under test.
#include <catch2/catch.hpp>

#include "ref/checked.h"
#include "ref/cpuload.h"
#include "ref/cpuload_scenario.h"

#include <array>
#include <cstdint>

namespace {

namespace cl = sc::cpuload;
using cl::patch_level;

template <class A>
cl::rq<A> make_rq(std::array<std::uint64_t, 5> load, std::uint64_t last = 0,
                  std::uint64_t runnable = 0, std::uint32_t h_nr_running = 0) {
    cl::rq<A> r{};
    for (int i = 0; i < 5; ++i)
        r.cpu_load[i] = static_cast<typename A::ulong>(load[i]);
    r.last_load_update_tick = static_cast<typename A::ulong>(last);
    r.cfs.runnable_load_avg = static_cast<typename A::ulong>(runnable);
    r.cfs.h_nr_running = h_nr_running;
    return r;
}

template <class A> std::array<std::uint64_t, 5> loads_of(const cl::rq<A> &r) {
    std::array<std::uint64_t, 5> out{};
    for (int i = 0; i < 5; ++i)
        out[i] = static_cast<std::uint64_t>(r.cpu_load[i]);
    return out;
}

using L5 = std::array<std::uint64_t, 5>;

} // namespace

// ---------------------------------------------------------------------------
// decay_load_missed
// ---------------------------------------------------------------------------

TEMPLATE_TEST_CASE("cpuload ref: decay_load_missed with no missed tick returns the load",
                   "[ref_cpuload][decay]", sc::lp64, sc::ilp32) {
    using A = TestType;
    for (int idx = 1; idx < cl::CPU_LOAD_IDX_MAX; ++idx) {
        CHECK(cl::decay_load_missed<A>(1000, 0, idx) == 1000u); // n == 0: untouched
        CHECK(cl::decay_load_missed<A>(0, 0, idx) == 0u);
        CHECK(cl::decay_load_missed<A>(4294967295u, 0, idx) == 4294967295u);
    }
}

TEMPLATE_TEST_CASE("cpuload ref: decay_load_missed is 0 from degrade_zero_ticks on",
                   "[ref_cpuload][decay]", sc::lp64, sc::ilp32) {
    using A = TestType;
    // degrade_zero_ticks = {0, 8, 32, 64, 128}
    CHECK(cl::decay_load_missed<A>(1000, 8, 1) == 0u);
    CHECK(cl::decay_load_missed<A>(1000, 9, 1) == 0u);
    CHECK(cl::decay_load_missed<A>(1000, 32, 2) == 0u);
    CHECK(cl::decay_load_missed<A>(1000, 33, 2) == 0u);
    CHECK(cl::decay_load_missed<A>(1000, 64, 3) == 0u);
    CHECK(cl::decay_load_missed<A>(1000, 128, 4) == 0u);
    CHECK(cl::decay_load_missed<A>(1000, 200, 4) == 0u);
    CHECK(cl::decay_load_missed<A>(4294967295u, 4294967295u, 4) == 0u);
    // one below the cut-off is not forced to 0:
    // idx 1, n 7: 1000 >> 7 = 7 (1000/128 = 7.8)
    CHECK(cl::decay_load_missed<A>(1000, 7, 1) == 7u);
    // idx 4, n 64 (bit 6 only, factor 2): 1000*2 >> 7 = 2000/128 = 15
    CHECK(cl::decay_load_missed<A>(1000, 64, 4) == 15u);
}

TEMPLATE_TEST_CASE("cpuload ref: decay_load_missed at idx 1 is a shift", "[ref_cpuload][decay]",
                   sc::lp64, sc::ilp32) {
    using A = TestType;
    CHECK(cl::decay_load_missed<A>(1000, 1, 1) == 500u); // 1000 >> 1
    CHECK(cl::decay_load_missed<A>(1000, 3, 1) == 125u); // 1000 >> 3
    CHECK(cl::decay_load_missed<A>(1023, 1, 1) == 511u); // 1023 >> 1 = 511 (not rounded)
    CHECK(cl::decay_load_missed<A>(1023, 5, 1) == 31u);  // 1023 >> 5 = 31 (1023/32 = 31.97)
    // A shift, not the table: the table's {64, 32, 8} would give the same
    // quotient except when load*factor wraps.  Load 2^32-1, n = 2:
    //   shift: 4294967295 >> 2 = 1073741823
    //   table on ilp32: 4294967295*32 mod 2^32 = 2^32 - 32 = 4294967264,
    //                   >> 7 = 33554431 (so a table walk would be caught here)
    CHECK(cl::decay_load_missed<A>(4294967295u, 2, 1) == 1073741823u);
}

TEMPLATE_TEST_CASE("cpuload ref: decay_load_missed multi-bit counts at idx 2..4",
                   "[ref_cpuload][decay]", sc::lp64, sc::ilp32) {
    using A = TestType;
    // idx 2, n = 1 (bit 0): 1000*96 >> 7 = 96000/128 = 750
    CHECK(cl::decay_load_missed<A>(1000, 1, 2) == 750u);
    // idx 2, n = 3 (bits 0,1): 1000*96>>7 = 750; 750*72 = 54000>>7 = 421 (421.875)
    CHECK(cl::decay_load_missed<A>(1000, 3, 2) == 421u);
    // idx 2, n = 5 (bits 0,2): 750; 750*40 = 30000>>7 = 234 (234.375)
    CHECK(cl::decay_load_missed<A>(1000, 5, 2) == 234u);
    // idx 2, n = 31 (bits 0..4), load 1000000:
    //   *96 = 96000000>>7 = 750000; *72 = 54000000>>7 = 421875;
    //   *40 = 16875000>>7 = 131835 (131835.9); *12 = 1582020>>7 = 12359 (12359.5);
    //   *1 = 12359>>7 = 96 (96.55)
    CHECK(cl::decay_load_missed<A>(1000000, 31, 2) == 96u);
    // idx 3, n = 6 (bits 1,2): 1000*98 = 98000>>7 = 765 (765.6); 765*75 = 57375>>7 = 448 (448.2)
    CHECK(cl::decay_load_missed<A>(1000, 6, 3) == 448u);
    // idx 3, n = 63 (bits 0..5), load 1000000:
    //   *112 = 112000000>>7 = 875000; *98 = 85750000>>7 = 669921 (669921.9);
    //   *75 = 50244075>>7 = 392531 (128*392531 = 50243968, rem 107);
    //   *43 = 16878833>>7 = 131865 (128*131865 = 16878720, rem 113);
    //   *15 = 1977975>>7 = 15452 (128*15452 = 1977856, rem 119);
    //   *1 = 15452>>7 = 120 (120.7)
    CHECK(cl::decay_load_missed<A>(1000000, 63, 3) == 120u);
    // idx 4, n = 10 (bits 1,3): 1000*112 = 112000>>7 = 875; 875*76 = 66500>>7 = 519 (519.5)
    CHECK(cl::decay_load_missed<A>(1000, 10, 4) == 519u);
    // idx 4, n = 2 (bit 1 only): 1000*112>>7 = 875
    CHECK(cl::decay_load_missed<A>(1000, 2, 4) == 875u);
}

TEST_CASE("cpuload ref: decay_load_missed, all seven factors at idx 4 (lp64)",
          "[ref_cpuload][decay]") {
    // idx 4, n = 127 (bits 0..6), load 10^9 (products exceed 2^32, so lp64):
    //   *120 = 120e9>>7 = 937500000
    //   *112 = 105000000000>>7 = 820312500
    //   *98  = 80390625000>>7 = 628051757 (…757.8)
    //   *76  = 47731933532>>7 = 372905730 (128*372905730 = 47731933440, rem 92)
    //   *45  = 16780757850>>7 = 131099670 (128*131099670 = 16780757760, rem 90)
    //   *16  = 2097594720>>7 = 16387458 (…458.75)
    //   *2   = 32774916>>7 = 256054 (256054.03)
    CHECK(cl::decay_load_missed<sc::lp64>(1000000000, 127, 4) == 256054u);
}

TEST_CASE("cpuload ref: decay_load_missed wraps at 32 bits on ilp32", "[ref_cpuload][decay]") {
    // idx 2, n = 1, load 4000000000 (< 2^32 = 4294967296):
    //   exact product 4000000000*96 = 384000000000
    //   ilp32: 384000000000 mod 2^32: 89*4294967296 = 382252089344,
    //          384000000000 - 382252089344 = 1747910656; >> 7 = 13655552 (exact)
    //   lp64 : 384000000000 >> 7 = 3000000000
    CHECK(cl::decay_load_missed<sc::ilp32>(4000000000u, 1, 2) == 13655552u);
    CHECK(cl::decay_load_missed<sc::lp64>(4000000000u, 1, 2) == 3000000000u);
}

// ---------------------------------------------------------------------------
// __update_cpu_load, baseline v3.13
// ---------------------------------------------------------------------------

TEMPLATE_TEST_CASE("cpuload ref: v3.13 __update_cpu_load, one tick, rising load",
                   "[ref_cpuload][update]", sc::lp64, sc::ilp32) {
    using A = TestType;
    auto r = make_rq<A>({100, 200, 300, 400, 500});
    cl::__update_cpu_load<A, patch_level::v3_13>(r, 1000, 1);
    // pending 1: no decay.  new 1000 > old everywhere, so rounded up.
    //   [0] = 1000
    //   [1] = (200*1 + 1000+1)  >> 1 = 1201 >> 1 = 600
    //   [2] = (300*3 + 1000+3)  >> 2 = 1903 >> 2 = 475
    //   [3] = (400*7 + 1000+7)  >> 3 = 3807 >> 3 = 475
    //   [4] = (500*15 + 1000+15)>> 4 = 8515 >> 4 = 532
    CHECK(loads_of(r) == L5{1000, 600, 475, 475, 532});
}

TEMPLATE_TEST_CASE("cpuload ref: v3.13 __update_cpu_load, rounding up reaches the load",
                   "[ref_cpuload][update]", sc::lp64, sc::ilp32) {
    using A = TestType;
    auto r = make_rq<A>({9, 9, 9, 9, 9});
    cl::__update_cpu_load<A, patch_level::v3_13>(r, 10, 1);
    //   [1] = (9*1 + 10+1)  >> 1 = 20 >> 1 = 10
    //   [2] = (9*3 + 10+3)  >> 2 = 40 >> 2 = 10
    //   [3] = (9*7 + 10+7)  >> 3 = 80 >> 3 = 10
    //   [4] = (9*15 + 10+15)>> 4 = 160 >> 4 = 10
    CHECK(loads_of(r) == L5{10, 10, 10, 10, 10});
}

TEMPLATE_TEST_CASE("cpuload ref: v3.13 __update_cpu_load, one tick, falling load",
                   "[ref_cpuload][update]", sc::lp64, sc::ilp32) {
    using A = TestType;
    SECTION("to zero") {
        auto r = make_rq<A>({1000, 1000, 1000, 1000, 1000});
        cl::__update_cpu_load<A, patch_level::v3_13>(r, 0, 1);
        //   [1] = 1000*1 >> 1 = 500;   [2] = 3000 >> 2 = 750
        //   [3] = 7000 >> 3 = 875;     [4] = 15000 >> 4 = 937 (937.5)
        CHECK(loads_of(r) == L5{0, 500, 750, 875, 937});
    }
    SECTION("to 100 (no round-up: 100 < old)") {
        auto r = make_rq<A>({1000, 1000, 1000, 1000, 1000});
        cl::__update_cpu_load<A, patch_level::v3_13>(r, 100, 1);
        //   [1] = (1000 + 100) >> 1 = 550;   [2] = (3000 + 100) >> 2 = 775
        //   [3] = (7000 + 100) >> 3 = 887;   [4] = (15000 + 100) >> 4 = 943 (943.75)
        CHECK(loads_of(r) == L5{100, 550, 775, 887, 943});
    }
}

TEMPLATE_TEST_CASE("cpuload ref: v3.13 __update_cpu_load with pending > 1 decays first",
                   "[ref_cpuload][update]", sc::lp64, sc::ilp32) {
    using A = TestType;
    SECTION("idle catch-up: load 0, pending 3 (2 missed ticks = bit 1)") {
        auto r = make_rq<A>({0, 1000, 1000, 1000, 1000});
        cl::__update_cpu_load<A, patch_level::v3_13>(r, 0, 3);
        //   [1] decay 1000 >> 2 = 250;               (250*1 + 0) >> 1 = 125
        //   [2] decay 1000*72 >> 7 = 562 (562.5);     (562*3) = 1686 >> 2 = 421
        //   [3] decay 1000*98 >> 7 = 765 (765.6);     (765*7) = 5355 >> 3 = 669
        //   [4] decay 1000*112 >> 7 = 875;            (875*15) = 13125 >> 4 = 820
        CHECK(loads_of(r) == L5{0, 125, 421, 669, 820});
    }
    SECTION("busy again: load 2000, pending 9 (8 missed ticks = bit 3)") {
        auto r = make_rq<A>({0, 1000, 1000, 1000, 1000});
        cl::__update_cpu_load<A, patch_level::v3_13>(r, 2000, 9);
        //   [1] 8 >= degrade_zero_ticks[1] = 8 -> old 0; (0 + 2000+1) >> 1 = 1000
        //   [2] 1000*12 >> 7 = 93 (93.75);  (93*3 + 2000+3)  = 2282 >> 2 = 570
        //   [3] 1000*43 >> 7 = 335 (335.9); (335*7 + 2000+7) = 4352 >> 3 = 544
        //   [4] 1000*76 >> 7 = 593 (593.75);(593*15 + 2000+15) = 10910 >> 4 = 681
        CHECK(loads_of(r) == L5{2000, 1000, 570, 544, 681});
    }
}

TEMPLATE_TEST_CASE("cpuload ref: v3.13 constant load L with one tick per update stays L",
                   "[ref_cpuload][update]", sc::lp64, sc::ilp32) {
    using A = TestType;
    // new == old == L: no round-up, (L*(2^i-1) + L) >> i = L*2^i >> i = L
    // (for L*2^4 < 2^32 on ilp32; 200000000*16 = 3.2e9 fits)
    for (std::uint64_t L : {0ull, 1ull, 10ull, 1024ull, 12345ull, 200000000ull}) {
        auto r = make_rq<A>({L, L, L, L, L});
        for (int t = 0; t < 5; ++t)
            cl::__update_cpu_load<A, patch_level::v3_13>(r, L, 1);
        CHECK(loads_of(r) == L5{L, L, L, L, L});
    }
}

TEST_CASE("cpuload ref: v3.13 constant large load stays on lp64", "[ref_cpuload][update]") {
    const std::uint64_t L = 1ull << 40; // L*15 + L = 2^44, far below 2^64
    auto r = make_rq<sc::lp64>({L, L, L, L, L});
    cl::__update_cpu_load<sc::lp64, patch_level::v3_13>(r, L, 1);
    CHECK(loads_of(r) == L5{L, L, L, L, L});
}

// ---------------------------------------------------------------------------
// The three callers
// ---------------------------------------------------------------------------

TEMPLATE_TEST_CASE("cpuload ref: v3.13 update_cpu_load_active is one tick, whatever jiffies",
                   "[ref_cpuload][callers]", sc::lp64, sc::ilp32) {
    using A = TestType;
    SECTION("from zero") {
        auto r = make_rq<A>({0, 0, 0, 0, 0}, /*last*/ 5, /*runnable*/ 1000);
        cl::update_cpu_load_active<A, patch_level::v3_13>(r, 6);
        //   [1] (0 + 1001) >> 1 = 500;  [2] 1003 >> 2 = 250
        //   [3] 1007 >> 3 = 125;        [4] 1015 >> 4 = 63
        CHECK(loads_of(r) == L5{1000, 500, 250, 125, 63});
        CHECK(r.last_load_update_tick == 6u);
    }
    SECTION("a jump in jiffies is not a decay: pending is always 1") {
        auto r = make_rq<A>({1000, 1000, 1000, 1000, 1000}, 5, 1000);
        cl::update_cpu_load_active<A, patch_level::v3_13>(r, 100);
        // constant 1000, one tick: stays 1000 (a 94-tick decay would lower [1..4])
        CHECK(loads_of(r) == L5{1000, 1000, 1000, 1000, 1000});
        CHECK(r.last_load_update_tick == 100u);
    }
}

TEMPLATE_TEST_CASE("cpuload ref: v3.13 update_idle_cpu_load", "[ref_cpuload][callers]", sc::lp64,
                   sc::ilp32) {
    using A = TestType;
    SECTION("bails when the runqueue has load") {
        auto r = make_rq<A>({7, 1000, 1000, 1000, 1000}, 10, /*runnable*/ 1);
        cl::update_idle_cpu_load<A, patch_level::v3_13>(r, 13);
        CHECK(loads_of(r) == L5{7, 1000, 1000, 1000, 1000});
        CHECK(r.last_load_update_tick == 10u);
    }
    SECTION("bails when jiffies has not moved") {
        auto r = make_rq<A>({7, 1000, 1000, 1000, 1000}, 10, 0);
        cl::update_idle_cpu_load<A, patch_level::v3_13>(r, 10);
        CHECK(loads_of(r) == L5{7, 1000, 1000, 1000, 1000});
        CHECK(r.last_load_update_tick == 10u);
    }
    SECTION("idle: catches up curr - last = 3 pending updates with load 0") {
        auto r = make_rq<A>({7, 1000, 1000, 1000, 1000}, 10, 0);
        cl::update_idle_cpu_load<A, patch_level::v3_13>(r, 13);
        // same arithmetic as "__update_cpu_load(0, pending 3)" above:
        //   250>>1 = 125; 562*3>>2 = 421; 765*7>>3 = 669; 875*15>>4 = 820
        CHECK(loads_of(r) == L5{0, 125, 421, 669, 820});
        CHECK(r.last_load_update_tick == 13u);
    }
}

TEMPLATE_TEST_CASE("cpuload ref: update_cpu_load_nohz before 4/4 stores 0",
                   "[ref_cpuload][callers]", sc::lp64, sc::ilp32) {
    using A = TestType;
    SECTION("jiffies unchanged: nothing happens") {
        auto r = make_rq<A>({1000, 1000, 1000, 1000, 1000}, 10, 1000, 2);
        cl::update_cpu_load_nohz<A, patch_level::v3_13>(r, 10);
        CHECK(loads_of(r) == L5{1000, 1000, 1000, 1000, 1000});
        CHECK(r.last_load_update_tick == 10u);
    }
    SECTION("v3.13: a busy nohz_full CPU (2 tasks, load 1000) gets sample 0") {
        auto r = make_rq<A>({1000, 1000, 1000, 1000, 1000}, 10, 1000, 2);
        cl::update_cpu_load_nohz<A, patch_level::v3_13>(r, 11);
        // pending 1, sample 0: 1000>>1 = 500; 3000>>2 = 750; 7000>>3 = 875; 15000>>4 = 937
        CHECK(loads_of(r) == L5{0, 500, 750, 875, 937});
        CHECK(r.last_load_update_tick == 11u);
    }
    SECTION("shi-1: same as v3.13") {
        auto r = make_rq<A>({1000, 1000, 1000, 1000, 1000}, 10, 1000, 2);
        cl::update_cpu_load_nohz<A, patch_level::shi_1>(r, 11);
        CHECK(loads_of(r) == L5{0, 500, 750, 875, 937});
    }
    SECTION("shi-1-3: sample 0 stored, no history kept") {
        auto r = make_rq<A>({1000, 1000, 1000, 1000, 1000}, 10, 1000, 2);
        cl::update_cpu_load_nohz<A, patch_level::shi_1_3>(r, 11);
        CHECK(r.cpu_load[0] == 0u);
        CHECK(loads_of(r) == L5{0, 1000, 1000, 1000, 1000}); // slots 1..4 unused, untouched
        CHECK(r.last_load_update_tick == 11u);
    }
}

TEMPLATE_TEST_CASE("cpuload ref: update_cpu_load_nohz from 4/4 keeps a busy CPU's load",
                   "[ref_cpuload][callers]", sc::lp64, sc::ilp32) {
    using A = TestType;
    SECTION("shi-1-4, h_nr_running 1: stores the runnable load") {
        auto r = make_rq<A>({0, 0, 0, 0, 0}, 10, 1000, 1);
        cl::update_cpu_load_nohz<A, patch_level::shi_1_4>(r, 50);
        CHECK(r.cpu_load[0] == 1000u);
        CHECK(r.last_load_update_tick == 50u);
    }
    SECTION("shi-1-5, h_nr_running 3: stores the runnable load") {
        auto r = make_rq<A>({0, 0, 0, 0, 0}, 10, 4000000000u, 3);
        cl::update_cpu_load_nohz<A, patch_level::shi_1_5>(r, 11);
        CHECK(r.cpu_load[0] == 4000000000u); // fits in 32 bits: kept as is
    }
    SECTION("shi-1-4, h_nr_running 0: stores 0") {
        auto r = make_rq<A>({1000, 0, 0, 0, 0}, 10, 1000, 0);
        cl::update_cpu_load_nohz<A, patch_level::shi_1_4>(r, 11);
        CHECK(r.cpu_load[0] == 0u);
        CHECK(r.last_load_update_tick == 11u);
    }
    SECTION("shi-1-4, jiffies unchanged: nothing happens") {
        auto r = make_rq<A>({7, 0, 0, 0, 0}, 10, 1000, 1);
        cl::update_cpu_load_nohz<A, patch_level::shi_1_4>(r, 10);
        CHECK(r.cpu_load[0] == 7u);
    }
}

TEST_CASE("cpuload ref: shi-1-4 reads the load into a 32-bit unsigned on lp64",
          "[ref_cpuload][callers]") {
    // Patch 4/4 declares "unsigned load": 2^32 + 5 truncates to 5 on lp64.
    const std::uint64_t big = (1ull << 32) + 5;
    auto r = make_rq<sc::lp64>({0, 0, 0, 0, 0}, 10, big, 1);
    cl::update_cpu_load_nohz<sc::lp64, patch_level::shi_1_4>(r, 11);
    CHECK(r.cpu_load[0] == 5u); // (2^32 + 5) mod 2^32 = 5
    auto r5 = make_rq<sc::lp64>({0, 0, 0, 0, 0}, 10, big, 1);
    cl::update_cpu_load_nohz<sc::lp64, patch_level::shi_1_5>(r5, 11);
    CHECK(r5.cpu_load[0] == 5u);
}

// ---------------------------------------------------------------------------
// What each patch changes
// ---------------------------------------------------------------------------

TEST_CASE("cpuload ref: lb_load_idx, v3.13 vs shi-1", "[ref_cpuload][patches]") {
    using cl::cpu_idle_type;
    const cl::sd_load_idx sd{/*busy*/ 2, /*idle*/ 1, /*newidle*/ 3, /*wake*/ 4, /*forkexec*/ 4};
    // v3.13 get_sd_load_idx(): NOT_IDLE -> busy, NEWLY_IDLE -> newidle, else idle
    CHECK(cl::lb_load_idx<patch_level::v3_13>(sd, cpu_idle_type::CPU_NOT_IDLE) == 2);
    CHECK(cl::lb_load_idx<patch_level::v3_13>(sd, cpu_idle_type::CPU_IDLE) == 1);
    CHECK(cl::lb_load_idx<patch_level::v3_13>(sd, cpu_idle_type::CPU_NEWLY_IDLE) == 3);
    // 1/4: load_idx = 0 for every idle type, and it stays so
    for (auto t : {cpu_idle_type::CPU_NOT_IDLE, cpu_idle_type::CPU_IDLE,
                   cpu_idle_type::CPU_NEWLY_IDLE}) {
        CHECK(cl::lb_load_idx<patch_level::shi_1>(sd, t) == 0);
        CHECK(cl::lb_load_idx<patch_level::shi_1_3>(sd, t) == 0);
        CHECK(cl::lb_load_idx<patch_level::shi_1_4>(sd, t) == 0);
        CHECK(cl::lb_load_idx<patch_level::shi_1_5>(sd, t) == 0);
    }
}

TEMPLATE_TEST_CASE("cpuload ref: from shi-1-3 __update_cpu_load only stores the sample",
                   "[ref_cpuload][patches]", sc::lp64, sc::ilp32) {
    using A = TestType;
    auto r = make_rq<A>({100, 200, 300, 400, 500});
    cl::__update_cpu_load<A, patch_level::shi_1_3>(r, 1000, 1);
    CHECK(loads_of(r) == L5{1000, 200, 300, 400, 500});
    // pending is ignored: 50 pending ticks would decay everything in v3.13
    cl::__update_cpu_load<A, patch_level::shi_1_3>(r, 7, 50);
    CHECK(loads_of(r) == L5{7, 200, 300, 400, 500});
    cl::__update_cpu_load<A, patch_level::shi_1_4>(r, 8, 0);
    CHECK(loads_of(r) == L5{8, 200, 300, 400, 500});
    cl::__update_cpu_load<A, patch_level::shi_1_5>(r, 9, 3);
    CHECK(loads_of(r) == L5{9, 200, 300, 400, 500});
    // while shi-1 still averages: from {9,200,300,400,500}, load 1000, pending 1
    //   [1] (200 + 1001) >> 1 = 600 ... as in the v3.13 rising-load case
    cl::__update_cpu_load<A, patch_level::shi_1>(r, 1000, 1);
    CHECK(loads_of(r) == L5{1000, 600, 475, 475, 532});
}

TEMPLATE_TEST_CASE("cpuload ref: source_load / target_load up to shi-1 use cpu_load[type-1]",
                   "[ref_cpuload][patches]", sc::lp64, sc::ilp32) {
    using A = TestType;
    // weighted_cpuload = runnable_load_avg = 1000
    const auto r = make_rq<A>({10, 2000, 500, 3000, 40}, 0, 1000, 1);
    auto both = [&]<patch_level P>() {
        // type 0: total, LB_BIAS either way
        CHECK(cl::source_load<A, P>(r, 0, true) == 1000u);
        CHECK(cl::target_load<A, P>(r, 0, 125, true) == 1000u); // pct ignored before 5
        CHECK(cl::source_load<A, P>(r, 0, false) == 1000u);
        CHECK(cl::target_load<A, P>(r, 0, 125, false) == 1000u);
        // LB_BIAS off: total for any type
        CHECK(cl::source_load<A, P>(r, 2, false) == 1000u);
        CHECK(cl::target_load<A, P>(r, 4, 125, false) == 1000u);
        // LB_BIAS on, type k: min/max(cpu_load[k-1], 1000)
        CHECK(cl::source_load<A, P>(r, 1, true) == 10u);   // min(10, 1000)
        CHECK(cl::target_load<A, P>(r, 1, 125, true) == 1000u);
        CHECK(cl::source_load<A, P>(r, 2, true) == 1000u); // min(2000, 1000)
        CHECK(cl::target_load<A, P>(r, 2, 125, true) == 2000u); // max(2000, 1000)
        CHECK(cl::source_load<A, P>(r, 3, true) == 500u);  // min(500, 1000)
        CHECK(cl::target_load<A, P>(r, 3, 125, true) == 1000u);
        CHECK(cl::source_load<A, P>(r, 4, true) == 1000u); // min(3000, 1000)
        CHECK(cl::target_load<A, P>(r, 4, 125, true) == 3000u);
        CHECK(cl::source_load<A, P>(r, 5, true) == 40u);   // min(40, 1000)
        CHECK(cl::target_load<A, P>(r, 5, 125, true) == 1000u);
    };
    both.template operator()<patch_level::v3_13>();
    both.template operator()<patch_level::shi_1>();
}

TEMPLATE_TEST_CASE("cpuload ref: source_load / target_load from shi-1-3 use cpu_load[0]",
                   "[ref_cpuload][patches]", sc::lp64, sc::ilp32) {
    using A = TestType;
    const auto r = make_rq<A>({10, 2000, 500, 3000, 40}, 0, 1000, 1);
    auto check = [&]<patch_level P>() {
        // the type argument is gone: every type reads cpu_load[0] = 10
        for (int type : {0, 1, 3, 5}) {
            CHECK(cl::source_load<A, P>(r, type, true) == 10u);   // min(10, 1000)
            CHECK(cl::source_load<A, P>(r, type, false) == 1000u); // total
            CHECK(cl::target_load<A, P>(r, type, 125, true) == 1000u); // max(10, 1000)
            CHECK(cl::target_load<A, P>(r, type, 125, false) == 1000u);
        }
    };
    check.template operator()<patch_level::shi_1_3>();
    check.template operator()<patch_level::shi_1_4>();
}

TEMPLATE_TEST_CASE("cpuload ref: shi-1-5 target_load scales by imbalance_pct/100",
                   "[ref_cpuload][patches]", sc::lp64, sc::ilp32) {
    using A = TestType;
    constexpr auto P = patch_level::shi_1_5;
    const auto r = make_rq<A>({10, 0, 0, 0, 0}, 0, 1000, 1);
    CHECK(cl::target_load<A, P>(r, 0, 125, false) == 1250u); // 1000*125/100 = 1250
    CHECK(cl::target_load<A, P>(r, 0, 125, true) == 1250u);  // max(10, 1250)
    CHECK(cl::target_load<A, P>(r, 0, 100, false) == 1000u); // 1000*100/100
    CHECK(cl::target_load<A, P>(r, 0, 117, false) == 1170u); // 117000/100
    // source_load is untouched by the follow-up: min(10, 1000) / 1000
    CHECK(cl::source_load<A, P>(r, 0, true) == 10u);
    CHECK(cl::source_load<A, P>(r, 0, false) == 1000u);
    // a history above the scaled total wins with LB_BIAS
    const auto r2 = make_rq<A>({2000, 0, 0, 0, 0}, 0, 1000, 1);
    CHECK(cl::target_load<A, P>(r2, 0, 125, true) == 2000u);  // max(2000, 1250)
    CHECK(cl::target_load<A, P>(r2, 0, 125, false) == 1250u);
    // rounding is truncation: 999*125 = 124875 / 100 = 1248
    const auto r3 = make_rq<A>({0, 0, 0, 0, 0}, 0, 999, 1);
    CHECK(cl::target_load<A, P>(r3, 0, 125, false) == 1248u);
    // the baseline ignores imbalance_pct
    CHECK(cl::target_load<A, patch_level::shi_1_4>(r, 0, 125, false) == 1000u);
}

TEST_CASE("cpuload ref: shi-1-5 total*imbalance_pct wraps on ilp32", "[ref_cpuload][patches]") {
    constexpr auto P = patch_level::shi_1_5;
    // 40000000 * 125 = 5000000000
    //   ilp32: 5000000000 - 4294967296 = 705032704; / 100 = 7050327
    //   lp64 : 5000000000 / 100 = 50000000
    const auto r32 = make_rq<sc::ilp32>({0, 0, 0, 0, 0}, 0, 40000000, 1);
    const auto r64 = make_rq<sc::lp64>({0, 0, 0, 0, 0}, 0, 40000000, 1);
    CHECK(cl::target_load<sc::ilp32, P>(r32, 0, 125, false) == 7050327u);
    CHECK(cl::target_load<sc::lp64, P>(r64, 0, 125, false) == 50000000u);
}

// ---------------------------------------------------------------------------
// simulate()
// ---------------------------------------------------------------------------

TEST_CASE("cpuload ref: simulate a short v3.13 scenario", "[ref_cpuload][scenario]") {
    using A = sc::lp64;
    using cl::op;
    cl::scenario<A> s{};
    s.kn.lb_bias = true;
    s.kn.imbalance_pct = 125;
    s.steps = {
        {op::tick, 1000, 1, 0, 0},
        {op::tick, 1000, 2, 0, 0},
        {op::set_load, 0, 0, 0, 0},
        {op::idle_update, 5, 0, 0, 0},
        {op::decay, 1000, 3, 0, 2},
        {op::balance, 0, 0, 0, 3},
    };
    const auto t = cl::simulate<A, patch_level::v3_13>(s);
    REQUIRE(t.recs.size() == 6);

    // 1. tick load 1000 at jiffies 1, from all zero:
    //    (0+1001)>>1 = 500; 1003>>2 = 250; 1007>>3 = 125; 1015>>4 = 63
    CHECK(loads_of(t.recs[0].after) == L5{1000, 500, 250, 125, 63});
    CHECK(t.recs[0].after.last_load_update_tick == 1u);
    CHECK(t.recs[0].after.cfs.runnable_load_avg == 1000u);
    // 2. tick load 1000 at jiffies 2:
    //    (500 + 1001) = 1501>>1 = 750; (250*3 + 1003) = 1753>>2 = 438;
    //    (125*7 + 1007) = 1882>>3 = 235; (63*15 + 1015) = 1960>>4 = 122
    CHECK(loads_of(t.recs[1].after) == L5{1000, 750, 438, 235, 122});
    CHECK(t.recs[1].after.last_load_update_tick == 2u);
    // 3. dequeue everything: history unchanged
    CHECK(loads_of(t.recs[2].after) == L5{1000, 750, 438, 235, 122});
    CHECK(t.recs[2].after.cfs.runnable_load_avg == 0u);
    CHECK(t.recs[2].after.cfs.h_nr_running == 0u);
    // 4. idle update at jiffies 5: pending 3, 2 missed ticks (bit 1), sample 0
    //    [1] 750>>2 = 187;            187>>1 = 93
    //    [2] 438*72 = 31536>>7 = 246;  246*3 = 738>>2 = 184
    //    [3] 235*98 = 23030>>7 = 179;  179*7 = 1253>>3 = 156
    //    [4] 122*112 = 13664>>7 = 106; 106*15 = 1590>>4 = 99
    CHECK(loads_of(t.recs[3].after) == L5{0, 93, 184, 156, 99});
    CHECK(t.recs[3].after.last_load_update_tick == 5u);
    // 5. decay(1000, 3, idx 2) = 1000*96>>7 = 750; 750*72>>7 = 421; state unchanged
    CHECK(t.recs[4].out0 == 421u);
    CHECK(loads_of(t.recs[4].after) == L5{0, 93, 184, 156, 99});
    // 6. balance, type 3 (cpu_load[2] = 184), total 0, LB_BIAS on:
    //    source min(184, 0) = 0; target max(184, 0) = 184
    CHECK(t.recs[5].out0 == 0u);
    CHECK(t.recs[5].out1 == 184u);

    // the run-time dispatch gives the same trace
    const auto t2 = cl::simulate<A>(patch_level::v3_13, s);
    REQUIRE(t2.recs.size() == 6);
    CHECK(loads_of(t2.recs[3].after) == L5{0, 93, 184, 156, 99});
    CHECK(t2.recs[4].out0 == 421u);
}

TEST_CASE("cpuload ref: simulate the same ticks at shi-1-5", "[ref_cpuload][scenario]") {
    using A = sc::ilp32;
    using cl::op;
    cl::scenario<A> s{};
    s.kn.lb_bias = false;
    s.kn.imbalance_pct = 125;
    s.steps = {
        {op::tick, 1000, 1, 0, 0},
        {op::set_load, 800, 0, 2, 0},
        {op::nohz_exit, 4, 0, 0, 0},
        {op::balance, 0, 0, 0, 0},
    };
    const auto t = cl::simulate<A>(patch_level::shi_1_5, s);
    REQUIRE(t.recs.size() == 4);
    CHECK(loads_of(t.recs[0].after) == L5{1000, 0, 0, 0, 0}); // only the sample
    // nohz exit with 2 runnable tasks keeps the load: cpu_load = 800
    CHECK(t.recs[2].after.cpu_load[0] == 800u);
    CHECK(t.recs[2].after.last_load_update_tick == 4u);
    // LB_BIAS off: source = total = 800; target = 800*125/100 = 1000
    CHECK(t.recs[3].out0 == 800u);
    CHECK(t.recs[3].out1 == 1000u);
}

TEST_CASE("cpuload ref: simulate rejects a decay step from shi-1-3 on",
          "[ref_cpuload][scenario]") {
    using A = sc::lp64;
    cl::scenario<A> s{};
    s.steps = {{cl::op::decay, 1000, 3, 0, 2}};
    CHECK_THROWS_AS((cl::simulate<A, patch_level::shi_1_3>(s)), cl::unsupported_step);
    CHECK_THROWS_AS((cl::simulate<A, patch_level::shi_1_4>(s)), cl::unsupported_step);
    CHECK_THROWS_AS(cl::simulate<A>(patch_level::shi_1_5, s), cl::unsupported_step);
    // still there at shi-1: 421 as above
    const auto t = cl::simulate<A>(patch_level::shi_1, s);
    REQUIRE(t.recs.size() == 1);
    CHECK(t.recs[0].out0 == 421u);
}

// ---------------------------------------------------------------------------
// ref/checked.h
// ---------------------------------------------------------------------------

TEST_CASE("cpuload ref: Checked<32> multiplication logs wrap-around", "[ref_cpuload][checked]") {
    sc::wrap_log().clear();
    // 65535 * 65537 = 2^32 - 1 = 4294967295: fits, nothing logged
    sc::Checked<32> a(65535u), b(65537u);
    auto p = a * b;
    CHECK(p.value() == 4294967295u);
    CHECK(sc::wrap_log().empty());
    // 65536 * 65536 = 2^32: wraps to 0, one event
    sc::Checked<32> c(65536u);
    auto q = c * c;
    CHECK(q.value() == 0u);
    REQUIRE(sc::wrap_log().size() == 1);
    CHECK(sc::wrap_log()[0].what.find("multiplication") != std::string::npos);
    // the same product on 64 bits does not wrap
    sc::wrap_log().clear();
    sc::Checked<64> d(65536u);
    CHECK((d * d).value() == 4294967296u);
    CHECK(sc::wrap_log().empty());
}

TEST_CASE("cpuload ref: __update_cpu_load wraps on checked_ilp32, not on checked_lp64",
          "[ref_cpuload][checked]") {
    // cpu_load[4] = 300000000, sample 0, pending 1:
    //   [4] = 300000000*15 = 4500000000 > 2^32 = 4294967296
    //   ilp32: 4500000000 - 4294967296 = 205032704; >> 4 = 12814544
    //   lp64 : 4500000000 >> 4 = 281250000
    // slots 1..3 hold 0 and stay 0; nothing else can wrap (pending-1 = 0).
    sc::wrap_log().clear();
    cl::rq<sc::checked_ilp32> r32{};
    r32.cpu_load[4] = 300000000u;
    cl::__update_cpu_load<sc::checked_ilp32, patch_level::v3_13>(r32, 0u, 1u);
    CHECK(r32.cpu_load[4].value() == 12814544u);
    REQUIRE(sc::wrap_log().size() == 1);
    CHECK(sc::wrap_log()[0].what.find("multiplication") != std::string::npos);

    sc::wrap_log().clear();
    cl::rq<sc::checked_lp64> r64{};
    r64.cpu_load[4] = 300000000u;
    cl::__update_cpu_load<sc::checked_lp64, patch_level::v3_13>(r64, 0u, 1u);
    CHECK(r64.cpu_load[4].value() == 281250000u);
    CHECK(sc::wrap_log().empty());

    // the plain ilp32 instantiation wraps to the same value, silently
    auto p32 = make_rq<sc::ilp32>({0, 0, 0, 0, 300000000});
    cl::__update_cpu_load<sc::ilp32, patch_level::v3_13>(p32, 0, 1);
    CHECK(p32.cpu_load[4] == 12814544u);
}

TEST_CASE("cpuload ref: wake and fork/exec load indexes, and their removal by patch 2/4", "[ref][cpuload]") {
    using sc::cpuload::idlest_group_load_idx;
    using sc::cpuload::wake_affine_load_idx;
    // Distinct values so each field is told apart.
    const sc::cpuload::sd_load_idx sd{2, 1, 3, 4, 5};
    CHECK(wake_affine_load_idx<patch_level::v3_13>(sd) == 4);
    CHECK(idlest_group_load_idx<patch_level::v3_13>(sd, false) == 5); // fork/exec
    CHECK(idlest_group_load_idx<patch_level::v3_13>(sd, true) == 4);  // SD_BALANCE_WAKE
    // Patch 1/4 only changes the periodic balance index; these stay.
    CHECK(wake_affine_load_idx<patch_level::shi_1>(sd) == 4);
    CHECK(idlest_group_load_idx<patch_level::shi_1>(sd, false) == 5);
    // From patch 2/4 on there is no index to choose.
    CHECK(wake_affine_load_idx<patch_level::shi_1_3>(sd) == 0);
    CHECK(idlest_group_load_idx<patch_level::shi_1_5>(sd, true) == 0);
}
