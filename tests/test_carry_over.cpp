// Pelt and wakeaffine proofs carried over (proofs/equiv/carry_over.h): a built-in
// kernel's from its release's variant, pelt/v6.12's from pelt/v6.1's.
// What the variant's proof is noted to reach, the conditions under which
// nothing is carried, the loud failure of a counterexample that does not
// replay, and run_matrix() carrying jobs with the verdicts that direct
// proofs and the expected file give.
#include <catch2/catch.hpp>

#include <fstream>
#include <set>
#include <sstream>
#include <string>

#include "proofs/engine/matrix.h"
#include "proofs/equiv/carry_over.h"
#include "proofs/kernel/iface_uses.h"
#include "proofs/kernel/kernel_invariants.h"
#include "proofs/report/expected.h"

using sc::Arch;
using sc::proofs::EquivVerdict;
using sc::proofs::find_invariant;
using sc::proofs::find_subject;
using sc::proofs::Verdict;

namespace {

const sc::proofs::InvariantInfo &inv(const char *id) {
    const sc::proofs::InvariantInfo *i = find_invariant(id);
    REQUIRE(i != nullptr);
    return *i;
}

const sc::Variant &subject(const char *id) {
    const sc::Variant *v = find_subject(id);
    REQUIRE(v != nullptr);
    return *v;
}

bool carried(const sc::proofs::ProofResult &r) { return r.reason.find("carried over from") != std::string::npos; }

} // namespace

TEST_CASE("carry over: a variant's proof notes the kernel functions it reaches", "[carry-over]") {
    std::set<std::string> names;
    {
        sc::proofs::iface::UseRecording rec;
        auto r = inv("pelt.time_accounted").prove(subject("pelt/v6.1"), Arch::lp64, {});
        CHECK(r.verdict == Verdict::PROVED);
        names = rec.names();
    }
    // update_load_avg() is 6.x's composite of the two halves.
    CHECK(names == std::set<std::string>{"___update_load_avg", "___update_load_sum"});
    // Nothing is noted outside a recording.
    sc::proofs::iface::note_use("decay_load");
    {
        sc::proofs::iface::UseRecording rec;
        CHECK(rec.names().empty());
        // A release before 6.1 is noted under names no kernel is compared on.
        inv("pelt.time_accounted").prove(subject("pelt/v4.12"), Arch::lp64, {});
        CHECK(rec.names() == std::set<std::string>{"update_load_avg (v4.12)"});
    }
    // The cfs_rq moves are not compared by `equiv`: their names are noted.
    {
        sc::proofs::iface::UseRecording rec;
        inv("pelt.no_underflow_visible").prove(subject("pelt/v6.1"), Arch::lp64, {});
        CHECK(rec.names().count("dequeue_load_avg") == 1);
    }
}

TEST_CASE("carry over: a built-in kernel's pelt proof from its release's variant, v6.12's from v6.1's",
          "[carry-over]") {
    using sc::proofs::carry_source;
    auto from = [](const char *s, const char *i) -> std::string {
        auto p = carry_source(subject(s), inv(i));
        return p ? p->from + " via " + p->via : "";
    };
    CHECK(from("linux-6.1", "pelt.decay_monotone") == "pelt/v6.1 via linux-6.1");
    CHECK(from("linux-6.12", "pelt.load_bounded") == "pelt/v6.12 via linux-6.12");
    CHECK(from("pelt/v6.12", "pelt.load_bounded") == "pelt/v6.1 via linux-6.1");
    // Both variants are to be proved equivalent to linux-6.1.
    const auto p = carry_source(subject("pelt/v6.12"), inv("pelt.load_bounded"));
    REQUIRE(p);
    using E = std::vector<std::pair<std::string, std::string>>;
    CHECK(p->equivalences(subject("pelt/v6.12")) == E{{"pelt/v6.1", "linux-6.1"}, {"pelt/v6.12", "linux-6.1"}});
    CHECK(from("linux-6.1", "utilest.bounded").empty());
    CHECK(from("linux-6.1", "idlebal.recovers").empty());
    // wakeaffine: linux-6.1's from wakeaffine/v6.1; there is no
    // wakeaffine/v6.12 for linux-6.12, and no older release is compared.
    CHECK(from("linux-6.1", "wakeaffine.decision_symmetric") == "wakeaffine/v6.1 via linux-6.1");
    CHECK(from("linux-6.12", "wakeaffine.decision_symmetric").empty());
    CHECK(from("wakeaffine/v3.13", "wakeaffine.decision_symmetric").empty());
    // decay_monotone reads no shape: v6.1's comes from v4.12's; an
    // invariant that does read it is proved on v6.1 directly.
    CHECK(from("pelt/v6.1", "pelt.decay_monotone") == "pelt/v4.12 via linux-6.1");
    CHECK(from("pelt/v6.1", "pelt.load_bounded").empty());
    CHECK(from("pelt/v4.12", "pelt.decay_monotone").empty());
    CHECK(from("pelt/v4.3", "pelt.decay_monotone").empty());
}

// An invariant that says it reads no release shape must not: its text (the
// struct) reads neither I::shape nor a version:: constant.
TEST_CASE("carry over: a shape-blind invariant reads no shape", "[carry-over]") {
    std::size_t blind = 0;
    for (const auto &i : sc::proofs::invariants()) {
        if (!i.shape_blind)
            continue;
        ++blind;
        REQUIRE(i.id == "pelt.decay_monotone"); // the one this test knows where to find
        std::ifstream in(std::string(SCHEDCHECK_SOURCE_DIR) + "/proofs/pelt_invariants.h");
        REQUIRE(in);
        std::stringstream text;
        text << in.rdbuf();
        const std::string t = text.str();
        const std::size_t at = t.find("struct DecayMonotone {");
        REQUIRE(at != std::string::npos);
        const std::string body = t.substr(at, t.find("\n};", at) - at);
        CHECK(body.find("::shape") == std::string::npos);
        CHECK(body.find("version::") == std::string::npos);
    }
    CHECK(blind == 1);
}

// pelt/v6.1's decay_monotone, carried from pelt/v4.12's through linux-6.1,
// has the verdict that the expected file gives it, and says where it came
// from; without carrying it is proved directly with the same verdict.
TEST_CASE("carry over: pelt/v6.1's decay_monotone from pelt/v4.12's", "[carry-over]") {
    std::vector<sc::proofs::Job> jobs;
    for (const char *s : {"pelt/v6.1", "pelt/v4.12"})
        jobs.push_back({&subject(s), &inv("pelt.decay_monotone"), Arch::lp64});
    sc::proofs::ProveOptions opt;
    opt.carry_over = true;
    const auto rs = sc::proofs::run_matrix(jobs, opt, 2);
    REQUIRE(rs.size() == 2);
    for (const auto &r : rs) {
        INFO(r.variant << ": " << r.reason);
        const auto want = sc::proofs::expected_verdict(r.variant, r.invariant, Arch::lp64);
        REQUIRE(want);
        CHECK(r.verdict == *want);
        CHECK(carried(r) == (r.variant == "pelt/v6.1"));
    }
    CHECK(rs[0].reason.find("carried over from pelt/v4.12") != std::string::npos);
    CHECK(rs[0].reason.find("decay_load (and pelt/v6.1's) EQUIVALENT to linux-6.1's") != std::string::npos);
}

namespace {

// The variant's proof with its uses noted, and the plan's equivalences.
struct Source {
    sc::proofs::ProofResult result;
    std::set<std::string> used;
    sc::proofs::CarryPlan plan;
    std::vector<sc::proofs::EquivResult> eqs;
};

Source source(const sc::proofs::InvariantInfo &i, const char *to) {
    Source s;
    auto plan = sc::proofs::carry_source(subject(to), i);
    REQUIRE(plan);
    s.plan = *plan;
    {
        sc::proofs::iface::UseRecording rec;
        s.result = i.prove(subject(s.plan.from.c_str()), Arch::lp64, {});
        s.used = rec.names();
    }
    for (const auto &[v, k] : s.plan.equivalences(subject(to))) {
        s.eqs.push_back(sc::proofs::prove_equivalence(subject(v.c_str()), k, Arch::lp64, 10000));
        REQUIRE(s.eqs.back().verdict == EquivVerdict::EQUIVALENT);
    }
    return s;
}

} // namespace

TEST_CASE("carry over: nothing is carried unless every condition holds", "[carry-over]") {
    const auto &i = inv("pelt.time_accounted");
    for (const char *to : {"linux-6.1", "pelt/v6.12"}) {
        INFO(to);
        const sc::Variant &k = subject(to);
        const Source s = source(i, to);
        REQUIRE(s.result.verdict == Verdict::PROVED);
        auto r = sc::proofs::carry_over(k, i, Arch::lp64, s.result, s.used, s.plan, s.eqs);
        REQUIRE(r);
        CHECK(r->verdict == Verdict::PROVED);
        CHECK(r->variant == to);
        CHECK(carried(*r));

        auto unknown = s.result;
        unknown.verdict = Verdict::UNKNOWN;
        CHECK_FALSE(sc::proofs::carry_over(k, i, Arch::lp64, unknown, s.used, s.plan, s.eqs));
        // Nothing noted: the recording did not run, so nothing is known.
        CHECK_FALSE(sc::proofs::carry_over(k, i, Arch::lp64, s.result, {}, s.plan, s.eqs));
        // A function the equivalence did not compare.
        auto more = s.used;
        more.insert("attach_entity_load_avg");
        CHECK_FALSE(sc::proofs::carry_over(k, i, Arch::lp64, s.result, more, s.plan, s.eqs));
        // Any equivalence that is UNKNOWN, that finds a used function
        // different, or of another data model, or missing.  A difference
        // in a function the proof did not reach does not matter.
        for (std::size_t n = 0; n < s.eqs.size(); ++n) {
            auto unknown_eq = s.eqs;
            unknown_eq[n].verdict = EquivVerdict::UNKNOWN;
            CHECK_FALSE(sc::proofs::carry_over(k, i, Arch::lp64, s.result, s.used, s.plan, unknown_eq));
            auto differs = s.eqs;
            differs[n].verdict = EquivVerdict::DIFFERENT;
            differs[n].differences.push_back({"___update_load_avg", {}, {}});
            CHECK_FALSE(sc::proofs::carry_over(k, i, Arch::lp64, s.result, s.used, s.plan, differs));
            REQUIRE(s.used.count("decay_load") == 0);
            differs[n].differences.back().function = "decay_load";
            CHECK(sc::proofs::carry_over(k, i, Arch::lp64, s.result, s.used, s.plan, differs));
            auto ilp = s.eqs;
            ilp[n].arch = Arch::ilp32;
            CHECK_FALSE(sc::proofs::carry_over(k, i, Arch::lp64, s.result, s.used, s.plan, ilp));
        }
        auto fewer = s.eqs;
        fewer.pop_back();
        if (fewer.empty())
            fewer.push_back(s.eqs.front()), fewer.push_back(s.eqs.front());
        CHECK_FALSE(sc::proofs::carry_over(k, i, Arch::lp64, s.result, s.used, s.plan, fewer));
    }
}

TEST_CASE("carry over: a counterexample is replayed on the kernel, loudly when it does not fail there",
          "[carry-over]") {
    const auto &i = inv("pelt.sum_avg_consistent");
    const sc::Variant &k = subject("linux-6.1");
    const Source s = source(i, "linux-6.1");
    REQUIRE(s.result.verdict == Verdict::COUNTEREXAMPLE);
    REQUIRE(s.result.cex);
    auto r = sc::proofs::carry_over(k, i, Arch::lp64, s.result, s.used, s.plan, s.eqs);
    REQUIRE(r);
    CHECK(r->verdict == Verdict::COUNTEREXAMPLE);
    REQUIRE(r->cex);
    CHECK(r->cex->reproducer.at("variant") == "linux-6.1");
    CHECK(i.replay(k, Arch::lp64, r->cex->reproducer).violated);

    // The same trace with a sleep of 2^32 + 1 periods: the kernel's u32
    // count of periods is then 1, not 0, so the averages are recomputed
    // with the sums and nothing fails; carrying it is an internal error,
    // not a verdict.
    auto wrong = s.result;
    REQUIRE(wrong.cex->reproducer.at("inputs").contains("period_us"));
    wrong.cex->reproducer["inputs"]["period_us"] = (std::uint64_t(1) << 42) + 1024;
    CHECK_FALSE(i.replay(subject("pelt/v6.1"), Arch::lp64, wrong.cex->reproducer).violated);
    CHECK_THROWS_AS(sc::proofs::carry_over(k, i, Arch::lp64, wrong, s.used, s.plan, s.eqs),
                    sc::proofs::internal_error);
}

TEST_CASE("carry over: run_matrix carries the kernel's jobs and gets the direct proofs' verdicts", "[carry-over]") {
    std::vector<sc::proofs::Job> jobs;
    // The carried jobs first: they wait for their sources.
    for (const char *s : {"linux-6.1", "linux-6.12", "pelt/v6.1", "pelt/v6.12"})
        for (const char *id : {"pelt.time_accounted", "pelt.sum_avg_consistent", "pelt.no_underflow_visible"})
            jobs.push_back({&subject(s), &inv(id), Arch::lp64});
    for (bool carry : {true, false}) {
        sc::proofs::ProveOptions opt;
        opt.carry_over = carry;
        const auto rs = sc::proofs::run_matrix(jobs, opt, 2);
        REQUIRE(rs.size() == jobs.size());
        for (std::size_t n = 0; n < jobs.size(); ++n) {
            const auto &r = rs[n];
            INFO(r.variant << " " << r.invariant << " carry " << carry << ": " << r.reason);
            const auto want = sc::proofs::expected_verdict(r.variant, r.invariant, Arch::lp64);
            REQUIRE(want);
            CHECK(r.verdict == *want);
                    // pelt/v6.1 is the first of every chain; the cfs_rq moves are
            // not compared by `equiv`: both are proved directly.
            CHECK(carried(r) == (carry && r.variant != "pelt/v6.1" && r.invariant != "pelt.no_underflow_visible"));
            if (r.variant != "pelt/v6.1") {
                CHECK(r.verdict == jobs[n].invariant->prove(*jobs[n].variant, Arch::lp64, {}).verdict);
                if (r.verdict == Verdict::COUNTEREXAMPLE) {
                    REQUIRE(r.cex);
                    CHECK(jobs[n].invariant->replay(*jobs[n].variant, Arch::lp64, r.cex->reproducer).violated);
                }
            }
        }
    }
}

// A proof is carried only between subjects that the invariants' text treats
// alike (carry_source()): pelt/v6.1, pelt/v6.12 and the kernels, whose
// shape is v6_1.  An invariant that told v6.12 from v6.1 apart would run
// other code on pelt/v6.12 than on the proof it is carried from.
TEST_CASE("carry over: no pelt invariant tells 6.12 from 6.1", "[carry-over]") {
    for (const char *f : {"proofs/pelt_invariants.h", "proofs/cfsrq_invariants.h", "proofs/task_trace.h",
                          "proofs/kernel/kernel_entries.h"}) {
        std::ifstream in(std::string(SCHEDCHECK_SOURCE_DIR) + "/" + f);
        REQUIRE(in);
        std::stringstream text;
        text << in.rdbuf();
        INFO(f);
        const std::string t = text.str();
        auto count = [&](const std::string &what) {
            std::size_t n = 0;
            for (std::size_t at = t.find(what); at != std::string::npos; at = t.find(what, at + 1))
                ++n;
            return n;
        };
        CHECK(count("v6_12") == 0);
        // 6.1 only as the lower end of "6.x": ">= version::v6_1".
        CHECK(count("v6_1") == count(">= version::v6_1") + count(">= pelt::version::v6_1"));
    }
}

// wakeaffine/v6.1's decision notes wake_affine() and its three helpers,
// all compared by `equiv`: linux-6.1's decision_symmetric is carried from
// it, with the verdict that the direct proof on the kernel gives (and the
// expected file); linux-6.12's, which `equiv` finds different in
// wake_affine() (it counts delayed-dequeue tasks out), is proved directly.
TEST_CASE("carry over: linux-6.1's wake_affine proof from wakeaffine/v6.1's", "[carry-over][wakeaffine]") {
    const auto &i = inv("wakeaffine.decision_symmetric");
    {
        sc::proofs::iface::UseRecording rec;
        i.prove(subject("wakeaffine/v6.1"), Arch::ilp32, {});
        CHECK(rec.names() ==
              std::set<std::string>{"task_h_load", "wake_affine", "wake_affine_idle", "wake_affine_weight"});
    }
    {
        sc::proofs::iface::UseRecording rec;
        i.prove(subject("wakeaffine/v3.13"), Arch::ilp32, {});
        CHECK(rec.names().empty());
    }
    std::vector<sc::proofs::Job> jobs;
    for (const char *s : {"linux-6.1", "linux-6.12", "wakeaffine/v6.1"})
        jobs.push_back({&subject(s), &i, Arch::ilp32});
    const auto rs = sc::proofs::run_matrix(jobs, {}, 2);
    REQUIRE(rs.size() == 3);
    for (std::size_t n = 0; n < rs.size(); ++n) {
        INFO(rs[n].variant << ": " << rs[n].reason);
        const auto want = sc::proofs::expected_verdict(rs[n].variant, i.id, Arch::ilp32);
        REQUIRE(want);
        CHECK(rs[n].verdict == *want);
        CHECK(carried(rs[n]) == (rs[n].variant == "linux-6.1"));
    }
    CHECK(rs[0].verdict == i.prove(subject("linux-6.1"), Arch::ilp32, {}).verdict);
}
