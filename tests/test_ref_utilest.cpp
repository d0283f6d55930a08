// Unit tests of the util_est reference (ref/util_est.h), four variants, on
// both data models.
//
// Every expected value is worked out by hand from the formulas:
//   margin          UTIL_EST_MARGIN = 1024 / 100 = 10
//   within_margin   |x| < 10, i.e. -9 .. 9
//   EWMA step       ewma' = (4 * ewma + (sample - ewma)) >> 2
//                         = floor((3 * ewma + sample) / 4)
//   flag            UTIL_AVG_UNCHANGED = 0x80000000 (6.x only)
// The arithmetic is written next to each assertion.  None of these values
// was taken from the output of the code under test.
#include <catch2/catch.hpp>

#include "ref/util_est.h"

#include <climits>
#include <cstdint>
#include <string>

namespace {

namespace ue = sc::utilest;
using ue::version;

constexpr std::uint32_t F = 0x80000000u; // UTIL_AVG_UNCHANGED

template <class A>
ue::task<A> mk_task(std::uint64_t util_avg, std::uint32_t enqueued, std::uint32_t ewma,
                    std::uint64_t runnable_avg = 0) {
    ue::task<A> p;
    p.util_avg = static_cast<typename A::ulong>(util_avg);
    p.runnable_avg = static_cast<typename A::ulong>(runnable_avg);
    p.enqueued = enqueued;
    p.ewma = ewma;
    return p;
}

template <class A> ue::cfs_rq<A> mk_rq(std::uint32_t sum, std::uint32_t nr_running = 1) {
    ue::cfs_rq<A> rq;
    rq.util_est_enqueued = sum;
    rq.nr_running = nr_running;
    return rq;
}

constexpr ue::knobs ON{};                         // UTIL_EST, UTIL_EST_FASTUP
constexpr ue::knobs OFF{false, true};             // UTIL_EST off
constexpr ue::knobs NO_FASTUP{true, false};       // 6.1 without FASTUP
constexpr std::uint64_t CAP = 1024;               // a big CPU's capacity

// 6.x update with the defaults above.
template <version V, class A>
ue::task<A> update(ue::task<A> p, bool sleep = true, std::uint64_t cap = CAP,
                   const ue::knobs &k = ON) {
    ue::cfs_rq<A> rq = mk_rq<A>(0);
    ue::util_est_update<V, A>(rq, p, sleep, static_cast<typename A::ulong>(cap), k);
    return p;
}

// bellasi dequeue on a runqueue whose sum is 1000.
template <version V, class A> ue::task<A> bellasi_dequeue(ue::task<A> p, bool sleep = true) {
    ue::cfs_rq<A> rq = mk_rq<A>(1000);
    ue::util_est_dequeue<V, A>(rq, p, sleep, ON);
    return p;
}

} // namespace

// What each version offers is fixed at compile time.
static_assert(ue::has_within_margin<version::bellasi_v3>);
static_assert(!ue::has_within_margin<version::bellasi_v3_uncond>);
static_assert(ue::has_within_margin<version::v6_1>);
static_assert(!ue::has_within_margin<version::v6_12>);
static_assert(!ue::has_util_est_update<version::bellasi_v3>);
static_assert(!ue::has_util_est_update<version::bellasi_v3_uncond>);
static_assert(ue::has_util_est_update<version::v6_1> && ue::has_util_est_update<version::v6_12>);
static_assert(!ue::has_cfs_se_util_change<version::bellasi_v3>);
static_assert(ue::UTIL_EST_MARGIN == 10 && ue::UTIL_EST_WEIGHT_SHIFT == 2);

TEST_CASE("utilest: version names", "[ref_utilest]") {
    CHECK(std::string(ue::version_name(version::bellasi_v3)) == "bellasi-v3");
    CHECK(std::string(ue::version_name(version::bellasi_v3_uncond)) == "bellasi-v3-uncond");
    CHECK(std::string(ue::version_name(version::v6_1)) == "v6.1");
    CHECK(std::string(ue::version_name(version::v6_12)) == "v6.12");
}

// ---------------------------------------------------------------------------
// within_margin: (unsigned)(x + 9) < 19 for margin 10
// ---------------------------------------------------------------------------

TEMPLATE_TEST_CASE("utilest: within_margin truth table at the edges", "[ref_utilest]", sc::ilp32,
                   sc::lp64) {
    using A = TestType;
    auto wm1 = [](std::int32_t x, std::int32_t m) { return bool(ue::within_margin<version::v6_1, A>(x, m)); };
    auto wmb = [](std::int32_t x, std::int32_t m) {
        return bool(ue::within_margin<version::bellasi_v3, A>(x, m));
    };
    for (auto wm : {+wm1, +wmb}) {
        CHECK_FALSE(wm(-11, 10)); // -2 -> 0xfffffffe, not < 19
        CHECK_FALSE(wm(-10, 10)); // -1 -> 0xffffffff, not < 19
        CHECK(wm(-9, 10));        // 0 < 19
        CHECK(wm(0, 10));         // 9 < 19
        CHECK(wm(9, 10));         // 18 < 19
        CHECK_FALSE(wm(10, 10));  // 19 < 19 is false
        CHECK_FALSE(wm(11, 10));  // 20
        // INT_MAX + 9 wraps to 0x80000008; INT_MIN + 9 is 0x80000009: far
        // outside, as |x| < 10 says too.
        CHECK_FALSE(wm(INT_MAX, 10));
        CHECK_FALSE(wm(INT_MIN, 10));
        // margin 1: (unsigned)x < 1, only 0 is inside
        CHECK(wm(0, 1));
        CHECK_FALSE(wm(1, 1));
        CHECK_FALSE(wm(-1, 1));
    }
}

// ---------------------------------------------------------------------------
// the estimate of a task
// ---------------------------------------------------------------------------

TEMPLATE_TEST_CASE("utilest: _task_util_est masks the flag and takes the max", "[ref_utilest]",
                   sc::ilp32, sc::lp64) {
    using A = TestType;
    // 6.1: max(ewma, enqueued & ~flag)
    CHECK(ue::_task_util_est<version::v6_1, A>(mk_task<A>(0, F | 200, 300)) == 300u);
    CHECK(ue::_task_util_est<version::v6_1, A>(mk_task<A>(0, F | 500, 300)) == 500u);
    CHECK(ue::_task_util_est<version::v6_1, A>(mk_task<A>(0, F | 50, 40)) == 50u); // not 0x80000032
    CHECK(ue::_task_util_est<version::v6_1, A>(mk_task<A>(0, F, 0)) == 0u);
    // 6.12: the single word without the flag; the enqueued field is not read
    CHECK(ue::_task_util_est<version::v6_12, A>(mk_task<A>(0, 999, F | 300)) == 300u);
    CHECK(ue::_task_util_est<version::v6_12, A>(mk_task<A>(0, 0, 300)) == 300u);
    // bellasi: max(ewma, enqueued), no flag exists, bit 31 is a value bit
    CHECK(ue::_task_util_est<version::bellasi_v3, A>(mk_task<A>(0, 200, 300)) == 300u);
    CHECK(ue::_task_util_est<version::bellasi_v3_uncond, A>(mk_task<A>(0, 500, 300)) == 500u);
    CHECK(ue::_task_util_est<version::bellasi_v3, A>(mk_task<A>(0, F | 5, 0)) == 2147483653u);

    // task_util_est = max(util_avg, _task_util_est)
    CHECK(ue::task_util_est<version::v6_1, A>(mk_task<A>(600, F | 500, 300)) == 600u);
    CHECK(ue::task_util_est<version::v6_1, A>(mk_task<A>(100, F | 500, 300)) == 500u);
    CHECK(ue::task_util_est<version::v6_12, A>(mk_task<A>(100, 0, F | 300)) == 300u);
    CHECK(ue::task_util_est<version::v6_12, A>(mk_task<A>(301, 0, F | 300)) == 301u);
    CHECK(ue::task_util_est<version::bellasi_v3, A>(mk_task<A>(250, 200, 240)) == 250u);
}

// ---------------------------------------------------------------------------
// the runqueue sum
// ---------------------------------------------------------------------------

template <version V, class A> void check_rq_sum(const ue::task<A> &p300) {
    // p300 has an estimate of 300
    ue::task<A> p = p300;

    auto rq = mk_rq<A>(100);
    ue::util_est_enqueue<V, A>(rq, p, ON);
    CHECK(rq.util_est_enqueued == 400u); // 100 + 300

    ue::util_est_dequeue<V, A>(rq, p, false, ON);
    CHECK(rq.util_est_enqueued == 100u); // 400 - min(400, 300)

    ue::util_est_dequeue<V, A>(rq, p, false, ON);
    CHECK(rq.util_est_enqueued == 0u); // 100 - min(100, 300): clamped at 0

    ue::util_est_dequeue<V, A>(rq, p, false, ON);
    CHECK(rq.util_est_enqueued == 0u); // 0 - min(0, 300)

    // the sum wraps at 32 bits on both data models: 0xfffffff0 + 0x12c
    rq = mk_rq<A>(0xfffffff0u);
    ue::util_est_enqueue<V, A>(rq, p, ON);
    CHECK(rq.util_est_enqueued == 0x11cu); // 0x1_0000_011c mod 2^32

    // UTIL_EST off: untouched
    rq = mk_rq<A>(100);
    ue::util_est_enqueue<V, A>(rq, p, OFF);
    CHECK(rq.util_est_enqueued == 100u);
    ue::util_est_dequeue<V, A>(rq, p, true, OFF);
    CHECK(rq.util_est_enqueued == 100u);
    CHECK(p.enqueued == p300.enqueued);
    CHECK(p.ewma == p300.ewma);
}

TEMPLATE_TEST_CASE("utilest: enqueue/dequeue sums and the clamp at 0", "[ref_utilest]", sc::ilp32,
                   sc::lp64) {
    using A = TestType;
    // 6.1: est = max(300, 200) = 300; the flag in enqueued never reaches the sum
    check_rq_sum<version::v6_1, A>(mk_task<A>(700, F | 200, 300));
    // 6.12: est = 0x8000012c & ~flag = 300
    check_rq_sum<version::v6_12, A>(mk_task<A>(700, 0, F | 300));
    // bellasi: est = max(300, 100) = 300 (util_avg 700 is not part of it)
    check_rq_sum<version::bellasi_v3, A>(mk_task<A>(700, 100, 300));
    check_rq_sum<version::bellasi_v3_uncond, A>(mk_task<A>(700, 100, 300));

    // 6.x dequeue never touches the task, even on a sleep
    ue::task<A> p = mk_task<A>(100, 200, 300);
    auto rq = mk_rq<A>(1000);
    ue::util_est_dequeue<version::v6_1, A>(rq, p, true, ON);
    CHECK(rq.util_est_enqueued == 700u); // 1000 - 300
    CHECK(p.enqueued == 200u);
    CHECK(p.ewma == 300u);
    ue::util_est_dequeue<version::v6_12, A>(rq, p, true, ON);
    CHECK(rq.util_est_enqueued == 400u); // 700 - 300
    CHECK(p.ewma == 300u);
}

// ---------------------------------------------------------------------------
// 6.1 util_est_update
// ---------------------------------------------------------------------------

TEMPLATE_TEST_CASE("utilest: v6.1 update skips", "[ref_utilest]", sc::ilp32, sc::lp64) {
    using A = TestType;
    constexpr version V = version::v6_1;

    // a decrease 400 -> 200 that would otherwise move the EWMA
    auto base = mk_task<A>(200, 400, 400);

    auto p = update<V, A>(base, true, CAP, OFF); // UTIL_EST off
    CHECK((p.enqueued == 400u && p.ewma == 400u));
    p = update<V, A>(base, false); // not a sleep: activation not finished
    CHECK((p.enqueued == 400u && p.ewma == 400u));
    p = update<V, A>(mk_task<A>(200, F | 400, 400)); // util_avg unchanged since enqueue
    CHECK((p.enqueued == (F | 400u) && p.ewma == 400u));

    // capacity: util_avg 200 > 199, no idle time: nothing stored, no flag
    p = update<V, A>(base, true, 199);
    CHECK((p.enqueued == 400u && p.ewma == 400u));
    // 200 > 200 is false: the update runs, (1600 - 200) >> 2 = 350
    p = update<V, A>(base, true, 200);
    CHECK((p.enqueued == (F | 200u) && p.ewma == 350u));
}

TEMPLATE_TEST_CASE("utilest: v6.1 EWMA steps and FASTUP", "[ref_utilest]", sc::ilp32, sc::lp64) {
    using A = TestType;
    constexpr version V = version::v6_1;

    // decrease 400 -> 200: 400 + (200 - 400)/4 = 350; (1600 - 200) >> 2 = 1400/4 = 350
    auto p = update<V, A>(mk_task<A>(200, 400, 400));
    CHECK(p.enqueued == (F | 200u));
    CHECK(p.ewma == 350u);

    // odd: 401 -> 200: (1604 - 201) = 1403, 1403/4 = 350.75 -> 350
    p = update<V, A>(mk_task<A>(200, 401, 401));
    CHECK(p.ewma == 350u);
    // odd: 403 -> 0: (1612 - 403) = 1209, 1209/4 = 302.25 -> 302.  The shift
    // floors; "ewma + (s - ewma)/4" with C's truncating division would be
    // 403 + (-403/4 = -100) = 303.
    p = update<V, A>(mk_task<A>(0, 403, 403));
    CHECK(p.ewma == 302u);
    CHECK(p.enqueued == F);

    // FASTUP on: an increase 300 -> 500 replaces the EWMA, and the capacity
    // check is not reached (util 500 > capacity 100 does not matter)
    p = update<V, A>(mk_task<A>(500, 300, 300));
    CHECK((p.enqueued == (F | 500u) && p.ewma == 500u));
    p = update<V, A>(mk_task<A>(500, 300, 300), true, 100);
    CHECK((p.enqueued == (F | 500u) && p.ewma == 500u));

    // FASTUP off: increases are averaged too: (1200 + 200) >> 2 = 350
    p = update<V, A>(mk_task<A>(500, 300, 300), true, CAP, NO_FASTUP);
    CHECK((p.enqueued == (F | 500u) && p.ewma == 350u));
    // odd increase: 301 -> 400: (1204 + 99) = 1303, /4 = 325.75 -> 325
    p = update<V, A>(mk_task<A>(400, 301, 301), true, CAP, NO_FASTUP);
    CHECK(p.ewma == 325u);
    // FASTUP off and util above capacity: 500 > 100, nothing stored
    p = update<V, A>(mk_task<A>(500, 300, 300), true, 100, NO_FASTUP);
    CHECK((p.enqueued == 300u && p.ewma == 300u));
}

TEMPLATE_TEST_CASE("utilest: v6.1 the <=1% skip on both members", "[ref_utilest]", sc::ilp32,
                   sc::lp64) {
    using A = TestType;
    constexpr version V = version::v6_1;

    // sample 291 vs ewma 300: -9, within; previous sample 291: 0, within -> store nothing
    auto p = update<V, A>(mk_task<A>(291, 291, 300));
    CHECK((p.enqueued == 291u && p.ewma == 300u));
    // sample 290: -10, outside -> EWMA: (1200 - 10) = 1190, /4 = 297.5 -> 297
    p = update<V, A>(mk_task<A>(290, 290, 300));
    CHECK((p.enqueued == (F | 290u) && p.ewma == 297u));

    // ewma within (295 - 300 = -5); previous sample 305: 305 - 295 = 10, outside
    // -> keep the EWMA, store the new sample and the flag
    p = update<V, A>(mk_task<A>(295, 305, 300));
    CHECK((p.enqueued == (F | 295u) && p.ewma == 300u));
    // previous sample 304: 9, within -> nothing
    p = update<V, A>(mk_task<A>(295, 304, 300));
    CHECK((p.enqueued == 304u && p.ewma == 300u));
    // previous sample 285: -10, outside -> store; 286: -9 -> nothing
    p = update<V, A>(mk_task<A>(295, 285, 300));
    CHECK((p.enqueued == (F | 295u) && p.ewma == 300u));
    p = update<V, A>(mk_task<A>(295, 286, 300));
    CHECK((p.enqueued == 286u && p.ewma == 300u));

    // the + side needs FASTUP off: 309 - 300 = 9 within, 310 - 300 = 10 outside
    p = update<V, A>(mk_task<A>(309, 309, 300), true, CAP, NO_FASTUP);
    CHECK((p.enqueued == 309u && p.ewma == 300u));
    p = update<V, A>(mk_task<A>(310, 310, 300), true, CAP, NO_FASTUP);
    CHECK((p.enqueued == (F | 310u) && p.ewma == 302u)); // (1200 + 10)/4 = 302.5 -> 302
}

// ---------------------------------------------------------------------------
// 6.12 util_est_update
// ---------------------------------------------------------------------------

TEMPLATE_TEST_CASE("utilest: v6.12 update", "[ref_utilest]", sc::ilp32, sc::lp64) {
    using A = TestType;
    constexpr version V = version::v6_12;

    auto base = mk_task<A>(200, 7, 400); // enqueued (7) is not a 6.12 field

    auto p = update<V, A>(base, true, CAP, OFF);
    CHECK(p.ewma == 400u);
    p = update<V, A>(base, false);
    CHECK(p.ewma == 400u);
    p = update<V, A>(mk_task<A>(200, 7, F | 400)); // flag set: skip
    CHECK(p.ewma == (F | 400u));

    // decrease 400 -> 200: (1600 - 200) >> 2 = 350, flag set
    p = update<V, A>(base);
    CHECK(p.ewma == (F | 350u));
    CHECK(p.enqueued == 7u);
    // odd: 401 -> 200: 1604 - 201 = 1403 -> 350; 403 -> 0: 1612 - 403 = 1209 -> 302
    CHECK(update<V, A>(mk_task<A>(200, 0, 401)).ewma == (F | 350u));
    CHECK(update<V, A>(mk_task<A>(0, 0, 403)).ewma == (F | 302u));

    // increase or equal: replaced, flag set; no knob, capacity not reached
    CHECK(update<V, A>(mk_task<A>(500, 0, 300)).ewma == (F | 500u));
    CHECK(update<V, A>(mk_task<A>(500, 0, 300), true, 100).ewma == (F | 500u));
    CHECK(update<V, A>(mk_task<A>(500, 0, 300), true, CAP, NO_FASTUP).ewma == (F | 500u));
    CHECK(update<V, A>(mk_task<A>(300, 0, 300)).ewma == (F | 300u));

    // the 1% skip: 300 - 291 = 9 < 10 -> keep 300 but set the flag
    CHECK(update<V, A>(mk_task<A>(291, 0, 300)).ewma == (F | 300u));
    // 300 - 290 = 10 -> (1200 - 10) >> 2 = 297
    CHECK(update<V, A>(mk_task<A>(290, 0, 300)).ewma == (F | 297u));

    // capacity: 200 > 199 -> nothing stored, no flag; 200 > 200 false -> 350
    CHECK(update<V, A>(base, true, 199).ewma == 400u);
    CHECK(update<V, A>(base, true, 200).ewma == (F | 350u));

    // runnable: 200 + 10 = 210 < 211 -> keep 400, flag set; 210 < 210 false -> 350
    CHECK(update<V, A>(mk_task<A>(200, 0, 400, 211)).ewma == (F | 400u));
    CHECK(update<V, A>(mk_task<A>(200, 0, 400, 210)).ewma == (F | 350u));
    // the capacity check comes first: cap 199 and runnable 211 -> no flag
    CHECK(update<V, A>(mk_task<A>(200, 0, 400, 211), true, 199).ewma == 400u);
}

// ---------------------------------------------------------------------------
// the flag round trip (6.x)
// ---------------------------------------------------------------------------

TEMPLATE_TEST_CASE("utilest: cfs_se_util_change clears the flag", "[ref_utilest]", sc::ilp32,
                   sc::lp64) {
    using A = TestType;

    auto p = mk_task<A>(0, F | 200, 300);
    ue::cfs_se_util_change<version::v6_1, A>(p, ON);
    CHECK((p.enqueued == 200u && p.ewma == 300u));
    ue::cfs_se_util_change<version::v6_1, A>(p, ON); // already clear
    CHECK((p.enqueued == 200u && p.ewma == 300u));
    p = mk_task<A>(0, F | 200, 300);
    ue::cfs_se_util_change<version::v6_1, A>(p, OFF);
    CHECK(p.enqueued == (F | 200u));

    p = mk_task<A>(0, 5, F | 300);
    ue::cfs_se_util_change<version::v6_12, A>(p, ON);
    CHECK((p.ewma == 300u && p.enqueued == 5u));
    p = mk_task<A>(0, 5, F | 300);
    ue::cfs_se_util_change<version::v6_12, A>(p, OFF);
    CHECK(p.ewma == (F | 300u));
}

TEMPLATE_TEST_CASE("utilest: a sample is taken once per PELT update (6.x)", "[ref_utilest]",
                   sc::ilp32, sc::lp64) {
    using A = TestType;
    // 6.1: 400 -> 200 gives 350; a second sleep without a PELT update in
    // between is skipped; after the flag is cleared the same sample counts
    // again: 350 -> (1400 - 150) >> 2 = 1250/4 = 312.5 -> 312
    auto p = update<version::v6_1, A>(mk_task<A>(200, 400, 400));
    CHECK(p.ewma == 350u);
    p = update<version::v6_1, A>(p);
    CHECK((p.ewma == 350u && p.enqueued == (F | 200u)));
    ue::cfs_se_util_change<version::v6_1, A>(p, ON);
    p = update<version::v6_1, A>(p);
    CHECK((p.ewma == 312u && p.enqueued == (F | 200u)));

    // 6.12: the same numbers
    auto q = update<version::v6_12, A>(mk_task<A>(200, 0, 400));
    CHECK(q.ewma == (F | 350u));
    q = update<version::v6_12, A>(q);
    CHECK(q.ewma == (F | 350u));
    ue::cfs_se_util_change<version::v6_12, A>(q, ON);
    q = update<version::v6_12, A>(q);
    CHECK(q.ewma == (F | 312u));
}

// ---------------------------------------------------------------------------
// bellasi-v3 and bellasi-v3-uncond
// ---------------------------------------------------------------------------

TEMPLATE_TEST_CASE("utilest: bellasi dequeue updates the task on sleep", "[ref_utilest]",
                   sc::ilp32, sc::lp64) {
    using A = TestType;
    constexpr version B = version::bellasi_v3;
    constexpr version U = version::bellasi_v3_uncond;

    // runqueue part and task part in one call: rq 1000 - max(400, 400) = 600;
    // task 400 -> 200: (1600 - 200) >> 2 = 350, enqueued = the sample
    {
        auto p = mk_task<A>(200, 400, 400);
        auto rq = mk_rq<A>(1000);
        ue::util_est_dequeue<B, A>(rq, p, true, ON);
        CHECK(rq.util_est_enqueued == 600u);
        CHECK((p.enqueued == 200u && p.ewma == 350u));
    }
    // not a sleep: the sum changes (1000 - 300), the task does not
    {
        auto p = mk_task<A>(305, 300, 300);
        auto rq = mk_rq<A>(1000);
        ue::util_est_dequeue<U, A>(rq, p, false, ON);
        CHECK(rq.util_est_enqueued == 700u);
        CHECK((p.enqueued == 300u && p.ewma == 300u));
    }
    // UTIL_EST off: neither
    {
        auto p = mk_task<A>(200, 400, 400);
        auto rq = mk_rq<A>(1000);
        ue::util_est_dequeue<B, A>(rq, p, true, OFF);
        CHECK(rq.util_est_enqueued == 1000u);
        CHECK((p.enqueued == 400u && p.ewma == 400u));
    }

    // odd steps, both variants: 403 -> 0: 1209 >> 2 = 302; 401 -> 200: 1403 >> 2 = 350
    for (auto f : {bellasi_dequeue<B, A>, bellasi_dequeue<U, A>}) {
        CHECK(f(mk_task<A>(0, 403, 403), true).ewma == 302u);
        CHECK(f(mk_task<A>(200, 401, 401), true).ewma == 350u);
        // no fast ramp-up: 300 -> 500 is averaged, (1200 + 200) >> 2 = 350
        auto p = f(mk_task<A>(500, 300, 300), true);
        CHECK((p.enqueued == 500u && p.ewma == 350u));
        // no flag: the same sample is taken again on the next sleep,
        // 350 -> 500: (1400 + 150) >> 2 = 1550/4 = 387.5 -> 387
        p = f(p, true);
        CHECK((p.enqueued == 500u && p.ewma == 387u));
    }
}

TEMPLATE_TEST_CASE("utilest: bellasi-v3 skips within 1%, uncond does not", "[ref_utilest]",
                   sc::ilp32, sc::lp64) {
    using A = TestType;
    constexpr version B = version::bellasi_v3;
    constexpr version U = version::bellasi_v3_uncond;

    // sample 305 vs ewma 300: +5, within
    //   v3:     nothing stored (enqueued stays 300)
    //   uncond: (1200 + 5) >> 2 = 1205/4 = 301.25 -> 301, enqueued 305
    auto p = bellasi_dequeue<B, A>(mk_task<A>(305, 300, 300));
    CHECK((p.enqueued == 300u && p.ewma == 300u));
    p = bellasi_dequeue<U, A>(mk_task<A>(305, 300, 300));
    CHECK((p.enqueued == 305u && p.ewma == 301u));

    // edges: -9 / +9 within, -10 / +10 outside
    p = bellasi_dequeue<B, A>(mk_task<A>(291, 0, 300));
    CHECK((p.enqueued == 0u && p.ewma == 300u));
    p = bellasi_dequeue<B, A>(mk_task<A>(290, 0, 300));
    CHECK((p.enqueued == 290u && p.ewma == 297u)); // (1200 - 10)/4 = 297.5
    p = bellasi_dequeue<B, A>(mk_task<A>(309, 0, 300));
    CHECK((p.enqueued == 0u && p.ewma == 300u));
    p = bellasi_dequeue<B, A>(mk_task<A>(310, 0, 300));
    CHECK((p.enqueued == 310u && p.ewma == 302u)); // (1200 + 10)/4 = 302.5

    p = bellasi_dequeue<U, A>(mk_task<A>(291, 0, 300));
    CHECK((p.enqueued == 291u && p.ewma == 297u)); // (1200 - 9)/4 = 297.75
    p = bellasi_dequeue<U, A>(mk_task<A>(309, 0, 300));
    CHECK((p.enqueued == 309u && p.ewma == 302u)); // (1200 + 9)/4 = 302.25
    // equal: (1200 + 0)/4 = 300, the sample is still stored
    p = bellasi_dequeue<U, A>(mk_task<A>(300, 0, 300));
    CHECK((p.enqueued == 300u && p.ewma == 300u));
}

// ---------------------------------------------------------------------------
// the same input through every version
// ---------------------------------------------------------------------------

TEMPLATE_TEST_CASE("utilest: differences between the versions", "[ref_utilest]", sc::ilp32,
                   sc::lp64) {
    using A = TestType;

    // 1. an increase, ewma 300, sample 500, capacity 1024
    //    bellasi (both): 350   6.1 FASTUP: 500   6.1 no FASTUP: 350   6.12: 500
    CHECK(bellasi_dequeue<version::bellasi_v3, A>(mk_task<A>(500, 300, 300)).ewma == 350u);
    CHECK(bellasi_dequeue<version::bellasi_v3_uncond, A>(mk_task<A>(500, 300, 300)).ewma == 350u);
    CHECK(update<version::v6_1, A>(mk_task<A>(500, 300, 300)).ewma == 500u);
    CHECK(update<version::v6_1, A>(mk_task<A>(500, 300, 300), true, CAP, NO_FASTUP).ewma == 350u);
    CHECK(update<version::v6_12, A>(mk_task<A>(500, 0, 300)).ewma == (F | 500u));

    // 2. no change, ewma 300, sample 300, previous sample 300
    //    v3: nothing   uncond: 300, sample stored   6.1: nothing (no flag)
    //    6.12: ewma <= sample, stored with the flag
    auto b = bellasi_dequeue<version::bellasi_v3, A>(mk_task<A>(300, 300, 300));
    CHECK((b.enqueued == 300u && b.ewma == 300u));
    b = bellasi_dequeue<version::bellasi_v3_uncond, A>(mk_task<A>(300, 300, 300));
    CHECK((b.enqueued == 300u && b.ewma == 300u)); // (1200 + 0) >> 2
    auto s1 = update<version::v6_1, A>(mk_task<A>(300, 300, 300));
    CHECK((s1.enqueued == 300u && s1.ewma == 300u));
    CHECK(update<version::v6_12, A>(mk_task<A>(300, 0, 300)).ewma == (F | 300u));

    // 3. a small decrease, ewma 300, sample 291 (previous sample 291)
    //    v3: nothing   uncond: 297   6.1: nothing   6.12: 300 with the flag
    CHECK(bellasi_dequeue<version::bellasi_v3, A>(mk_task<A>(291, 291, 300)).ewma == 300u);
    CHECK(bellasi_dequeue<version::bellasi_v3_uncond, A>(mk_task<A>(291, 291, 300)).ewma == 297u);
    s1 = update<version::v6_1, A>(mk_task<A>(291, 291, 300));
    CHECK((s1.enqueued == 291u && s1.ewma == 300u));
    CHECK(update<version::v6_12, A>(mk_task<A>(291, 0, 300)).ewma == (F | 300u));

    // 4. a decrease on a CPU without idle time, ewma 400, sample 200,
    //    capacity 150: bellasi has no capacity check (350); 6.x skip (400)
    CHECK(bellasi_dequeue<version::bellasi_v3, A>(mk_task<A>(200, 400, 400)).ewma == 350u);
    CHECK(update<version::v6_1, A>(mk_task<A>(200, 400, 400), true, 150).ewma == 400u);
    CHECK(update<version::v6_12, A>(mk_task<A>(200, 0, 400), true, 150).ewma == 400u);

    // 5. a decrease of a task that waited, runnable_avg 300 > 200 + 10:
    //    only 6.12 keeps the EWMA (400, flag); 6.1 ignores runnable_avg (350)
    CHECK(update<version::v6_1, A>(mk_task<A>(200, 400, 400, 300)).ewma == 350u);
    CHECK(update<version::v6_12, A>(mk_task<A>(200, 0, 400, 300)).ewma == (F | 400u));

    // 6. the estimate: 6.1 keeps the last sample as a floor, 6.12 only the EWMA.
    //    Last sample 500, ewma 300, util_avg 0: 6.1 -> 500, 6.12 -> 300.
    CHECK(ue::task_util_est<version::v6_1, A>(mk_task<A>(0, F | 500, 300)) == 500u);
    CHECK(ue::task_util_est<version::v6_12, A>(mk_task<A>(0, F | 500, 300)) == 300u);
}

TEST_CASE("utilest: lp64 util_avg above 32 bits, 6.1 vs 6.12", "[ref_utilest]") {
    using A = sc::lp64;
    // util_avg = 2^32 + 200: the sample is its low 32 bits, 200, everywhere.
    // 6.1 compares the full value with the capacity: 4294967496 > 1024 ->
    // nothing stored.  6.12 compares the truncated sample: 200 <= 1024 ->
    // (1600 - 200) >> 2 = 350.  bellasi has no capacity check: 350.
    const std::uint64_t util = (std::uint64_t{1} << 32) + 200;
    auto p = update<version::v6_1, A>(mk_task<A>(util, 400, 400));
    CHECK((p.enqueued == 400u && p.ewma == 400u));
    CHECK(update<version::v6_12, A>(mk_task<A>(util, 0, 400)).ewma == (F | 350u));
    auto b = bellasi_dequeue<version::bellasi_v3, A>(mk_task<A>(util, 400, 400));
    CHECK((b.enqueued == 200u && b.ewma == 350u));
}
