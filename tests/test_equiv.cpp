// Equivalence of the reference variants with the oracles extracted at build
// time from the seed-000 patch series (pre-image and post-images).
#include <catch2/catch.hpp>

#include "oracle_gen/seed000.h"
#include "proofs/equiv/equiv.h"
#include "proofs/invariant.h"

using namespace sc;
using namespace sc::proofs;

namespace {
bool seed_available() {
#if SC_SEED000
    return true;
#else
    WARN("seed 000 not available at build time, equivalence tests skipped: " << oracle_gen::seed000_reason);
    return false;
#endif
}
} // namespace

TEST_CASE("equiv: the patch images are equivalent to the variants they are meant to equal", "[equiv]") {
    if (!seed_available())
        return;
    struct Pair {
        const char *variant, *oracle;
        std::size_t functions;
    } pairs[] = {{"cpuload/v3.13", "seed000-pre", 4},
                 {"cpuload/shi-1", "seed000-pre", 4}, // patch 1/4 touches none of these functions
                 {"cpuload/shi-1-3", "seed000-post3", 3},
                 {"cpuload/shi-1-5", "seed000-post5", 3}};
    for (const auto &p : pairs)
        for (Arch a : {Arch::ilp32, Arch::lp64}) {
            INFO(p.variant << " vs " << p.oracle << " " << arch_name(a));
            EquivResult r = prove_equivalence(*find_variant(p.variant), p.oracle, a, 10000);
            CHECK(r.verdict == EquivVerdict::EQUIVALENT);
            CHECK(r.compared.size() == p.functions);
            CHECK(r.paths > 0);
        }
}

TEST_CASE("equiv: a variant and the wrong image differ, with an input replayed on both sides", "[equiv]") {
    if (!seed_available())
        return;
    // shi-1-3 keeps no history, the pre-image decays cpu_load[1..4].
    EquivResult r = prove_equivalence(*find_variant("cpuload/shi-1-3"), "seed000-pre", Arch::lp64, 10000);
    REQUIRE(r.verdict == EquivVerdict::DIFFERENT);
    CHECK(r.function == "__update_cpu_load");
    std::map<std::string, std::uint64_t> in(r.inputs.begin(), r.inputs.end());
    bool differs = false;
    for (const auto &[name, v] : r.outputs) {
        if (name == "cpu_load[0]") {
            // Both store the sample in index 0.
            CHECK(v.first == in["this_load"]);
            CHECK(v.second == in["this_load"]);
        } else {
            // The reference at shi-1-3 leaves the other slots alone.
            CHECK(v.first == in[name]);
            differs |= v.first != v.second;
        }
    }
    CHECK(differs);

    // The follow-up patch changes target_load: shi-1-4 against post5.
    EquivResult t = prove_equivalence(*find_variant("cpuload/shi-1-4"), "seed000-post5", Arch::lp64, 10000);
    REQUIRE(t.verdict == EquivVerdict::DIFFERENT);
    CHECK(t.function == "source_load/target_load");
}

TEST_CASE("equiv: unknown oracle and non-cpuload requests are bad input", "[equiv][bad-input]") {
    CHECK_THROWS_AS(prove_equivalence(*find_variant("cpuload/v3.13"), "linux-9.9", Arch::lp64, 1000), input_error);
}
