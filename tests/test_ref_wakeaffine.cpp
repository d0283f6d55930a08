// Unit tests of the wake_affine reference (ref/wake_affine.h): effective_load()
// in its three shapes, the imbalance_pct decision in unsigned long (v2.6.37)
// and s64 (v2.6.38 on), NO_HOT_AFFINE, wake_wide(), and 6.1's
// wake_affine_idle() / wake_affine_weight(), on both data models.
//
// Expected values are worked out by hand from the formulas:
//   decision   100 * power(prev) * (this_load + eff(this, +w))
//                <= (100 + (pct - 100) / 2) * power(this) * (load + eff(prev, 0))
//              with pct 125: 100 + 25 / 2 = 112 (integer halving)
//   v2.6.37    a = S (rw + wl), b = S rw + s wg, eff = s (a - b) / b
//   pjt-1      lw = W_tg - contrib + w + wg, eff = clip(S (wl + w) / lw) - se_weight
//   v3.13      W = wg + W_tg - contrib + w, eff = clip(S (w + wl) / W) - se_weight
//   6.1        h_load(p) = load_avg * h_load / (cfs_load_avg + 1)
//              this_eff = (load(this) + h_load(p)) * 100 * cap(prev)
//              prev_eff = (load(prev) - h_load(p)) * 112 * cap(this), pull if <
// The group example is the one in v3.13's comment above effective_load():
// a group of 7 tasks of weight 1024 spread {2, 4, 1, 0} over 4 CPUs, shares
// 1024, so the group entity weighs 1024*2/7 = 292 on CPU 0 and 1024*4/7 = 585
// on CPU 1; waking one more task on CPU 0 moves 1024 (3/8 - 2/7) = +91.4 there
// and 1024 (4/8 - 4/7) = -73.1 on CPU 1.  None of the values was taken from
// the output of the code under test.
#include <catch2/catch.hpp>

#include "model/explorer.h"
#include "model/sym.h"
#include "ref/kernel.h"
#include "ref/variants.h"
#include "ref/wake_affine.h"

#include <algorithm>
#include <cstdint>
#include <string>
#include <type_traits>

namespace {

namespace wa = sc::wakeaffine;
using V = wa::version;

template <class A> wa::knobs<A> K() { return wa::knobs<A>{}; }

// The v3.13 comment's group seen from CPU 0 (cpu0 = true) or CPU 1, with
// the bookkeeping of all three releases filled in consistently: the group's
// total weight 7168, this CPU's published part equal to its current weight.
template <class A> wa::tg_path<A> example_group(bool cpu0) {
    wa::tg_path<A> g;
    g.depth = 1;
    wa::tg_level<A> &l = g.level[0];
    l.tg_shares = 1024;
    l.my_q_load_weight = cpu0 ? 2048 : 4096;
    l.se_load_weight = cpu0 ? 292 : 585;
    l.my_q_shares = cpu0 ? 292 : 585;
    l.my_q_rq_weight = cpu0 ? 2048 : 4096;
    l.tg_load_weight = 7168;
    l.my_q_load_contribution = cpu0 ? 2048 : 4096;
    l.tg_load_avg = 7168;
    l.my_q_tg_load_contrib = cpu0 ? 2048 : 4096;
    return g;
}

template <V v, class A> long long eff(const wa::tg_path<A> &g, long long wl, long long wg,
                                       const wa::knobs<A> &k = K<A>()) {
    using slong = typename A::slong;
    return static_cast<long long>(wa::effective_load<v, A>(g, slong(wl), slong(wg), k));
}

// Two CPUs without groups: this_cpu and prev_cpu loads, one task each way.
template <class A> wa::wake_env<A> plain(std::uint64_t this_w, unsigned this_nr, std::uint64_t prev_w) {
    wa::wake_env<A> e;
    e.this_rq.weighted_cpuload = this_w;
    e.this_rq.nr_running = this_nr;
    e.prev_rq.weighted_cpuload = prev_w;
    e.prev_rq.nr_running = 1;
    e.prev_rq.clock_task = 10000000; // p last ran at 0: 10 ms ago, cold
    e.p.weight = 1024;
    e.curr.weight = 1024;
    return e;
}

template <V v, class A> int decide(const wa::wake_env<A> &e, const wa::knobs<A> &k = K<A>()) {
    return wa::wake_affine<v, A>(e, k);
}

} // namespace

static_assert(wa::has_effective_load<V::v3_13> && !wa::has_effective_load<V::v6_1>);
static_assert(!wa::signed_loads<V::v2_6_37> && wa::signed_loads<V::pjt_1>);
static_assert(wa::has_no_hot_affine<V::pjt_1_3> && !wa::has_no_hot_affine<V::v3_13>);

TEST_CASE("wakeaffine: version names and the registry", "[wakeaffine]") {
    const char *ids[] = {"wakeaffine/v2.6.37", "wakeaffine/pjt-1", "wakeaffine/pjt-1-3", "wakeaffine/v3.13",
                         "wakeaffine/v6.1"};
    int code = 0;
    for (const char *id : ids) {
        INFO(id);
        const sc::Variant *v = sc::find_variant(id);
        REQUIRE(v != nullptr);
        CHECK(v->family == "wakeaffine");
        CHECK(v->code == code);
        CHECK(std::string("wakeaffine/") + wa::version_name(static_cast<V>(v->code)) == id);
        ++code;
    }
    auto fams = sc::families();
    CHECK(std::count(fams.begin(), fams.end(), "idlebal") == 1);
    CHECK(std::count(fams.begin(), fams.end(), "wakeaffine") == 1);
}

TEMPLATE_TEST_CASE("wakeaffine: effective_load is the identity without groups", "[wakeaffine]", sc::ilp32,
                   sc::lp64) {
    using A = TestType;
    wa::tg_path<A> root; // depth 0
    CHECK(eff<V::v2_6_37, A>(root, 1024, 1024) == 1024);
    CHECK(eff<V::pjt_1, A>(root, -2048, -2048) == -2048);
    CHECK(eff<V::v3_13, A>(root, 0, 15) == 0);
}

TEMPLATE_TEST_CASE("wakeaffine: effective_load on the v3.13 comment's example", "[wakeaffine]", sc::ilp32,
                   sc::lp64) {
    using A = TestType;
    // CPU 0, +1024 here and in total.
    //  v3.13: W = 1024 + (7168 - 2048 + 2048) = 8192, w = 2048 + 1024 = 3072,
    //         1024 * 3072 / 8192 = 384 >= 2, 384 - 292 = 92.
    //  pjt-1: lw = 7168 - 2048 + 2048 + 1024 = 8192, wl = 1024 + 2048 = 3072: the same 92.
    //  v2.6.37: a = 1024 * (2048 + 1024) = 3145728, b = 1024 * 2048 + 292 * 1024 = 2396160,
    //         292 * (3145728 - 2396160) = 218873856, / 2396160 = 91.34 -> 91.
    CHECK(eff<V::v3_13, A>(example_group<A>(true), 1024, 1024) == 92);
    CHECK(eff<V::pjt_1, A>(example_group<A>(true), 1024, 1024) == 92);
    CHECK(eff<V::pjt_1_3, A>(example_group<A>(true), 1024, 1024) == 92);
    CHECK(eff<V::v2_6_37, A>(example_group<A>(true), 1024, 1024) == 91);
    // CPU 1, nothing added here, +1024 in total.
    //  v3.13, pjt-1: W = lw = 8192, w = 4096, 1024 * 4096 / 8192 = 512, 512 - 585 = -73.
    //  v2.6.37 with ASYM_EFF_LOAD: wl == 0 -> 0 (the loss is ignored).
    //  v2.6.37 without: a = 1024 * 4096 = 4194304, b = 4194304 + 585 * 1024 = 4793344,
    //         585 * (-599040) = -350438400, / 4793344 = -73.1 -> -73 (towards 0).
    CHECK(eff<V::v3_13, A>(example_group<A>(false), 0, 1024) == -73);
    CHECK(eff<V::pjt_1, A>(example_group<A>(false), 0, 1024) == -73);
    CHECK(eff<V::v2_6_37, A>(example_group<A>(false), 0, 1024) == 0);
    wa::knobs<A> k;
    k.ASYM_EFF_LOAD = false;
    CHECK(eff<V::v2_6_37, A>(example_group<A>(false), 0, 1024, k) == -73);
}

TEMPLATE_TEST_CASE("wakeaffine: waking onto a CPU where the group is empty (patch 1's case)", "[wakeaffine]",
                   sc::ilp32, sc::lp64) {
    using A = TestType;
    // The group (shares 1024) has 1024 of weight on another CPU and none
    // here; its entity here sits at MIN_SHARES = 2.
    wa::tg_path<A> g;
    g.depth = 1;
    g.level[0].tg_shares = 1024;
    g.level[0].se_load_weight = 2;
    g.level[0].my_q_shares = 2;
    g.level[0].tg_load_weight = 1024;
    g.level[0].tg_load_avg = 1024;
    // v2.6.37: a = 1024 * (0 + 1024) = 1048576, b = 0 + 2 * 1024 = 2048,
    //   2 * (1048576 - 2048) / 2048 = 2093056 / 2048 = 1022: almost the whole share.
    // pjt-1: lw = 1024 - 0 + 0 + 1024 = 2048, wl = 1024, 1024 * 1024 / 2048 = 512,
    //   512 - 2 = 510: the group would split its shares over the two CPUs.
    CHECK(eff<V::v2_6_37, A>(g, 1024, 1024) == 1022);
    CHECK(eff<V::pjt_1, A>(g, 1024, 1024) == 510);
    CHECK(eff<V::v3_13, A>(g, 1024, 1024) == 510);
}

TEST_CASE("wakeaffine: v2.6.37's long products overflow on ilp32", "[wakeaffine]") {
    // S = 2^18 (MAX_SHARES), s = 2^17, rw = 8192, wl = wg = 1024.
    //  lp64: a = 2^18 * 9216 = 2415919104, b = 2^31 + 2^27 = 2281701376,
    //        a - b = 2^27, s (a - b) = 2^44, 2^44 / (2^27 * 17) = 2^17 / 17 = 7710.1 -> 7710.
    //  ilp32: a wraps to -1879048192, b to -2013265920, a - b = 2^27 still,
    //        but s (a - b) = 2^44 wraps to 0: 0.
    auto mk = []<class A>(A) {
        wa::tg_path<A> g;
        g.depth = 1;
        g.level[0].tg_shares = 262144;
        g.level[0].my_q_shares = 131072;
        g.level[0].my_q_rq_weight = 8192;
        g.level[0].my_q_load_weight = 8192;
        return g;
    };
    CHECK(eff<V::v2_6_37, sc::lp64>(mk(sc::lp64{}), 1024, 1024) == 7710);
    CHECK(eff<V::v2_6_37, sc::ilp32>(mk(sc::ilp32{}), 1024, 1024) == 0);
}

TEMPLATE_TEST_CASE("wakeaffine: MIN_SHARES is signed in v2.6.38, unsigned in v3.13", "[wakeaffine]", sc::ilp32,
                   sc::lp64) {
    using A = TestType;
    // Shares 1, group total 2, nothing here; wl = wg = -1.
    //  pjt-1: w = 0, lw = 2 - 0 + 0 - 1 = 1, wl = -1 + 0 = -1 < 1:
    //    (unsigned long)-1 * 1 / 1 = ULONG_MAX, i.e. -1; -1 < 2 (signed) -> 2; 2 - 0 = 2.
    //  v3.13: W = -1 + (2 - 0 + 0) = 1, w = 0 + -1 = -1 < 1: the same -1, but
    //    (unsigned long)-1 < 2UL is false: it stays -1.
    wa::tg_path<A> g;
    g.depth = 1;
    g.level[0].tg_shares = 1;
    g.level[0].tg_load_weight = 2;
    g.level[0].tg_load_avg = 2;
    CHECK(eff<V::pjt_1, A>(g, -1, -1) == 2);
    CHECK(eff<V::v3_13, A>(g, -1, -1) == -1);
}

TEST_CASE("wakeaffine: v3.13 computes S * w / W in unsigned long, even for a negative w", "[wakeaffine]") {
    // my_q 1024, se 1024, group total 4096, shares 1024; a sync removal of
    // 2048: W = -2048 + (4096 - 1024 + 1024) = 2048, w = 1024 - 2048 = -1024 < W.
    //  lp64:  (2^64 - 1024) * 1024 mod 2^64 = 2^64 - 2^20; / 2^11 = 2^53 - 2^9
    //         = 9007199254740480; - 1024 = 9007199254739456.
    //  ilp32: (2^32 - 2^20) / 2^11 = 2^21 - 2^9 = 2096640; - 1024 = 2095616.
    auto mk = []<class A>(A) {
        wa::tg_path<A> g;
        g.depth = 1;
        g.level[0].tg_shares = 1024;
        g.level[0].my_q_load_weight = 1024;
        g.level[0].se_load_weight = 1024;
        g.level[0].tg_load_avg = 4096;
        g.level[0].my_q_tg_load_contrib = 1024;
        return g;
    };
    CHECK(eff<V::v3_13, sc::lp64>(mk(sc::lp64{}), -2048, -2048) == 9007199254739456LL);
    CHECK(eff<V::v3_13, sc::ilp32>(mk(sc::ilp32{}), -2048, -2048) == 2095616);
}

TEMPLATE_TEST_CASE("wakeaffine: the imbalance_pct decision without groups", "[wakeaffine]", sc::ilp32,
                   sc::lp64) {
    using A = TestType;
    SECTION("this_cpu busier: stay") {
        // this 2048 (2 tasks), prev 1024, p 1024, power 1024 each.  p is
        // asleep, so prev's load does not hold it: eff(prev, 0, 1024) = 0.
        // 100 * 1024 * (2048 + 1024) = 314572800 > 112 * 1024 * (1024 + 0) = 117440512.
        // Then tl_per_task = 2048 / 2 = 1024, and 2048 <= 1024 fails: 0.
        wa::wake_env<A> e = plain<A>(2048, 2, 1024);
        wa::wa_trace<A> tr;
        CHECK(wa::wake_affine<V::v3_13, A>(e, K<A>(), &tr) == 0);
        CHECK(tr.this_eff_load == 314572800);
        CHECK(tr.prev_eff_load == 117440512);
        CHECK_FALSE(tr.balanced);
        CHECK(decide<V::v2_6_37, A>(e) == 0);
        CHECK(decide<V::pjt_1, A>(e) == 0);
        CHECK(decide<V::pjt_1_3, A>(e) == 0);
    }
    SECTION("prev_cpu busier: pull") {
        // 100 * 1024 * (1024 + 1024) = 209715200 <= 112 * 1024 * (2048 + 0) = 234881024.
        wa::wake_env<A> e = plain<A>(1024, 1, 2048);
        CHECK(decide<V::v2_6_37, A>(e) == 1);
        CHECK(decide<V::pjt_1, A>(e) == 1);
        CHECK(decide<V::pjt_1_3, A>(e) == 1);
        CHECK(decide<V::v3_13, A>(e) == 1);
        CHECK(wa::affine<V::v3_13, A>(e, K<A>()));
    }
    SECTION("wake_idx with LB_BIAS: target_load takes the max, source_load the min") {
        // this: now 1024, cpu_load[0] 3072 -> target 3072; prev: now 2048,
        // cpu_load[0] 1024 -> source 1024.  100 * 1024 * (3072 + 1024) = 419430400 >
        // 112 * 1024 * 1024 = 117440512; tl_per_task 1024 / 1, 3072 <= 1024 fails:
        // stay.  With the indexes ignored (LB_BIAS off): pull, as above.
        wa::wake_env<A> e = plain<A>(1024, 1, 2048);
        e.this_rq.cpu_load_idx = 3072;
        e.prev_rq.cpu_load_idx = 1024;
        wa::knobs<A> k;
        k.wake_idx = 1;
        CHECK(decide<V::v3_13, A>(e, k) == 0);
        CHECK(decide<V::v2_6_37, A>(e, k) == 0);
        k.LB_BIAS = false;
        CHECK(decide<V::v3_13, A>(e, k) == 1);
    }
    SECTION("a sync waker that was all of this_cpu's load") {
        // this_load = 1024 - 1024 = 0: balanced, and sync: pull.
        wa::wake_env<A> e = plain<A>(1024, 1, 1024);
        e.sync = true;
        CHECK(decide<V::v2_6_37, A>(e) == 1);
        CHECK(decide<V::pjt_1, A>(e) == 1);
        CHECK(decide<V::v3_13, A>(e) == 1);
    }
}

TEMPLATE_TEST_CASE("wakeaffine: v2.6.37's unsigned this_load wraps on a sync wake-up", "[wakeaffine]", sc::ilp32,
                   sc::lp64) {
    using A = TestType;
    // this_cpu load 512, the sync waker weighs 1024, prev idle, p weighs 15.
    //  v2.6.37: this_load = 512 + (unsigned long)-1024 = 2^N - 512, not 0;
    //    this_eff = 102400 * (2^N - 512 + 15) = 2^N - 102400 * 497 = 2^N - 50892800 (mod 2^N),
    //    prev_eff = 112 * 1024 * (0 + 0) = 0: not balanced; 2^N - 512 <= 0
    //    fails: stay (0).
    //  pjt-1, v3.13: this_load = -512, not > 0: balanced, sync: pull (1).
    wa::wake_env<A> e = plain<A>(512, 1, 0);
    e.sync = true;
    e.p.weight = 15;
    wa::wa_trace<A> tr;
    CHECK(wa::wake_affine<V::v2_6_37, A>(e, K<A>(), &tr) == 0);
    CHECK_FALSE(tr.balanced);
    CHECK(tr.prev_eff_load == 0);
    // this_eff = 2^N - 50892800, read back as the unsigned long it was.
    const std::uint64_t N = sizeof(typename A::ulong) * 8;
    const std::uint64_t wrapped = N == 64 ? 0 - 50892800ULL : (1ULL << 32) - 50892800ULL;
    CHECK(static_cast<std::uint64_t>(static_cast<typename A::ulong>(tr.this_eff_load)) == wrapped);
    CHECK(decide<V::pjt_1, A>(e) == 1);
    CHECK(decide<V::v3_13, A>(e) == 1);
}

TEMPLATE_TEST_CASE("wakeaffine: NO_HOT_AFFINE keeps a cache-hot wakee on prev_cpu", "[wakeaffine]", sc::ilp32,
                   sc::lp64) {
    using A = TestType;
    // The balanced case above (pull), with p having run 200000 ns before
    // prev's clock: 200000 < 500000, hot.
    wa::wake_env<A> e = plain<A>(1024, 1, 2048);
    e.p.exec_start = 1000000;
    e.prev_rq.clock_task = 1200000;
    wa::wa_trace<A> tr;
    CHECK(wa::wake_affine<V::pjt_1_3, A>(e, K<A>(), &tr) == 0);
    CHECK(tr.hot);
    CHECK(decide<V::pjt_1, A>(e) == 1); // no such feature before
    wa::knobs<A> k;
    k.NO_HOT_AFFINE = false;
    CHECK(decide<V::pjt_1_3, A>(e, k) == 1);
    // sysctl 0: never hot; (unsigned)-1: always hot.
    k = K<A>();
    k.sysctl_sched_migration_cost = 0;
    CHECK(decide<V::pjt_1_3, A>(e, k) == 1);
    wa::wake_env<A> cold = plain<A>(1024, 1, 2048); // 10 ms since it ran
    CHECK(decide<V::pjt_1_3, A>(cold) == 1);
    k.sysctl_sched_migration_cost = 0xffffffffu;
    CHECK(decide<V::pjt_1_3, A>(cold, k) == 0);
    // A clock behind exec_start is a negative delta: hot.
    wa::wake_env<A> back = plain<A>(1024, 1, 2048);
    back.p.exec_start = 2000000;
    back.prev_rq.clock_task = 1000000;
    CHECK(decide<V::pjt_1_3, A>(back) == 0);
    // SCHED_IDLE tasks are never hot.
    e.p.idle_policy = true;
    CHECK(decide<V::pjt_1_3, A>(e) == 1);
}

TEMPLATE_TEST_CASE("wakeaffine: v3.13 wake_wide()", "[wakeaffine]", sc::ilp32, sc::lp64) {
    using A = TestType;
    // factor 4: p flipped 5 > 4 times, the waker 21 > 4 * 5 = 20: wide, stay.
    wa::wake_env<A> e = plain<A>(1024, 1, 2048); // a pull otherwise
    wa::knobs<A> k;
    k.sd_llc_size = 4;
    e.p.wakee_flips = 5;
    e.curr.wakee_flips = 21;
    CHECK(decide<V::v3_13, A>(e, k) == 0);
    e.curr.wakee_flips = 20;
    CHECK(decide<V::v3_13, A>(e, k) == 1);
    e.curr.wakee_flips = 21;
    e.p.wakee_flips = 4; // not more than the factor
    CHECK(decide<V::v3_13, A>(e, k) == 1);
    CHECK(decide<V::pjt_1, A>(e, k) == 1); // no wake_wide() before v3.13
}

TEMPLATE_TEST_CASE("wakeaffine: 6.1 task_h_load", "[wakeaffine]", sc::ilp32, sc::lp64) {
    using A = TestType;
    // 1024 * 2048 / (2048 + 1) = 2097152 / 2049 = 1023.5 -> 1023.
    wa::task<A> t;
    t.load_avg = 1024;
    t.cfs_h_load = 2048;
    t.cfs_load_avg = 2048;
    CHECK(wa::task_h_load<V::v6_1, A>(t) == 1023);
}

TEST_CASE("wakeaffine: 6.1 task_h_load's product is an unsigned long", "[wakeaffine]") {
    // 65536 * 65536 = 2^32: lp64 2^32 / 65536 = 65536; ilp32 wraps to 0.
    wa::task<sc::lp64> a;
    a.load_avg = a.cfs_h_load = 65536;
    a.cfs_load_avg = 65535;
    CHECK(wa::task_h_load<V::v6_1, sc::lp64>(a) == 65536);
    wa::task<sc::ilp32> b;
    b.load_avg = b.cfs_h_load = 65536;
    b.cfs_load_avg = 65535;
    CHECK(wa::task_h_load<V::v6_1, sc::ilp32>(b) == 0);
}

TEMPLATE_TEST_CASE("wakeaffine: 6.1 wake_affine_weight", "[wakeaffine]", sc::ilp32, sc::lp64) {
    using A = TestType;
    // p's h_load is 1023 (above); capacities 1024; pct 125 -> 112.
    auto env = [](std::uint64_t this_load, std::uint64_t prev_load) {
        wa::wake_env<A> e;
        e.this_rq.weighted_cpuload = this_load;
        e.prev_rq.weighted_cpuload = prev_load;
        e.this_rq.nr_running = 2;
        e.p.load_avg = 1024;
        e.p.cfs_h_load = 2048;
        e.p.cfs_load_avg = 2048;
        return e;
    };
    SECTION("this_cpu busier: prev") {
        // this_eff = (2048 + 1023) * 100 * 1024 = 314470400;
        // prev_eff = (1024 - 1023) * 112 * 1024 = 114688: not <, no preference -> prev_cpu.
        wa::wake_env<A> e = env(2048, 1024);
        wa::wa_trace<A> tr;
        CHECK(wa::wake_affine_weight<V::v6_1, A>(e, K<A>(), &tr) == e.nr_cpumask_bits);
        CHECK(tr.this_eff_load == 314470400);
        CHECK(tr.prev_eff_load == 114688);
        CHECK(wa::wake_affine<V::v6_1, A>(e, K<A>()) == e.prev_cpu);
        CHECK_FALSE(wa::affine<V::v6_1, A>(e, K<A>()));
        // WA_BIAS off: 3071 * 1024 = 3144704 vs 1 * 1024: still prev.
        wa::knobs<A> k;
        k.WA_BIAS = false;
        CHECK(wa::wake_affine_weight<V::v6_1, A>(e, k, &tr) == e.nr_cpumask_bits);
        CHECK(tr.this_eff_load == 3144704);
        CHECK(tr.prev_eff_load == 1024);
    }
    SECTION("prev_cpu busier: this") {
        // 1023 * 102400 = 104755200 < (4096 - 1023) * 114688 = 3073 * 114688 = 352436224.
        wa::wake_env<A> e = env(0, 4096);
        CHECK(wa::wake_affine<V::v6_1, A>(e, K<A>()) == e.this_cpu);
    }
    SECTION("the wakee outweighs prev: a negative prev_eff_load") {
        // (500 - 1023) * 114688 = -523 * 114688 = -59981824 (lp64: through a
        // u64 wrap; ilp32: in s64): this_eff is not below it -> prev.
        wa::wake_env<A> e = env(0, 500);
        wa::wa_trace<A> tr;
        CHECK(wa::wake_affine_weight<V::v6_1, A>(e, K<A>(), &tr) == e.nr_cpumask_bits);
        CHECK(tr.prev_eff_load == -59981824);
    }
    SECTION("sync: a waker heavier than its CPU's load pulls at once") {
        // current's h_load 3000 * 1 / (0 + 1) = 3000 > 2048.
        wa::wake_env<A> e = env(2048, 1024);
        e.sync = true;
        e.curr.load_avg = 3000;
        e.curr.cfs_h_load = 1;
        CHECK(wa::wake_affine_weight<V::v6_1, A>(e, K<A>()) == e.this_cpu);
    }
    SECTION("sync: a tie goes to this_cpu") {
        // WA_BIAS off.  current's h_load 1024 (1024 * 1 / 1).
        // this_eff = (2048 - 1024 + 1023) * 1024 = 2047 * 1024 = 2096128;
        // prev_eff = (3070 - 1023) * 1024 + 1 = 2096129: this < prev -> this_cpu.
        wa::wake_env<A> e = env(2048, 3070);
        e.sync = true;
        e.curr.load_avg = 1024;
        e.curr.cfs_h_load = 1;
        wa::knobs<A> k;
        k.WA_BIAS = false;
        wa::wa_trace<A> tr;
        CHECK(wa::wake_affine_weight<V::v6_1, A>(e, k, &tr) == e.this_cpu);
        CHECK(tr.this_eff_load == 2096128);
        CHECK(tr.prev_eff_load == 2096129);
    }
    SECTION("imbalance_pct 125 gives 112, not 112.5") {
        // h_load 112 * 1 / 1 = 112; this 0, prev 212:
        // this_eff = 112 * 100 * 1024 = 11468800; prev_eff = (212 - 112) * 112 * 1024 = 11468800:
        // a tie, not below -> prev.  (With 112.5 it would have pulled.)
        wa::wake_env<A> e = env(0, 212);
        e.p.load_avg = 112;
        e.p.cfs_h_load = 1;
        e.p.cfs_load_avg = 0;
        CHECK(wa::wake_affine_weight<V::v6_1, A>(e, K<A>()) == e.nr_cpumask_bits);
        wa::knobs<A> k;
        k.imbalance_pct = 127; // 100 + 27 / 2 = 113: prev_eff 100 * 113 * 1024 > this_eff
        CHECK(wa::wake_affine_weight<V::v6_1, A>(e, k) == e.this_cpu);
    }
}

TEMPLATE_TEST_CASE("wakeaffine: 6.1 wake_affine_idle and the features", "[wakeaffine]", sc::ilp32, sc::lp64) {
    using A = TestType;
    wa::wake_env<A> e;
    e.this_rq.weighted_cpuload = 0;
    e.prev_rq.weighted_cpuload = 1 << 20; // the weight rule would pull
    // this idle and cache-affine: prev idle too -> prev, else this.
    e.this_rq.idle = true;
    e.prev_rq.idle = true;
    CHECK(wa::wake_affine_idle<V::v6_1, A>(e, K<A>()) == e.prev_cpu);
    e.prev_rq.idle = false;
    CHECK(wa::wake_affine_idle<V::v6_1, A>(e, K<A>()) == e.this_cpu);
    // Not cache-affine: the idle this_cpu does not count; prev busy -> no preference.
    wa::knobs<A> k;
    k.cpus_share_cache = false;
    CHECK(wa::wake_affine_idle<V::v6_1, A>(e, k) == e.nr_cpumask_bits);
    // A sync waker alone on this_cpu: this.
    e.this_rq.idle = false;
    e.sync = true;
    e.this_rq.nr_running = 1;
    CHECK(wa::wake_affine_idle<V::v6_1, A>(e, K<A>()) == e.this_cpu);
    e.this_rq.nr_running = 2;
    CHECK(wa::wake_affine_idle<V::v6_1, A>(e, K<A>()) == e.nr_cpumask_bits);
    // prev idle: prev, even though the weight rule would pull.
    e.sync = false;
    e.prev_rq.idle = true;
    CHECK(wa::wake_affine<V::v6_1, A>(e, K<A>()) == e.prev_cpu);
    k = K<A>();
    k.WA_IDLE = false;
    CHECK(wa::wake_affine<V::v6_1, A>(e, k) == e.this_cpu);
    k.WA_WEIGHT = false;
    CHECK(wa::wake_affine<V::v6_1, A>(e, k) == e.prev_cpu); // neither rule: stay
}

TEST_CASE("wakeaffine: the symbolic instantiation explores effective_load and wake_affine_weight",
          "[wakeaffine]") {
    namespace m = sc::model;
    z3::context ctx;
    using S = m::sym_lp64;
    auto level = [&](const char *pfx) {
        wa::tg_path<S> g;
        g.depth = 1;
        auto c = [&](const char *n, unsigned w) { return ctx.bv_const((std::string(pfx) + n).c_str(), w); };
        g.level[0].se_load_weight = m::Sym<64>(c("se", 64));
        g.level[0].my_q_load_weight = m::Sym<64>(c("rw", 64));
        g.level[0].tg_shares = m::Sym<64>(c("S", 64));
        g.level[0].tg_load_avg = m::SSym<64>(c("W", 64));
        g.level[0].my_q_tg_load_contrib = m::Sym<64>(c("contrib", 64));
        return g;
    };
    {
        // v3.13, one level, all free: "W > 0 && w < W" is one two-way branch,
        // and each side forks on the MIN_SHARES clip: 4 paths.
        m::Explorer ex(ctx, m::Encoding::bitvector, 20000);
        auto paths = ex.explore([&] {
            wa::knobs<S> k;
            return wa::effective_load<V::v3_13, S>(level("a_"), m::SSym<64>(ctx.bv_const("wl", 64)),
                                                  m::SSym<64>(ctx.bv_const("wg", 64)), k);
        });
        CHECK(paths.size() == 4);
    }
    {
        // 6.1 wake_affine_weight: without sync only the final comparison
        // branches (2 paths); with sync the early "current heavier" test
        // adds one (3).
        auto run = [&](bool sync) {
            m::Explorer ex(ctx, m::Encoding::bitvector, 20000);
            auto paths = ex.explore([&] {
                wa::wake_env<S> e;
                e.sync = sync;
                e.this_rq.weighted_cpuload = m::Sym<64>(ctx.bv_const("lt", 64));
                e.prev_rq.weighted_cpuload = m::Sym<64>(ctx.bv_const("lp", 64));
                e.p.load_avg = m::Sym<64>(ctx.bv_const("pl", 64));
                e.p.cfs_h_load = m::Sym<64>(ctx.bv_const("ph", 64));
                e.p.cfs_load_avg = m::Sym<64>(ctx.bv_const("pc", 64));
                e.curr.load_avg = m::Sym<64>(ctx.bv_const("cl", 64));
                e.curr.cfs_h_load = m::Sym<64>(ctx.bv_const("ch", 64));
                wa::knobs<S> k;
                k.imbalance_pct = m::Sym<32>(ctx.bv_const("pct", 32));
                return wa::wake_affine_weight<V::v6_1, S>(e, k);
            });
            return paths.size();
        };
        CHECK(run(false) == 2);
        CHECK(run(true) == 3);
    }
    {
        // The older decisions instantiate too (lazy: no solver), a sync
        // wake-up of a grouped wakee.
        auto run = [&](auto tag) {
            constexpr V v = decltype(tag)::value;
            m::Explorer ex(ctx, m::Encoding::bitvector, 20000);
            ex.set_lazy(true);
            auto paths = ex.explore([&] {
                wa::wake_env<S> e;
                e.sync = true;
                e.this_rq.weighted_cpuload = m::Sym<64>(ctx.bv_const("lt", 64));
                e.prev_rq.weighted_cpuload = m::Sym<64>(ctx.bv_const("lp", 64));
                e.p.tg_on_this = level("p_");
                e.prev_rq.clock_task = m::Sym<64>(ctx.bv_const("clk", 64));
                wa::knobs<S> k;
                return wa::wake_affine<v, S>(e, k);
            });
            CHECK_FALSE(ex.path_limit_hit());
            return paths.size();
        };
        CHECK(run(std::integral_constant<V, V::v2_6_37>{}) > 1);
        CHECK(run(std::integral_constant<V, V::pjt_1>{}) > 1);
        CHECK(run(std::integral_constant<V, V::pjt_1_3>{}) > 1);
        CHECK(run(std::integral_constant<V, V::v3_13>{}) > 1);
    }
}
