// CI at scale: `prove --shard I/N` and `merge`, JUnit and SARIF reports.
#include <catch2/catch.hpp>

#include <filesystem>
#include <fstream>
#include <map>
#include <set>
#include <sstream>
#include <string>

#include <nlohmann/json.hpp>

#include "cli/ci_formats.h"
#include "proofs/engine/matrix.h"
#include "proofs/kernel/kernel_invariants.h"
#include "proofs/report/shard.h"
#include "tests/shell.h"

namespace fs = std::filesystem;
using nlohmann::json;

namespace {

// Cheap cpuload invariants (under 0.3 s each): 44 proofs, with
// counterexamples among them, so reports take part in the comparison.
const std::vector<std::string> selection = {
    "--family",    "cpuload",          "--invariant", "cpuload.decay_monotone",   "--invariant",
    "nohz.busy_not_zeroed", "--invariant", "balance.source_le_target", "--invariant", "cpuload.converges",
    "--invariant", "cpuload.constant_fixed_point"};

Run prove(const std::vector<std::string> &extra) {
    std::vector<std::string> argv = {SCHEDCHECK_BIN, "prove", "--jobs", "2"};
    argv.insert(argv.end(), selection.begin(), selection.end());
    argv.insert(argv.end(), extra.begin(), extra.end());
    return run_argv(argv);
}

Run schedcheck(std::vector<std::string> args) {
    args.insert(args.begin(), SCHEDCHECK_BIN);
    return run_argv(args);
}

json read_json(const fs::path &p) {
    std::ifstream in(p);
    return json::parse(in);
}

std::string slurp(const fs::path &p) {
    std::ifstream in(p, std::ios::binary);
    std::stringstream ss;
    ss << in.rdbuf();
    return ss.str();
}

fs::path temp_dir(const std::string &name) {
    fs::path d = fs::temp_directory_path() / ("schedcheck-ci-" + name + "-" + std::to_string(::getpid()));
    fs::remove_all(d);
    fs::create_directories(d);
    return d;
}

// "variant invariant arch" -> verdict
std::map<std::string, std::string> verdicts(const json &results) {
    std::map<std::string, std::string> m;
    for (const auto &r : results["results"])
        m[r["variant"].get<std::string>() + " " + r["invariant"].get<std::string>() + " " +
          r["arch"].get<std::string>()] = r["verdict"];
    return m;
}

// The table without its seconds column (the only thing allowed to differ).
std::string table_without_seconds(const std::string &t) {
    std::istringstream in(t);
    std::string line, out;
    while (std::getline(in, line)) {
        std::istringstream ls(line);
        std::string w, row;
        int col = 0;
        while (ls >> w) {
            if (col++ != 4)
                row += w + " ";
        }
        out += row + "\n";
    }
    return out;
}

// `dir` replaced by OUT wherever it is named (the reproducer paths).
std::string relative(std::string t, const std::string &dir) {
    for (auto p = t.find(dir); p != std::string::npos; p = t.find(dir, p))
        t.replace(p, dir.size(), "OUT");
    return t;
}

std::set<std::string> files_in(const fs::path &d) {
    std::set<std::string> s;
    if (fs::exists(d))
        for (const auto &e : fs::directory_iterator(d))
            s.insert(e.path().filename().string());
    return s;
}

} // namespace

TEST_CASE("shard: longest proof first, each to the least loaded shard", "[ci][shard]") {
    // Seven proofs with costs 5 4 3 3 2 2 1 into 3 shards, by hand:
    // 5->A, 4->B, 3->C, 3->C (3 < 4, 5), 2->B (4 < 5, 6), 2->A (5 < 6, 6),
    // 1->B (6 = 6, the lower shard).  Loads A 7, B 7, C 6.
    // Each of a different invariant, so that none goes with another (the
    // next test case).
    std::vector<sc::proofs::Job> jobs;
    std::set<std::string> invariants;
    for (const auto &j : sc::proofs::full_matrix())
        if (jobs.size() < 7 && invariants.insert(j.invariant->id).second)
            jobs.push_back(j);
    REQUIRE(jobs.size() == 7);
    const double cost[7] = {3, 5, 2, 1, 4, 3, 2};
    std::map<std::string, double> t;
    for (int k = 0; k < 7; ++k)
        t[sc::proofs::job_key(jobs[k])] = cost[k];
    std::vector<unsigned> part = sc::proofs::assign_shards(jobs, 3, t);
    double load[3] = {0, 0, 0};
    for (int k = 0; k < 7; ++k)
        load[part[k]] += cost[k];
    CHECK(load[0] == 7);
    CHECK(load[1] == 7);
    CHECK(load[2] == 6);
    CHECK(part[1] == 0); // the 5
    CHECK(part[4] == 1); // the 4
    CHECK(part[3] == 1); // the 1 goes to the lower of two equal shards
    // The listing order does not change the split.
    std::vector<sc::proofs::Job> rev(jobs.rbegin(), jobs.rend());
    std::vector<unsigned> prev = sc::proofs::assign_shards(rev, 3, t);
    for (int k = 0; k < 7; ++k)
        CHECK(prev[6 - k] == part[k]);
}

TEST_CASE("shard: an invariant's proofs go together unless they outweigh a shard's share", "[ci][shard]") {
    // They share answers through the query cache, which the timing file's
    // costs assume.  Six jobs into 2 shards, costs by hand: decay_monotone
    // v4.3 ilp32 29 and lp64 6, v4.12 ilp32 3 (38 together); no_overflow
    // v3.13 ilp32 20 and lp64 4, shi-1 lp64 12 (36 together).  The share is
    // 74 / 2 = 37: decay_monotone (38) goes per variant, v4.3's 35 and
    // v4.12's 3; no_overflow (36) stays whole.  Longest first: 36 -> A,
    // 35 -> B, 3 -> B (35 < 36).  Loads A 36, B 38.
    auto job = [](const char *v, const char *i, sc::Arch a) {
        return sc::proofs::Job{sc::proofs::find_subject(v), sc::proofs::find_invariant(i), a};
    };
    using sc::Arch;
    std::vector<sc::proofs::Job> jobs = {job("pelt/v4.3", "pelt.decay_monotone", Arch::ilp32),
                                         job("pelt/v4.3", "pelt.decay_monotone", Arch::lp64),
                                         job("pelt/v4.12", "pelt.decay_monotone", Arch::ilp32),
                                         job("cpuload/v3.13", "cpuload.no_overflow", Arch::ilp32),
                                         job("cpuload/v3.13", "cpuload.no_overflow", Arch::lp64),
                                         job("cpuload/shi-1", "cpuload.no_overflow", Arch::lp64)};
    for (const auto &j : jobs)
        REQUIRE((j.variant && j.invariant));
    const double cost[6] = {29, 6, 3, 20, 4, 12};
    std::map<std::string, double> t;
    for (int k = 0; k < 6; ++k)
        t[sc::proofs::job_key(jobs[k])] = cost[k];
    std::vector<unsigned> part = sc::proofs::assign_shards(jobs, 2, t);
    CHECK(part[3] == 0);
    CHECK(part[4] == 0);
    CHECK(part[5] == 0);
    CHECK(part[0] == 1);
    CHECK(part[1] == 1);
    CHECK(part[2] == 1);
    // With 3 shards the share is 24.7: both go per variant.  Longest
    // first: v4.3 35 -> A, v3.13 24 -> B, shi-1 12 -> C, v4.12 3 -> C.
    part = sc::proofs::assign_shards(jobs, 3, t);
    CHECK(part[0] == 0);
    CHECK(part[1] == 0);
    CHECK(part[3] == 1);
    CHECK(part[4] == 1);
    CHECK(part[5] == 2);
    CHECK(part[2] == 2);
}

TEST_CASE("shard: a kernel job carried over from a variant's goes with it", "[ci][shard]") {
    // linux-6.1's pelt.decay_monotone is carried from pelt/v6.1's
    // (proofs/equiv/carry_over.h): apart, it would be proved directly.
    // Four jobs of costs 10 (the variant), 0.1 (its kernel), 6 and 5 into 2
    // shards: the pair weighs 10.1 and goes first, to shard A; 6 and 5 go
    // to B (load 11), so A holds 10.1 and B 11.
    auto job = [](const char *v, const char *i) {
        return sc::proofs::Job{sc::proofs::find_subject(v), sc::proofs::find_invariant(i), sc::Arch::lp64};
    };
    std::vector<sc::proofs::Job> jobs = {job("linux-6.1", "pelt.decay_monotone"),
                                         job("cpuload/v3.13", "cpuload.no_overflow"),
                                         job("pelt/v6.1", "pelt.decay_monotone"),
                                         job("cpuload/shi-1", "cpuload.no_overflow")};
    for (const auto &j : jobs)
        REQUIRE((j.variant && j.invariant));
    const double cost[4] = {0.1, 6, 10, 5};
    std::map<std::string, double> t;
    for (int k = 0; k < 4; ++k)
        t[sc::proofs::job_key(jobs[k])] = cost[k];
    std::vector<unsigned> part = sc::proofs::assign_shards(jobs, 2, t);
    CHECK(part[0] == part[2]);
    CHECK(part[2] == 0);
    CHECK(part[1] == 1);
    CHECK(part[3] == 1);
}

TEST_CASE("shard: bad --shard values and timing files are refused", "[ci][shard]") {
    for (const char *bad : {"0/3", "4/3", "1/0", "3", "a/b", "1/3x", "1/5000"}) {
        Run r = schedcheck({"prove", "--family", "cpuload", "--shard", bad});
        CHECK(r.code == 2);
        CHECK(r.out.find("--shard") != std::string::npos);
    }
    CHECK_THROWS_WITH(sc::proofs::parse_timings("cpuload/v3.13 cpuload.no_overflow lp64 fast\n", "t.txt"),
                      Catch::Contains("t.txt:1: seconds"));
    CHECK_THROWS_WITH(sc::proofs::parse_timings("cpuload/v9 cpuload.no_overflow lp64 1\n", "t.txt"),
                      Catch::Contains("unknown variant"));
}

TEST_CASE("merge: shards 1/3, 2/3 and 3/3 give what the unsharded run gives", "[ci][shard][merge]") {
    fs::path d = temp_dir("merge");
    Run whole = prove({"--out", (d / "whole").string()});
    REQUIRE((whole.code == 0 || whole.code == 1));
    json w = read_json(d / "whole" / "results.json");
    REQUIRE(w["results"].size() == 44);

    std::vector<std::string> files;
    std::set<std::string> seen;
    for (int i = 1; i <= 3; ++i) {
        fs::path o = d / ("shard" + std::to_string(i));
        Run s = prove({"--shard", std::to_string(i) + "/3", "--out", o.string()});
        REQUIRE(s.code != 2);
        REQUIRE(s.code != 3);
        json sj = read_json(o / "results.json");
        CHECK(sj["run"]["shard"]["index"] == i);
        CHECK(sj["run"]["selection"] == w["run"]["selection"]);
        CHECK(!sj["results"].empty());
        for (const auto &[k, v] : verdicts(sj))
            CHECK(seen.insert(k).second); // each proof in one shard only
        files.push_back((o / "results.json").string());
    }
    CHECK(seen.size() == 44);

    std::vector<std::string> margs = {"merge", "--out", (d / "merged").string()};
    margs.insert(margs.end(), files.begin(), files.end());
    Run m = schedcheck(margs);
    CHECK(m.code == whole.code);
    json mj = read_json(d / "merged" / "results.json");
    CHECK(verdicts(mj) == verdicts(w));
    // The same rows in the same order, and the same reports and reproducers.
    const std::string wd = (d / "whole").string(), md = (d / "merged").string();
    CHECK(table_without_seconds(relative(slurp(d / "merged" / "verdicts.txt"), md)) ==
          table_without_seconds(relative(slurp(d / "whole" / "verdicts.txt"), wd)));
    CHECK(files_in(d / "merged" / "reports") == files_in(d / "whole" / "reports"));
    CHECK(files_in(d / "merged" / "reproducers") == files_in(d / "whole" / "reproducers"));
    CHECK(!files_in(d / "whole" / "reports").empty());
    for (const auto &f : files_in(d / "whole" / "reports"))
        CHECK(relative(slurp(d / "merged" / "reports" / f), md) == relative(slurp(d / "whole" / "reports" / f), wd));

    { // a missing shard is named
        Run r = schedcheck({"merge", files[0], files[2]});
        CHECK(r.code == 2);
        CHECK(r.out.find("missing shard 2/3") != std::string::npos);
    }
    { // the same shard twice is an overlap, naming both files
        Run r = schedcheck({"merge", files[0], files[1], files[0], files[2]});
        CHECK(r.code == 2);
        CHECK(r.out.find("overlapping shards") != std::string::npos);
        CHECK(r.out.find(files[0] + " and " + files[0]) != std::string::npos);
    }
    { // a shard of another split is refused
        Run r = schedcheck({"merge", files[0], (d / "whole" / "results.json").string()});
        CHECK(r.code == 2);
        CHECK(r.out.find("not one split") != std::string::npos);
    }
    { // a corrupt results file is named with the field
        json bad = read_json(files[1]);
        bad["results"][0]["verdict"] = "MAYBE";
        std::ofstream(d / "bad.json") << bad.dump();
        Run r = schedcheck({"merge", files[0], (d / "bad.json").string(), files[2]});
        CHECK(r.code == 2);
        CHECK(r.out.find("bad.json: /results/0/verdict") != std::string::npos);
    }
    fs::remove_all(d);
}

TEST_CASE("junit and sarif: one test case per proof, one result per unexpected counterexample", "[ci][junit][sarif]") {
    fs::path d = temp_dir("formats");
    // An expected file that wrongly claims v3.13's nohz proof on ilp32 is
    // PROVED: that one proof must fail in JUnit and be the one SARIF result
    // (v3.13 samples a load of 0 on nohz exit; README, "What the matrix finds").
    std::string exp = "cpuload/v3.13 nohz.busy_not_zeroed ilp32 PROVED\n"
                      "cpuload/v3.13 nohz.busy_not_zeroed lp64  COUNTEREXAMPLE\n"
                      "cpuload/shi-1-4 nohz.busy_not_zeroed ilp32 PROVED\n"
                      "cpuload/shi-1-4 nohz.busy_not_zeroed lp64  COUNTEREXAMPLE\n";
    std::ofstream(d / "expected.txt") << exp;
    Run r = schedcheck({"prove", "--variant", "cpuload/v3.13", "--variant", "cpuload/shi-1-4", "--invariant",
                        "nohz.busy_not_zeroed", "--expected", (d / "expected.txt").string(), "--out",
                        (d / "out").string(), "--junit", (d / "junit.xml").string(), "--sarif",
                        (d / "log.sarif").string()});
    CHECK(r.code == 1);

    std::string x = slurp(d / "junit.xml");
    auto count = [&](const std::string &needle) {
        std::size_t n = 0;
        for (auto p = x.find(needle); p != std::string::npos; p = x.find(needle, p + 1))
            ++n;
        return n;
    };
    CHECK(x.rfind("<?xml version=\"1.0\" encoding=\"UTF-8\"?>", 0) == 0);
    CHECK(count("<testcase ") == 4);
    CHECK(count("<failure ") == 1);
    CHECK(x.find("tests=\"4\" failures=\"1\"") != std::string::npos);
    // The failure text is the reviewer report written under --out, escaped.
    std::string report = slurp(d / "out" / "reports" / "cpuload_v3.13_nohz.busy_not_zeroed_ilp32.txt");
    REQUIRE(!report.empty());
    std::string first_line = report.substr(0, report.find('\n'));
    CHECK(x.find("<failure message=\"COUNTEREXAMPLE (expected PROVED)\" type=\"COUNTEREXAMPLE\">" + first_line) !=
          std::string::npos);

    // SARIF 2.1.0: valid against the published schema (stored in
    // tests/data; python3-jsonschema validates), and a copy with a level
    // outside the schema's enumeration is not, so the check can fail.
    const std::string src = SCHEDCHECK_SOURCE_DIR;
    const std::string schema = src + "/tests/data/sarif-schema-2.1.0.json";
    Run v = run_argv({"python3", src + "/tests/validate_json.py", schema, (d / "log.sarif").string()});
    INFO(v.out);
    CHECK(v.code == 0);
    {
        json bad = read_json(d / "log.sarif");
        REQUIRE(bad["runs"][0]["results"].size() == 1);
        bad["runs"][0]["results"][0]["level"] = "fatal";
        std::ofstream(d / "bad.sarif") << bad.dump();
        Run vb = run_argv({"python3", src + "/tests/validate_json.py", schema, (d / "bad.sarif").string()});
        CHECK(vb.code == 1);
        CHECK(vb.out.find("/runs/0/results/0/level") != std::string::npos);
    }
    // And by hand, the properties the dashboards read: sarifLog{version,
    // runs}, run{tool}, tool{driver}, driver{name}, result{message{text}},
    // region.startLine >= 1, ruleIndex pointing at the rule named by ruleId.
    json s = read_json(d / "log.sarif");
    CHECK(s["version"] == "2.1.0");
    REQUIRE(s["runs"].is_array());
    REQUIRE(s["runs"].size() == 1);
    const json &run = s["runs"][0];
    CHECK(run["tool"]["driver"]["name"] == "schedcheck");
    const json &rules = run["tool"]["driver"]["rules"];
    REQUIRE(rules.is_array());
    REQUIRE(run["results"].size() == 1);
    const json &res = run["results"][0];
    CHECK(res["ruleId"] == "nohz.busy_not_zeroed");
    CHECK(rules[res["ruleIndex"].get<std::size_t>()]["id"] == res["ruleId"]);
    const std::set<std::string> levels = {"none", "note", "warning", "error"};
    CHECK(levels.count(res["level"].get<std::string>()) == 1);
    CHECK(res["message"]["text"] == report);
    CHECK(res["properties"]["variant"] == "cpuload/v3.13");
    CHECK(res["properties"]["arch"] == "ilp32");
    const json &pl = res["locations"][0]["physicalLocation"];
    CHECK(pl["artifactLocation"]["uri"] == "ref/cpuload.h");
    int line = pl["region"]["startLine"];
    REQUIRE(line >= 1);
    // That line of the reference header is where the function is defined.
    std::ifstream hdr(std::string(SCHEDCHECK_SOURCE_DIR) + "/ref/cpuload.h");
    std::string text;
    for (int k = 0; k < line; ++k)
        std::getline(hdr, text);
    CHECK(text.find("void update_cpu_load_nohz(") != std::string::npos);
    fs::remove_all(d);
}

TEST_CASE("sarif: a kernel subject's violation is located in the kernel file, at the function's line",
          "[ci][sarif][kernel]") {
    const std::string tarball = "/usr/src/linux-source-6.1.tar.xz";
    if (!fs::exists(tarball)) {
        WARN("no " + tarball + ": the line cannot be checked here");
        return;
    }
    sc::cli::SourceLocation loc = sc::cli::violation_location("linux-6.1", "pelt.decay_monotone");
    CHECK(loc.uri == "kernel/sched/pelt.c");
    CHECK(loc.uri_base == "KERNEL_SRCROOT");
    CHECK(loc.function == "decay_load");
    REQUIRE(loc.line > 0);
    // Independently: unpack that one file with tar and read the line.
    fs::path d = temp_dir("kernel-line");
    Run t = run_argv({"tar", "-xJf", tarball, "-C", d.string(), "--wildcards", "*/kernel/sched/pelt.c"});
    REQUIRE(t.code == 0);
    fs::path file;
    for (const auto &e : fs::recursive_directory_iterator(d))
        if (e.path().filename() == "pelt.c")
            file = e.path();
    REQUIRE(!file.empty());
    std::ifstream in(file);
    std::string text;
    for (int k = 0; k < loc.line; ++k)
        std::getline(in, text);
    // The definition's first line names the function and is no statement.
    CHECK(text.find("decay_load(") != std::string::npos);
    CHECK(text.find(';') == std::string::npos);
    fs::remove_all(d);

    // A reference variant: the header, no kernel root.
    sc::cli::SourceLocation r = sc::cli::violation_location("utilest/bellasi-v3", "utilest.ewma_between");
    CHECK(r.uri == "ref/util_est.h");
    CHECK(r.function == "util_est_dequeue"); // Bellasi's series updates the EWMA on dequeue
    CHECK(r.line > 0);
}

// Lines `n` and `n + 1` of `file` inside a Debian linux-source tarball,
// unpacked by tar (a kernel definition may have its return type on a line
// of its own, the name on the next).
static std::pair<std::string, std::string> tarball_lines(const std::string &tarball, const std::string &file,
                                                         int n) {
    fs::path d = temp_dir("kernel-line");
    Run t = run_argv({"tar", "-xJf", tarball, "-C", d.string(), "--strip-components=1", "--wildcards", "*/" + file});
    std::string text, next;
    if (t.code == 0) {
        std::ifstream in(d / file);
        for (int k = 0; k < n; ++k)
            std::getline(in, text);
        std::getline(in, next);
    }
    fs::remove_all(d);
    return {text, next};
}

// Line `n` of a reference header of this tree.
static std::string header_line(const std::string &rel, int n) {
    std::ifstream in(std::string(SCHEDCHECK_SOURCE_DIR) + "/" + rel);
    std::string text;
    for (int k = 0; k < n; ++k)
        std::getline(in, text);
    return text;
}

TEST_CASE("sarif: idlebal and wakeaffine violations are located at the function the invariant reads",
          "[ci][sarif]") {
    // The reference: which function holds the arithmetic each invariant
    // states (ref/idle_balance.h, ref/wake_affine.h), at its definition.
    struct Ref {
        const char *subject, *invariant, *header, *function;
    };
    const Ref refs[] = {
        {"idlebal/v6.1", "idlebal.avg_idle_no_jump", "ref/idle_balance.h", "update_rq_avg_idle"},
        {"idlebal/low-1-3", "idlebal.cost_decay_monotone", "ref/idle_balance.h", "rebalance_domains"},
        {"idlebal/v6.12", "idlebal.cost_decay_monotone", "ref/idle_balance.h", "update_newidle_cost"},
        {"idlebal/low-1-2", "idlebal.skip_sound", "ref/idle_balance.h", "idle_balance"},
        {"wakeaffine/v2.6.37", "wakeaffine.no_overflow", "ref/wake_affine.h", "wake_affine_ulong"},
        {"wakeaffine/v3.13", "wakeaffine.no_overflow", "ref/wake_affine.h", "wake_affine_s64"},
        {"wakeaffine/v2.6.37", "wakeaffine.effective_load_monotone", "ref/wake_affine.h", "effective_load"},
        {"wakeaffine/pjt-1-3", "wakeaffine.hot_not_moved", "ref/wake_affine.h", "wake_affine"},
        {"wakeaffine/v6.1", "wakeaffine.decision_symmetric", "ref/wake_affine.h", "wake_affine_weight"},
    };
    for (const Ref &x : refs) {
        INFO(x.subject << " " << x.invariant);
        sc::cli::SourceLocation loc = sc::cli::violation_location(x.subject, x.invariant);
        CHECK(loc.uri_base == "SRCROOT");
        CHECK(loc.uri == x.header);
        CHECK(loc.function == x.function);
        REQUIRE(loc.line > 0);
        const std::string text = header_line(x.header, loc.line);
        CHECK(text.find(std::string(" ") + x.function + "(") != std::string::npos);
        CHECK(text.find(';') == std::string::npos);
    }
    // The kernels: the extracted function, in the file the tree keeps it in.
    struct Kern {
        const char *version, *invariant, *file, *function;
    };
    const Kern kerns[] = {
        {"6.1", "idlebal.avg_idle_capped", "kernel/sched/sched.h", "update_avg"},
        {"6.12", "idlebal.recovers", "kernel/sched/fair.c", "update_newidle_cost"},
        {"6.1", "wakeaffine.decision_symmetric", "kernel/sched/fair.c", "wake_affine_weight"},
    };
    for (const Kern &k : kerns) {
        const std::string tarball = std::string("/usr/src/linux-source-") + k.version + ".tar.xz";
        INFO(k.version << " " << k.invariant);
        if (!fs::exists(tarball)) {
            WARN("no " + tarball + ": the line cannot be checked here");
            continue;
        }
        sc::cli::SourceLocation loc = sc::cli::violation_location(std::string("linux-") + k.version, k.invariant);
        CHECK(loc.uri_base == "KERNEL_SRCROOT");
        CHECK(loc.uri == k.file);
        CHECK(loc.function == k.function);
        REQUIRE(loc.line > 0);
        // The definition starts there: the name on that line, or a return
        // type alone on it and the name at the start of the next.
        const auto [text, next] = tarball_lines(tarball, k.file, loc.line);
        const std::string call = std::string(k.function) + "(";
        CHECK((text.find(call) != std::string::npos || next.rfind(call, 0) == 0));
        CHECK(text.find(';') == std::string::npos);
    }
}
