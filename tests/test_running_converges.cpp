// pelt.running_converges: the one-update lemmas on the deficit of util_sum,
// the time bound derived from them, and v4.12's counterexample.  The
// expected values come from the closed form of the lemmas' recurrence and
// from the v4.12 formulas worked by hand below, not from the tool's output.
#include <catch2/catch.hpp>

#include <cmath>

#include "proofs/kernel/kernel_invariants.h"
#include "proofs/pelt_invariants.h"

using sc::proofs::find_invariant;
using sc::proofs::find_subject;
using sc::proofs::Verdict;
namespace running = sc::proofs::pelt_inv::running;

TEST_CASE("running_converges: the lemmas' y^k bounds the kernel's decay factor from above", "[running-converges]") {
    // y^32 = 1/2 exactly: the bound is 2^(32 - j) plus the unit added.
    for (std::uint64_t j = 0; j <= 32; ++j)
        CHECK(running::y_factor(32 * j) == (std::uint64_t(1) << (32 - j)) + 1);
    // runnable_avg_yN_inv[r] = floor((2^32 - 1) y^r): at most one below
    // 2^32 y^r, which the bound exceeds by at most one.
    for (std::uint64_t r = 0; r < 32; ++r) {
        const std::uint64_t table = sc::pelt::runnable_avg_yN_inv.v[r];
        INFO("r = " << r);
        CHECK(running::y_factor(r) > table);
        CHECK(running::y_factor(r) <= table + 2);
    }
    // And decreasing in k, as y^k is.
    for (std::uint64_t k = 1; k <= running::K_MAX; ++k)
        CHECK(running::y_factor(k) <= running::y_factor(k - 1));
}

TEST_CASE("running_converges: the time bound is the closed form of one update per period", "[running-converges]") {
    // From util_sum = 0 (deficit 47741 << 10) one update per period is the
    // slowest split: d_K = y^K d_0 + 1026 (1 - y^K) / (1 - y).  The first K
    // with d_K <= 2 * 46718 (util_avg >= 1022 whatever the divider):
    const long double y = std::exp2l(-1.0L / 32), d0 = 47741.0L * 1024, e = 1026, limit = 2 * 46718.0L;
    std::uint64_t closed = 0;
    for (long double yk = 1; yk * d0 + e * (1 - yk) / (1 - y) > limit; yk *= y)
        ++closed;
    CHECK(closed == 323);
    // The worst split over updates of 1..1024 periods, with the lemmas'
    // rounding, is the same within a period.
    const std::uint64_t K = running::periods_to_full();
    CHECK(K >= closed - 1);
    CHECK(K <= closed + 1);
    // 323 periods of 1.024 ms: 330.75 ms, rounded up.
    CHECK((K * 1024 + 999) / 1000 == 331);
    // The set the bound leads into is closed under every lemma.
    for (std::uint64_t k = 1; k <= running::K_MAX; ++k)
        CHECK(running::step_bound(running::P_FULL, k) <= running::P_FULL);
}

TEST_CASE("running_converges: one case proves the lemma of 512 periods for 512..1024", "[running-converges]") {
    // Below 512 each k has its own lemma; from 512 on the lemma of 512
    // (y^512 = 2^-16: 2^16 + 1 with the unit added), weaker than each own.
    for (std::uint64_t k = 1; k <= running::K_MAX; ++k) {
        INFO("k = " << k);
        CHECK(running::lemma_y(k) >= running::y_factor(k));
        CHECK((running::lemma_y(k) == running::y_factor(k)) == (k <= 512));
    }
    CHECK(running::lemma_y(1024) == (std::uint64_t(1) << 16) + 1);
    // Still enough: from the largest deficit, 47741 << 10 = 48886784 (a
    // zero util_sum), a step of 512 periods or more leaves at most
    // floor(48886784 * 65537 / 2^32) + 2050 = 745 + 2050, within 2 * 46718.
    CHECK(running::step_bound(47741ULL << 10, 700) == 745 + 2050);
    CHECK(745 + 2050 <= running::P_FULL);
    // The step's cases: one per k = 0..511, then one for 512..1024.
    const sc::Variant *v = find_subject("pelt/v6.1");
    REQUIRE(v != nullptr);
    std::vector<std::string> crossing;
    for (const auto &c : find_invariant("pelt.running_converges")->cases(*v, sc::Arch::lp64))
        if (c.label.find("crossed") != std::string::npos)
            crossing.push_back(c.label.substr(c.label.rfind(", ") + 2));
    REQUIRE(crossing.size() == 513);
    CHECK(crossing[0] == "no boundary crossed");
    CHECK(crossing[511] == "511 boundaries crossed");
    CHECK(crossing[512] == "512 to 1024 boundaries crossed (on bit-vectors)");
}

TEST_CASE("running_converges: v4.12 stays at util_avg 1002 when updated at period boundaries", "[running-converges]") {
    // v4.12 divides util_sum by LOAD_AVG_MAX.  Updated at every boundary
    // (period_contrib 0), an always-running task adds c1 = decay(1024, 1)
    // = 1002 and c2 = 47742 - decay(47742, 1) - 1024 = 0 per period, times
    // the CPU scale 1024, after decaying the sum by y:
    //   S' = floor(S * 0xfa83b2da / 2^32) + 1002 * 1024.
    // The sum settles just above 46718 * 1024 and util_avg at 1002.
    std::uint64_t s = 0;
    for (int n = 1; n <= 954; ++n)
        s = ((s * 0xfa83b2daULL) >> 32) + 1002 * 1024;
    CHECK(s / 47742 == 1002);

    const auto *inv = find_invariant("pelt.running_converges");
    REQUIRE(inv != nullptr);
    for (sc::Arch a : {sc::Arch::ilp32, sc::Arch::lp64}) {
        const sc::Variant *v = find_subject("pelt/v4.12");
        REQUIRE(v != nullptr);
        auto r = inv->prove(*v, a, {});
        INFO(r.reason);
        CHECK(r.verdict == Verdict::COUNTEREXAMPLE);
        REQUIRE(r.cex.has_value());
        const auto &in = r.cex->reproducer["inputs"];
        CHECK(in["first_us"] == 0);
        CHECK(in["period_us"] == 1024);
        CHECK(in["running"] == 1);
        auto rr = inv->replay(*v, a, r.cex->reproducer);
        CHECK(rr.violated);
        CHECK(rr.lhs == 1022);
        // The first update checked: at or after 1000 ms, i.e. update 954
        // (954 * 1024 * 1024 ns), with util_avg as worked out above.
        CHECK(rr.rhs == s / 47742);
        CHECK(rr.trace.find("update = 954") != std::string::npos);
        CHECK(rr.trace.find("util_sum after = " + std::to_string(s)) != std::string::npos);
    }
}

TEST_CASE("running_converges: 6.12 and its kernel prove the same bound", "[running-converges][slow]") {
    const auto *inv = find_invariant("pelt.running_converges");
    REQUIRE(inv != nullptr);
    for (const char *subject : {"pelt/v6.12", "linux-6.12"}) {
        const sc::Variant *v = find_subject(subject);
        REQUIRE(v != nullptr);
        auto r = inv->prove(*v, sc::Arch::lp64, {});
        INFO(subject << ": " << r.reason);
        CHECK(r.verdict == Verdict::PROVED);
        REQUIRE(r.bound.has_value());
        CHECK(*r.bound == (running::periods_to_full() * 1024 + 999) / 1000);
        CHECK(r.bound_kind == "ms");
    }
}
