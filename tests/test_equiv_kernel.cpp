// Equivalence of the pelt and utilest variants with the PELT and util_est
// functions extracted at build time from the Linux 6.1 and 6.12 sources.
// The expected distinguishing outputs are worked out by hand from the
// functions' definitions, not taken from a run.
#include <catch2/catch.hpp>

#include "oracle_gen/linux_6_1.h"
#include "oracle_gen/linux_6_12.h"
#include "proofs/decay_table.h"
#include "proofs/equiv/equiv.h"
#include "proofs/invariant.h"

using namespace sc;
using namespace sc::proofs;

namespace {
bool kernels_available() {
#if SC_ORACLE_LINUX_6_1 && SC_ORACLE_LINUX_6_12
    return true;
#else
    WARN("Linux 6.1/6.12 sources not available at build time, kernel equivalence tests skipped");
    return false;
#endif
}

std::uint64_t input(const EquivResult &r, const std::string &name) {
    for (const auto &[k, v] : r.inputs)
        if (k == name)
            return v;
    FAIL("no input " << name);
    return 0;
}
std::pair<std::uint64_t, std::uint64_t> output(const EquivResult &r, const std::string &name) {
    for (const auto &[k, v] : r.outputs)
        if (k == name)
            return v;
    FAIL("no output " << name);
    return {};
}
} // namespace

TEST_CASE("equiv kernel: pelt and utilest 6.x are equivalent to the kernel's own functions", "[equiv]") {
    if (!kernels_available())
        return;
    struct Pair {
        const char *variant, *oracle;
        std::size_t functions;
    } pairs[] = {{"pelt/v6.1", "linux-6.1", 6},
                 {"pelt/v6.12", "linux-6.12", 6},
                 {"pelt/v6.1", "linux-6.12", 6}, // the PELT arithmetic did not change
                 {"utilest/v6.1", "linux-6.1", 7},
                 {"utilest/v6.12", "linux-6.12", 6}};
    for (const auto &p : pairs)
        for (Arch a : {Arch::ilp32, Arch::lp64}) {
            INFO(p.variant << " vs " << p.oracle << " " << arch_name(a));
            EquivResult r = prove_equivalence(*find_variant(p.variant), p.oracle, a, 20000);
            CHECK(r.verdict == EquivVerdict::EQUIVALENT);
            CHECK(r.compared.size() == p.functions);
            CHECK(r.skipped.empty());
            CHECK(r.paths > 0);
        }
}

TEST_CASE("equiv kernel: v4.3's decay_load(val, 0) keeps val, 6.1 multiplies by 0xffffffff/2^32", "[equiv]") {
    if (!kernels_available())
        return;
    EquivResult r = prove_equivalence(*find_variant("pelt/v4.3"), "linux-6.1", Arch::lp64, 20000);
    REQUIRE(r.verdict == EquivVerdict::DIFFERENT);
    CHECK(r.function == "decay_load");
    CHECK(r.skipped.size() == 5); // only decay_load exists on both sides
    std::uint64_t val = input(r, "val");
    CHECK(input(r, "n") == 0);
    auto [ref, orc] = output(r, "result");
    CHECK(ref == val);
    // floor(val * (2^32 - 1) / 2^32) = val - ceil(val / 2^32)
    CHECK(orc == val - (val >> 32) - ((val & 0xffffffffu) ? 1 : 0));
}

TEST_CASE("equiv kernel: bellasi-v3 reads the flag bit of enqueued as a value bit, 6.1 masks it", "[equiv]") {
    if (!kernels_available())
        return;
    EquivResult r = prove_equivalence(*find_variant("utilest/bellasi-v3"), "linux-6.1", Arch::ilp32, 20000);
    REQUIRE(r.verdict == EquivVerdict::DIFFERENT);
    std::uint64_t enq = input(r, "p.util_est.enqueued"), ewma = input(r, "p.util_est.ewma");
    if (r.function == "_task_util_est") {
        auto [ref, orc] = output(r, "_task_util_est");
        CHECK(ref == std::max(enq, ewma));
        CHECK(orc == std::max<std::uint64_t>(enq & 0x7fffffffu, ewma));
    }
}

TEST_CASE("equiv kernel: different util_est layouts and unknown pairings are input errors", "[equiv]") {
    if (!kernels_available())
        return;
    CHECK_THROWS_AS(prove_equivalence(*find_variant("utilest/v6.12"), "linux-6.1", Arch::lp64, 1000), input_error);
    CHECK_THROWS_AS(prove_equivalence(*find_variant("utilest/v6.1"), "linux-6.12", Arch::lp64, 1000), input_error);
    CHECK_THROWS_AS(prove_equivalence(*find_variant("cpuload/v3.13"), "linux-6.1", Arch::lp64, 1000), input_error);
    CHECK_THROWS_AS(prove_equivalence(*find_variant("pelt/v6.1"), "linux-5.4", Arch::lp64, 1000), input_error);
}

TEST_CASE("equiv kernel: the extracted decay tables regenerate from y^32 = 1/2", "[equiv]") {
    if (!kernels_available())
        return;
    // Hand values: y^16 = 2^-1/2, so entry 16 = floor((2^32-1)/sqrt 2) = 0xb504f333;
    // entry 0 = 2^32-1.
    CHECK(decay_table_entry(0) == 0xffffffffu);
    CHECK(decay_table_entry(16) == 0xb504f333u);
    CHECK(converged_load_avg_max() == 47742);
    for (const auto &o : oracles())
        if (o.id.rfind("linux-", 0) == 0) {
            INFO(o.id);
            CHECK(o.self_checked);
            CHECK(o.self_check.empty());
        }
    // A corrupted copy is reported entry by entry.
    auto t = oracle_gen::linux_6_1::kernel<lp64>::runnable_avg_yN_inv;
    t.v[5] += 1;
    auto d = check_decay_table(t, 47743);
    REQUIRE(d.size() == 2);
    CHECK(d[0].find("runnable_avg_yN_inv[5]") != std::string::npos);
    CHECK(d[1].find("LOAD_AVG_MAX = 47743, regenerated 47742") != std::string::npos);
}

TEST_CASE("equiv kernel: idlebal 6.x equals the kernel's update_avg and newidle cost helpers", "[equiv][idlebal]") {
    if (!kernels_available())
        return;
    for (const char *v : {"idlebal/v6.1", "idlebal/v6.12"})
        for (const char *o : {"linux-6.1", "linux-6.12"})
            for (Arch a : {Arch::ilp32, Arch::lp64}) {
                INFO(v << " vs " << o << " " << arch_name(a));
                EquivResult r = prove_equivalence(*find_variant(v), o, a, 20000);
                CHECK(r.verdict == EquivVerdict::EQUIVALENT);
                CHECK(r.compared ==
                      std::vector<std::string>{"update_avg", "update_newidle_stats", "update_newidle_cost"});
                CHECK(r.skipped.empty());
            }
}

TEST_CASE("equiv kernel: before 6.x update_avg shifts a negative difference, the kernel divides", "[equiv][idlebal]") {
    if (!kernels_available())
        return;
    for (const char *v : {"idlebal/v3.11", "idlebal/low-1-3"}) {
        INFO(v);
        EquivResult r = prove_equivalence(*find_variant(v), "linux-6.12", Arch::lp64, 20000);
        REQUIRE(r.verdict == EquivVerdict::DIFFERENT);
        CHECK(r.function == "update_avg");
        CHECK(r.compared == std::vector<std::string>{"update_avg"});
        REQUIRE(r.skipped.size() == 1);
        CHECK(r.skipped[0].rfind("update_newidle_cost", 0) == 0);
        // diff = sample - avg as an s64; ">> 3" rounds down, "/ 8" towards
        // zero, so they part exactly for a negative diff that 8 does not
        // divide, and then the kernel's result is one higher.
        std::uint64_t avg = input(r, "avg"), sample = input(r, "sample");
        std::int64_t diff = static_cast<std::int64_t>(sample - avg);
        CHECK(diff < 0);
        CHECK(diff % 8 != 0);
        auto [ref, orc] = output(r, "avg");
        CHECK(ref == avg + static_cast<std::uint64_t>(diff >> 3));
        CHECK(orc == avg + static_cast<std::uint64_t>(diff / 8));
        CHECK(orc == ref + 1);
    }
}

TEST_CASE("equiv kernel: wakeaffine/v6.1 equals 6.1's wake_affine(); 6.12 counts delayed tasks out", "[equiv][wakeaffine]") {
    if (!kernels_available())
        return;
    const std::vector<std::string> all{"task_h_load", "wake_affine_idle", "wake_affine_weight", "wake_affine"};
    for (Arch a : {Arch::ilp32, Arch::lp64}) {
        INFO(arch_name(a));
        EquivResult r = prove_equivalence(*find_variant("wakeaffine/v6.1"), "linux-6.1", a, 20000);
        CHECK(r.verdict == EquivVerdict::EQUIVALENT);
        CHECK(r.compared == all);
        // 6.12's wake_affine_idle() takes this_cpu's waker to be alone when
        // nr_running minus the delayed-dequeue tasks (h_nr_queued -
        // h_nr_runnable) is 1; 6.1 (and the reference) when nr_running is.
        // Only a sync wake-up reaches that test, past an idle this_cpu that
        // shares the cache.
        EquivResult d = prove_equivalence(*find_variant("wakeaffine/v6.1"), "linux-6.12", a, 20000);
        REQUIRE(d.verdict == EquivVerdict::DIFFERENT);
        CHECK(d.function == "wake_affine_idle");
        REQUIRE(d.differences.size() == 2);
        CHECK(d.differences[1].function == "wake_affine");
        CHECK(input(d, "sync") == 1);
        std::uint32_t nr = static_cast<std::uint32_t>(input(d, "this_rq.nr_running"));
        std::uint32_t delayed = static_cast<std::uint32_t>(input(d, "this_rq.cfs.h_nr_queued") -
                                                           input(d, "this_rq.cfs.h_nr_runnable"));
        CHECK(!(input(d, "this_idle") == 1 && input(d, "cpus_share_cache") == 1));
        CHECK((nr == 1) != (nr - delayed == 1u));
        // The side whose waker is alone answers this_cpu (0); the other
        // goes on to prev_cpu (1) if it is idle, else no preference (64).
        const std::uint64_t other = input(d, "prev_idle") == 1 ? 1 : 64;
        auto [ref, orc] = output(d, "target");
        CHECK(ref == (nr == 1 ? 0 : other));
        CHECK(orc == (nr == 1 ? other : 0));
    }
}

TEST_CASE("equiv kernel: the wakeaffine variants before 6.x have no function the kernels hold", "[equiv][wakeaffine]") {
    if (!kernels_available())
        return;
    for (const char *v : {"wakeaffine/v2.6.37", "wakeaffine/v3.13"}) {
        INFO(v);
        CHECK_THROWS_WITH(prove_equivalence(*find_variant(v), "linux-6.1", Arch::lp64, 20000),
                          Catch::Contains("effective_load()"));
    }
}
