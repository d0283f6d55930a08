// Points of the proofs' domains replayed on the concrete code
// (proofs/engine/case_points.h): the listed cases match what the invariants state,
// the value picker hits the corners it promises, and no sampled point
// breaks a proof the expected file marks PROVED.
#include <catch2/catch.hpp>

#include <cstdio>
#include <cstdlib>
#include <map>
#include <set>
#include <string>
#include <utility>
#include <vector>

#include "proofs/engine/case_points.h"

namespace cp = sc::proofs::case_points;
using sc::proofs::Verdict;

namespace {
// A seeded stream of words, the same on every run.
struct Xorshift {
    std::uint64_t s;
    std::uint64_t operator()() {
        s ^= s << 13;
        s ^= s >> 7;
        s ^= s << 17;
        return s;
    }
};

const cp::Target *find_target(const std::string &variant, const std::string &inv, sc::Arch a) {
    for (const cp::Target &t : cp::targets())
        if (t.job.variant->id == variant && t.job.invariant->id == inv && t.job.arch == a)
            return &t;
    return nullptr;
}
} // namespace

TEST_CASE("case points: a case's inputs and ranges, as the invariant states them", "[case-points]") {
    // pelt.decay_monotone: "every 64-bit val, val2 and n (n split into the
    // cases 0..2048 and > 2048)": 2049 cases with n fixed, one with n free.
    const cp::Target *t = find_target("pelt/v6.12", "pelt.decay_monotone", sc::Arch::lp64);
    REQUIRE(t != nullptr);
    CHECK(t->expected == Verdict::PROVED);
    const auto &cs = cp::cases_of(*t);
    REQUIRE(cs.size() == 2050);
    const auto &n5 = cs[5];
    CHECK(n5.label == "n 5");
    CHECK_FALSE(n5.search);
    std::map<std::string, std::pair<std::uint64_t, std::uint64_t>> r;
    for (const auto &in : n5.inputs)
        r[in.name] = {in.lo, in.hi};
    CHECK(r.size() == 3);
    CHECK(r["val"] == std::make_pair<std::uint64_t, std::uint64_t>(0, ~0ULL));
    CHECK(r["val2"] == std::make_pair<std::uint64_t, std::uint64_t>(0, ~0ULL));
    CHECK(r["n"] == std::make_pair<std::uint64_t, std::uint64_t>(5, 5));
    // The cpuload family has its own engine: no case list, not a target.
    for (const cp::Target &x : cp::targets())
        CHECK(x.job.invariant->family != "cpuload");
}

TEST_CASE("case points: pick() gives the bounds, near-bounds and powers of two", "[case-points]") {
    CHECK(cp::pick(10, 20, 0, 12345) == 10);
    CHECK(cp::pick(10, 20, 1, 12345) == 20);
    CHECK(cp::pick(10, 20, 2, 5) == 15);     // 10 + 5 % 11
    CHECK(cp::pick(10, 20, 3, 3) == 17);     // 20 - 3
    CHECK(cp::pick(10, 20, 4, 3) == 10);     // 2^3 = 8, clamped up to 10
    CHECK(cp::pick(10, 20, 4, 4) == 16);     // 2^4
    CHECK(cp::pick(10, 20, 4, 4 | 64) == 15); // 2^4 - 1
    CHECK(cp::pick(10, 20, 4, 63) == 20);    // 2^63, clamped down to 20
    CHECK(cp::pick(0, ~0ULL, 5, 0xdeadbeef) == 0xdeadbeef); // the whole range: the value itself
    CHECK(cp::pick(7, 7, 6, 99) == 7);       // a fixed input
}

TEST_CASE("case points: a known counterexample replays through them", "[case-points]") {
    // The hand-checked v2.6.37 point (tests/test_wakeaffine_invariants.cpp):
    // 0 then -1, the proof is expected to fail, and the replay says so.
    const cp::Target *t = find_target("wakeaffine/v2.6.37", "wakeaffine.effective_load_monotone", sc::Arch::lp64);
    REQUIRE(t != nullptr);
    CHECK(t->expected == Verdict::COUNTEREXAMPLE);
    const auto &cs = cp::cases_of(*t);
    REQUIRE(cs.size() == 1);
    std::map<std::string, std::uint64_t> pt = {{"tg->shares", 5}, {"se->load.weight", 0}, {"my_q->load.weight", 0},
                                               {"my_q->shares", 3}, {"my_q->rq_weight", 3}, {"w1", 0}, {"w2", 1}};
    auto rr = cp::replay(*t, cs[0], pt);
    REQUIRE(rr.has_value());
    CHECK(rr->violated);
    // Outside the domain (w1 > w2): no result.
    pt["w1"] = 2;
    CHECK_FALSE(cp::replay(*t, cs[0], pt).has_value());
}

TEST_CASE("case points: a search case's wide ranges are not part of a PROVED claim", "[case-points]") {
    // Found by fuzz/invariant_points.cpp (corpora/invariant_points/
    // running-converges-2e32-periods): a running task updated at 280 units,
    // then 2^43 units later.  That is 2^43 / 1024 = 2^33 period boundaries;
    // ___update_load_sum() returns the count as a u32, which reads 0, so
    // ___update_load_avg() is skipped and util_avg stays at the first
    // update's 0.  The search case declares period_us over 1..2^63 and so
    // holds the point, but its induction covers updates of 0..1024
    // boundaries only, and the verdict stays PROVED.
    for (const char *v : {"pelt/v6.1", "linux-6.1"}) {
        const cp::Target *t = find_target(v, "pelt.running_converges", sc::Arch::ilp32);
        REQUIRE(t != nullptr);
        CHECK(t->expected == Verdict::PROVED);
        const auto &cs = cp::cases_of(*t);
        REQUIRE_FALSE(cs.empty());
        REQUIRE(cs[0].search);
        std::map<std::string, std::uint64_t> pt = {{"count", 535},  {"first_us", 280},
                                                   {"on_rq", 1},     {"period_us", 1ULL << 43},
                                                   {"running", 1},   {"weight", 49052}};
        const auto rr = cp::replay(*t, cs[0], pt);
        REQUIRE(rr.has_value());
        INFO(rr->trace);
        CHECK(rr->violated);
        CHECK(rr->failed.find("util_avg >= 1022") != std::string::npos);
        CHECK(rr->rhs == 0); // util_avg after the second update
        CHECK_FALSE(cp::breaks_claim(*t, cs[0], *rr));
        // The last crossing case of the step ends at 1024 boundaries.
        CHECK(cs[cs.size() - 2].label.find("to 1024 boundaries crossed") != std::string::npos);
    }
}

// The sums' half of the bounded-signal invariants is split by the number of
// period boundaries the update crosses: one case for each of 0..511 and one
// for 512 or more.  Together they leave no count out and hold none twice.
TEST_CASE("case points: the crossing cases cover every count of boundaries once", "[case-points]") {
    for (const auto &[v, i] : std::vector<std::pair<const char *, const char *>>{
             {"pelt/v6.1", "pelt.load_bounded"}, {"pelt/v4.12", "pelt.util_bounded"}, {"pelt/v4.12", "pelt.load_bounded"}}) {
        INFO(v << " " << i);
        const cp::Target *t = find_target(v, i, sc::Arch::lp64);
        REQUIRE(t != nullptr);
        std::vector<std::string> crossing;
        for (const auto &c : cp::cases_of(*t))
            if (c.label.find("crossed") != std::string::npos)
                crossing.push_back(c.label.substr(c.label.rfind(", ") + 2));
        std::vector<std::string> want = {"no boundary crossed", "1 boundary crossed"};
        for (int k = 2; k < 512; ++k)
            want.push_back(std::to_string(k) + " boundaries crossed");
        want.push_back("512 or more boundaries crossed (on bit-vectors)");
        CHECK(crossing == want);
    }
}

TEST_CASE("case points: no sampled point breaks a proof expected PROVED", "[case-points]") {
    // 256 points per PROVED target, cases and values from a fixed xorshift
    // stream.  A point outside its case's domain is dropped; what remains
    // must satisfy every check.
    Xorshift next{0x2545f4914f6cdd1dULL};
    std::size_t targets = 0, tried = 0, in_domain = 0;
    std::set<std::string> reached, proved;
    for (const cp::Target &t : cp::targets()) {
        if (t.expected != Verdict::PROVED)
            continue;
        ++targets;
        proved.insert(t.job.invariant->id);
        const auto &cs = cp::cases_of(t);
        REQUIRE_FALSE(cs.empty());
        for (int k = 0; k < 256; ++k) {
            const auto &c = cs[next() % cs.size()];
            const auto pt = cp::point(c, next);
            ++tried;
            const auto rr = cp::replay(t, c, pt);
            if (!rr)
                continue;
            ++in_domain;
            reached.insert(t.job.invariant->id);
            INFO(t.job.invariant->id << " on " << t.job.variant->id << " " << sc::arch_name(t.job.arch) << ", case "
                                     << c.label << ": " << rr->failed << "\n"
                                     << rr->trace);
            CHECK_FALSE(cp::breaks_claim(t, c, *rr));
        }
    }
    std::printf("case points: %zu PROVED proofs, %zu points, %zu in their case's domain, %zu invariants reached\n",
                targets, tried, in_domain, reached.size());
    for (const auto &id : proved)
        if (!reached.count(id))
            std::printf("case points: no sampled point of %s was in its domain\n", id.c_str());
    CHECK(targets > 100);
    CHECK(in_domain > tried / 10);
}

// Not a test: writes seeds for fuzz/invariant_points.cpp, one in-domain
// point for up to 8 cases of every target, in the harness's input layout,
// into $SCHEDCHECK_SEED_DIR.  `make corpus-min` (libFuzzer -merge=1) then
// keeps the ones that add coverage.
TEST_CASE("case points: write in-domain seeds for the harness", "[.seed-corpus]") {
    const char *dir = std::getenv("SCHEDCHECK_SEED_DIR");
    REQUIRE(dir != nullptr);
    Xorshift next{0x9e3779b97f4a7c15ULL};
    const auto &ts = cp::targets();
    std::size_t written = 0;
    for (std::size_t ti = 0; ti < ts.size(); ++ti) {
        const auto &cs = cp::cases_of(ts[ti]);
        for (std::size_t k = 0; k < 8 && k < cs.size(); ++k) {
            const std::size_t ci = k * cs.size() / std::min<std::size_t>(8, cs.size());
            for (int tries = 0; tries < 200; ++tries) {
                // Mode 5 reads the value as an offset from lo: the bytes
                // below give the harness this very point.
                std::string bytes;
                auto put = [&](std::uint64_t v, int n) {
                    for (int j = 0; j < n; ++j)
                        bytes.push_back(static_cast<char>((v >> (8 * j)) & 0xff));
                };
                put(ti, 2);
                put(ci, 2);
                std::map<std::string, std::uint64_t> pt;
                for (const auto &in : cs[ci].inputs) {
                    const std::uint64_t v = cp::pick(in.lo, in.hi, next(), next());
                    pt[in.name] = v;
                    put(5, 1);
                    put(v - in.lo, 8);
                }
                if (!cp::replay(ts[ti], cs[ci], pt))
                    continue;
                char name[64];
                std::snprintf(name, sizeof name, "%s/seed-%04zu-%04zu", dir, ti, ci);
                std::FILE *f = std::fopen(name, "wb");
                REQUIRE(f != nullptr);
                std::fwrite(bytes.data(), 1, bytes.size(), f);
                std::fclose(f);
                ++written;
                break;
            }
        }
    }
    std::printf("case points: %zu seeds written to %s\n", written, dir);
}
