// Unit tests of the entity <-> cfs_rq moves (ref/pelt_cfs.h), 6.1 and 6.12
// shapes, both data models.  Every expected value is worked out by hand next
// to its check, from:
//   PELT_MIN_DIVIDER = 47742 - 1024 = 46718, divider = 46718 + period_contrib
//   scale_load(w) = w << 10 on lp64, w on ilp32; se_weight = the nice weight
//   max_t(u32, a, b) compares (and returns) both cut to 32 bits.
#include <catch2/catch.hpp>

#include "ref/kernel.h"
#include "ref/pelt_cfs.h"

#include <cstdint>

namespace {

namespace pl = sc::pelt;
using V = pl::version;
constexpr std::uint64_t P32 = std::uint64_t(1) << 32;

template <class A> pl::sched_entity<A> task(std::uint64_t nice_weight) {
    pl::sched_entity<A> se;
    se.load_weight = pl::scale_load<A>(typename A::ulong(nice_weight));
    return se;
}

} // namespace

TEST_CASE("pelt_cfs: the clamping helpers", "[ref_pelt_cfs]") {
    std::uint32_t a = 5;
    pl::sub_positive(a, 7u); // 5 - 7 wraps above 5: clamped
    CHECK(a == 0);
    a = 5;
    pl::sub_positive(a, 3u);
    CHECK(a == 2);
    std::uint64_t b = 5;
    pl::add_positive(b, std::int64_t(-7)); // negative and wrapped above 5
    CHECK(b == 0);
    b = 5;
    pl::add_positive(b, std::int64_t(-3));
    CHECK(b == 2);
    pl::add_positive(b, std::int64_t(4));
    CHECK(b == 6);
    std::uint64_t c = 5;
    pl::lsub_positive(c, 9u);
    CHECK(c == 0);
    c = 9;
    pl::lsub_positive(c, 5u);
    CHECK(c == 4);
    // 2^32 + 5 is 5 in 32 bits, below 7.
    CHECK(pl::max_t_u32<sc::lp64>(P32 + 5, std::uint64_t(7)) == 7u);
    CHECK(pl::max_t_u32<sc::lp64>(P32 + 9, std::uint64_t(7)) == 9u);
}

TEMPLATE_TEST_CASE("pelt_cfs: scale_load per data model", "[ref_pelt_cfs]", sc::lp64, sc::ilp32) {
    using A = TestType;
    if constexpr (A::long_bits == 64) {
        CHECK(pl::scale_load<A>(1024) == 1048576u);
        CHECK(pl::scale_load_down<A>(1048576) == 1024u);
        CHECK(pl::scale_load_down<A>(1023) == 2u); // 0 after the shift, kept at 2
        CHECK(pl::scale_load_down<A>(0) == 0u);
    } else {
        CHECK(pl::scale_load<A>(1024) == 1024u);
        CHECK(pl::scale_load_down<A>(1023) == 1023u);
    }
}

TEMPLATE_TEST_CASE("pelt_cfs: attach rebuilds the sums at the runqueue's divider, detach undoes it",
                   "[ref_pelt_cfs]", sc::lp64, sc::ilp32) {
    using A = TestType;
    pl::cfs_rq<A> rq;
    rq.avg.period_contrib = 100; // divider 46818
    rq.avg.last_update_time = 5000;
    auto se = task<A>(1024);
    se.avg.load_avg = 1;
    se.avg.util_avg = 2;
    se.avg.runnable_avg = 3;
    se.avg.period_contrib = 7;
    pl::attach_entity_load_avg<V::v6_1, A>(rq, se);
    CHECK(se.avg.last_update_time == 5000u);
    CHECK(se.avg.period_contrib == 100u);
    CHECK(se.avg.util_sum == 93636u);      // 2 * 46818
    CHECK(se.avg.runnable_sum == 140454u); // 3 * 46818
    CHECK(se.avg.load_sum == 45u);         // 46818 / 1024 = 45 r 738
    CHECK(rq.avg.load_avg == 1u);
    CHECK(rq.avg.load_sum == 46080u); // 1024 * 45: below 1 * 46718, the floor
    CHECK(rq.avg.util_avg == 2u);
    CHECK(rq.avg.util_sum == 93636u);
    CHECK(rq.avg.runnable_avg == 3u);
    CHECK(rq.avg.runnable_sum == 140454u);

    pl::detach_entity_load_avg<V::v6_1, A>(rq, se);
    CHECK(rq.avg.load_avg == 0u);
    CHECK(rq.avg.load_sum == 0u);
    CHECK(rq.avg.util_avg == 0u);
    CHECK(rq.avg.util_sum == 0u);
    CHECK(rq.avg.runnable_avg == 0u);
    CHECK(rq.avg.runnable_sum == 0u);
}

TEMPLATE_TEST_CASE("pelt_cfs: an attached load_sum is never 0, even where the quotient is", "[ref_pelt_cfs]",
                   sc::lp64, sc::ilp32) {
    using A = TestType;
    pl::cfs_rq<A> rq; // divider 46718
    auto se = task<A>(88761);
    se.avg.load_avg = 1; // 46718 <= 88761: the quotient would be 0
    pl::attach_entity_load_avg<V::v6_12, A>(rq, se);
    CHECK(se.avg.load_sum == 1u);
    CHECK(rq.avg.load_avg == 1u);
    CHECK(rq.avg.load_sum == 88761u); // weight * 1
}

TEMPLATE_TEST_CASE("pelt_cfs: dequeue clamps at 0 and lifts load_sum to its floor", "[ref_pelt_cfs]", sc::lp64,
                   sc::ilp32) {
    using A = TestType;
    auto se = task<A>(1024);
    pl::cfs_rq<A> rq;
    rq.avg.load_avg = 10;
    rq.avg.load_sum = 10 * 46718 + 500; // 467680
    se.avg.load_avg = 12;
    se.avg.load_sum = 500; // weighted: 512000
    pl::dequeue_load_avg<V::v6_1, A>(rq, se);
    CHECK(rq.avg.load_avg == 0u); // 10 - 12 clamped
    CHECK(rq.avg.load_sum == 0u); // 467680 - 512000 clamped, floor 0

    rq.avg.load_avg = 20;
    rq.avg.load_sum = 20 * 46718; // 934360
    se.avg.load_sum = 600;        // weighted: 614400
    pl::dequeue_load_avg<V::v6_1, A>(rq, se);
    CHECK(rq.avg.load_avg == 8u);
    CHECK(rq.avg.load_sum == 373744u); // 934360 - 614400 = 319960 < 8 * 46718 = 373744

    pl::enqueue_load_avg<V::v6_1, A>(rq, se);
    CHECK(rq.avg.load_avg == 20u);
    CHECK(rq.avg.load_sum == 988144u); // 373744 + 614400
}

TEMPLATE_TEST_CASE("pelt_cfs: the floor's max_t(u32) cuts a 64-bit load_sum to 32 bits", "[ref_pelt_cfs]", sc::lp64,
                   sc::ilp32) {
    using A = TestType;
    auto se = task<A>(1024);
    pl::cfs_rq<A> rq;
    rq.avg.load_avg = 200000;
    rq.avg.load_sum = 9343600007ull; // 200000 * 46718 + 7, above 2^32
    se.avg.load_avg = 1000;
    se.avg.load_sum = 47000; // weighted: 48128000
    pl::dequeue_load_avg<V::v6_1, A>(rq, se);
    CHECK(rq.avg.load_avg == 199000u);
    // Exact: max(9343600007 - 48128000, 199000 * 46718) = max(9295472007,
    // 9296882000).  Cut to 32 bits: 9295472007 - 2 * 2^32 = 705537415 and
    // 9296882000 - 2 * 2^32 = 706947408 (on ilp32 the product itself is
    // already cut to that).  The larger one is stored: 2 * 2^32 are lost.
    CHECK(rq.avg.load_sum == 706947408u);
}

TEMPLATE_TEST_CASE("pelt_cfs: the removed load is folded in before the update", "[ref_pelt_cfs]", sc::lp64,
                   sc::ilp32) {
    using A = TestType;
    pl::cfs_rq<A> rq;
    rq.avg.period_contrib = 24; // divider 46742
    rq.avg.last_update_time = 1u << 20;
    rq.avg.load_avg = 100;
    rq.avg.load_sum = 100 * 46742; // 4674200
    rq.avg.util_avg = 500;
    rq.avg.util_sum = 500 * 46742 + 1000; // 23372000
    rq.avg.runnable_avg = 2048;
    rq.avg.runnable_sum = 2048 * 46742; // 95727616
    rq.removed.nr = 3;
    rq.removed.load_avg = 30;
    rq.removed.util_avg = 600;
    rq.removed.runnable_avg = 1024;
    // now == last_update_time: no time passes, only the removal acts.
    CHECK(pl::update_cfs_rq_load_avg<V::v6_1, A>(1u << 20, rq) == 1);
    CHECK(rq.avg.load_avg == 70u);
    CHECK(rq.avg.load_sum == 3271940u); // 4674200 - 30 * 46742; floor 70 * 46718 = 3270260 below
    CHECK(rq.avg.util_avg == 0u);       // 500 - 600 clamped
    CHECK(rq.avg.util_sum == 0u);       // 23372000 - 28045200 clamped
    CHECK(rq.avg.runnable_avg == 1024u);
    CHECK(rq.avg.runnable_sum == 47863808u); // 95727616 - 47863808; floor 47839232 below
    CHECK(rq.removed.nr == 0);
    CHECK(rq.removed.load_avg == 0u);
    CHECK(rq.removed.util_avg == 0u);
    CHECK(rq.removed.runnable_avg == 0u);
    // Nothing removed, no time passed: nothing to report.
    CHECK(pl::update_cfs_rq_load_avg<V::v6_1, A>(1u << 20, rq) == 0);
}

TEST_CASE("pelt_cfs: on ilp32 the removed sum estimate r * divider is cut to 32 bits", "[ref_pelt_cfs]") {
    // 100000 * 46742 = 4674200000 = 2^32 + 379232704.
    auto run = []<class A>() {
        pl::cfs_rq<A> rq;
        rq.avg.period_contrib = 24;
        rq.avg.load_avg = 200000;
        rq.avg.load_sum = 200000ull * 46742; // 9348400000
        rq.removed.nr = 1;
        rq.removed.load_avg = 100000;
        pl::update_cfs_rq_load_avg<V::v6_12, A>(0, rq);
        return std::pair<std::uint64_t, std::uint64_t>(rq.avg.load_avg, rq.avg.load_sum);
    };
    auto l = run.operator()<sc::lp64>();
    auto i = run.operator()<sc::ilp32>();
    CHECK(l.first == 100000u);
    CHECK(i.first == 100000u);
    // lp64: 9348400000 - 4674200000 = 4674200000, floor 100000 * 46718 =
    // 4671800000; cut to 32 bits 379232704 vs 376832704: 379232704.
    CHECK(l.second == 379232704u);
    // ilp32: 9348400000 - 379232704 = 8969167296, cut: 379232704; the floor
    // product is cut in the multiplication already: 376832704.
    CHECK(i.second == 379232704u);
}

TEST_CASE("pelt_cfs: a new task's start values", "[ref_pelt_cfs]") {
    // Nice 0 task on a runqueue with util_avg 300, load_avg 2047:
    // cap = (1024 - 300) / 2 = 362.
    auto run = []<V Ver, class A>(std::uint64_t rq_util, std::uint64_t rq_load) {
        pl::cfs_rq<A> rq;
        rq.avg.util_avg = typename A::ulong(rq_util);
        rq.avg.load_avg = typename A::ulong(rq_load);
        auto se = task<A>(1024);
        pl::init_entity_runnable_average<Ver, A>(se);
        CHECK(se.avg.load_avg == 1024u);
        CHECK(se.avg.load_sum == 0u);
        pl::post_init_entity_util_avg<Ver, A>(se, rq);
        CHECK(se.avg.runnable_avg == se.avg.util_avg);
        return std::uint64_t(se.avg.util_avg);
    };
    // 6.12: 300 * 1024 / 2048 = 150, below the cap.
    CHECK(run.operator()<V::v6_12, sc::lp64>(300, 2047) == 150u);
    CHECK(run.operator()<V::v6_12, sc::ilp32>(300, 2047) == 150u);
    // 6.1 on lp64: 300 * 1048576 / 2048 = 153600, capped at 362.
    CHECK(run.operator()<V::v6_1, sc::lp64>(300, 2047) == 362u);
    // 6.1 on ilp32: the weight is not scaled: 150.
    CHECK(run.operator()<V::v6_1, sc::ilp32>(300, 2047) == 150u);
    // No utilisation on the runqueue: the cap, (1024 - 0) / 2 = 512.
    CHECK(run.operator()<V::v6_12, sc::lp64>(0, 0) == 512u);
    // No capacity left: (1024 - 1023) / 2 = 0, and (long)(1024 - 1100) / 2 = -38.
    CHECK(run.operator()<V::v6_12, sc::lp64>(1023, 5) == 0u);
    CHECK(run.operator()<V::v6_12, sc::lp64>(1100, 5) == 0u);
    CHECK(run.operator()<V::v6_12, sc::ilp32>(1100, 5) == 0u);

    // A group entity starts with no load at all.
    pl::sched_entity<sc::lp64> g;
    g.is_task = false;
    g.load_weight = 1 << 20;
    pl::init_entity_runnable_average<V::v6_1, sc::lp64>(g);
    CHECK(g.avg.load_avg == 0u);
}
