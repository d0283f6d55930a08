// The property fuzzer's fast path (proofs/cpuload_fast.h: one simulation,
// no text, invariants named by enum) against the path a report takes
// (cpuload_inv::evaluate(): one simulation per invariant, with text), on
// every input of corpora/cpuload decoded for every cpuload variant and both
// data models.  The two must judge every (scenario, invariant) alike, or
// the fuzzer would miss violations, or abort with an internal error.
#include <catch2/catch.hpp>

#include <cstdint>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <string>
#include <vector>

#include "fuzz/cpuload_bytes.h"
#include "proofs/cpuload_fast.h"
#include "proofs/cpuload_invariants.h"
#include "proofs/invariant.h"
#include "ref/checked.h"
#include "ref/variants.h"

namespace fs = std::filesystem;
using namespace sc::proofs::cpuload_inv;

namespace {

std::vector<const sc::proofs::InvariantInfo *> cpuload_invariants() {
    std::vector<const sc::proofs::InvariantInfo *> out;
    for (const sc::proofs::InvariantInfo &inv : sc::proofs::invariants())
        if (inv.family == "cpuload")
            out.push_back(&inv);
    return out;
}

std::vector<std::vector<std::uint8_t>> corpus_inputs() {
    std::vector<std::vector<std::uint8_t>> out;
    for (const auto &e : fs::directory_iterator(fs::path(SCHEDCHECK_SOURCE_DIR) / "corpora" / "cpuload")) {
        std::ifstream f(e.path(), std::ios::binary);
        std::vector<std::uint8_t> b((std::istreambuf_iterator<char>(f)), std::istreambuf_iterator<char>());
        if (!b.empty() && b[0] != '{') // the binary inputs; reproducers are JSON
            out.push_back(std::move(b));
    }
    return out;
}

struct Tally {
    std::size_t scenarios = 0, violated = 0, held = 0;
};

template <class A>
void compare_paths(const sc::Variant &v, const std::vector<std::vector<std::uint8_t>> &inputs, Tally &tally) {
    const std::uint64_t bound = converge_bound(v.level, A::arch);
    const sc::fuzz_cpuload::Limits lim = sc::fuzz_cpuload::limits_for(A::arch);
    std::vector<const sc::proofs::InvariantInfo *> invs;
    std::vector<std::string> ids;
    for (const sc::proofs::InvariantInfo *inv : cpuload_invariants())
        if (inv->applies && inv->applies(v))
            invs.push_back(inv), ids.push_back(inv->id);
    const std::vector<fast_check> all = fast_checks(ids);
    for (const auto &bytes : inputs) {
        // The harness's own layout: byte 0 picks the variant, byte 1 the
        // flags; here the variant and the data model are fixed, and the
        // flags keep their other bits (LB_BIAS, the convergence run).
        sc::fuzz_cpuload::Bytes in{bytes.data(), bytes.size()};
        in.u8();
        std::uint8_t flags = in.u8();
        sc::cpuload::scenario<A> s = sc::fuzz_cpuload::decode<A>(in, flags, v.level, lim, bound);
        int first_slow = -1;
        bool thrown = false;
        for (std::size_t k = 0; k < invs.size(); ++k) {
            const std::string &id = invs[k]->id;
            bool slow;
            try {
                sc::wrap_log().clear();
                slow = evaluate<A>(id, v.level, s, id == "cpuload.converges" ? bound : 0).violated;
            } catch (const sc::cpuload::unsupported_step &) {
                // Not a scenario of this variant: the fast path must say so too.
                CHECK_THROWS_AS(first_violated<A>({all[k]}, v.level, s, bound), sc::cpuload::unsupported_step);
                thrown = true;
                break;
            }
            int fast = first_violated<A>({all[k]}, v.level, s, bound);
            if ((fast == 0) != slow)
                FAIL_CHECK(v.id << " " << sc::arch_name(A::arch) << " " << id << ": evaluate() says "
                                << (slow ? "violated" : "holds") << ", first_violated() " << fast);
            if (slow && first_slow < 0)
                first_slow = static_cast<int>(k);
            (slow ? tally.violated : tally.held)++;
        }
        if (thrown)
            continue;
        // All at once, as the harness calls it: the index of the first one.
        CHECK(first_violated<A>(all, v.level, s, bound) == first_slow);
        tally.scenarios++;
    }
}

} // namespace

TEST_CASE("cpuload fast path: fast_checks names every cpuload invariant and refuses others",
          "[cpuload_fast]") {
    std::vector<std::string> ids;
    for (const sc::proofs::InvariantInfo *inv : cpuload_invariants())
        ids.push_back(inv->id);
    REQUIRE(ids.size() == 7); // the seven of DESIGN.md's cpuload catalogue
    std::vector<fast_check> fc = fast_checks(ids);
    REQUIRE(fc.size() == ids.size());
    for (std::size_t i = 0; i < fc.size(); ++i)
        for (std::size_t j = i + 1; j < fc.size(); ++j)
            CHECK(fc[i] != fc[j]);
    CHECK_THROWS_AS(fast_checks({"cpuload.no_such_thing"}), sc::proofs::input_error);
    CHECK_THROWS_AS(fast_checks({"pelt.util_bounded"}), sc::proofs::input_error);
}

TEST_CASE("cpuload fast path: judges every corpus scenario as evaluate() does, on every variant and width",
          "[cpuload_fast]") {
    const auto inputs = corpus_inputs();
    REQUIRE(inputs.size() > 100);
    Tally tally;
    for (const sc::Variant &v : sc::variants()) {
        if (v.family != "cpuload")
            continue;
        compare_paths<sc::checked_ilp32>(v, inputs, tally);
        compare_paths<sc::checked_lp64>(v, inputs, tally);
    }
    INFO(tally.scenarios << " scenarios, " << tally.violated << " violations, " << tally.held << " held");
    // Both answers occur, so the comparison above decided something.
    CHECK(tally.violated > 0);
    CHECK(tally.held > 0);
    CHECK(tally.scenarios > inputs.size());
}
