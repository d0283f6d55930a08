// The pelt, utilest and idlebal invariants, written once against the kernel-shaped
// interface, on reference variants and on the kernels' own extracted code:
// a variant and the kernel it is proved equivalent to get the same verdicts,
// and the counterexamples are the ones the arithmetic gives by hand.
#include <catch2/catch.hpp>

#include <filesystem>
#include <map>
#include <set>
#include <tuple>
#include <utility>

#include <nlohmann/json.hpp>

#include "oracle_gen/linux_6_1.h"
#include "oracle_gen/linux_6_12.h"
#include "proofs/report/expected.h"
#include "proofs/kernel/idlebal_kernel.h"
#include "proofs/kernel/kernel_entries.h"
#include "proofs/kernel/kernel_iface.h"
#include "proofs/kernel/wakeaffine_kernel.h"
#include "proofs/engine/query_cache.h"
#include "proofs/kernel/kernel_invariants.h"
#include "proofs/engine/matrix.h"
#include "proofs/report/reproducer.h"
#include "tests/shell.h"

namespace fs = std::filesystem;
using sc::proofs::find_invariant;
using sc::proofs::find_subject;
using sc::proofs::Verdict;

namespace {

sc::proofs::ProofResult prove(const std::string &subject, const std::string &inv, sc::Arch a) {
    const sc::Variant *v = find_subject(subject);
    REQUIRE(v != nullptr);
    const sc::proofs::InvariantInfo *i = find_invariant(inv);
    REQUIRE(i != nullptr);
    REQUIRE(i->applies(*v));
    return i->prove(*v, a, sc::proofs::ProveOptions{});
}

template <class Tuple> void add_ids(std::set<std::string> &out) {
    [&]<std::size_t... k>(std::index_sequence<k...>) {
        (out.insert(std::string(std::tuple_element_t<k, Tuple>::id)), ...);
    }(std::make_index_sequence<std::tuple_size_v<Tuple>>());
}

} // namespace

// An oracle plug-in finds an invariant by id in these lists
// (proofs/kernel/plugin_prove.h); the catalogue registers each one apart.
// (wakeaffine.decision_symmetric is the one of its family that applies to
// the 6.x form, but the list holds them all.)
// One left out of a list would say "does not apply" on every plug-in.
TEST_CASE("kernel invariants: a plug-in's lists hold every invariant of the catalogue's kernel families",
          "[kernel-invariants]") {
    std::map<std::string, std::set<std::string>> lists, catalogue;
    add_ids<sc::proofs::kentry::PeltInvariants>(lists["pelt"]);
    add_ids<sc::proofs::kentry::PeltCfsRqInvariants>(lists["pelt"]);
    add_ids<sc::proofs::kentry::UtilEstInvariants>(lists["utilest"]);
    add_ids<sc::proofs::idlebal_inv::IdleBalInvariants>(lists["idlebal"]);
    add_ids<sc::proofs::wakeaffine_inv::WakeAffineInvariants>(lists["wakeaffine"]);
    for (const sc::proofs::InvariantInfo &i : sc::proofs::invariants())
        if (lists.count(i.family))
            catalogue[i.family].insert(i.id);
    for (const auto &[fam, ids] : lists) {
        INFO(fam);
        CHECK(ids == catalogue[fam]);
    }
    CHECK(lists["idlebal"].size() == 6);
    CHECK(lists["wakeaffine"].size() == 4);
}

TEST_CASE("kernel invariants: a variant and its kernel get the same verdicts", "[kernel-invariants]") {
    const std::pair<const char *, const char *> pairs[] = {
        {"pelt/v6.1", "linux-6.1"},      {"pelt/v6.12", "linux-6.12"},
        {"utilest/v6.1", "linux-6.1"},   {"utilest/v6.12", "linux-6.12"},
        {"idlebal/v6.1", "linux-6.1"},   {"idlebal/v6.12", "linux-6.12"},
        // No reference models 6.12's delayed dequeue: 6.1's stands for both
        // where there is none (proofs/kernel/wakeaffine_kernel.h).
        {"wakeaffine/v6.1", "linux-6.1"}, {"wakeaffine/v6.1", "linux-6.12"}};
    for (const auto &[variant, kernel] : pairs) {
        const sc::Variant *k = find_subject(kernel);
        REQUIRE(k != nullptr);
        for (const auto &inv : sc::proofs::invariants()) {
            // decay_monotone (20 s a proof) and load_bounded / util_bounded
            // (a minute a step) are left to the matrix and their own tests.
            // running_converges (20 s a proof) has its own in test_running_converges.
            if (inv.id == "pelt.decay_monotone" || inv.id == "pelt.load_bounded" || inv.id == "pelt.util_bounded" ||
                inv.id == "pelt.running_converges" ||
                // idlebal.no_overflow (15 s a proof): the matrix compares it.
                inv.id == "idlebal.no_overflow" ||
                !inv.applies(*find_subject(variant)))
                continue;
            // The cfs_rq move invariants: test_cfsrq_invariants compares them
            // ("[cfsrq-invariants][slow]").
            if (inv.id == "pelt.no_underflow_visible" || inv.id == "pelt.cfs_rq_sum_avg_consistent" ||
                inv.id == "pelt.attach_detach_roundtrip")
                continue;
            // wakeaffine.no_overflow restates the reference's effective
            // loads, which a kernel's wake_affine_weight() keeps inside: it
            // is the variants' alone (proofs/wakeaffine_invariants.h).
            if (inv.id == "wakeaffine.no_overflow") {
                CHECK_FALSE(inv.applies(*k));
                continue;
            }
            REQUIRE(inv.applies(*k));
            for (sc::Arch a : {sc::Arch::ilp32, sc::Arch::lp64}) {
                INFO(variant << " vs " << kernel << " " << inv.id << " " << sc::arch_name(a));
                auto rv = inv.prove(*find_subject(variant), a, {});
                auto rk = inv.prove(*k, a, {});
                CHECK(rv.verdict == rk.verdict);
                // The one UNKNOWN allowed: an induction step that fails,
                // on both alike.
                if (rv.verdict == Verdict::UNKNOWN) {
                    CHECK(rv.reason.rfind("not inductive", 0) == 0);
                    CHECK(rk.reason.rfind("not inductive", 0) == 0);
                }
            }
        }
    }
    // The expected file says the same for every pair, decay_monotone included.
    for (const auto &[variant, kernel] : pairs)
        for (const auto &e : sc::proofs::builtin_expected())
            if (e.variant == variant && e.invariant != "wakeaffine.no_overflow") {
                auto k = sc::proofs::expected_verdict(kernel, e.invariant, e.arch);
                INFO(variant << " " << e.invariant);
                REQUIRE(k.has_value());
                CHECK(*k == e.verdict);
            }
}

TEST_CASE("pelt.time_accounted: v4.3 drops the sub-unit rest, v4.12 and 6.1 keep it (hand values)",
          "[kernel-invariants]") {
    // 1397 ns after the last update: one whole 1024 ns unit and 373 ns.
    // v3.8/v4.3 set last_update_time = now (the 373 ns are never counted);
    // from v4.12 on last_update_time advances by 1024 and the 373 ns stay
    // pending for the next update.
    nlohmann::json in = {{"delta_ns", 1397}, {"last_update_time", 0}, {"load_avg", 0},  {"load_sum", 0},
                         {"on_rq", 1},       {"period_contrib", 0},   {"runnable_avg", 0}, {"runnable_sum", 0},
                         {"running", 1},     {"util_avg", 0},         {"util_sum", 0},  {"weight", 1024}};
    const auto *inv = find_invariant("pelt.time_accounted");
    REQUIRE(inv != nullptr);
    for (const char *v : {"pelt/v3.8", "pelt/v4.3", "pelt/v4.12", "pelt/v6.1", "linux-6.1", "linux-6.12"}) {
        nlohmann::json doc = {{"case", "any update"}, {"inputs", in}};
        auto rr = inv->replay(*find_subject(v), sc::Arch::lp64, doc);
        INFO(v);
        bool old = std::string(v) == "pelt/v3.8" || std::string(v) == "pelt/v4.3";
        CHECK(rr.violated == old);
        if (old) {
            CHECK(rr.failed == "the clock moves by whole 1024ns units");
            CHECK(rr.lhs == 373u);
        }
    }
    // And the proof finds it, on both data models, for both old releases.
    for (const char *v : {"pelt/v3.8", "pelt/v4.3"})
        for (sc::Arch a : {sc::Arch::ilp32, sc::Arch::lp64}) {
            auto r = prove(v, "pelt.time_accounted", a);
            CHECK(r.verdict == Verdict::COUNTEREXAMPLE);
            REQUIRE(r.cex.has_value());
        }
    CHECK(prove("pelt/v4.12", "pelt.time_accounted", sc::Arch::ilp32).verdict == Verdict::PROVED);
}

TEST_CASE("pelt.decay_monotone: v3.8's 64-bit product wraps (hand values)", "[kernel-invariants]") {
    // v3.8: decay_load(val, 1) = val * runnable_avg_yN_inv[1] >> 32 with the
    // product cut to 64 bits, yN_inv[1] = 0xfa83b2da = 4202935002.
    // floor((2^64 - 1) / 4202935002) = 4389014834: that val's product still
    // fits and gives 0xffffffff; one more, 4389014835, makes the product
    // 2^64 + 609203054, which wraps to 609203054 < 2^32, so its decay is 0:
    // more load gives less.
    const auto *inv = find_invariant("pelt.decay_monotone");
    nlohmann::json doc = {{"case", "n 1"},
                          {"inputs", {{"val", 4389014834ull}, {"val2", 4389014835ull}, {"n", 1}}}};
    auto rr = inv->replay(*find_subject("pelt/v3.8"), sc::Arch::lp64, doc);
    CHECK(rr.violated);
    CHECK(rr.failed == "non-decreasing in val");
    CHECK(rr.lhs == 0xffffffffull);
    CHECK(rr.rhs == 0u);
    // From v4.3 on the product is formed in 96 bits: the same inputs hold.
    auto ok = inv->replay(*find_subject("pelt/v6.1"), sc::Arch::lp64, doc);
    CHECK_FALSE(ok.violated);
}

namespace {
// pelt/v6.12's decay_load() bent from n = 1000 on, for the halving lemma
// of pelt.decay_monotone (proofs/pelt_invariants.h):
//   Kind 0: decay_load(val, 1000) = val, no decay at n = 1000 alone;
//   Kind 1: decay_load(val, n) = 0 for every n >= 1000.
template <int Kind> struct BentDecay {
    static constexpr sc::pelt::version shape = sc::pelt::version::v6_12;
    template <class A> struct on {
        using u64 = typename A::u64;
        static u64 decay_load(u64 val, u64 n) {
            if constexpr (Kind == 0) {
                if (n == u64(1000))
                    return val;
            } else {
                if (n >= u64(1000))
                    return u64(0);
            }
            return sc::pelt::decay_load<sc::pelt::version::v6_12, A>(val, n);
        }
    };
};
} // namespace

// A case n >= 32 is proved from case n - 32 only where the lemma
// decay_load(val, m) == decay_load(val >> 1, m - 32), m = n, n + 1, is
// checked to hold; elsewhere on its own.
TEST_CASE("pelt.decay_monotone: the halving lemma is checked, not assumed", "[kernel-invariants]") {
    using sc::proofs::pelt_inv::DecayMonotone;
    const sc::Variant *v = find_subject("pelt/v6.12");
    REQUIRE(v != nullptr);
    auto prove_on = [&]<class I>() { return sc::proofs::kentry::prove<DecayMonotone, I>(*v, sc::Arch::lp64, {}); };

    // Unbent: every case from 32 to 2048 (2,017 of them) follows from the
    // one 32 below; 0..31 and "n > 2048" are proved on their own.
    const auto plain = prove_on.operator()<sc::proofs::iface::RefPelt<sc::pelt::version::v6_12>>();
    CHECK(plain.verdict == Verdict::PROVED);
    CHECK(plain.reason.rfind("2017 of 2050 cases from an earlier one by the halving lemma", 0) == 0);

    // Kind 0: in case 999 the lemma fails at m = 1000 (val against
    // decay_load(val >> 1, 968), which is below val), so the case is proved
    // directly, and decay_load(val, 1000) = val > decay_load(val, 999)
    // breaks "non-increasing in n"; val = 1 is the least that does (1
    // against 1 >> 31 = 0).  Had the lemma been assumed, case 999 would
    // have followed from case 967, and case 1000 holds on its own: PROVED.
    const auto bent = prove_on.operator()<BentDecay<0>>();
    CHECK(bent.verdict == Verdict::COUNTEREXAMPLE);
    CHECK(bent.reason == "case n 999");
    REQUIRE(bent.cex.has_value());
    std::map<std::string, std::uint64_t> in(bent.cex->inputs.begin(), bent.cex->inputs.end());
    CHECK(in["n"] == 999u);
    CHECK(in["val"] == 1u);

    // Kind 1: decay_load is still monotone (the values fall to 0 at 1000),
    // but the lemma fails wherever one side is at or past 1000 and the
    // other is not: m = n = 1000..1031 and m = n + 1 = 1000 (case 999).
    // Those 33 cases are proved directly: 2017 - 33 = 1984 by the lemma.
    const auto zero = prove_on.operator()<BentDecay<1>>();
    CHECK(zero.verdict == Verdict::PROVED);
    CHECK(zero.reason.rfind("1984 of 2050 cases from an earlier one by the halving lemma", 0) == 0);
}

TEST_CASE("kernel invariants: a counterexample is written, loads and replays through the CLI",
          "[kernel-invariants]") {
    fs::path out = fs::temp_directory_path() / ("schedcheck-kinv-" + std::to_string(getpid()));
    fs::remove_all(out);
    Run r = run_argv({SCHEDCHECK_BIN, "prove", "--variant", "pelt/v4.3", "--invariant", "pelt.time_accounted",
                      "--arch", "lp64", "--out", out.string()});
    INFO(r.out);
    CHECK(r.code == 0); // the expected file says COUNTEREXAMPLE
    fs::path repro = out / "reproducers" / "pelt_v4.3_pelt.time_accounted_lp64.json";
    REQUIRE(fs::exists(repro));
    Run rp = run_argv({SCHEDCHECK_BIN, "replay", "--json", repro.string()});
    INFO(rp.out);
    REQUIRE(rp.code == 0);
    CHECK(nlohmann::json::parse(rp.out)["violated"] == true);
    Run ex = run_argv({SCHEDCHECK_BIN, "explain", repro.string()});
    CHECK(ex.out.find("the clock moves by whole 1024ns units") != std::string::npos);
    // prove --oracle takes the built-in kernels, and refuses anything else.
    Run ko = run_argv({SCHEDCHECK_BIN, "prove", "--oracle", "linux-6.12", "--invariant", "utilest.flag_isolated"});
    INFO(ko.out);
    CHECK(ko.code == 0);
    CHECK(ko.out.find("linux-6.12") != std::string::npos);
    Run bad = run_argv({SCHEDCHECK_BIN, "prove", "--oracle", "no-such-kernel"});
    CHECK(bad.code == 2);
    fs::remove_all(out);
}

// pelt.sum_avg_consistent's step fails on 6.x after exactly 2^32 periods
// without an update.  By hand: period_contrib 0 and now - last_update_time
// = 2^52 ns = 2^42 units of 1024 ns = 2^32 periods of 1024 units.
// accumulate_sum() returns that count as u32, i.e. 0, so the averages are
// not recomputed, while decay_load(sum, 2^32) = 0 (past 63 * 32 periods).
// One period less (2^32 - 1) is seen and recomputes load_avg to 0.
template <class I> void sum_avg_case() {
    using A = sc::lp64;
    for (std::uint64_t units : {std::uint64_t(1) << 42, (std::uint64_t(1) << 42) - 1024}) {
        sc::pelt::sched_avg<A> sa{};
        sa.load_sum = 1;
        sa.load_avg = 1;
        sa.last_update_time = 0;
        auto r = I::template on<A>::update_load_avg(units << 10, sa, 0, 0, 0, 1024);
        INFO("units " << units);
        CHECK(sa.load_sum == 0);
        if (units == std::uint64_t(1) << 42) {
            CHECK(r == 0);           // "no period crossed"
            CHECK(sa.load_avg == 1); // kept over a zero sum
        } else {
            CHECK(r == 1);
            CHECK(sa.load_avg == 0);
        }
    }
}

TEST_CASE("pelt.sum_avg_consistent: the u32 period count after 2^32 periods (hand values)", "[kernel-invariants]") {
    sum_avg_case<sc::proofs::iface::RefPelt<sc::pelt::version::v6_1>>();
    sum_avg_case<sc::proofs::iface::RefPelt<sc::pelt::version::v6_12>>();
#if SC_ORACLE_LINUX_6_1
    sum_avg_case<sc::proofs::iface::KernelPelt<sc::oracle_gen::linux_6_1::kernel>>();
#endif
#if SC_ORACLE_LINUX_6_12
    sum_avg_case<sc::proofs::iface::KernelPelt<sc::oracle_gen::linux_6_12::kernel>>();
#endif
    // The engine's verdict: a counterexample from the zero sched_avg.  By
    // hand, the first search point that breaks it: 1024 units running
    // (period_contrib 0 -> one boundary, contrib = decay_load(1024, 1) +
    // (47742 - decay_load(47742, 1) - 1024) + 0 = 1002 + 0 = 1002), so
    // util_sum = runnable_sum = 1002 << 10 and util_avg = runnable_avg =
    // 1026048 / 46718 = 21; then 2^42 units asleep, and both sums decay to
    // 0 under averages of 21.  6.x checks runnable first, v4.12 has none.
    for (const char *subject : {"pelt/v6.1", "linux-6.12", "pelt/v4.12"}) {
        auto r = prove(subject, "pelt.sum_avg_consistent", sc::Arch::lp64);
        INFO(subject << ": " << r.reason);
        CHECK(r.verdict == Verdict::COUNTEREXAMPLE);
        CHECK(r.reason.find("reachable trace") != std::string::npos);
        REQUIRE(r.cex.has_value());
        const auto &doc = r.cex->reproducer;
        CHECK(doc["inputs"]["first_us"] == 1024);
        CHECK(doc["inputs"]["period_us"] == std::uint64_t(1) << 42);
        const bool six = std::string(subject) != "pelt/v4.12";
        auto rr = find_invariant("pelt.sum_avg_consistent")->replay(*find_subject(subject), sc::Arch::lp64, doc);
        CHECK(rr.violated);
        CHECK(rr.lhs_name == (six ? "runnable_avg" : "util_avg"));
        CHECK(rr.lhs == 21);
    }
}

// pelt.util_bounded: 6.x lets util_avg reach 1025.  A task always running,
// updated first 44 units after time 0 and then every 1024 units: every
// update crosses one boundary with d1 = 1024 - 44 = 980 and d3 = 44, so
// util_sum' = decay_load(util_sum, 1) + ((decay_load(980, 1) + 0 + 44) << 10)
// = decay_load(util_sum, 1) + 1003 << 10, whose limit 1027072 / (1 - y)
// lies a few units above 1025 * (46718 + 44).  Computed exactly, with
// the same integer steps in a separate model: after update 544, util_sum
// = 47931054 >= 1025 * 46762 = 47931050, so util_avg = 1025.  Of the 1024
// phases only 44, 184 and 324 get there within 1024 updates.  v4.12
// divides by LOAD_AVG_MAX and stays at or below 1024.
TEST_CASE("pelt.util_bounded: util_avg 1025 on 6.x (exact values), bounded on v4.12", "[kernel-invariants]") {
    for (const char *subject : {"pelt/v6.1", "pelt/v6.12", "linux-6.1", "linux-6.12"}) {
        if (!find_subject(subject))
            continue;
        for (sc::Arch a : {sc::Arch::ilp32, sc::Arch::lp64}) {
            auto r = prove(subject, "pelt.util_bounded", a);
            INFO(subject << " " << sc::arch_name(a) << ": " << r.reason);
            REQUIRE(r.verdict == Verdict::COUNTEREXAMPLE);
            const auto &in = r.cex->reproducer["inputs"];
            CHECK(in["first_us"] == 44);
            CHECK(in["period_us"] == 1024);
            auto rr = find_invariant("pelt.util_bounded")->replay(*find_subject(subject), a, r.cex->reproducer);
            CHECK(rr.violated);
            CHECK(rr.lhs == 1025);
            // The shrinker may clear `running` after the first update: then
            // runnable_avg, which sums the same way, is the one at 1025.
            const std::string sig = rr.lhs_name.substr(0, rr.lhs_name.find('_'));
            CHECK((sig == "util" || sig == "runnable"));
            std::map<std::string, std::uint64_t> shown;
            for (const auto &[name, v] : rr.steps.at(0).values)
                shown[name] = v;
            CHECK(shown["update"] == 544);
            CHECK(shown[sig + "_sum after"] == 47931054);
            CHECK(shown["period_contrib after"] == 44);
        }
    }
    // v4.12: the same search finds nothing (its divisor is LOAD_AVG_MAX);
    // whether its step is proved is the matrix's business (it is slow).
    using I412 = sc::proofs::iface::RefPelt<sc::pelt::version::v4_12>;
    sc::pelt::sched_avg<sc::lp64> sa{};
    for (std::uint64_t k = 0; k <= 544; ++k)
        I412::on<sc::lp64>::update_load_avg((44 + 1024 * k) << 10, sa, 1, 1, 1, 1024);
    CHECK(sa.util_avg <= 1024);
}

// pelt.load_bounded on 6.x: load_sum counts runnable units, and its
// bound PELT_MIN_DIVIDER + period_contrib is the divider itself, so
// load_avg = weight * load_sum / divider <= weight.  At the phase-44 trace
// above load_sum reaches exactly 46762 = the divider: load_avg = weight.
TEST_CASE("pelt: on the phase-44 trace load_sum reaches the divider exactly", "[kernel-invariants]") {
    using I = sc::proofs::iface::RefPelt<sc::pelt::version::v6_1>;
    using A = sc::lp64;
    sc::pelt::sched_avg<A> sa{};
    for (std::uint64_t k = 0; k <= 544; ++k)
        I::on<A>::update_load_avg((44 + 1024 * k) << 10, sa, 1, 1, 1, 88761);
    CHECK(sa.load_sum == 46762);
    CHECK(sa.period_contrib == 44);
    CHECK(sa.load_avg == 88761);
    CHECK(sa.util_avg == 1025);
}

// pelt.load_bounded on v4.12: load_sum is weighted (weight * contrib is
// added) and decay_load() truncates the weighted sum once per boundary,
// where weight * (the unit series behind LOAD_AVG_MAX) truncates every
// term: a busy task's load_sum settles about 19.5 * weight above
// weight * (46718 + period_contrib).  v4.12 divides by the constant 47742,
// only 1 above 46718 + 1023, so an update that lands at period_contrib
// 1023 gives load_avg = weight + 1 once 18.5 * weight >= 47742, i.e. for
// weights from about 2580 on (the model: every weight 2585..2999, none of
// 15..2584, within 4096 updates).  Updates 1025 units apart from time 0 land
// one unit later in the period each time (update k at pc = k mod 1024).
// Computed with a separate exact model of v4.12's accumulate_sum() (the
// table as floor((2^32 - 1) * 2^(-n/32))): weight 2585, update 1023:
// load_sum = 123460822 and 47742 * 2586 = 123460812 <= 123460822 <
// 47742 * 2587, so load_avg = 2586 > 2585; weight 2584 never exceeds
// its weight within 4096 updates.
TEST_CASE("pelt.load_bounded: v4.12's load_avg exceeds the weight (exact values)", "[kernel-invariants]") {
    using I = sc::proofs::iface::RefPelt<sc::pelt::version::v4_12>;
    using A = sc::lp64;
    auto first_above = [](std::uint64_t weight, std::uint64_t &k_out) {
        sc::pelt::sched_avg<A> sa{};
        for (std::uint64_t k = 0; k <= 4096; ++k) {
            I::on<A>::update_load_avg((1025 * k) << 10, sa, 1, 1, 1, weight);
            if (sa.load_avg > weight) {
                k_out = k;
                return sa;
            }
        }
        k_out = 0;
        return sa;
    };
    std::uint64_t k = 0;
    const auto sa = first_above(2585, k);
    CHECK(k == 1023);
    CHECK(sa.load_sum == 123460822);
    CHECK(sa.period_contrib == 1023);
    CHECK(sa.load_avg == 2586);
    first_above(2584, k);
    CHECK(k == 0);
    // The proof finds such a trace from the zero sched_avg (its search),
    // and the counterexample replays: load_avg = load_sum / 47742 > weight.
    for (sc::Arch a : {sc::Arch::ilp32, sc::Arch::lp64}) {
        auto r = prove("pelt/v4.12", "pelt.load_bounded", a);
        INFO(sc::arch_name(a) << ": " << r.reason);
        REQUIRE(r.verdict == Verdict::COUNTEREXAMPLE);
        const auto &in = r.cex->reproducer["inputs"];
        CHECK(in["period_us"] > 1024);
        CHECK(in["weight"] >= 2580);
        auto rr = find_invariant("pelt.load_bounded")->replay(*find_subject("pelt/v4.12"), a, r.cex->reproducer);
        CHECK(rr.violated);
        std::map<std::string, std::uint64_t> shown;
        for (const auto &[name, v] : rr.steps.at(0).values)
            shown[name] = v;
        CHECK(rr.lhs == shown["load_sum after"] / 47742);
        CHECK(rr.lhs > in["weight"].get<std::uint64_t>());
    }
}

TEST_CASE("query cache: Z3's let-names are renumbered, nothing else", "[kernel-invariants]") {
    using sc::proofs::query_cache::canonical;
    const std::string a = "(let (($x30 (<= val 5))) (let ((?x7 (bvadd x y))) (and $x30 (= ?x7 z))))";
    const std::string b = "(let (($x91 (<= val 5))) (let ((?x12 (bvadd x y))) (and $x91 (= ?x12 z))))";
    const std::string c = "(let (($x91 (<= val 6))) (let ((?x12 (bvadd x y))) (and $x91 (= ?x12 z))))";
    const std::string d = "(let (($x91 (<= val 5))) (let ((?x12 (bvadd x y))) (and $x91 (= ?x91 z))))";
    CHECK(canonical(a) == canonical(b));
    CHECK(canonical(a) != canonical(c)); // a constant differs
    CHECK(canonical(a) != canonical(d)); // the sharing differs
    CHECK(canonical("(declare-fun val () Int)") == "(declare-fun val () Int)");
}

// An incremental solver that calls a satisfiable domain empty has lost its
// footing, and its other unsat answers are not to be trusted.  The proof is
// thrown away with the entries it put in the query cache and done again on
// a new solver; the second attempt's verdict is the one an undisturbed
// proof gives, and says that it is a second attempt.  Going wrong twice
// gives no verdict.  (The wrong state is injected: a real one is rare.)
TEST_CASE("kprop: a domain wrongly called empty restarts the proof on a new solver", "[kernel-invariants]") {
    // utilest.bounded has eight cases, one per setting of UTIL_EST,
    // UTIL_EST_FASTUP and task_sleep (off before on, in that order), each
    // with a few unsat checks: the first attempt caches some before case 3.
    // It takes well under a second, so each attempt below is cheap.
    const sc::Variant *k = find_subject("linux-6.1");
    REQUIRE(k != nullptr);
    const sc::proofs::InvariantInfo *i = find_invariant("utilest.bounded");
    REQUIRE(i != nullptr);
    const std::string case3 = "UTIL_EST off, UTIL_EST_FASTUP on, task_sleep off";
    const std::string case5 = "UTIL_EST on, UTIL_EST_FASTUP off, task_sleep off";

    // First, while this process's cache does not hold these queries (ctest
    // runs each test case in a process of its own): both attempts' entries
    // are forgotten, so the cache does not grow.
    const sc::proofs::query_cache::Stats before = sc::proofs::query_cache::stats();
    sc::proofs::ProveOptions twice;
    twice.fault_empty_domain.case_no = 3;
    twice.fault_empty_domain.attempts = 2;
    const sc::proofs::ProofResult none = i->prove(*k, sc::Arch::lp64, twice);
    CHECK(none.verdict == Verdict::UNKNOWN);
    CHECK(none.reason == "the solvers went wrong twice (first the incremental solver called the domain of case " +
                             case3 + " empty, then the incremental solver called the domain of case " + case3 +
                             " empty); no verdict");
    CHECK(!none.cex);
    CHECK(sc::proofs::query_cache::stats().entries <= before.entries);

    const sc::proofs::ProofResult plain = i->prove(*k, sc::Arch::lp64, sc::proofs::ProveOptions{});
    REQUIRE(plain.verdict == Verdict::PROVED);
    // A redone proof: the undisturbed proof's verdict, paths and detail,
    // and what its first attempt's solver did.
    auto check_redone = [](const sc::proofs::ProofResult &r, const sc::proofs::ProofResult &undisturbed,
                           const std::string &first) {
        CHECK(r.verdict == Verdict::PROVED);
        CHECK(r.paths == undisturbed.paths);
        CHECK(r.reason == undisturbed.reason + (undisturbed.reason.empty() ? "" : "; ") +
                              "done again from the start on new solvers, after " + first);
    };
    sc::proofs::ProveOptions once = twice;
    once.fault_empty_domain.attempts = 1;
    check_redone(i->prove(*k, sc::Arch::lp64, once), plain,
                 "the incremental solver called the domain of case " + case3 + " empty");

    // A solver whose base holds false after case 5 (a real wrong state, not
    // an injected answer) is caught by the check of its empty base at the
    // end of that case; the domain of case 6 is never asked of it.
    sc::proofs::ProveOptions base;
    base.fault_false_base.case_no = 5;
    base.fault_false_base.attempts = 1;
    check_redone(i->prove(*k, sc::Arch::lp64, base), plain,
                 "the incremental solver found its empty base unsatisfiable after case " + case5);
    base.fault_false_base.attempts = 2;
    const sc::proofs::ProofResult twice_base = i->prove(*k, sc::Arch::lp64, base);
    CHECK(twice_base.verdict == Verdict::UNKNOWN);
    CHECK(twice_base.reason.rfind("the solvers went wrong twice (first the incremental solver found its empty base",
                                  0) == 0);

    // The path explorer's solver is held to the same test, since its unsat
    // answers prune paths.  utilest.bounded never asks it (each case's
    // branches are decided by its constants); pelt.running_converges does,
    // from its first induction case on, after the base case (its search
    // is no case).  With false in its base after the base case, that
    // induction case is where it is caught.  The redone proof runs first,
    // so that the undisturbed one finds its queries in the cache.
    const sc::proofs::InvariantInfo *rc = find_invariant("pelt.running_converges");
    REQUIRE(rc != nullptr);
    sc::proofs::ProveOptions ex;
    ex.fault_false_base = {1, 1, true};
    const sc::proofs::ProofResult redone = rc->prove(*k, sc::Arch::lp64, ex);
    const sc::proofs::ProofResult rc_plain = rc->prove(*k, sc::Arch::lp64, sc::proofs::ProveOptions{});
    REQUIRE(rc_plain.verdict == Verdict::PROVED);
    check_redone(redone, rc_plain,
                 "the path explorer's solver found its empty base unsatisfiable after case induction step: an "
                 "update of a running task, no boundary crossed");
}

// pelt.decay_monotone checks its query solvers' bases after every 16th of
// its 2,050 cases only (base_check_every).  A solver that goes wrong after
// case 5 is then caught by the check after case 16 (n 15), the attempt is
// thrown away, and the proof done again gives the undisturbed verdict.
TEST_CASE("kprop: a spaced-out base check still catches a solver gone wrong", "[kernel-invariants]") {
    const sc::Variant *v = find_subject("pelt/v6.12");
    REQUIRE(v != nullptr);
    const sc::proofs::InvariantInfo *i = find_invariant("pelt.decay_monotone");
    REQUIRE(i != nullptr);
    sc::proofs::ProveOptions base;
    base.fault_false_base.case_no = 5;
    base.fault_false_base.attempts = 1;
    const sc::proofs::ProofResult redone = i->prove(*v, sc::Arch::lp64, base);
    const sc::proofs::ProofResult plain = i->prove(*v, sc::Arch::lp64, sc::proofs::ProveOptions{});
    REQUIRE(plain.verdict == Verdict::PROVED);
    CHECK(redone.verdict == Verdict::PROVED);
    CHECK(redone.paths == plain.paths);
    CHECK(redone.reason == plain.reason + (plain.reason.empty() ? "" : "; ") +
                               "done again from the start on new solvers, after the incremental solver found its "
                               "empty base unsatisfiable after case n 15");
}

// `review` proves a built-in image in the background while the other one
// compiles, and cancels those proofs when the build fails: a cancelled
// proof, and every job not yet started, is UNKNOWN "cancelled", never
// PROVED; without the flag the same jobs are proved.
TEST_CASE("run_matrix: a cancelled run proves nothing and says so", "[kernel-invariants]") {
    const sc::Variant *k = find_subject("linux-6.1");
    REQUIRE(k != nullptr);
    const sc::proofs::InvariantInfo *i = find_invariant("pelt.time_accounted");
    REQUIRE(i != nullptr);
    const std::vector<sc::proofs::Job> jobs = {{k, i, sc::Arch::ilp32}, {k, i, sc::Arch::lp64}};
    std::atomic<bool> cancel{true};
    sc::proofs::ProveOptions opt;
    opt.cancel = &cancel;
    for (const auto &r : sc::proofs::run_matrix(jobs, opt, 2)) {
        CHECK(r.verdict == Verdict::UNKNOWN);
        CHECK(r.reason == "cancelled");
        CHECK(r.variant == "linux-6.1");
        CHECK(r.invariant == "pelt.time_accounted");
    }
    // A proof that starts and then sees the flag stops before its next case.
    sc::proofs::ProofResult r = i->prove(*k, sc::Arch::lp64, opt);
    CHECK(r.verdict == Verdict::UNKNOWN);
    CHECK(r.reason == "cancelled");
    cancel = false;
    for (const auto &r2 : sc::proofs::run_matrix(jobs, opt, 2))
        CHECK(r2.verdict == Verdict::PROVED);
}
