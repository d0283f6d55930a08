// The wake_affine invariants (proofs/wakeaffine_invariants.h): verdicts and
// largest safe loads that the formulas decide by hand, and counterexamples
// replayed with values worked out by hand:
//   up to v3.13  this_eff = 100 * power(prev) * (this_load + w)
//                prev_eff = (100 + (pct - 100) / 2) * power(this) * load
//                (unsigned long in v2.6.37, s64 from pjt-1 on); pull if <=
//   6.1          h_load(p) = load_avg * h_load / (cfs load_avg + 1), an
//                unsigned long product; effective loads in s64; pull if <
// None of the expected values was read from the output of the code.
#include <catch2/catch.hpp>

#include <string>

#include <nlohmann/json.hpp>

#include "proofs/kernel/kernel_invariants.h"
#include "proofs/wakeaffine_invariants.h"

using nlohmann::json;
using sc::proofs::find_invariant;
using sc::proofs::find_subject;
using sc::proofs::Verdict;

namespace {

sc::proofs::ProofResult prove(const std::string &variant, const std::string &inv, sc::Arch a) {
    const sc::Variant *v = find_subject(variant);
    REQUIRE(v != nullptr);
    const sc::proofs::InvariantInfo *i = find_invariant(inv);
    REQUIRE(i != nullptr);
    REQUIRE(i->applies(*v));
    sc::proofs::ProveOptions o;
    o.timeout_ms = 60000; // a loaded machine must not turn a slow query into UNKNOWN
    return i->prove(*v, a, o);
}

sc::proofs::ReplayResult replay(const std::string &variant, const std::string &inv, sc::Arch a,
                                const std::string &case_label, const json &inputs) {
    const sc::proofs::InvariantInfo *i = find_invariant(inv);
    REQUIRE(i != nullptr);
    return i->replay(*find_subject(variant), a, json{{"case", case_label}, {"inputs", inputs}});
}

// The variants from pjt-1 on, PROVED on both data models.
void check_proved_from_pjt1(const std::string &inv) {
    for (const char *v : {"wakeaffine/pjt-1", "wakeaffine/pjt-1-3", "wakeaffine/v3.13"})
        for (sc::Arch a : {sc::Arch::ilp32, sc::Arch::lp64}) {
            INFO(v << " " << sc::arch_name(a));
            CHECK(prove(v, inv, a).verdict == Verdict::PROVED);
        }
}

} // namespace

TEST_CASE("wakeaffine.no_overflow: the largest safe loads (hand values)", "[wakeaffine-invariants]") {
    // Every load L, capacity 1024, imbalance_pct 125 (pct' 112):
    //   v2.6.37, unsigned long: 100 * 1024 * (L + L) <= ULONG_MAX
    //     ilp32: L <= (2^32 - 1) / 204800 = 20971
    //     lp64:  L <= (2^64 - 1) / 204800 = 90071992547409
    //     (the prev side, 112 * 1024 * L, allows more: 37449 on ilp32);
    //   pjt-1 .. v3.13, s64: ilp32 never (2^33 * 114688 < 2^63);
    //     lp64: L <= (2^63 - 1) / 204800 = 45035996273704;
    //   6.1: load_avg * h_load in unsigned long: ilp32 L <= 65535
    //     (65535^2 < 2^32 <= 65536^2), where the s64 products allow more.
    //     On lp64 the s64 products come first: L <= 8967799 (a later test
    //     case replays both sides).
    struct Row {
        const char *v;
        sc::Arch a;
        Verdict verdict;
        std::uint64_t safe;
    } rows[] = {
        {"wakeaffine/v2.6.37", sc::Arch::ilp32, Verdict::COUNTEREXAMPLE, 20971},
        {"wakeaffine/v2.6.37", sc::Arch::lp64, Verdict::COUNTEREXAMPLE, 90071992547409ull},
        {"wakeaffine/pjt-1", sc::Arch::ilp32, Verdict::PROVED, 0xffffffffull},
        {"wakeaffine/pjt-1", sc::Arch::lp64, Verdict::COUNTEREXAMPLE, 45035996273704ull},
        {"wakeaffine/v3.13", sc::Arch::lp64, Verdict::COUNTEREXAMPLE, 45035996273704ull},
        {"wakeaffine/v6.1", sc::Arch::ilp32, Verdict::COUNTEREXAMPLE, 65535},
        {"wakeaffine/v6.1", sc::Arch::lp64, Verdict::COUNTEREXAMPLE, 8967799},
    };
    for (const Row &r : rows) {
        INFO(r.v << " " << sc::arch_name(r.a));
        auto res = prove(r.v, "wakeaffine.no_overflow", r.a);
        CHECK(res.verdict == r.verdict);
        REQUIRE(res.bound);
        CHECK(res.bound_kind == "largest safe load");
        CHECK(*res.bound == r.safe);
    }
}

TEST_CASE("wakeaffine.no_overflow: v2.6.37 on ilp32 wraps one load above the safe one", "[wakeaffine-invariants]") {
    // this_load = w = 20972, power 1024: 100 * 1024 * 41944 = 4295065600 >
    // 2^32 - 1; at 20971: 100 * 1024 * 41942 = 4294860800 fits.  The check
    // reads x <= floor(LIMIT / f): 41944 against floor(4294967295 / 102400)
    // = 41943 (102400 * 41943 = 4294963200).
    json in = {{"this_cpu.load", 20972}, {"p.weight", 20972}};
    auto rr = replay("wakeaffine/v2.6.37", "wakeaffine.no_overflow", sc::Arch::ilp32, "not sync, wake_idx 0", in);
    CHECK(rr.violated);
    CHECK(rr.lhs == 41944);
    CHECK(rr.rhs == 41943);
    CHECK(rr.trace.find("this_eff_load") != std::string::npos);
    CHECK(rr.trace.find("prev_cpu: load 0") != std::string::npos);
    in["this_cpu.load"] = 20971;
    in["p.weight"] = 20971;
    CHECK_FALSE(replay("wakeaffine/v2.6.37", "wakeaffine.no_overflow", sc::Arch::ilp32, "not sync, wake_idx 0", in).violated);
}

TEST_CASE("wakeaffine.hot_not_moved: NO_HOT_AFFINE keeps a cache-hot wakee on prev_cpu", "[wakeaffine-invariants]") {
    for (sc::Arch a : {sc::Arch::ilp32, sc::Arch::lp64})
        CHECK(prove("wakeaffine/pjt-1-3", "wakeaffine.hot_not_moved", a).verdict == Verdict::PROVED);
    // Only the variant with the feature has the invariant.
    const auto *inv = find_invariant("wakeaffine.hot_not_moved");
    REQUIRE(inv != nullptr);
    CHECK_FALSE(inv->applies(*find_subject("wakeaffine/pjt-1")));
    CHECK_FALSE(inv->applies(*find_subject("wakeaffine/v6.1")));
    // exec_start 1000, prev's clock 1400, sysctl 500: 400 < 500, hot; this
    // CPU idle-ish (load 1024 = current) and prev loaded (4096): without the
    // feature's check the decision would pull (100*1024*(1024+1024) <=
    // 112*1024*4096), with it the wakee stays.
    json in = {{"this_cpu.load", 1024}, {"this_cpu.capacity", 1024}, {"prev_cpu.load", 4096},
               {"prev_cpu.capacity", 1024}, {"prev_cpu.clock_task", 1400}, {"p.exec_start", 1000},
               {"p.weight", 1024}, {"current.weight", 1024}, {"imbalance_pct", 125},
               {"sysctl_sched_migration_cost", 500}};
    auto rr = replay("wakeaffine/pjt-1-3", "wakeaffine.hot_not_moved", sc::Arch::lp64,
                     "not sync, wake_idx 0, NO_HOT_AFFINE on", in);
    CHECK_FALSE(rr.violated);
    CHECK(rr.trace.find("leave it on prev_cpu") != std::string::npos);
}

TEST_CASE("wakeaffine.no_overflow: 6.1 on lp64 wraps the prev side once h_load(p) reaches L^2",
          "[wakeaffine-invariants]") {
    // task_h_load(p) = load_avg * h_load / (cfs_rq load_avg + 1): with the
    // cfs_rq's load_avg 0 it is L^2.  prev_eff_load = (load(prev) - L^2) *
    // 112 * 1024 in s64: with load(prev) 0 it fits while L^2 <= (2^63 - 1)
    // / 114688 = 80421421917330, i.e. L <= 8967799 (8967799^2 =
    // 80421418904401; 8967800^2 = 80421436840000).  The this side, L^2 *
    // 102400, allows L up to 9490626.  So the largest safe load on lp64 is
    // 8967799, not the 2^32 - 1 the h_load product alone allows.
    const std::string label = "not sync, WA_IDLE off, WA_BIAS on, this_cpu busy, prev_cpu busy";
    json in = {{"p.load_avg", 8967800}, {"p.cfs_rq.h_load", 8967800}, {"p.cfs_rq.load_avg", 0}};
    auto rr = replay("wakeaffine/v6.1", "wakeaffine.no_overflow", sc::Arch::lp64, label, in);
    CHECK(rr.violated);
    CHECK(rr.failed == "prev_eff_load does not wrap (s64)");
    CHECK(rr.lhs == 80421436840000ull);
    CHECK(rr.rhs == 80421421917330ull);
    in["p.load_avg"] = 8967799;
    in["p.cfs_rq.h_load"] = 8967799;
    CHECK_FALSE(replay("wakeaffine/v6.1", "wakeaffine.no_overflow", sc::Arch::lp64, label, in).violated);
}

TEST_CASE("wakeaffine.effective_load_monotone: v2.6.37's ASYM_EFF_LOAD shortcut against a stale rq_weight",
          "[wakeaffine-invariants]") {
    // One group level, S = tg->shares 5, s = my_q->shares 3, rw =
    // my_q->rq_weight 3, my_q->load.weight 0 (the weight left since the
    // shares were computed).  w = 0: ASYM_EFF_LOAD returns wl = 0 at once.
    // w = 1: wl = wg = 1 + (0 - 3) = -2; a = 5 * (3 - 2) = 5; b = 5 * 3 +
    // 3 * (-2) = 9; wl = 3 * (5 - 9) / 9 = -12 / 9 = -1 (towards zero).
    // More weight, a lower effective load: 0 then -1.  The check states
    // "effective_load(w2) < effective_load(w1)" as 1 (true) against 0.
    json in = {{"tg->shares", 5}, {"se->load.weight", 0}, {"my_q->load.weight", 0}, {"my_q->shares", 3},
               {"my_q->rq_weight", 3}, {"w1", 0}, {"w2", 1}};
    for (sc::Arch a : {sc::Arch::ilp32, sc::Arch::lp64}) {
        INFO(sc::arch_name(a));
        auto rr = replay("wakeaffine/v2.6.37", "wakeaffine.effective_load_monotone", a, "one group level", in);
        CHECK(rr.violated);
        CHECK(rr.lhs == 1);
        CHECK(rr.rhs == 0);
        CHECK(rr.trace.find("effective_load(tg, w1 = 0, w1) = 0; effective_load(tg, w2 = 1, w2) = -1") !=
              std::string::npos);
        CHECK(prove("wakeaffine/v2.6.37", "wakeaffine.effective_load_monotone", a).verdict ==
              Verdict::COUNTEREXAMPLE);
    }
    // With the weight still there (load.weight = rw = 3) the same step is a
    // rise: wl = wg = 1, a = 5 * 4 = 20, b = 15 + 3 = 18, wl = 3 * 2 / 18 = 0.
    in["my_q->load.weight"] = 3;
    CHECK_FALSE(replay("wakeaffine/v2.6.37", "wakeaffine.effective_load_monotone", sc::Arch::lp64, "one group level",
                       in)
                    .violated);
    // Every variant with an effective_load() (6.1 has none).
    const auto *inv = find_invariant("wakeaffine.effective_load_monotone");
    REQUIRE(inv != nullptr);
    for (const char *v : {"wakeaffine/v2.6.37", "wakeaffine/pjt-1", "wakeaffine/pjt-1-3", "wakeaffine/v3.13"})
        CHECK(inv->applies(*find_subject(v)));
    CHECK_FALSE(inv->applies(*find_subject("wakeaffine/v6.1")));
}

TEST_CASE("wakeaffine.effective_load_monotone: PROVED from pjt-1 on, through a division by the group's weight",
          "[wakeaffine-invariants]") {
    // PROVED on both widths by the argument in proofs/expected/verdicts.txt:
    // floor(S * (q + w) / (R + q + w)) grows with w.
    check_proved_from_pjt1("wakeaffine.effective_load_monotone");
    // By hand: S = tg->shares 1024, the group's other weight R = 2048 - 1024
    // = 1024, q = my_q->load.weight 1024.  w = 0: 1024 * 1024 / 2048 = 512;
    // w = 1024: 1024 * 2048 / 3072 = 682 (682.67).  Less se->load.weight:
    // 512 gives 0 and 170; 1024 gives -512 and -342, a difference in
    // unsigned long read back as a negative long, in order.
    for (std::uint64_t se_w : {512u, 1024u}) {
        const std::string lo = se_w == 512 ? "0" : "-512", hi = se_w == 512 ? "170" : "-342";
        const json base = {{"tg->shares", 1024}, {"se->load.weight", se_w}, {"my_q->load.weight", 1024},
                           {"w1", 0}, {"w2", 1024}};
        json pjt = base, v313 = base;
        pjt["tg->load_weight"] = 2048;
        pjt["my_q->load_contribution"] = 1024;
        v313["tg->load_avg"] = 2048;
        v313["my_q->tg_load_contrib"] = 1024;
        for (const auto &[v, in] : {std::pair{"wakeaffine/pjt-1", pjt}, std::pair{"wakeaffine/v3.13", v313}})
            for (sc::Arch a : {sc::Arch::ilp32, sc::Arch::lp64}) {
                INFO(v << " " << sc::arch_name(a) << " se->load.weight " << se_w);
                auto rr = replay(v, "wakeaffine.effective_load_monotone", a, "one group level", in);
                CHECK_FALSE(rr.violated);
                CHECK(rr.trace.find("effective_load(tg, w1 = 0, w1) = " + lo + "; effective_load(tg, w2 = 1024, w2) = " +
                                    hi) != std::string::npos);
            }
    }
}

TEST_CASE("wakeaffine.decision_symmetric: 6.1's decision keeps a pull once this_cpu is the lighter",
          "[wakeaffine-invariants]") {
    // PROVED on both widths by the argument in proofs/expected/verdicts.txt.
    for (sc::Arch a : {sc::Arch::ilp32, sc::Arch::lp64})
        CHECK(prove("wakeaffine/v6.1", "wakeaffine.decision_symmetric", a).verdict == Verdict::PROVED);
    const auto *inv = find_invariant("wakeaffine.decision_symmetric");
    REQUIRE(inv != nullptr);
    CHECK(inv->applies(*find_subject("wakeaffine/v3.13")));
    // By hand, WA_BIAS on, capacities 1024, pct 125 (so 112): this_cpu 10500,
    // prev_cpu 10000, task_h_load(p) = load_avg 100.  Before the swap
    // this_eff = 10600 * 102400 = 1085440000 < prev_eff = 9900 * 114688 =
    // 1135411200: pulled.  After it this_eff = 10100 * 102400 = 1034240000
    // < prev_eff = 10400 * 114688 = 1192755200: pulled again.
    json in = {{"this_cpu.load", 10500}, {"prev_cpu.load", 10000}, {"p.load_avg", 100},
               {"this_cpu.nr_running", 2}, {"prev_cpu.nr_running", 2}};
    auto rr = replay("wakeaffine/v6.1", "wakeaffine.decision_symmetric", sc::Arch::lp64,
                     "not sync, WA_IDLE off, WA_BIAS on, this_cpu busy, prev_cpu busy, t <= b", in);
    INFO(rr.trace);
    CHECK_FALSE(rr.violated);
    CHECK(rr.trace.find("this_eff_load 1085440000  vs  prev_eff_load 1135411200") != std::string::npos);
    CHECK(rr.trace.find("this_eff_load 1034240000  vs  prev_eff_load 1192755200") != std::string::npos);

    // The kernels run the invariant on their own wake_affine(): PROVED by
    // the same argument (6.12's delayed-dequeue count is 0 here).  On the
    // state above each returns this_cpu (0) from wake_affine_weight(), WA_IDLE
    // being off (its answer 64, "none"), in both states.
    for (const char *k : {"linux-6.1", "linux-6.12"}) {
        INFO(k);
        for (sc::Arch a : {sc::Arch::ilp32, sc::Arch::lp64})
            CHECK(prove(k, "wakeaffine.decision_symmetric", a).verdict == Verdict::PROVED);
        auto kr = replay(k, "wakeaffine.decision_symmetric", sc::Arch::lp64,
                         "not sync, WA_IDLE off, WA_BIAS on, this_cpu busy, prev_cpu busy, t <= b", in);
        INFO(kr.trace);
        CHECK_FALSE(kr.violated);
        const std::string both = "idle target 64, weight target 0 (this_cpu 0, prev_cpu 1, none 64)";
        const auto first = kr.trace.find(both);
        REQUIRE(first != std::string::npos);
        CHECK(kr.trace.find(both, first + 1) != std::string::npos);
        // Beside the kernel's answer, 6.1's formula on the same inputs: the
        // hand values above, in each state.
        const auto formula = kr.trace.find("6.1's formula on these inputs (< pulls): this_cpu");
        REQUIRE(formula != std::string::npos);
        CHECK(kr.trace.find("this_eff_load 1085440000 vs prev_eff_load 1135411200", formula) != std::string::npos);
        CHECK(kr.trace.find("this_eff_load 1034240000 vs prev_eff_load 1192755200", formula) != std::string::npos);
        CHECK(kr.trace.find("the kernel's wake_affine_weight(): this_cpu (its loads not visible)") != std::string::npos);
    }
}

TEST_CASE("wakeaffine.decision_symmetric before 6.1: v2.6.37's 32-bit effective loads wrap into a flip",
          "[wakeaffine-invariants]") {
    // PROVED on both widths from pjt-1 on and on lp64 for v2.6.37 (the
    // argument is in proofs/expected/verdicts.txt); v2.6.37 on ilp32 has a
    // counterexample.
    check_proved_from_pjt1("wakeaffine.decision_symmetric");
    CHECK(prove("wakeaffine/v2.6.37", "wakeaffine.decision_symmetric", sc::Arch::lp64).verdict == Verdict::PROVED);
    CHECK(prove("wakeaffine/v2.6.37", "wakeaffine.decision_symmetric", sc::Arch::ilp32).verdict ==
          Verdict::COUNTEREXAMPLE);

    // By hand, not sync, wake_idx 0, capacities 1024, pct 125 (so 112),
    // wakee weight 15; this_cpu 2^20, prev_cpu 29.  In 32-bit unsigned
    // long: this_eff = 102400 * (1048576 + 15) = 107375718400, which is
    // 25 * 2^32 + 1536000, so 1536000 <= prev_eff = 114688 * 29 = 3325952:
    // balanced, pulled.  Swapped: this_eff = 102400 * 44 = 4505600 and
    // prev_eff = 114688 * 2^20 = 28 * 2^32, which wraps to 0: not
    // balanced; this_load 29 <= 2^20 but 29 + 2^20 > 29 / 2 = 14: left on
    // prev_cpu.  On lp64 nothing wraps: 107375718400 > 3325952 and 2^20 >
    // 29, so the busier this_cpu does not pull, and nothing is claimed.
    json in = {{"this_cpu.load", 1048576}, {"prev_cpu.load", 29}, {"p.weight", 15}, {"current.weight", 15},
               {"this_cpu.nr_running", 2}, {"prev_cpu.nr_running", 2}};
    auto rr = replay("wakeaffine/v2.6.37", "wakeaffine.decision_symmetric", sc::Arch::ilp32,
                     "not sync, wake_idx 0", in);
    INFO(rr.trace);
    CHECK(rr.violated);
    CHECK(rr.trace.find("this_eff_load 1536000  vs  prev_eff_load 3325952") != std::string::npos);
    CHECK(rr.trace.find("this_eff_load 4505600  vs  prev_eff_load 0") != std::string::npos);
    auto r64 = replay("wakeaffine/v2.6.37", "wakeaffine.decision_symmetric", sc::Arch::lp64, "not sync, wake_idx 0",
                      in);
    INFO(r64.trace);
    CHECK_FALSE(r64.violated);
    CHECK(r64.trace.find("this_eff_load 107375718400  vs  prev_eff_load 3325952") != std::string::npos);
}
