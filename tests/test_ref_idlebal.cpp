// Unit tests of the idle-balance reference (ref/idle_balance.h): the
// avg_idle average, its cap, the per-domain newidle cost, its decay, and the
// skip tests, for the six variants on both data models.
//
// Expected values are worked out by hand from the kernel's formulas:
//   update_avg      avg' = avg + d, d = (sample - avg) >> 3  (<= v3.13: floor)
//                                   d = (sample - avg) / 8   (6.x: towards 0)
//   wake-up cap     v3.11 .. low-1-2: 2 * sysctl (an unsigned int product)
//                   low-1-3, 6.x:     2 * rq->max_idle_balance_cost (u64)
//   decay           cost' = cost * 253 / 256, once jiffies is after
//                   next_decay (low-1-3) or last_decay + HZ (6.x)
//   newidle walk    stop when avg_idle < curr_cost + sd->max_newidle_lb_cost
// with the default sysctl_sched_migration_cost = 500000 ns (cap 1000000)
// and HZ = 250.  The arithmetic is written next to each check; none of the
// values was taken from the output of the code under test.
#include <catch2/catch.hpp>

#include "model/explorer.h"
#include "model/sym.h"
#include "ref/idle_balance.h"
#include "ref/kernel.h"
#include "ref/variants.h"

#include <cstdint>
#include <initializer_list>
#include <stdexcept>
#include <string>
#include <type_traits>

namespace {

namespace ib = sc::idlebal;
using V = ib::version;
using LO = ib::level_outcome;

template <class A> ib::knobs<A> K(std::uint32_t sysctl = 500000, bool ni_random = false) {
    ib::knobs<A> k;
    k.sysctl_sched_migration_cost = sysctl;
    k.HZ = 250;
    k.NI_RANDOM = ni_random;
    return k;
}

template <V v, class A> std::uint64_t avg(std::uint64_t a, std::uint64_t sample) {
    typename A::u64 x = a;
    ib::update_avg<v, A>(x, sample);
    return x;
}

// A runqueue as sched_init() leaves it, then with avg_idle and an idle
// stamp set by hand.
template <V v, class A>
ib::rq<A> mk_rq(int nr_domains, std::uint64_t avg_idle, std::uint64_t idle_stamp = 0,
                std::uint32_t sysctl = 500000) {
    ib::rq<A> r = ib::fresh_rq<v, A>(nr_domains, 0, K<A>(sysctl));
    r.avg_idle = avg_idle;
    r.idle_stamp = idle_stamp;
    return r;
}

// The avg_idle after one wake-up delta ns after the CPU went idle.
template <V v, class A>
std::uint64_t wake(ib::rq<A> &r, std::uint64_t delta, std::uint32_t sysctl = 500000) {
    ib::update_rq_avg_idle<v, A>(r, r.idle_stamp + delta, 0, K<A>(sysctl));
    return r.avg_idle;
}

template <class A> ib::newidle_env<A> ni_env(std::uint64_t now, std::initializer_list<std::uint64_t> costs) {
    ib::newidle_env<A> e;
    e.now = now;
    int i = 0;
    for (std::uint64_t c : costs)
        e.lb_cost[i++] = c;
    return e;
}

} // namespace

static_assert(ib::update_avg_shifts<V::v3_11> && ib::update_avg_shifts<V::low_1_3>);
static_assert(!ib::update_avg_shifts<V::v6_1> && !ib::update_avg_shifts<V::v6_12>);
static_assert(!ib::caps_after_average<V::v3_11> && ib::caps_after_average<V::low_1>);
static_assert(!ib::has_max_newidle_lb_cost<V::low_1> && ib::has_max_newidle_lb_cost<V::low_1_2>);
static_assert(!ib::has_decay<V::low_1_2> && ib::has_decay<V::low_1_3> && ib::has_decay<V::v6_12>);

TEST_CASE("idlebal: version names and the registry", "[idlebal]") {
    CHECK(std::string(ib::version_name(V::v3_11)) == "v3.11");
    CHECK(std::string(ib::version_name(V::low_1_2)) == "low-1-2");
    CHECK(std::string(ib::version_name(V::v6_12)) == "v6.12");
    const char *ids[] = {"idlebal/v3.11", "idlebal/low-1", "idlebal/low-1-2",
                         "idlebal/low-1-3", "idlebal/v6.1", "idlebal/v6.12"};
    int code = 0;
    for (const char *id : ids) {
        INFO(id);
        const sc::Variant *v = sc::find_variant(id);
        REQUIRE(v != nullptr);
        CHECK(v->family == "idlebal");
        CHECK(v->code == code);
        CHECK(std::string("idlebal/") + ib::version_name(static_cast<V>(v->code)) == id);
        ++code;
    }
}

TEMPLATE_TEST_CASE("idlebal: update_avg rounds a negative step down (>> 3) or towards 0 (/ 8)", "[idlebal]",
                   sc::ilp32, sc::lp64) {
    using A = TestType;
    // Rising: d = (1000 - 0) / 8 = 125 either way; (7 - 0) / 8 = 0 either way.
    CHECK(avg<V::v3_11, A>(0, 1000) == 125);
    CHECK(avg<V::v6_12, A>(0, 1000) == 125);
    CHECK(avg<V::v3_11, A>(0, 7) == 0);
    CHECK(avg<V::v6_1, A>(0, 7) == 0);
    // Falling by 1: -1 >> 3 = -1 (floor), -1 / 8 = 0 (truncation).
    CHECK(avg<V::v3_11, A>(100, 99) == 99);
    CHECK(avg<V::low_1_3, A>(100, 99) == 99);
    CHECK(avg<V::v6_1, A>(100, 99) == 100);
    // diff = 5 - 1000 = -995: floor(-124.375) = -125 -> 875; trunc = -124 -> 876.
    CHECK(avg<V::low_1, A>(1000, 5) == 875);
    CHECK(avg<V::v6_12, A>(1000, 5) == 876);
    // diff = -20: floor(-2.5) = -3 -> 17; trunc -2 -> 18.
    CHECK(avg<V::low_1_2, A>(20, 0) == 17);
    CHECK(avg<V::v6_1, A>(20, 0) == 18);
    // An exact multiple of 8 agrees: -1000 / 8 = -1000 >> 3 = -125.
    CHECK(avg<V::v3_11, A>(1000, 0) == 875);
    CHECK(avg<V::v6_12, A>(1000, 0) == 875);
    // A "sample" just below 2^64 (a clock read behind the stamp) is a
    // negative difference: 2^64 - 8 - 16 = -24 as s64; -24 >> 3 = -24 / 8 = -3.
    CHECK(avg<V::v3_11, A>(16, UINT64_MAX - 7) == 13);
    CHECK(avg<V::v6_12, A>(16, UINT64_MAX - 7) == 13);
}

TEMPLATE_TEST_CASE("idlebal: a falling average reaches its sample only with the shift", "[idlebal]",
                   sc::ilp32, sc::lp64) {
    using A = TestType;
    // From 107 towards 100: diff = -7.  Shift: -7 >> 3 = -1 per step, so
    // 106, 105, ..., 100 after 7 steps.  Division: -7 / 8 = 0, stuck at 107.
    std::uint64_t s = 107, d = 107;
    for (int i = 0; i < 7; i++) {
        s = avg<V::low_1_3, A>(s, 100);
        d = avg<V::v6_12, A>(d, 100);
    }
    CHECK(s == 100);
    CHECK(d == 107);
    // Rising by less than 8 stays put in both: (100 - 93) / 8 = 0.
    CHECK(avg<V::v3_11, A>(93, 100) == 93);
    CHECK(avg<V::v6_1, A>(93, 100) == 93);
}

TEMPLATE_TEST_CASE("idlebal: an avg_idle sequence of zero-length idle periods", "[idlebal]", sc::ilp32,
                   sc::lp64) {
    using A = TestType;
    // From 1000000, samples of 0 (woken at the moment it went idle):
    //   1000000 - 1000000/8 = 875000;  875000 - 109375 = 765625;
    //   765625 / 8 = 95703.125: shift -95704 -> 669921, division -95703 -> 669922;
    //   shift:    669921 / 8 = 83740.125 -> -83741 -> 586180
    //   division: 669922 / 8 = 83740.25  -> -83740 -> 586182
    const std::uint64_t shift_seq[] = {875000, 765625, 669921, 586180};
    const std::uint64_t div_seq[] = {875000, 765625, 669922, 586182};
    ib::rq<A> a = mk_rq<V::low_1_3, A>(1, 1000000);
    ib::rq<A> b = mk_rq<V::v6_12, A>(1, 1000000);
    for (int i = 0; i < 4; i++) {
        INFO("step " << i);
        a.idle_stamp = b.idle_stamp = 5000;
        CHECK(wake<V::low_1_3, A>(a, 0) == shift_seq[i]);
        CHECK(wake<V::v6_12, A>(b, 0) == div_seq[i]);
        CHECK(a.idle_stamp == 0);
        CHECK(b.idle_stamp == 0);
    }
}

TEMPLATE_TEST_CASE("idlebal: patch 1 averages before capping (v3.11 jumps to the cap)", "[idlebal]",
                   sc::ilp32, sc::lp64) {
    using A = TestType;
    // Cap 2 * 500000 = 1000000.
    SECTION("a long sample: v3.11 throws the history away") {
        // avg 400000, sample 5000000 > cap: v3.11 -> 1000000.
        // low-1: 400000 + (5000000 - 400000) / 8 = 400000 + 575000 = 975000 <= cap.
        ib::rq<A> a = mk_rq<V::v3_11, A>(1, 400000, 10000000);
        ib::rq<A> b = mk_rq<V::low_1, A>(1, 400000, 10000000);
        CHECK(wake<V::v3_11, A>(a, 5000000) == 1000000);
        CHECK(wake<V::low_1, A>(b, 5000000) == 975000);
    }
    SECTION("the average itself is capped") {
        // avg 900000, sample 2000000: 900000 + 1100000/8 = 1037500 -> 1000000.
        ib::rq<A> b = mk_rq<V::low_1, A>(1, 900000, 10000000);
        CHECK(wake<V::low_1, A>(b, 2000000) == 1000000);
        ib::rq<A> a = mk_rq<V::v3_11, A>(1, 900000, 10000000);
        CHECK(wake<V::v3_11, A>(a, 2000000) == 1000000);
    }
    SECTION("a short sample is averaged by both") {
        // 1000000 + (200000 - 1000000) / 8 = 1000000 - 100000 = 900000.
        ib::rq<A> a = mk_rq<V::v3_11, A>(1, 1000000, 10000000);
        ib::rq<A> b = mk_rq<V::low_1, A>(1, 1000000, 10000000);
        CHECK(wake<V::v3_11, A>(a, 200000) == 900000);
        CHECK(wake<V::low_1, A>(b, 200000) == 900000);
    }
    SECTION("no idle stamp, no sample") {
        ib::rq<A> a = mk_rq<V::low_1, A>(1, 123456, 0);
        ib::update_rq_avg_idle<V::low_1, A>(a, 99999999, 0, K<A>());
        CHECK(a.avg_idle == 123456);
    }
}

TEMPLATE_TEST_CASE("idlebal: 2 * sysctl is a 32-bit product; 2 * max_idle_balance_cost is not", "[idlebal]",
                   sc::ilp32, sc::lp64) {
    using A = TestType;
    // sysctl = 2^31 + 5: 2 * sysctl = 2^32 + 10, which wraps to 10 as an
    // unsigned int.  sched_init() sets avg_idle to it in every release.
    const std::uint32_t big = 0x80000005u;
    ib::rq<A> a = ib::fresh_rq<V::v3_11, A>(1, 0, K<A>(big));
    ib::rq<A> c = ib::fresh_rq<V::low_1_3, A>(1, 0, K<A>(big));
    ib::rq<A> d = ib::fresh_rq<V::v6_12, A>(1, 0, K<A>(big));
    CHECK(a.avg_idle == 10);
    CHECK(c.avg_idle == 10);
    CHECK(d.avg_idle == 10);
    CHECK(c.max_idle_balance_cost == 0x80000005u);
    // A 1000 ns idle period: v3.11 caps at the wrapped 10 (1000 > 10 -> 10);
    // low-1 averages to 10 + 990/8 = 133, then caps at 10.
    a.idle_stamp = 1000;
    CHECK(wake<V::v3_11, A>(a, 1000, big) == 10);
    ib::rq<A> b = ib::fresh_rq<V::low_1, A>(1, 0, K<A>(big));
    b.idle_stamp = 1000;
    CHECK(wake<V::low_1, A>(b, 1000, big) == 10);
    // low-1-3 and 6.x cap at 2 * (2^31 + 5) = 4294967306 in u64: 133 stays.
    c.idle_stamp = d.idle_stamp = 1000;
    CHECK(wake<V::low_1_3, A>(c, 1000, big) == 133);
    CHECK(wake<V::v6_12, A>(d, 1000, big) == 133);
}

TEMPLATE_TEST_CASE("idlebal: the cap follows rq->max_idle_balance_cost from low-1-3 on", "[idlebal]",
                   sc::ilp32, sc::lp64) {
    using A = TestType;
    // max_idle_balance_cost 300000 -> cap 600000.  avg 590000, sample
    // 1000000: 590000 + 410000/8 = 590000 + 51250 = 641250 -> 600000.
    // low-1-2 still caps at 2 * sysctl = 1000000: 641250.
    ib::rq<A> a = mk_rq<V::low_1_3, A>(1, 590000, 1);
    a.max_idle_balance_cost = 300000;
    CHECK(wake<V::low_1_3, A>(a, 1000000) == 600000);
    ib::rq<A> b = mk_rq<V::low_1_2, A>(1, 590000, 1);
    CHECK(wake<V::low_1_2, A>(b, 1000000) == 641250);
    ib::rq<A> c = mk_rq<V::v6_1, A>(1, 590000, 1);
    c.max_idle_balance_cost = 300000;
    CHECK(wake<V::v6_1, A>(c, 1000000) == 600000);
}

TEMPLATE_TEST_CASE("idlebal: 6.1 keeps wake_avg_idle, 6.12 does not", "[idlebal]", sc::ilp32, sc::lp64) {
    using A = TestType;
    // sched_init: wake_avg_idle = avg_idle = 1000000, wake_stamp = jiffies.
    ib::rq<A> a = ib::fresh_rq<V::v6_1, A>(1, 77, K<A>());
    CHECK(a.wake_avg_idle == 1000000);
    CHECK(a.wake_stamp == 77);
    // Wake after 200000: avg 900000 (as above), wake_avg_idle = 450000.
    a.idle_stamp = 1000;
    ib::update_rq_avg_idle<V::v6_1, A>(a, 201000, 88, K<A>());
    CHECK(a.avg_idle == 900000);
    CHECK(a.wake_avg_idle == 450000);
    CHECK(a.wake_stamp == 88);
    ib::rq<A> b = ib::fresh_rq<V::v6_12, A>(1, 77, K<A>());
    b.idle_stamp = 1000;
    ib::update_rq_avg_idle<V::v6_12, A>(b, 201000, 88, K<A>());
    CHECK(b.avg_idle == 900000);
    CHECK(b.wake_avg_idle == 0);
}

TEMPLATE_TEST_CASE("idlebal: the newidle domain walk", "[idlebal]", sc::ilp32, sc::lp64) {
    using A = TestType;
    // avg_idle 600000 >= sysctl 500000: no early skip before 6.x.
    // Domain costs {100000, 450000, 300000}; load_balance() costs
    // {150000, 200000, 50000}; nothing is pulled.
    auto setup = [](ib::rq<A> &r) {
        r.sd[0].max_newidle_lb_cost = 100000;
        r.sd[1].max_newidle_lb_cost = 450000;
        r.sd[2].max_newidle_lb_cost = 300000;
    };
    ib::newidle_env<A> e = ni_env<A>(7000, {150000, 200000, 50000});

    SECTION("v3.11 and low-1 balance every domain and measure nothing") {
        ib::rq<A> r = mk_rq<V::v3_11, A>(3, 600000);
        setup(r);
        ib::newidle_result<A> res = ib::idle_balance<V::v3_11, A>(r, e, K<A>());
        CHECK_FALSE(res.early_skip);
        CHECK(res.level[0] == LO::balanced);
        CHECK(res.level[1] == LO::balanced);
        CHECK(res.level[2] == LO::balanced);
        CHECK(r.sd[0].max_newidle_lb_cost == 100000);
        CHECK(r.idle_stamp == 7000);
        ib::rq<A> r1 = mk_rq<V::low_1, A>(3, 600000);
        CHECK(ib::idle_balance<V::low_1, A>(r1, e, K<A>()).level[2] == LO::balanced);
    }
    SECTION("low-1-2 stops when avg_idle < curr_cost + sd cost") {
        // L0: 600000 < 0 + 100000? no -> balance, cost 150000 > 100000 -> max 150000; curr 150000.
        // L1: 600000 < 150000 + 450000 = 600000? no (equal) -> balance, 200000 < 450000; curr 350000.
        // L2: 600000 < 350000 + 300000 = 650000 -> stop.
        ib::rq<A> r = mk_rq<V::low_1_2, A>(3, 600000);
        setup(r);
        ib::newidle_result<A> res = ib::idle_balance<V::low_1_2, A>(r, e, K<A>());
        CHECK(res.level[0] == LO::balanced);
        CHECK(res.level[1] == LO::balanced);
        CHECK(res.level[2] == LO::cost_break);
        CHECK(res.curr_cost == 350000);
        CHECK(r.sd[0].max_newidle_lb_cost == 150000);
        CHECK(r.sd[1].max_newidle_lb_cost == 450000);
        CHECK(r.sd[2].max_newidle_lb_cost == 300000);
        CHECK(res.pulled_task == 0);
        CHECK(r.idle_stamp == 7000);
    }
    SECTION("low-1-3 raises max_idle_balance_cost to a longer pass") {
        // Same walk: 350000 < 500000 (the sysctl it started from): unchanged.
        ib::rq<A> r = mk_rq<V::low_1_3, A>(3, 600000);
        setup(r);
        ib::idle_balance<V::low_1_3, A>(r, e, K<A>());
        CHECK(r.max_idle_balance_cost == 500000);
        // L0 costing 550000: max 550000, curr 550000; L1: 600000 < 550000 + 450000: stop.
        // 550000 > 500000 -> max_idle_balance_cost 550000; the cap becomes 1100000.
        ib::rq<A> q = mk_rq<V::low_1_3, A>(3, 600000);
        setup(q);
        ib::newidle_result<A> res = ib::idle_balance<V::low_1_3, A>(q, ni_env<A>(7000, {550000, 1, 1}), K<A>());
        CHECK(res.level[1] == LO::cost_break);
        CHECK(q.max_idle_balance_cost == 550000);
        // 600000 + (2000000 - 600000) / 8 = 775000 <= 1100000.
        CHECK(wake<V::low_1_3, A>(q, 2000000) == 775000);
    }
    SECTION("6.x charges update_blocked_averages() to the first domain") {
        // blocked 25000: L0 cost 25000 + 150000 = 175000 -> max 175000, curr 175000.
        // L1: 600000 < 175000 + 450000 = 625000 -> stop.
        ib::rq<A> r = mk_rq<V::v6_12, A>(3, 600000);
        setup(r);
        e.blocked_cost = 25000;
        ib::newidle_result<A> res = ib::idle_balance<V::v6_12, A>(r, e, K<A>());
        CHECK_FALSE(res.early_skip);
        CHECK(res.level[0] == LO::balanced);
        CHECK(res.level[1] == LO::cost_break);
        CHECK(res.curr_cost == 175000);
        CHECK(r.sd[0].max_newidle_lb_cost == 175000);
        CHECK(r.max_idle_balance_cost == 500000);
    }
}

TEMPLATE_TEST_CASE("idlebal: the early skips", "[idlebal]", sc::ilp32, sc::lp64) {
    using A = TestType;
    ib::newidle_env<A> e = ni_env<A>(4242, {1, 1});
    SECTION("v3.x: avg_idle below the sysctl") {
        ib::rq<A> r = mk_rq<V::low_1_3, A>(2, 499999);
        ib::newidle_result<A> res = ib::idle_balance<V::low_1_3, A>(r, e, K<A>());
        CHECK(res.early_skip);
        CHECK(res.level[0] == LO::not_visited);
        // The CPU still goes idle: the stamp is set.
        CHECK(r.idle_stamp == 4242);
        ib::rq<A> q = mk_rq<V::v3_11, A>(2, 500000); // equal: not below
        CHECK_FALSE(ib::idle_balance<V::v3_11, A>(q, e, K<A>()).early_skip);
    }
    SECTION("6.x: the lowest domain's cost, not the sysctl") {
        ib::rq<A> r = mk_rq<V::v6_1, A>(2, 499999);
        r.sd[0].max_newidle_lb_cost = 100000;
        CHECK_FALSE(ib::idle_balance<V::v6_1, A>(r, e, K<A>()).early_skip);
        ib::rq<A> q = mk_rq<V::v6_1, A>(2, 99999);
        q.sd[0].max_newidle_lb_cost = 100000;
        ib::newidle_result<A> res = ib::idle_balance<V::v6_1, A>(q, e, K<A>());
        CHECK(res.early_skip);
        CHECK(q.idle_stamp == 4242);
    }
    SECTION("6.x: no overloaded CPU") {
        ib::rq<A> r = mk_rq<V::v6_12, A>(2, 9999999);
        e.overload = false;
        CHECK(ib::idle_balance<V::v6_12, A>(r, e, K<A>()).early_skip);
    }
}

TEMPLATE_TEST_CASE("idlebal: a pulled task clears the idle stamp", "[idlebal]", sc::ilp32, sc::lp64) {
    using A = TestType;
    ib::newidle_env<A> e = ni_env<A>(1000, {1000, 1000});
    e.pulled_at = 0;
    ib::rq<A> r = mk_rq<V::low_1_3, A>(2, 900000);
    ib::newidle_result<A> res = ib::idle_balance<V::low_1_3, A>(r, e, K<A>());
    CHECK(res.pulled_task == 1);
    CHECK(res.level[1] == LO::not_visited);
    CHECK(r.idle_stamp == 0);
    // So the next wake-up takes no sample.
    ib::update_rq_avg_idle<V::low_1_3, A>(r, 5000000, 0, K<A>());
    CHECK(r.avg_idle == 900000);
    // 6.x: a task enqueued meanwhile counts as pulled.
    ib::rq<A> q = mk_rq<V::v6_12, A>(2, 900000);
    ib::newidle_env<A> f = ni_env<A>(1000, {1000, 1000});
    f.enqueued = true;
    CHECK(ib::idle_balance<V::v6_12, A>(q, f, K<A>()).pulled_task == 1);
    CHECK(q.idle_stamp == 0);
    // 6.12: a cleared continue_balancing after L0 ends the walk there.
    ib::rq<A> s = mk_rq<V::v6_12, A>(2, 900000);
    ib::newidle_env<A> g = ni_env<A>(1000, {1000, 1000});
    g.stop_after = 0;
    ib::newidle_result<A> rs = ib::idle_balance<V::v6_12, A>(s, g, K<A>());
    CHECK(rs.level[0] == LO::balanced);
    CHECK(rs.level[1] == LO::not_visited);
    CHECK(rs.pulled_task == 0);
    CHECK(s.idle_stamp == 1000);
}

TEMPLATE_TEST_CASE("idlebal: low-1-3 decays every domain by 253/256 once a second", "[idlebal]", sc::ilp32,
                   sc::lp64) {
    using A = TestType;
    // Domains initialised at jiffies 1000: next_decay_max_lb_cost = 1000.
    ib::rq<A> r = ib::fresh_rq<V::low_1_3, A>(2, 1000, K<A>());
    r.sd[0].max_newidle_lb_cost = 1000000;
    r.sd[1].max_newidle_lb_cost = 200000;
    ib::rebalance_env<A> env;
    env.jiffies = 1000; // not after 1000: nothing
    ib::rebalance_domains<V::low_1_3, A>(r, env, K<A>());
    CHECK(r.sd[0].max_newidle_lb_cost == 1000000);
    CHECK(r.max_idle_balance_cost == 500000);
    env.jiffies = 1001;
    // 1000000 * 253 / 256 = 253000000 / 256 = 988281.25 -> 988281
    // 200000 * 253 / 256 = 50600000 / 256 = 197656.25 -> 197656
    // next decay at 1001 + HZ = 1251; rq cost max(500000, 988281 + 197656 = 1185937).
    ib::rebalance_domains<V::low_1_3, A>(r, env, K<A>());
    CHECK(r.sd[0].max_newidle_lb_cost == 988281);
    CHECK(r.sd[1].max_newidle_lb_cost == 197656);
    CHECK(r.sd[0].next_decay_max_lb_cost == 1251);
    CHECK(r.max_idle_balance_cost == 1185937);
    env.jiffies = 1251;
    ib::rebalance_domains<V::low_1_3, A>(r, env, K<A>());
    CHECK(r.sd[0].max_newidle_lb_cost == 988281);
    // Further decays of 1000000: 988281*253/256 = 976699, then 965253,
    // 953941, 942762 (each floor(x * 253 / 256)); they come HZ + 1 jiffies apart.
    const std::uint64_t seq[] = {976699, 965253, 953941, 942762};
    for (std::uint64_t want : seq) {
        env.jiffies += 1;
        ib::rebalance_domains<V::low_1_3, A>(r, env, K<A>());
        CHECK(r.sd[0].max_newidle_lb_cost == want);
        env.jiffies += 250;
    }
}

TEMPLATE_TEST_CASE("idlebal: 6.x update_newidle_cost restarts the decay clock on a new maximum", "[idlebal]",
                   sc::ilp32, sc::lp64) {
    using A = TestType;
    ib::sched_domain<A> sd;
    sd.max_newidle_lb_cost = 100000;
    sd.last_decay_max_lb_cost = 1000;
    sd.newidle_call = 512;
    sd.newidle_success = 256;
    // A longer balance: new max, clock restarted at 5000, no decay.
    CHECK_FALSE(ib::update_newidle_cost<V::v6_12, A>(sd, 200000, 0, 5000, K<A>()));
    CHECK(sd.max_newidle_lb_cost == 200000);
    CHECK(sd.last_decay_max_lb_cost == 5000);
    CHECK(sd.newidle_call == 513); // a balance with a cost counts as a call
    // Periodic visits: 5250 is not after 5000 + 250; 5251 is.
    CHECK_FALSE(ib::update_newidle_cost<V::v6_12, A>(sd, 0, 0, 5250, K<A>()));
    CHECK(sd.max_newidle_lb_cost == 200000);
    CHECK(ib::update_newidle_cost<V::v6_12, A>(sd, 0, 0, 5251, K<A>()));
    CHECK(sd.max_newidle_lb_cost == 197656); // 200000 * 253 / 256 = 197656.25
    CHECK(sd.newidle_call == 513);           // cost 0: not a call
    // A cheaper newidle balance after more than HZ also decays:
    // 150000 <= 197656; 5502 after 5251 + 250 = 5501 -> 197656*253/256 = 195339.7 -> 195339.
    CHECK(ib::update_newidle_cost<V::v6_12, A>(sd, 150000, 0, 5502, K<A>()));
    CHECK(sd.max_newidle_lb_cost == 195339);
}

TEMPLATE_TEST_CASE("idlebal: need_decay is sticky in low-1-3, last-domain-only in 6.x", "[idlebal]",
                   sc::ilp32, sc::lp64) {
    using A = TestType;
    ib::rebalance_env<A> env;
    env.jiffies = 1000;
    SECTION("low-1-3") {
        // sd0 due (next 900), sd1 not (next 2000).  sd0: 1000000 -> 988281;
        // need_decay stays set, so max_idle_balance_cost = 988281 + 300000 = 1288281.
        ib::rq<A> r = ib::fresh_rq<V::low_1_3, A>(2, 0, K<A>());
        r.sd[0].max_newidle_lb_cost = 1000000;
        r.sd[0].next_decay_max_lb_cost = 900;
        r.sd[1].max_newidle_lb_cost = 300000;
        r.sd[1].next_decay_max_lb_cost = 2000;
        ib::rebalance_domains<V::low_1_3, A>(r, env, K<A>());
        CHECK(r.sd[0].max_newidle_lb_cost == 988281);
        CHECK(r.sd[1].max_newidle_lb_cost == 300000);
        CHECK(r.max_idle_balance_cost == 1288281);
    }
    SECTION("6.12, the lower domain decays") {
        // sd0: last 600 (600 + 250 = 850 < 1000: due), sd1: last 1900 (not due).
        // The pass ends on sd1, which did not decay: the rq cost stays 500000.
        ib::rq<A> r = ib::fresh_rq<V::v6_12, A>(2, 0, K<A>());
        r.sd[0].max_newidle_lb_cost = 1000000;
        r.sd[0].last_decay_max_lb_cost = 600;
        r.sd[1].max_newidle_lb_cost = 300000;
        r.sd[1].last_decay_max_lb_cost = 1900;
        ib::rebalance_domains<V::v6_12, A>(r, env, K<A>());
        CHECK(r.sd[0].max_newidle_lb_cost == 988281);
        CHECK(r.sd[0].last_decay_max_lb_cost == 1000);
        CHECK(r.max_idle_balance_cost == 500000);
    }
    SECTION("6.1, the upper domain decays") {
        // sd1 due: 300000 * 253 / 256 = 296484.375 -> 296484; sum 1000000 + 296484.
        ib::rq<A> r = ib::fresh_rq<V::v6_1, A>(2, 0, K<A>());
        r.sd[0].max_newidle_lb_cost = 1000000;
        r.sd[0].last_decay_max_lb_cost = 1900;
        r.sd[1].max_newidle_lb_cost = 300000;
        r.sd[1].last_decay_max_lb_cost = 600;
        ib::rebalance_domains<V::v6_1, A>(r, env, K<A>());
        CHECK(r.sd[1].max_newidle_lb_cost == 296484);
        CHECK(r.max_idle_balance_cost == 1296484);
    }
    SECTION("the floor is the sysctl") {
        // One domain decaying 50000 -> 49414 (50000*253/256 = 49414.06): max(500000, 49414).
        ib::rq<A> r = ib::fresh_rq<V::v6_12, A>(1, 0, K<A>());
        r.sd[0].max_newidle_lb_cost = 50000;
        r.max_idle_balance_cost = 7777777;
        ib::rebalance_domains<V::v6_12, A>(r, env, K<A>());
        CHECK(r.sd[0].max_newidle_lb_cost == 49414);
        CHECK(r.max_idle_balance_cost == 500000);
    }
    SECTION("before low-1-3 nothing decays") {
        ib::rq<A> r = ib::fresh_rq<V::low_1_2, A>(1, 0, K<A>());
        r.sd[0].max_newidle_lb_cost = 1000000;
        env.jiffies = 999999;
        ib::rebalance_domains<V::low_1_2, A>(r, env, K<A>());
        CHECK(r.sd[0].max_newidle_lb_cost == 1000000);
    }
}

TEST_CASE("idlebal: time_after across a 32-bit jiffies wrap (ilp32) vs no wrap (lp64)", "[idlebal]") {
    // last_decay 0xffffff00 + HZ 250 = 0xfffffffa; jiffies 0x100.
    // ilp32: (long)(0xfffffffa - 0x100) = (long)0xfffffefa = -262 < 0 -> after: decay,
    //        256000 * 253 / 256 = 253000.
    // lp64:  4294967290 - 256 > 0 -> not after: no decay.
    ib::sched_domain<sc::ilp32> a;
    a.max_newidle_lb_cost = 256000;
    a.last_decay_max_lb_cost = 0xffffff00u;
    CHECK(ib::update_newidle_cost<V::v6_12, sc::ilp32>(a, 0, 0, 0x100, K<sc::ilp32>()));
    CHECK(a.max_newidle_lb_cost == 253000);
    ib::sched_domain<sc::lp64> b;
    b.max_newidle_lb_cost = 256000;
    b.last_decay_max_lb_cost = 0xffffff00u;
    CHECK_FALSE(ib::update_newidle_cost<V::v6_12, sc::lp64>(b, 0, 0, 0x100, K<sc::lp64>()));
    CHECK(b.max_newidle_lb_cost == 256000);
    CHECK(ib::time_after<sc::ilp32>(0x100u, 0xfffffffau));
    CHECK_FALSE(ib::time_after<sc::lp64>(0x100u, 0xfffffffau));
}

TEMPLATE_TEST_CASE("idlebal: 6.x NI_RANDOM dice and statistics", "[idlebal]", sc::ilp32, sc::lp64) {
    using A = TestType;
    // Fresh domains: call 512, success 256, ratio 512 -> weight 1 + 512 = 513.
    ib::rq<A> r = mk_rq<V::v6_12, A>(2, 9000000);
    ib::newidle_env<A> e = ni_env<A>(1, {5, 70000});
    e.blocked_cost = 30000;
    e.rng[0] = 1024 * 5 + 600; // d1k = 600 > 513: skip level 0
    e.rng[1] = 100;            // d1k = 100 <= 513: balance level 1
    e.pulled_at = 1;
    ib::newidle_result<A> res = ib::idle_balance<V::v6_12, A>(r, e, K<A>(500000, true));
    CHECK(res.level[0] == LO::dice_skip);
    CHECK(res.level[1] == LO::balanced);
    // Level 0 skipped: a call without success.
    CHECK(r.sd[0].newidle_call == 513);
    CHECK(r.sd[0].newidle_success == 256);
    CHECK(r.sd[0].max_newidle_lb_cost == 0);
    // Level 1: weight (1024 + 513/2) / 513 = 1280 / 513 = 2; pulled -> success 2.
    CHECK(r.sd[1].newidle_call == 513);
    CHECK(r.sd[1].newidle_success == 258);
    // No reading was taken at the skipped level: its cost is blocked + lb = 100000.
    CHECK(r.sd[1].max_newidle_lb_cost == 100000);
    CHECK(res.curr_cost == 100000);
    CHECK(res.pulled_task == 1);
    // Without the dice both levels balance: L0 30000 + 5 = 30005.
    ib::rq<A> q = mk_rq<V::v6_12, A>(2, 9000000);
    e.pulled_at = -1;
    ib::newidle_result<A> rq = ib::idle_balance<V::v6_12, A>(q, e, K<A>(500000, false));
    CHECK(rq.level[0] == LO::balanced);
    CHECK(q.sd[0].max_newidle_lb_cost == 30005);
    CHECK(q.sd[1].max_newidle_lb_cost == 70000);
    CHECK(rq.curr_cost == 100005);
    // The 1024th call halves: call 1023 -> 1024, success 700 + 3 = 703 ->
    // ratio 703, call 512, success 351.
    ib::sched_domain<A> sd;
    sd.newidle_call = 1023;
    sd.newidle_success = 700;
    ib::update_newidle_stats<V::v6_1, A>(sd, 3);
    CHECK(sd.newidle_ratio == 703);
    CHECK(sd.newidle_call == 512);
    CHECK(sd.newidle_success == 351);
}

TEMPLATE_TEST_CASE("idlebal: a 6.12 timeline", "[idlebal]", sc::ilp32, sc::lp64) {
    using A = TestType;
    // One domain, initialised at jiffies 0: avg_idle 1000000, rq cost 500000,
    // sd cost 0, last decay 0.
    ib::scenario<A> s;
    s.kn = K<A>();
    s.init = ib::fresh_rq<V::v6_12, A>(1, 0, s.kn);
    ib::step<A> st;
    // 1. Idle at 1000000 ns, jiffies 10; blocked 10000 + balance 40000 = 50000:
    //    new max 50000 (decay clock restarted at 10); pass 50000 < 500000.
    st.kind = ib::op::newidle;
    st.ni = ni_env<A>(1000000, {40000});
    st.ni.blocked_cost = 10000;
    st.ni.jiffies = 10;
    s.steps.push_back(st);
    // 2. Woken at 1300000: sample 300000; 1000000 - 700000/8 = 912500.
    st = {};
    st.kind = ib::op::wakeup;
    st.now = 1300000;
    s.steps.push_back(st);
    // 3. Periodic balance at jiffies 261 > 10 + 250: 50000 -> 49414;
    //    rq cost max(500000, 49414) = 500000.
    st = {};
    st.kind = ib::op::rebalance;
    st.jiffies = 261;
    s.steps.push_back(st);
    // 4. Woken again without going idle: nothing.
    st = {};
    st.kind = ib::op::wakeup;
    st.now = 2000000;
    s.steps.push_back(st);

    ib::trace<A> t = ib::simulate<V::v6_12, A>(s);
    REQUIRE(t.recs.size() == 4);
    CHECK(t.recs[0].after.sd[0].max_newidle_lb_cost == 50000);
    CHECK(t.recs[0].after.sd[0].last_decay_max_lb_cost == 10);
    CHECK(t.recs[0].after.idle_stamp == 1000000);
    CHECK(t.recs[0].ni.curr_cost == 50000);
    CHECK(t.recs[1].after.avg_idle == 912500);
    CHECK(t.recs[1].after.idle_stamp == 0);
    CHECK(t.recs[2].after.sd[0].max_newidle_lb_cost == 49414);
    CHECK(t.recs[2].after.max_idle_balance_cost == 500000);
    CHECK(t.recs[3].after.avg_idle == 912500);
    // The runtime dispatch runs the same code.
    ib::trace<A> u = ib::simulate<A>(V::v6_12, s);
    CHECK(u.recs[3].after.avg_idle == 912500);
    // A bad domain count is refused.
    s.init.nr_domains = ib::SD_MAX + 1;
    CHECK_THROWS_AS((ib::simulate<V::v6_12, A>(s)), std::invalid_argument);
}

TEST_CASE("idlebal: the symbolic instantiation explores the wake-up sample", "[idlebal]") {
    // Bit-vector encoding, every input free.  update_rq_avg_idle() branches
    // on idle_stamp == 0, and then on the cap (v3.11: on the sample against
    // the cap instead): 1 + 2 = 3 paths in every version; update_avg() has
    // no branch.
    namespace m = sc::model;
    z3::context ctx;
    auto run = [&](auto tag) {
        constexpr V v = decltype(tag)::value;
        m::Explorer ex(ctx, m::Encoding::bitvector, 20000);
        auto paths = ex.explore([&] {
            ib::rq<m::sym_lp64> r;
            r.avg_idle = m::Sym<64>(ctx.bv_const("avg_idle", 64));
            r.idle_stamp = m::Sym<64>(ctx.bv_const("idle_stamp", 64));
            r.max_idle_balance_cost = m::Sym<64>(ctx.bv_const("max_cost", 64));
            ib::knobs<m::sym_lp64> k;
            k.sysctl_sched_migration_cost = m::Sym<32>(ctx.bv_const("sysctl", 32));
            ib::update_rq_avg_idle<v, m::sym_lp64>(r, m::Sym<64>(ctx.bv_const("now", 64)),
                                                    m::Sym<64>(ctx.bv_val(0, 64)), k);
            return r.avg_idle;
        });
        CHECK_FALSE(ex.path_limit_hit());
        return paths.size();
    };
    CHECK(run(std::integral_constant<V, V::v3_11>{}) == 3);
    CHECK(run(std::integral_constant<V, V::low_1>{}) == 3);
    CHECK(run(std::integral_constant<V, V::low_1_3>{}) == 3);
    CHECK(run(std::integral_constant<V, V::v6_12>{}) == 3);
    // And the newidle pass and the periodic decay instantiate (lazy
    // exploration: no solver, one level each to keep it small).
    {
        m::Explorer ex(ctx, m::Encoding::bitvector, 20000);
        ex.set_lazy(true);
        auto paths = ex.explore([&] {
            ib::rq<m::sym_lp64> r;
            r.nr_domains = 1;
            r.avg_idle = m::Sym<64>(ctx.bv_const("a", 64));
            r.sd[0].max_newidle_lb_cost = m::Sym<64>(ctx.bv_const("c0", 64));
            ib::knobs<m::sym_lp64> k;
            k.NI_RANDOM = false;
            ib::newidle_env<m::sym_lp64> e;
            e.lb_cost[0] = m::Sym<64>(ctx.bv_const("l0", 64));
            return ib::idle_balance<V::v6_12, m::sym_lp64>(r, e, k).curr_cost;
        });
        CHECK_FALSE(paths.empty());
        CHECK_FALSE(ex.path_limit_hit());
    }
    {
        m::Explorer ex(ctx, m::Encoding::bitvector, 20000);
        ex.set_lazy(true);
        auto paths = ex.explore([&] {
            ib::rq<m::sym_lp64> r;
            r.nr_domains = 1;
            r.sd[0].max_newidle_lb_cost = m::Sym<64>(ctx.bv_const("c0", 64));
            r.sd[0].next_decay_max_lb_cost = m::Sym<64>(ctx.bv_const("n0", 64));
            ib::knobs<m::sym_lp64> k;
            ib::rebalance_env<m::sym_lp64> re;
            re.jiffies = m::Sym<64>(ctx.bv_const("j", 64));
            ib::rebalance_domains<V::low_1_3, m::sym_lp64>(r, re, k);
            return r.max_idle_balance_cost;
        });
        // time_after() forks, and the decaying path forks again on the max():
        // 1 + 2 = 3 paths.
        CHECK(paths.size() == 3);
    }
}
