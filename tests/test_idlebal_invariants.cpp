// The idle-balance invariants (proofs/idlebal_invariants.h): verdicts that
// the formulas decide by hand, and counterexamples replayed with values
// worked out by hand:
//   update_avg      avg' = avg + (sample - avg) >> 3   (up to v3.13: floor)
//                   avg' = avg + (sample - avg) / 8    (6.x: towards zero)
//   wake-up cap     v3.11: a sample above 2*sysctl sets avg_idle := 2*sysctl;
//                   low-1 on: average first, then min(avg, cap);
//                   cap = 2*sysctl (u32) up to low-1-2, 2*max_idle_balance_cost after
//   decay           cost' = cost * 253 / 256 (rounded down)
// None of the expected values was read from the output of the code.
#include <catch2/catch.hpp>

#include <algorithm>
#include <cmath>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <string>

#include <nlohmann/json.hpp>

#include "proofs/report/expected.h"
#include "oracle_gen/linux_6_1.h"
#include "oracle_gen/linux_6_12.h"
#include "proofs/idlebal_invariants.h"
#include "proofs/kernel/idlebal_kernel.h"
#include "proofs/kernel/kernel_invariants.h"
#include "proofs/report/reproducer.h"
#include "tests/shell.h"

namespace fs = std::filesystem;
using nlohmann::json;
using sc::proofs::find_invariant;
using sc::proofs::find_subject;
using sc::proofs::Verdict;
namespace ib = sc::idlebal;

namespace {

sc::proofs::ProofResult prove(const std::string &variant, const std::string &inv, sc::Arch a) {
    const sc::Variant *v = find_subject(variant);
    REQUIRE(v != nullptr);
    const sc::proofs::InvariantInfo *i = find_invariant(inv);
    REQUIRE(i != nullptr);
    REQUIRE(i->applies(*v));
    return i->prove(*v, a, sc::proofs::ProveOptions{});
}

sc::proofs::ReplayResult replay(const std::string &variant, const std::string &inv, sc::Arch a,
                                const std::string &case_label, const json &inputs) {
    const sc::proofs::InvariantInfo *i = find_invariant(inv);
    REQUIRE(i != nullptr);
    return i->replay(*find_subject(variant), a, json{{"case", case_label}, {"inputs", inputs}});
}

} // namespace

TEST_CASE("idlebal.avg_idle_no_jump: v3.11's cap on the sample jumps, low-1's cap on the average does not",
          "[idlebal-invariants]") {
    // sysctl 1 ns: cap 2.  avg_idle 0, idle for 3 ns.
    //   v3.11: 3 > 2, so avg_idle := 2: a move of 2, and 8 * 2 = 16 > 3.
    //   low-1: 0 + (3 >> 3) = 0, min(0, 2) = 0: no move.
    json in = {{"sysctl_sched_migration_cost", 1}, {"avg_idle", 0}, {"idle_stamp", 1}, {"sample", 3}};
    for (sc::Arch a : {sc::Arch::ilp32, sc::Arch::lp64}) {
        auto rr = replay("idlebal/v3.11", "idlebal.avg_idle_no_jump", a, "wakeup", in);
        CHECK(rr.violated);
        CHECK(rr.lhs == 16);
        CHECK(rr.rhs == 3);
        CHECK_FALSE(replay("idlebal/low-1", "idlebal.avg_idle_no_jump", a, "wakeup", in).violated);
    }
    CHECK(prove("idlebal/v3.11", "idlebal.avg_idle_no_jump", sc::Arch::lp64).verdict == Verdict::COUNTEREXAMPLE);
    for (const char *v : {"idlebal/low-1", "idlebal/low-1-2", "idlebal/low-1-3", "idlebal/v6.1", "idlebal/v6.12"}) {
        INFO(v);
        CHECK(prove(v, "idlebal.avg_idle_no_jump", sc::Arch::lp64).verdict == Verdict::PROVED);
    }
}

TEST_CASE("idlebal.avg_idle_no_jump: the rounding bound of the signed shift", "[idlebal-invariants]") {
    // avg 15, sample 0: d = -15.  ">> 3" gives floor(-15/8) = -2 (avg 13),
    // a move of 2 with 8 * 2 = 16 > 15: the fall is the eighth rounded up,
    // which is why the bound for ">> 3" is |d| + 7 (16 <= 22).  "/ 8"
    // gives -1 (avg 14), 8 <= 15.
    typename sc::lp64::u64 a = 15, b = 15;
    ib::update_avg<ib::version::low_1, sc::lp64>(a, 0);
    ib::update_avg<ib::version::v6_1, sc::lp64>(b, 0);
    CHECK(a == 13);
    CHECK(b == 14);
    // avg 8, sample 7: ">> 3" reaches the sample (-1 >> 3 == -1), "/ 8"
    // stays 1 ns above it (-1 / 8 == 0).
    json in = {{"sysctl_sched_migration_cost", 500000}, {"max_idle_balance_cost", 500000}, {"avg_idle", 8},
               {"idle_stamp", 100}, {"sample", 7}};
    CHECK_FALSE(replay("idlebal/low-1", "idlebal.avg_idle_no_jump", sc::Arch::lp64, "wakeup", in).violated);
    CHECK_FALSE(replay("idlebal/v6.1", "idlebal.avg_idle_no_jump", sc::Arch::lp64, "wakeup", in).violated);
}

TEST_CASE("idlebal.avg_idle_capped: proved up to low-1-2; low-1-3 and 6.x leave avg_idle above a decayed cap",
          "[idlebal-invariants]") {
    for (const char *v : {"idlebal/v3.11", "idlebal/low-1", "idlebal/low-1-2"}) {
        INFO(v);
        CHECK(prove(v, "idlebal.avg_idle_capped", sc::Arch::ilp32).verdict == Verdict::PROVED);
    }
    auto r = prove("idlebal/low-1-3", "idlebal.avg_idle_capped", sc::Arch::lp64);
    CHECK(r.verdict == Verdict::COUNTEREXAMPLE);
    REQUIRE(r.cex);
    CHECK(r.reason.find("rebalance") != std::string::npos);

    // The counterexample is reached from sched_init() (sysctl 500 us, one
    // domain, HZ 250, jiffies 0):
    //   init:      avg_idle 1000000, max_idle_balance_cost 500000, cost 0,
    //              next decay at jiffy 0;
    //   newidle:   avg_idle >= 500000, 1000000 >= 0 + 0: level 0 balances
    //              for 2 ms: sd cost 2000000, rq cost 2000000;
    //   wake-up:   100 ms idle: 1000000 + (99000000 >> 3) = 13375000,
    //              capped at 2 * 2000000 = 4000000;
    //   rebalance at jiffy 1 (> 0): cost 2000000 * 253 / 256 = 1976562,
    //              rq cost max(500000, 1976562) = 1976562,
    //              cap 3953124 < avg_idle 4000000.
    using A = sc::lp64;
    ib::knobs<A> k;
    k.sysctl_sched_migration_cost = 500000;
    k.HZ = 250;
    ib::scenario<A> s;
    s.kn = k;
    s.init = ib::fresh_rq<ib::version::low_1_3, A>(1, 0, k);
    ib::step<A> ni;
    ni.kind = ib::op::newidle;
    ni.ni.now = 1000000000;
    ni.ni.sched_clock = 1000000000;
    ni.ni.lb_cost[0] = 2000000;
    ib::step<A> wk;
    wk.kind = ib::op::wakeup;
    wk.now = 1100000000;
    ib::step<A> rb;
    rb.kind = ib::op::rebalance;
    rb.jiffies = 1;
    s.steps = {ni, wk, rb};
    auto t = ib::simulate<ib::version::low_1_3, A>(s);
    CHECK(t.recs[0].after.max_idle_balance_cost == 2000000);
    CHECK(t.recs[1].after.avg_idle == 4000000);
    CHECK(t.recs[2].after.max_idle_balance_cost == 1976562);
    CHECK(t.recs[2].after.avg_idle > 2 * t.recs[2].after.max_idle_balance_cost);

    // The same last step as a one-step case of the invariant, and its
    // timeline in microseconds.
    json in = {{"sysctl_sched_migration_cost", 500000}, {"avg_idle", 4000000}, {"max_idle_balance_cost", 2000000},
               {"sd[0].max_newidle_lb_cost", 2000000}, {"sd[0].next_decay_max_lb_cost", 0}, {"rb.jiffies", 1}};
    auto rr = replay("idlebal/low-1-3", "idlebal.avg_idle_capped", sc::Arch::lp64, "rebalance, nr_domains 1, stop at -", in);
    CHECK(rr.violated);
    CHECK(rr.lhs == 4000000);
    CHECK(rr.rhs == 3953124);
    CHECK(rr.trace.find("avg_idle 4000.000 us") != std::string::npos);
    CHECK(rr.trace.find("periodic rebalance at jiffies 1") != std::string::npos);
    CHECK(rr.trace.find("max_idle_balance_cost 1976.562 us") != std::string::npos);
}

// On the 6.x variants and on the kernels' own code, where the decay is the
// kernel's update_newidle_cost().
TEST_CASE("idlebal.avg_idle_capped: the 6.x decay lowers the cap under avg_idle too",
          "[idlebal-invariants][kernel-invariants]") {
    // One domain, HZ 250, sysctl 500 us; avg_idle 4000000 = 2 * 2000000,
    // the cap after a 2 ms balance.  The periodic rebalance at jiffy 251
    // finds the last decay (jiffy 0) more than HZ jiffies old: sd cost
    // 2000000 * 253 / 256 = 1976562 (505999936 / 256 rounded down), the rq
    // cost max(500000, 1976562) = 1976562, the cap 3953124 < 4000000.
    json in = {{"sysctl_sched_migration_cost", 500000}, {"avg_idle", 4000000}, {"max_idle_balance_cost", 2000000},
               {"sd[0].max_newidle_lb_cost", 2000000}, {"sd[0].last_decay_max_lb_cost", 0}, {"rb.jiffies", 251}};
    for (const char *v : {"idlebal/v6.1", "idlebal/v6.12", "linux-6.1", "linux-6.12"})
        for (sc::Arch a : {sc::Arch::ilp32, sc::Arch::lp64}) {
            INFO(v << " " << sc::arch_name(a));
            auto rr = replay(v, "idlebal.avg_idle_capped", a, "rebalance, nr_domains 1, stop at -", in);
            CHECK(rr.violated);
            CHECK(rr.lhs == 4000000);
            CHECK(rr.rhs == 3953124);
        }
    // At jiffy 250 the decay is not due yet (250 is not after 0 + 250).
    in["rb.jiffies"] = 250;
    CHECK_FALSE(replay("idlebal/v6.12", "idlebal.avg_idle_capped", sc::Arch::lp64, "rebalance, nr_domains 1, stop at -", in)
                    .violated);
}

// The rounding of a falling average on the kernels' own update_avg().
TEST_CASE("idlebal on linux-6.1 and linux-6.12: a falling sample within 8 ns moves avg_idle by 0 (hand values)",
          "[idlebal-invariants][kernel-invariants]") {
    // avg 8, sample 7: "/ 8" of -1 is 0, avg_idle stays 8: a move of 0.
    json w = {{"sysctl_sched_migration_cost", 500000}, {"max_idle_balance_cost", 500000}, {"avg_idle", 8},
              {"idle_stamp", 100}, {"sample", 7}};
    for (const char *k : {"linux-6.1", "linux-6.12"})
        for (sc::Arch a : {sc::Arch::ilp32, sc::Arch::lp64}) {
            INFO(k << " " << sc::arch_name(a));
            CHECK_FALSE(replay(k, "idlebal.avg_idle_no_jump", a, "wakeup", w).violated);
        }
}

namespace {

// A stand-in oracle class that counts its calls and answers with marks, to
// show that the kernel walks call the oracle's functions and keep what they
// return (not the reference's).
struct SpyCalls {
    int avg = 0, stats = 0, cost = 0;
    unsigned long hz = 0, jiffies = 0;
};
SpyCalls spy_calls;
template <class A> struct Spy {
    struct sched_domain {
        typename A::u64 max_newidle_lb_cost{};
        typename A::ulong last_decay_max_lb_cost{};
        typename A::uint newidle_call{}, newidle_success{}, newidle_ratio{};
    };
    static inline thread_local const typename A::ulong *shim_jiffies = nullptr;
    static inline thread_local int shim_HZ = 250;
    static void update_avg(typename A::u64 *avg, typename A::u64) {
        ++spy_calls.avg;
        *avg = 4242;
    }
    static void update_newidle_stats(sched_domain *sd, typename A::uint) {
        ++spy_calls.stats;
        sd->newidle_ratio = 77;
    }
    static bool update_newidle_cost(sched_domain *sd, typename A::u64 cost, typename A::uint) {
        ++spy_calls.cost;
        spy_calls.hz = static_cast<unsigned long>(shim_HZ);
        spy_calls.jiffies = static_cast<unsigned long>(*shim_jiffies);
        sd->max_newidle_lb_cost = cost + 1;
        return true;
    }
};

} // namespace

TEST_CASE("idlebal on a kernel: the walks call the oracle's functions and keep their results",
          "[idlebal-invariants][kernel-invariants]") {
    using KI = sc::proofs::idlebal_inv::KernelIdleBal<Spy, ib::version::v6_12>::on<sc::lp64>;
    ib::knobs<sc::lp64> kn;
    kn.HZ = 1000;
    kn.NI_RANDOM = true;
    ib::rq<sc::lp64> r = ib::fresh_rq<ib::version::v6_12, sc::lp64>(1, 0, kn);
    r.idle_stamp = 10;
    r.avg_idle = 100;
    r.max_idle_balance_cost = 1u << 20;
    KI::update_rq_avg_idle(r, 20, 5, kn);
    CHECK(spy_calls.avg == 1);
    CHECK(r.avg_idle == 4242); // the spy's mark, under the cap 2 * 2^20

    ib::rebalance_env<sc::lp64> rb;
    rb.jiffies = 9;
    KI::rebalance_domains(r, rb, kn);
    CHECK(spy_calls.cost == 1);
    CHECK(spy_calls.hz == 1000);
    CHECK(spy_calls.jiffies == 9);
    CHECK(r.sd[0].max_newidle_lb_cost == 1); // cost 0 + 1
    // The spy said "decayed": the rq cost is max(sysctl 500000, 1).
    CHECK(r.max_idle_balance_cost == 500000);

    // A dice skip (rng 1023 > 1 + ratio 512) goes through the oracle's stats.
    ib::newidle_env<sc::lp64> ni;
    ni.now = 1000;
    ni.rng[0] = 1023;
    r.avg_idle = 1u << 30;
    KI::idle_balance(r, ni, kn);
    CHECK(spy_calls.stats == 1);
    CHECK(r.sd[0].newidle_ratio == 77);
}

// The real oracles, concretely: 6.x's "/ 8" rounds a falling average towards
// zero (avg 15, sample 0: 15 - 15/8 = 14, where ">> 3" would give 13).
TEST_CASE("idlebal on a kernel: the oracle's update_avg rounds towards zero (hand values)",
          "[idlebal-invariants][kernel-invariants]") {
    auto check = [](auto tag) {
        using KI = typename decltype(tag)::template on<sc::lp64>;
        ib::knobs<sc::lp64> kn;
        ib::rq<sc::lp64> r = ib::fresh_rq<ib::version::v6_1, sc::lp64>(1, 0, kn);
        r.avg_idle = 15;
        r.idle_stamp = 100;
        KI::update_rq_avg_idle(r, 100, 0, kn); // a sample of 0 ns
        CHECK(r.avg_idle == 14);
    };
#if SC_ORACLE_LINUX_6_1
    check(sc::proofs::idlebal_inv::KernelIdleBal<sc::oracle_gen::linux_6_1::kernel, ib::version::v6_1>{});
#endif
#if SC_ORACLE_LINUX_6_12
    check(sc::proofs::idlebal_inv::KernelIdleBal<sc::oracle_gen::linux_6_12::kernel, ib::version::v6_12>{});
#endif
}

TEST_CASE("idlebal.recovers: low-1-2 never forgets a cost; low-1-3 and 6.x within the reported time",
          "[idlebal-invariants]") {
    // low-1-2 has no decay: a cost of 1 ms stays 1 ms, not 1000000 * 253 /
    // 256 = 988281.
    json in = {{"sysctl_sched_migration_cost", 500000}, {"x", 1000000}};
    auto rr = replay("idlebal/low-1-2", "idlebal.recovers", sc::Arch::lp64, "decay due, HZ 100, nr_domains 1, stop at -", in);
    CHECK(rr.violated);
    CHECK(rr.lhs == 1000000);
    CHECK(rr.rhs == 988281);
    CHECK(prove("idlebal/low-1-2", "idlebal.recovers", sc::Arch::lp64).verdict == Verdict::COUNTEREXAMPLE);

    // From 2^30 ns to 500 us at 253/256 a decay: log(2^30 / 500000) /
    // log(256 / 253) = 650.84, so 651 decays without rounding; rounding
    // down only speeds the decay, by less than 1 ns a step, which cannot
    // save a whole decay here (the 650th leaves about 505000).  At HZ 100 a
    // decay every 101 jiffies of 10 ms: 651 * 1010 = 657510 ms.
    const double exact = std::log(1073741824.0 / 500000.0) / std::log(256.0 / 253.0);
    CHECK(std::ceil(exact) == 651);
    for (const char *v : {"idlebal/low-1-3", "idlebal/v6.1", "idlebal/v6.12"}) {
        INFO(v);
        auto r = prove(v, "idlebal.recovers", sc::Arch::ilp32);
        CHECK(r.verdict == Verdict::PROVED);
        REQUIRE(r.bound);
        CHECK(*r.bound == 651u * 1010u);
        CHECK(r.bound_kind == "ms");
    }
    // Before the series the cost is not remembered at all.
    auto r = prove("idlebal/v3.11", "idlebal.recovers", sc::Arch::lp64);
    CHECK(r.verdict == Verdict::PROVED);
    REQUIRE(r.bound);
    CHECK(*r.bound == 0);
}

TEST_CASE("idlebal.no_overflow: 2 * sysctl wraps in unsigned int up to low-1-2", "[idlebal-invariants]") {
    // sysctl 2^31 ns (2.1 s, writable at run time): 2 * 2^31 = 2^32 wraps
    // to a cap of 0.
    json in = {{"sysctl_sched_migration_cost", 2147483648u}, {"idle_stamp", 1}, {"now", 1}};
    for (sc::Arch a : {sc::Arch::ilp32, sc::Arch::lp64}) {
        auto rr = replay("idlebal/v3.11", "idlebal.no_overflow", a, "wakeup", in);
        CHECK(rr.violated);
        CHECK(rr.lhs == 2147483648u);
        CHECK(rr.rhs == 2147483647u);
        CHECK_FALSE(replay("idlebal/low-1-3", "idlebal.no_overflow", a, "wakeup", in).violated);
    }
    auto r = prove("idlebal/low-1", "idlebal.no_overflow", sc::Arch::ilp32);
    CHECK(r.verdict == Verdict::COUNTEREXAMPLE);
    REQUIRE(r.cex);
    bool found = false;
    for (const auto &[n, x] : r.cex->inputs)
        if (n == "sysctl_sched_migration_cost") {
            found = true;
            CHECK(x >= 2147483648u);
        }
    CHECK(found);
    CHECK(prove("idlebal/v6.12", "idlebal.no_overflow", sc::Arch::ilp32).verdict == Verdict::PROVED);
}

TEST_CASE("idlebal.skip_sound and cost_decay_monotone hold on the 6.x forms", "[idlebal-invariants]") {
    CHECK(prove("idlebal/v6.12", "idlebal.skip_sound", sc::Arch::lp64).verdict == Verdict::PROVED);
    auto r = prove("idlebal/v6.1", "idlebal.cost_decay_monotone", sc::Arch::ilp32);
    CHECK(r.verdict == Verdict::PROVED);
    // 2^42 ns decays to 0 in at most the steps of the real-number decay to
    // 1 (log(2^42) / log(256/253) = 2469.7) plus one.
    REQUIRE(r.bound);
    CHECK(*r.bound <= 2471u * 1010u);
    CHECK(*r.bound % 1010u == 0);
    // The skip test: a level is cut when avg_idle < curr_cost +
    // sd->max_newidle_lb_cost.  6.12, one level (the 6.x walks are proved
    // over one level): avg_idle 100, sd[0] cost 100: 100 < 0 + 100 is
    // false, so level 0 balances, and its cost counts the blocked-load
    // update too: 30 + 50 = 80.
    json in = {{"avg_idle", 100}, {"sd[0].max_newidle_lb_cost", 100}, {"ni.blocked_cost", 30}, {"ni.lb_cost[0]", 50}};
    auto rr = replay("idlebal/v6.12", "idlebal.skip_sound", sc::Arch::lp64, "newidle, nr_domains 1, pulls at -", in);
    CHECK_FALSE(rr.violated);
    CHECK(rr.trace.find("level 0: load_balance() ran") != std::string::npos);
    CHECK(rr.trace.find("curr_cost 0.080 us") != std::string::npos);
    // low-1-3, two levels, no blocked-load cost: level 0 costs 50, so level
    // 1 (cost 51) is cut: 100 < 50 + 51.
    json in2 = {{"sysctl_sched_migration_cost", 0}, {"avg_idle", 100}, {"sd[0].max_newidle_lb_cost", 100},
                {"sd[1].max_newidle_lb_cost", 51}, {"ni.lb_cost[0]", 50}, {"ni.lb_cost[1]", 7}};
    auto rr2 = replay("idlebal/low-1-3", "idlebal.skip_sound", sc::Arch::lp64, "newidle, nr_domains 2, pulls at -", in2);
    CHECK_FALSE(rr2.violated);
    CHECK(rr2.trace.find("level 1: walk stopped") != std::string::npos);
    CHECK(rr2.trace.find("curr_cost 0.050 us") != std::string::npos);
}

TEST_CASE("idlebal on a kernel through the CLI: --oracle picks the subject, --family its invariants; the "
          "counterexample replays on the kernel",
          "[idlebal-invariants][kernel-invariants]") {
    fs::path out = fs::temp_directory_path() / ("schedcheck-ibk-" + std::to_string(getpid()));
    fs::remove_all(out);
    Run r = run_argv({SCHEDCHECK_BIN, "prove", "--oracle", "linux-6.12", "--family", "idlebal", "--invariant",
                      "idlebal.avg_idle_capped", "--arch", "lp64", "--out", out.string(), "--json"});
    INFO(r.out);
    REQUIRE(r.code == 0); // the expected file says COUNTEREXAMPLE
    auto j = json::parse(r.out);
    REQUIRE(j["results"].size() == 1);
    const auto &x = j["results"][0];
    CHECK(x["variant"] == "linux-6.12");
    CHECK(x["verdict"] == "COUNTEREXAMPLE");
    const std::string repro = x["counterexample"]["reproducer"];
    Run rp = run_argv({SCHEDCHECK_BIN, "replay", "--json", repro});
    INFO(rp.out);
    REQUIRE(rp.code == 0);
    auto jr = json::parse(rp.out);
    CHECK(jr["violated"] == true);
    CHECK(jr["variant"] == "linux-6.12");
    // A state within the cap that a decay leaves above it: avg_idle > cap.
    REQUIRE(jr.contains("comparison"));
    CHECK(jr["comparison"]["lhs"]["value"].get<std::uint64_t>() > jr["comparison"]["rhs"]["value"].get<std::uint64_t>());
    fs::remove_all(out);

    // Without --oracle, --family idlebal takes both kernels along with the
    // six variants.
    Run f = run_argv({SCHEDCHECK_BIN, "prove", "--family", "idlebal", "--invariant", "idlebal.recovers", "--arch",
                      "lp64", "--json"});
    INFO(f.out);
    REQUIRE(f.code == 0);
    auto jf = json::parse(f.out);
    CHECK(jf["results"].size() == 8);
    int kernels = 0;
    for (const auto &y : jf["results"])
        kernels += y["variant"] == "linux-6.1" || y["variant"] == "linux-6.12";
    CHECK(kernels == 2);
}

TEST_CASE("idlebal invariants: a counterexample is written, loads and replays through the CLI",
          "[idlebal-invariants]") {
    fs::path out = fs::temp_directory_path() / ("schedcheck-ibinv-" + std::to_string(getpid()));
    fs::remove_all(out);
    Run r = run_argv({SCHEDCHECK_BIN, "prove", "--variant", "idlebal/v3.11", "--invariant", "idlebal.avg_idle_no_jump",
                      "--arch", "lp64", "--out", out.string()});
    INFO(r.out);
    CHECK(r.code == 0); // the expected file says COUNTEREXAMPLE
    fs::path repro = out / "reproducers" / "idlebal_v3.11_idlebal.avg_idle_no_jump_lp64.json";
    REQUIRE(fs::exists(repro));
    Run rp = run_argv({SCHEDCHECK_BIN, "replay", "--json", repro.string()});
    INFO(rp.out);
    REQUIRE(rp.code == 0);
    CHECK(nlohmann::json::parse(rp.out)["violated"] == true);
    // The reviewer report: the timeline in microseconds.
    fs::path report = out / "reports" / "idlebal_v3.11_idlebal.avg_idle_no_jump_lp64.txt";
    REQUIRE(fs::exists(report));
    std::ifstream f(report);
    std::string text((std::istreambuf_iterator<char>(f)), std::istreambuf_iterator<char>());
    CHECK(text.find("wake-up at rq_clock") != std::string::npos);
    CHECK(text.find(" us") != std::string::npos);
    fs::remove_all(out);
}

TEST_CASE("regression: every reproducer in corpora/idlebal and corpora/wakeaffine still reproduces", "[corpus]") {
    std::size_t n = 0;
    for (const char *family : {"idlebal", "wakeaffine"}) {
        const fs::path dir = fs::path(SCHEDCHECK_SOURCE_DIR) / "corpora" / family;
        if (!fs::exists(dir))
            continue;
        for (const auto &e : fs::directory_iterator(dir)) {
            if (e.path().extension() != ".json")
                continue;
            ++n;
            INFO(e.path().string());
            Run r = run_argv({SCHEDCHECK_BIN, "replay", "--json", e.path().string()});
            REQUIRE(r.code == 0);
            auto j = nlohmann::json::parse(r.out);
            CHECK(j["violated"] == true);
            // Where the failed comparison follows from the inputs by one
            // formula, check it by hand as well.
            const json doc = json::parse(std::ifstream(e.path()));
            const json &in = doc["inputs"];
            if (doc["invariant"] == "idlebal.recovers" && doc["variant"] == "idlebal/low-1-2") {
                // No decay before low-1-3: the cost x stays, against x * 253 / 256.
                const std::uint64_t x = in["x"];
                CHECK(j["comparison"]["lhs"]["value"] == x);
                CHECK(j["comparison"]["rhs"]["value"] == x * 253 / 256);
            }
            if (doc["invariant"] == "idlebal.no_overflow" && doc["case"] == "wakeup") {
                // 2 * sysctl in unsigned int: wraps from 2^31 on.
                const std::uint64_t sysctl = in["sysctl_sched_migration_cost"];
                CHECK(sysctl >= 2147483648u);
                CHECK(j["comparison"]["lhs"]["value"] == sysctl);
                CHECK(j["comparison"]["rhs"]["value"] == 2147483647u);
            }
            if (doc["invariant"] == "idlebal.avg_idle_capped" && doc["case"] == "rebalance, nr_domains 1, stop at -") {
                // One domain: the decay is due when jiffies is after the
                // stamp (low-1-3: next_decay_max_lb_cost; 6.x:
                // last_decay_max_lb_cost + HZ 250), told from the sign of
                // the wrapped difference at the arch's width; then the rq
                // cost becomes max(sysctl, cost * 253 / 256), the cap twice it.
                const bool ilp32 = doc["arch"] == "ilp32";
                const std::uint64_t mask = ilp32 ? 0xffffffffull : ~0ull, sign = ilp32 ? 1ull << 31 : 1ull << 63;
                const bool low13 = doc["variant"] == "idlebal/low-1-3";
                const std::uint64_t stamp =
                    low13 ? std::uint64_t(in["sd[0].next_decay_max_lb_cost"])
                          : (std::uint64_t(in["sd[0].last_decay_max_lb_cost"]) + 250) & mask;
                const std::uint64_t jiffies = in["rb.jiffies"];
                const bool due = ((stamp - jiffies) & mask & sign) != 0;
                const std::uint64_t sd = in["sd[0].max_newidle_lb_cost"], sysctl = in["sysctl_sched_migration_cost"];
                const std::uint64_t rq = due ? std::max(sysctl, sd * 253 / 256) : std::uint64_t(in["max_idle_balance_cost"]);
                CHECK(j["comparison"]["lhs"]["value"] == in["avg_idle"]);
                CHECK(j["comparison"]["rhs"]["value"] == 2 * rq);
                CHECK(std::uint64_t(in["avg_idle"]) > 2 * rq);
            }
            auto exp = sc::proofs::expected_verdict(j["variant"], j["invariant"],
                                                    j["arch"] == "ilp32" ? sc::Arch::ilp32 : sc::Arch::lp64);
            REQUIRE(exp.has_value());
            CHECK(*exp == Verdict::COUNTEREXAMPLE);
        }
    }
    CHECK(n > 0);
}
