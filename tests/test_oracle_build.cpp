// `schedcheck oracle build`: a library from a real kernel source, and every
// kind of bad input it must refuse with a message naming what is wrong,
// leaving nothing behind.  The kernel text comes from Debian's
// linux-source-6.1 tarball at test time; nothing of it is in the tests.
#include <catch2/catch.hpp>

#include <unistd.h>

#include <filesystem>
#include <fstream>
#include <sstream>

#include <nlohmann/json.hpp>

#include "proofs/report/expected.h"

#include "tests/shell.h"

namespace fs = std::filesystem;

namespace {

Run build(const std::string &args) { return shell(std::string(SCHEDCHECK_BIN) + " oracle build " + args); }

const char *tarball = "/usr/src/linux-source-6.1.tar.xz";

// The tarball's sched files, unpacked once per test process (ctest runs
// the test cases as parallel processes) and removed at exit.
struct Tree {
    fs::path dir;
    ~Tree() {
        std::error_code ec;
        if (!dir.empty())
            fs::remove_all(dir, ec);
    }
};

fs::path tree() {
    static Tree tr;
    fs::path &t = tr.dir;
    if (t.empty()) {
        fs::path d = fs::temp_directory_path() / ("schedcheck-test-tree-" + std::to_string(getpid()));
        if (!fs::exists(d / "kernel/sched/pelt.c")) {
            fs::create_directories(d);
            REQUIRE(shell("tar -xf " + std::string(tarball) + " -C " + d.string() +
                       " --strip-components=1 --wildcards '*/Makefile' '*/kernel/sched/*' '*/include/linux/sched.h'")
                        .code == 0);
        }
        t = d;
    }
    return t;
}

// A copy of the tree with one sed edit in kernel/sched/FILE.
fs::path mutated(const fs::path &dir, const std::string &file, const std::string &sed) {
    fs::copy(tree(), dir, fs::copy_options::recursive);
    REQUIRE(shell("sed -i '" + sed + "' " + (dir / "kernel/sched" / file).string()).code == 0);
    return dir;
}

fs::path fresh_dir(const std::string &name) {
    fs::path d = fs::temp_directory_path() / ("schedcheck-ob-" + name);
    fs::remove_all(d);
    return d;
}

bool empty_or_absent(const fs::path &d) { return !fs::exists(d) || fs::is_empty(d); }

void write(const fs::path &p, const std::string &s) {
    fs::create_directories(p.parent_path());
    std::ofstream(p) << s;
}

} // namespace

TEST_CASE("oracle build: a library with version-prefixed symbols from a kernel tree", "[oracle-build]") {
    if (!fs::exists(tarball)) {
        WARN("no " << tarball << ": skipped");
        return;
    }
    fs::path out = fresh_dir("ok");
    Run r = build("--kernel " + tree().string() + " --out " + out.string());
    INFO(r.out);
    REQUIRE(r.code == 0);
    // Named after the full version, which no built-in oracle uses.
    std::string name;
    for (const auto &e : fs::directory_iterator(out))
        if (e.path().extension() == ".json")
            name = e.path().stem().string();
    REQUIRE(name.rfind("linux-6.1.", 0) == 0);
    CHECK(fs::exists(out / (name + ".h")));
    CHECK(fs::exists(out / (name + ".so")));
    REQUIRE(fs::exists(out / ("libschedcheck-oracle-" + name + ".a")));
    // Every defined function symbol lives in the version's namespace.
    std::string ns = "sc::oracle_gen::" + name + "::";
    for (char &c : ns)
        if (c == '-' || c == '.')
            c = '_';
    Run nm = shell("nm -C --defined-only " + (out / ("libschedcheck-oracle-" + name + ".a")).string() + " | grep ' [TW] '");
    CHECK(nm.out.find(ns + "kernel<sc::lp64>::___update_load_sum") != std::string::npos);
    CHECK(nm.out.find(ns + "kernel<sc::ilp32>::util_est_update") != std::string::npos);
    std::istringstream lines(nm.out);
    for (std::string l; std::getline(lines, l);)
        if (l.find("kernel<") != std::string::npos)
            CHECK(l.find(ns) != std::string::npos);

    // A built-in name is refused: equiv would never reach the plug-in.
    Run clash = build("--kernel " + tree().string() + " --name linux-6.12 --out " + out.string());
    CHECK(clash.code == 2);
    CHECK(clash.out.find("linux-6.12 is the name of a built-in oracle") != std::string::npos);
}

TEST_CASE("oracle build: a patch applied to a tree gives the oracles of both images", "[oracle-build]") {
    if (!fs::exists(tarball)) {
        WARN("no " << tarball << ": skipped");
        return;
    }
    // A patch under review, made here from the tree itself: PELT's period
    // length in accumulate_sum changed (any change will do).
    fs::path tmp = fresh_dir("patch");
    fs::create_directories(tmp / "a/kernel/sched");
    fs::create_directories(tmp / "b/kernel/sched");
    fs::copy_file(tree() / "kernel/sched/pelt.c", tmp / "a/kernel/sched/pelt.c");
    fs::copy_file(tree() / "kernel/sched/pelt.c", tmp / "b/kernel/sched/pelt.c");
    // The only "%= 1024" in pelt.c is accumulate_sum's period remainder.
    REQUIRE(shell("sed -i 's/%= 1024;/%= 1000;/' " + (tmp / "b/kernel/sched/pelt.c").string()).code == 0);
    // And in fair.c the newidle cost decays by 254/256 instead of 253/256
    // (the only "* 253) / 256" is update_newidle_cost's).
    fs::copy_file(tree() / "kernel/sched/fair.c", tmp / "a/kernel/sched/fair.c");
    fs::copy_file(tree() / "kernel/sched/fair.c", tmp / "b/kernel/sched/fair.c");
    REQUIRE(shell("sed -i 's/\\* 253) \\/ 256/* 254) \\/ 256/' " + (tmp / "b/kernel/sched/fair.c").string()).code == 0);
    // And a sync wake-up's tie-break in wake_affine_weight() adds 2 to the
    // previous CPU's effective load instead of 1 (its only "+= 1;").
    REQUIRE(shell("sed -i 's/prev_eff_load += 1;/prev_eff_load += 2;/' " + (tmp / "b/kernel/sched/fair.c").string())
                .code == 0);
    shell("cd " + tmp.string() + " && diff -ru a b > review.patch");
    fs::path out = fresh_dir("patch-out");
    Run r = build("--kernel " + tree().string() + " --patch " + (tmp / "review.patch").string() + " --name review --out " +
                  out.string());
    INFO(r.out);
    REQUIRE(r.code == 0);
    auto slurp = [](const fs::path &p) {
        std::ifstream in(p);
        std::stringstream ss;
        ss << in.rdbuf();
        return ss.str();
    };
    std::string pre = slurp(out / "review-pre.h"), post = slurp(out / "review-post.h");
    CHECK(pre.find("%= 1024;") != std::string::npos);
    CHECK(post.find("%= 1000;") != std::string::npos);
    CHECK(post.find("%= 1024;") == std::string::npos);
    CHECK(fs::exists(out / "libschedcheck-oracle-review-post.a"));

    Run list = shell(std::string(SCHEDCHECK_BIN) + " oracle list --oracle-dir " + out.string());
    CHECK(list.code == 0);
    CHECK(list.out.find("review-pre ") != std::string::npos);
    CHECK(list.out.find("review-post ") != std::string::npos);

    // Each solver query may take 60 s, not the 10 s default: the limit is
    // wall-clock time and other tests share the cores.  wake_affine_weight's
    // query takes about 9 s on an idle machine; under CI's load it ran out
    // and the verdict was UNKNOWN.  A real timeout still fails below.
    const std::string slow_ok = " --timeout-ms 60000";

    // The plug-ins: the reference equals the tree's code, and the patch
    // changes what accumulate_sum leaves in period_contrib.
    Run pre_eq = shell(std::string(SCHEDCHECK_BIN) + " equiv --variant pelt/v6.1 --oracle review-pre --oracle-dir " +
                    out.string() + " --arch lp64" + slow_ok);
    INFO(pre_eq.out);
    CHECK(pre_eq.code == 0);
    CHECK(pre_eq.out.find("EQUIVALENT") != std::string::npos);
    Run post_eq = shell(std::string(SCHEDCHECK_BIN) + " equiv --variant pelt/v6.1 --oracle review-post --oracle-dir " +
                     out.string() + " --arch lp64 --json" + slow_ok);
    INFO(post_eq.out);
    REQUIRE(post_eq.code == 1);
    auto j = nlohmann::json::parse(without_warnings(post_eq.out))["results"][0];
    REQUIRE(j["verdict"] == "DIFFERENT");
    const auto &dist = j["distinguishing"];
    CHECK(dist["function"] == "accumulate_sum");
    // By hand from the patch: d = delta + period_contrib (mod 2^64); once a
    // period is crossed (d >= 1024) the tree keeps d % 1024, the patched
    // code d % 1000; otherwise both keep d.
    std::uint64_t d = dist["inputs"]["delta"].get<std::uint64_t>() + dist["inputs"]["period_contrib"].get<std::uint64_t>();
    CHECK(dist["outputs"]["period_contrib"]["reference"].get<std::uint64_t>() == (d >= 1024 ? d % 1024 : d));
    CHECK(dist["outputs"]["period_contrib"]["oracle"].get<std::uint64_t>() == (d >= 1024 ? d % 1000 : d));

    // The idle-balance helpers: equal before the patch; after it the decay
    // of update_newidle_cost() keeps 254/256 of the cost.  By hand: with no
    // new maximum (cost <= max) and jiffies after last_decay + HZ, the
    // reference stores max * 253 / 256 and the patched code max * 254 / 256
    // (the products wrap at 2^64 in both).
    Run ib_pre = shell(std::string(SCHEDCHECK_BIN) + " equiv --variant idlebal/v6.1 --oracle review-pre --oracle-dir " +
                       out.string() + " --arch lp64" + slow_ok);
    INFO(ib_pre.out);
    CHECK(ib_pre.code == 0);
    CHECK(ib_pre.out.find("EQUIVALENT") != std::string::npos);
    Run ib_post = shell(std::string(SCHEDCHECK_BIN) + " equiv --variant idlebal/v6.1 --oracle review-post --oracle-dir " +
                        out.string() + " --arch lp64 --json" + slow_ok);
    INFO(ib_post.out);
    REQUIRE(ib_post.code == 1);
    auto ir = nlohmann::json::parse(without_warnings(ib_post.out))["results"][0];
    REQUIRE(ir["verdict"] == "DIFFERENT");
    auto ij = ir["distinguishing"];
    CHECK(ij["function"] == "update_newidle_cost");
    std::uint64_t mx = ij["inputs"]["sd.max_newidle_lb_cost"].get<std::uint64_t>();
    CHECK(ij["inputs"]["cost"].get<std::uint64_t>() <= mx);
    CHECK(ij["outputs"]["sd.max_newidle_lb_cost"]["reference"].get<std::uint64_t>() == mx * 253 / 256);
    CHECK(ij["outputs"]["sd.max_newidle_lb_cost"]["oracle"].get<std::uint64_t>() == mx * 254 / 256);

    // The idlebal invariants run inside the plug-ins, on their own code.
    // Before the patch they get the verdicts the expected file records for
    // linux-6.1 (the same tree, built in): a variant's kernel and its
    // plug-in agree.  After it, the due decay is max * 254 / 256, where
    // both invariants that time the decay hold the code to 253/256: each
    // gives a counterexample, which replays on the plug-in with the values
    // worked out here by hand.
    fs::path ib_out = fresh_dir("patch-idlebal");
    Run ibp = shell(std::string(SCHEDCHECK_BIN) + " prove --oracle review-pre --oracle-dir " + out.string() +
                    " --family idlebal --json" + slow_ok);
    INFO(ibp.out);
    // The plug-in's verdicts are held to its release's row (its tree's
    // Makefile says 6.1): its two avg_idle_capped counterexamples are
    // expected, so the run exits 0.
    CHECK(ibp.code == 0);
    auto ibp_j = nlohmann::json::parse(ibp.out.substr(ibp.out.find('{')));
    CHECK(ibp_j["results"].size() == 12);
    for (const auto &res : ibp_j["results"]) {
        const sc::Arch a = res["arch"] == "ilp32" ? sc::Arch::ilp32 : sc::Arch::lp64;
        auto want = sc::proofs::expected_verdict("linux-6.1", res["invariant"], a);
        REQUIRE(want.has_value());
        INFO(res["invariant"] << " " << res["arch"]);
        CHECK(res["verdict"] == sc::proofs::verdict_name(*want));
    }
    Run ibq = shell(std::string(SCHEDCHECK_BIN) + " prove --oracle review-post --oracle-dir " + out.string() +
                    " --invariant idlebal.cost_decay_monotone --invariant idlebal.recovers --arch lp64 --out " +
                    ib_out.string() + slow_ok);
    INFO(ibq.out);
    // Both are PROVED on linux-6.1: the run says so and exits 1.
    CHECK(ibq.code == 1);
    CHECK(ibq.out.find("review-post idlebal.recovers lp64: COUNTEREXAMPLE (expected PROVED, as linux-6.1, its tree's "
                       "release)") != std::string::npos);
    for (const char *inv : {"idlebal.cost_decay_monotone", "idlebal.recovers"}) {
        fs::path repro = ib_out / "reproducers" / (std::string("review-post_") + inv + "_lp64.json");
        REQUIRE(fs::exists(repro));
        Run rp = shell(std::string(SCHEDCHECK_BIN) + " replay --json --oracle-dir " + out.string() + " " +
                       repro.string());
        INFO(rp.out);
        REQUIRE(rp.code == 0);
        auto rj = nlohmann::json::parse(without_warnings(rp.out));
        CHECK(rj["violated"] == true);
        const std::uint64_t x = nlohmann::json::parse(slurp(repro))["inputs"]["x"];
        CHECK(rj["comparison"]["lhs"]["value"] == x * 254 / 256);
        CHECK(rj["comparison"]["rhs"]["value"] == x * 253 / 256);
        CHECK(x * 254 / 256 != x * 253 / 256);
    }

    // wakeaffine.decision_symmetric runs inside both plug-ins, on their own
    // wake_affine(): PROVED by the argument in proofs/expected/verdicts.txt,
    // which a sync tie-break of + 2 in place of + 1 does not touch (the
    // pull stays this_eff < prev_eff + constant, monotone in both loads).
    Run wsym = shell(std::string(SCHEDCHECK_BIN) + " prove --oracle review-pre --oracle review-post --oracle-dir " +
                     out.string() + " --family wakeaffine --json" + slow_ok);
    INFO(wsym.out);
    CHECK(wsym.code == 0);
    auto wsym_j = nlohmann::json::parse(wsym.out.substr(wsym.out.find('{')));
    CHECK(wsym_j["results"].size() == 4);
    for (const auto &res : wsym_j["results"]) {
        CHECK(res["invariant"] == "wakeaffine.decision_symmetric");
        CHECK(res["verdict"] == "PROVED");
    }

    // wake_affine: equal before the patch; after it a sync wake-up pulls
    // when this < prev + 2 instead of this < prev + 1.  The effective loads
    // are recomputed here from the 6.1 formula in lp64's wrapping u64
    // (cpu_load() and the task loads are unsigned long, so every s64 op
    // with them is done in u64), compared as s64.  The answers part at a
    // tie, this == prev + 1, or where prev + 2 wraps past INT64_MAX while
    // prev + 1 does not (undefined in C, a wrap on the machine): the solver
    // may give either.
    Run wa_pre = shell(std::string(SCHEDCHECK_BIN) + " equiv --variant wakeaffine/v6.1 --oracle review-pre " +
                       "--oracle-dir " + out.string() + " --arch lp64" + slow_ok);
    INFO(wa_pre.out);
    CHECK(wa_pre.code == 0);
    CHECK(wa_pre.out.find("EQUIVALENT") != std::string::npos);
    Run wa_post = shell(std::string(SCHEDCHECK_BIN) + " equiv --variant wakeaffine/v6.1 --oracle review-post " +
                        "--oracle-dir " + out.string() + " --arch lp64 --json" + slow_ok);
    INFO(wa_post.out);
    REQUIRE(wa_post.code == 1);
    auto wr = nlohmann::json::parse(without_warnings(wa_post.out))["results"][0];
    REQUIRE(wr["verdict"] == "DIFFERENT");
    auto wj = wr["distinguishing"];
    CHECK(wj["function"] == "wake_affine_weight");
    auto in = [&](const char *n) { return wj["inputs"][n].get<std::uint64_t>(); };
    CHECK(in("sync") == 1);
    auto h_load = [&](const std::string &t) {
        return in((t + ".se.avg.load_avg").c_str()) * in((t + ".cfs_rq.h_load").c_str()) /
               (in((t + ".cfs_rq.avg.load_avg").c_str()) + 1);
    };
    std::uint64_t cur = h_load("current"), task = h_load("p"), this_eff = in("this_rq.load_avg");
    REQUIRE(!(cur > this_eff)); // else both pull at once, with no tie-break
    this_eff = (this_eff - cur + task) * (in("WA_BIAS") ? 100 : 1) * in("prev_rq.cpu_capacity");
    std::uint32_t pct = static_cast<std::uint32_t>(in("sd.imbalance_pct"));
    std::uint64_t prev_eff = (in("prev_rq.load_avg") - task) * (in("WA_BIAS") ? 100u + (pct - 100u) / 2u : 1u) *
                             in("this_rq.cpu_capacity");
    auto pulls = [&](std::uint64_t add) {
        return static_cast<std::int64_t>(this_eff) < static_cast<std::int64_t>(prev_eff + add);
    };
    CHECK(pulls(1) != pulls(2));
    // this_cpu (0) when pulled, else nr_cpumask_bits (64): no preference.
    CHECK(wj["outputs"]["target"]["reference"].get<std::uint64_t>() == (pulls(1) ? 0 : 64));
    CHECK(wj["outputs"]["target"]["oracle"].get<std::uint64_t>() == (pulls(2) ? 0 : 64));

    // simulate runs a workload on both plug-ins.  A task running 1 ms of
    // every 2 ms (tests/test_simulate.cpp derives its values by hand): at
    // 2 ms, 976 + 977 = 1953 units are accounted and one period boundary is
    // crossed, so the tree keeps period_contrib 1953 % 1024 = 929 and the
    // patched code 1953 % 1000 = 953; before that (976 units at 1 ms, no
    // boundary) both keep 976.  The unpatched plug-in equals pelt/v6.1.
    write(tmp / "half.json", R"({"tick_hz": 0, "tasks": [{"name": "half",
        "phases": [{"duration": 4000000, "run": 1000000, "sleep": 1000000}]}]})");
    Run sim = shell(std::string(SCHEDCHECK_BIN) + " simulate " + (tmp / "half.json").string() +
                    " --variant pelt/v6.1 --oracle review-pre --oracle review-post --oracle-dir " + out.string() +
                    " --json");
    INFO(sim.out);
    REQUIRE(sim.code == 0);
    auto sj = nlohmann::json::parse(without_warnings(sim.out));
    REQUIRE(sj["comparisons"].size() == 2);
    CHECK(sj["comparisons"][0]["b"] == "review-pre");
    CHECK(sj["comparisons"][0]["differ"] == false);
    CHECK(sj["comparisons"][1]["b"] == "review-post");
    CHECK(sj["comparisons"][1]["differ"] == true);
    CHECK(sj["comparisons"][1]["first"]["t"] == 2000000);
    auto pc_at = [&](std::size_t impl, std::uint64_t t) -> std::uint64_t {
        for (const auto &row : sj["implementations"][impl]["rows"])
            if (row["t"] == t)
                return row["period_contrib"].get<std::uint64_t>();
        return ~0ULL;
    };
    CHECK(pc_at(1, 1000000) == 976);
    CHECK(pc_at(2, 1000000) == 976);
    CHECK(pc_at(1, 2000000) == 929);
    CHECK(pc_at(2, 2000000) == 953);
    // An oracle that is neither built in nor in --oracle-dir: exit 2, named.
    Run nosuch = shell(std::string(SCHEDCHECK_BIN) + " simulate " + (tmp / "half.json").string() +
                       " --oracle review-gone --oracle-dir " + out.string());
    CHECK(nosuch.code == 2);
    CHECK(nosuch.out.find("review-gone") != std::string::npos);

    // The differential fuzzer against the patched code finds the change
    // from the seed corpus, shows both sides and keeps a reproducer; against
    // the unpatched code it finds nothing.
    if (!fs::exists(out / "review-post-differential")) {
        WARN("no clang++: the differential fuzzers were not built");
        return;
    }
    fs::path repro = fresh_dir("patch-repro");
    fs::create_directories(repro);
    fs::path corpus = fresh_dir("patch-corpus");
    fs::copy(fs::path(SCHEDCHECK_SOURCE_DIR) / "corpora/differential", corpus);
    Run fz = shell("SCHEDCHECK_REPRO_DIR=" + repro.string() + " " + (out / "review-post-differential").string() +
                " -runs=200000 -seed=1 -artifact_prefix=" + repro.string() + "/ " + corpus.string());
    CHECK(fz.code != 0);
    CHECK(fz.out.find("differential mismatch: reference vs kernel oracle") != std::string::npos);
    CHECK(fz.out.find("oracle:   review-post") != std::string::npos);
    CHECK(fz.out.find("<-- differs") != std::string::npos);
    CHECK(!fs::is_empty(repro));
    Run clean = shell((out / "review-pre-differential").string() + " -runs=20000 -seed=1 -artifact_prefix=" +
                   repro.string() + "/ " + corpus.string());
    CHECK(clean.code == 0);
}

TEST_CASE("oracle build: a tree without the NI_RANDOM backport runs the idlebal invariants", "[oracle-build]") {
    if (!fs::exists(tarball)) {
        WARN("no " << tarball << ": skipped");
        return;
    }
    // The upstream shape of the newidle cost, made here from Debian's tree:
    // no update_newidle_stats(), and update_newidle_cost() with the domain
    // and the cost only (no success count), its callers to match.
    fs::path up = mutated(fresh_dir("upstream-tree"), "fair.c",
                          "/^static inline void update_newidle_stats/,/^}/d\n"
                          "s/update_newidle_cost(struct sched_domain \\*sd, u64 cost, unsigned int success)/"
                          "update_newidle_cost(struct sched_domain *sd, u64 cost)/\n"
                          "/^\\tif (cost)$/{N;/update_newidle_stats(sd, success)/d}\n"
                          "s/update_newidle_cost(sd, 0, 0)/update_newidle_cost(sd, 0)/\n"
                          "s/update_newidle_cost(sd, domain_cost, weight \\* !!pulled_task)/"
                          "update_newidle_cost(sd, domain_cost)/");
    {
        std::ifstream in(up / "kernel/sched/fair.c");
        std::stringstream ss;
        ss << in.rdbuf();
        const std::string fair = ss.str();
        // The edit took: the two-argument form, and no statistics left.
        REQUIRE(fair.find("update_newidle_cost(struct sched_domain *sd, u64 cost)\n") != std::string::npos);
        REQUIRE(fair.find("void update_newidle_stats(") == std::string::npos);
        REQUIRE(fair.find("update_newidle_stats(sd, success)") == std::string::npos);
    }
    fs::path out = fresh_dir("upstream-out");
    Run r = build("--kernel " + up.string() + " --name upstream-6.1 --out " + out.string());
    INFO(r.out);
    REQUIRE(r.code == 0);
    const std::string dir = " --oracle upstream-6.1 --oracle-dir " + out.string();

    // The invariants apply, with the walks' NI_RANDOM off (the upstream
    // walk), and the arithmetic is 6.1's: the verdicts are linux-6.1's.
    Run p = shell(std::string(SCHEDCHECK_BIN) + " prove" + dir + " --family idlebal --arch lp64 --json --timeout-ms 60000");
    INFO(p.out);
    CHECK(p.code == 0); // held to linux-6.1's row, its tree's release
    auto pj = nlohmann::json::parse(p.out.substr(p.out.find('{')));
    REQUIRE(pj["results"].size() == 6);
    for (const auto &res : pj["results"]) {
        INFO(res["invariant"]);
        auto want = sc::proofs::expected_verdict("linux-6.1", res["invariant"], sc::Arch::lp64);
        REQUIRE(want.has_value());
        CHECK(res["verdict"] == sc::proofs::verdict_name(*want));
        CHECK(res["domain"].get<std::string>().find("no NI_RANDOM dice in this tree") != std::string::npos);
        if (res["invariant"] == "idlebal.recovers") {
            // By hand: decays of x -> x * 253 / 256 from 2^30 ns to 500 us or
            // less, one every HZ + 1 jiffies; at HZ 100 a jiffy is 10 ms.
            std::uint64_t x = std::uint64_t(1) << 30, n = 0;
            for (; x > 500000; ++n)
                x = x * 253 / 256;
            CHECK(res["bound_ms"].get<std::uint64_t>() == n * 101 * 10);
        }
    }

    // Function by function against idlebal/v6.1 (the backport's
    // reference): equal in what both have; the statistics are named as
    // not compared.
    Run e = shell(std::string(SCHEDCHECK_BIN) + " equiv --variant idlebal/v6.1" + dir + " --arch lp64");
    INFO(e.out);
    CHECK(e.code == 0);
    CHECK(e.out.find("EQUIVALENT") != std::string::npos);
    CHECK(e.out.find("not compared: update_newidle_stats") != std::string::npos);
}

TEST_CASE("oracle build: bad kernel sources and patches are refused, nothing is left", "[oracle-build]") {
    fs::path out = fresh_dir("bad");
    fs::path tmp = fresh_dir("inputs");
    fs::create_directories(tmp / "not-a-tree");
    Run r = build("--kernel " + (tmp / "not-a-tree").string() + " --out " + out.string());
    CHECK(r.code == 2);
    CHECK(r.out.find("not a kernel tree (no kernel/sched") != std::string::npos);

    write(tmp / "corrupt.tar.xz", "this is not an xz stream\n");
    r = build("--kernel " + (tmp / "corrupt.tar.xz").string() + " --out " + out.string());
    CHECK(r.code == 2);
    CHECK(r.out.find("corrupt.tar.xz: not a readable kernel tarball") != std::string::npos);

    write(tmp / "nodiff.mbox", "From: someone\nSubject: [PATCH] words only\n\nNo diff here.\n");
    r = build("--patch " + (tmp / "nodiff.mbox").string() + " --out " + out.string());
    CHECK(r.code == 2);
    CHECK(r.out.find("no diff found in") != std::string::npos);
    CHECK(empty_or_absent(out));

    if (!fs::exists(tarball)) {
        WARN("no " << tarball << ": the cases that need kernel text are skipped");
        return;
    }
    // A function that is gone.
    r = build("--kernel " + mutated(tmp / "renamed", "pelt.c", "s/^\\(static.*\\) decay_load(/\\1 decay_load_gone(/").string() +
              " --out " + out.string());
    CHECK(r.code == 2);
    CHECK(r.out.find("decay_load not found in kernel/sched/pelt.c") != std::string::npos);
    CHECK(r.out.find("6.1.") != std::string::npos); // the kernel version

    // A function that is gone while an empty !SMP stub of the same name
    // stays: the stub must not stand in for it.  util_est is then left out
    // and the oracle holds PELT only; its PELT proofs still run.
    fs::path pelt_only = fresh_dir("pelt-only");
    r = build("--kernel " +
              mutated(tmp / "stub-only", "fair.c", "s/^\\(static.*\\) util_est_update(/\\1 util_est_update_gone(/").string() +
              " --name pelt-only --out " + pelt_only.string());
    INFO(r.out);
    CHECK(r.code == 0);
    CHECK(r.out.find("util_est left out") != std::string::npos);
    CHECK(r.out.find("util_est_update") != std::string::npos);
    Run pr = shell(std::string(SCHEDCHECK_BIN) + " prove --oracle pelt-only --oracle-dir " + pelt_only.string() +
                   " --invariant pelt.time_accounted --invariant utilest.bounded --arch lp64");
    INFO(pr.out);
    CHECK(pr.code == 0);
    bool proved = false;
    std::istringstream rows(pr.out);
    for (std::string l; std::getline(rows, l);) {
        proved |= l.rfind("pelt-only", 0) == 0 && l.find("pelt.time_accounted") != std::string::npos &&
                  l.find("PROVED") != std::string::npos;
        CHECK(l.find("utilest.bounded ") == std::string::npos); // no util_est code to prove it on
    }
    CHECK(proved);
    fs::remove_all(pelt_only);

    // A function whose shape no longer fits the shims.
    r = build("--kernel " + mutated(tmp / "reshaped", "pelt.c", "s/->period_contrib = /->period_contrib_new = /").string() +
              " --out " + out.string());
    CHECK(r.code == 2);
    CHECK(r.out.find("function accumulate_sum no longer compiles against the shims") != std::string::npos);

    // A patch that does not apply to the tree.
    write(tmp / "stale.patch", "--- a/kernel/sched/pelt.c\n+++ b/kernel/sched/pelt.c\n@@ -100,3 +100,3 @@\n"
                               " no such line\n-in this file\n+at all\n end\n");
    r = build("--kernel " + tree().string() + " --patch " + (tmp / "stale.patch").string() + " --out " + out.string());
    CHECK(r.code == 2);
    CHECK(r.out.find("file kernel/sched/pelt.c, hunk '@@ -100,3 +100,3 @@'") != std::string::npos);
    CHECK(empty_or_absent(out));
}
