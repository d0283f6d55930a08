// pelt.no_overflow and utilest.no_overflow: "no wrap changes a result",
// judged against the same code on every type twice as wide.  The tests
// check the yardstick itself (it sees a lost bit, it agrees where nothing
// wraps), that an intended wrap passes where a check per operation would
// flag it, and the verdicts with the wrap the arithmetic gives by hand.
#include <catch2/catch.hpp>

#include <random>

#include "proofs/engine/double_width.h"
#include "proofs/kernel/kernel_invariants.h"
#include "proofs/pelt_invariants.h"
#include "proofs/utilest_invariants.h"

using sc::proofs::find_invariant;
using sc::proofs::find_subject;
using sc::proofs::Verdict;

namespace {

template <class A> bool all_hold(const sc::proofs::KOut<A> &o) {
    for (const auto &c : o.checks)
        if (!sc::proofs::concrete_holds(c))
            return false;
    return true;
}

} // namespace

TEST_CASE("no_overflow: the yardstick sees a lost top bit and nothing else", "[no-overflow]") {
    using sc::proofs::KOut;
    // A u32 field that should hold 2^32 + 5 holds 5.
    KOut<sc::lp64> o;
    sc::proofs::same_value<sc::lp64>(o, "util_sum", std::uint32_t(5), (std::uint64_t(1) << 32) + 5);
    CHECK_FALSE(all_hold(o));
    KOut<sc::lp64> o2;
    sc::proofs::same_value<sc::lp64>(o2, "util_sum", std::uint32_t(5), std::uint64_t(5));
    CHECK(all_hold(o2));
    // A 64-bit field: the exact value is a 128-bit number.
    KOut<sc::lp64> o3;
    sc::proofs::same_value<sc::lp64>(o3, "load_sum", std::uint64_t(7), (sc::u128(1) << 64) + 7);
    CHECK_FALSE(all_hold(o3));
    KOut<sc::lp64> o4;
    sc::proofs::same_value<sc::lp64>(o4, "load_sum", std::uint64_t(7), sc::u128(8));
    CHECK_FALSE(all_hold(o4));
}

// With no wrap anywhere, the double-width run must give the kernel width's
// values exactly: random reachable task updates, both data models.
template <class A> void widths_agree() {
    using I = sc::proofs::iface::RefPelt<sc::pelt::version::v6_1>;
    using W = sc::double_width<A>;
    std::mt19937_64 rng(12345);
    sc::pelt::sched_avg<A> sa{};
    for (int k = 0; k < 20000; ++k) {
        const std::uint64_t delta = rng() % 3 == 0 ? rng() % 5000000 : rng() % 200000;
        const bool on = rng() % 4 != 0, run = on && rng() % 2;
        const std::uint64_t w = 15 + rng() % 88747;
        sc::pelt::sched_avg<W> wa = sc::proofs::pelt_inv::NoOverflow::widen(sa);
        const auto now = sa.last_update_time + delta;
        const auto r = I::on<A>::update_load_avg(now, sa, on, on, run, w);
        const auto rw = I::on<W>::update_load_avg(now, wa, on, on, run, w);
        REQUIRE(std::uint64_t(r) == std::uint64_t(rw));
        REQUIRE(sa.load_sum == wa.load_sum);
        REQUIRE(sa.runnable_sum == wa.runnable_sum);
        REQUIRE(sa.util_sum == wa.util_sum);
        REQUIRE(sa.load_avg == wa.load_avg);
        REQUIRE(sa.util_avg == wa.util_avg);
        REQUIRE(sa.period_contrib == wa.period_contrib);
        REQUIRE(sa.last_update_time == wa.last_update_time);
    }
}

TEST_CASE("no_overflow: with nothing to wrap, both widths compute the same PELT state", "[no-overflow]") {
    widths_agree<sc::lp64>();
    widths_agree<sc::ilp32>();
}

// 6.1's util_est_update(): with FASTUP off and a sample below the EWMA,
// `ue.enqueued - ue.ewma` is a u32 subtraction below zero.  By hand: ewma
// 600, sample 400: the u32 difference is 2^32 - 200, which on lp64 the
// long last_ewma_diff holds as +4294967096; within_margin() casts it back
// to u32 (not within 10), and the store of (600 << 2) + 4294967096 into the
// u32 ewma is 2400 - 200 = 2200, >> 2 = 550 = 600 - 200 / 4.  A check per
// operation would flag the subtraction; the double-width comparison does
// not, as the result is the exact one.
TEST_CASE("utilest.no_overflow: 6.1's intended u32 wrap passes, and the EWMA is the exact one", "[no-overflow]") {
    using I = sc::proofs::iface::RefUtilEst<sc::utilest::version::v6_1>;
    const std::map<std::string, std::uint64_t> in = {{"p.util_avg", 400},
                                                     {"p.runnable_avg", 400},
                                                     {"p.util_est.ewma", 600},
                                                     {"p.util_est.enqueued", 600},
                                                     {"capacity", 1024},
                                                     {"cfs_rq.util_est", 600}};
    // kind: UTIL_EST on, FASTUP off, task_sleep on.
    sc::proofs::KCase c{"UTIL_EST on, UTIL_EST_FASTUP off, task_sleep on", -1, 1 | 4, {}};
    auto r = sc::proofs::kprop_replay<sc::proofs::utilest_inv::NoOverflow, I, sc::lp64>(c, in);
    CHECK_FALSE(r.violated);
    std::uint64_t ewma_after = 0;
    for (const auto &st : r.steps)
        for (const auto &[name, v] : st.values)
            if (name == "p.util_est.ewma after")
                ewma_after = v;
    CHECK(ewma_after == 550);

}

// pelt.no_overflow on 6.x: accumulate_sum() returns the periods crossed as
// a u32.  From the zero sched_avg at time 0, a task asleep for 2^42 units
// crosses 2^32 periods: ___update_load_sum() returns 0 at the kernel's
// width and 1 at double width (the shrunk trace: nothing needs to run
// first).
TEST_CASE("pelt.no_overflow: 2^32 periods wrap the u32 period count (hand values)", "[no-overflow]") {
    for (const char *subject : {"pelt/v6.1", "linux-6.12"}) {
        const sc::Variant *v = find_subject(subject);
        REQUIRE(v != nullptr);
        const auto *inv = find_invariant("pelt.no_overflow");
        REQUIRE(inv != nullptr);
        auto r = inv->prove(*v, sc::Arch::lp64, {});
        INFO(subject << ": " << r.reason);
        CHECK(r.verdict == Verdict::COUNTEREXAMPLE);
        CHECK(r.reason.find("reachable trace") != std::string::npos);
        REQUIRE(r.cex.has_value());
        const auto &doc = r.cex->reproducer;
        CHECK(doc["inputs"]["first_us"] == 0);
        CHECK(doc["inputs"]["period_us"] == std::uint64_t(1) << 42);
        auto rr = inv->replay(*v, sc::Arch::lp64, doc);
        CHECK(rr.violated);
        CHECK(rr.lhs == 0);
        CHECK(rr.rhs == 1);
    }
}
