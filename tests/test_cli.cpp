// The schedcheck command end to end: exit codes, bad input, JSON shape,
// reproducers, and replay of every corpus file.
#include <catch2/catch.hpp>

#include <filesystem>
#include <fstream>
#include <string>

#include <nlohmann/json.hpp>

#include "proofs/report/expected.h"
#include "proofs/engine/matrix.h"
#include "tests/shell.h"

namespace fs = std::filesystem;

namespace {

Run run(const std::string &args) { return shell(std::string(SCHEDCHECK_BIN) + " " + args); }

fs::path temp_dir(const std::string &name) {
    fs::path d = fs::temp_directory_path() / ("schedcheck-test-" + name + "-" + std::to_string(::getpid()));
    fs::remove_all(d);
    return d;
}

std::string write(const fs::path &p, const std::string &text) {
    fs::create_directories(p.parent_path());
    std::ofstream(p) << text;
    return p.string();
}

// A valid reproducer to corrupt in the bad-input tests.
nlohmann::json good_repro() {
    return nlohmann::json::parse(R"({
      "format": "schedcheck-reproducer", "version": 1,
      "variant": "cpuload/v3.13", "arch": "ilp32", "invariant": "nohz.busy_not_zeroed",
      "inputs": {}, "claim": {},
      "knobs": {"lb_bias": true, "imbalance_pct": 125},
      "initial": {"cpu_load": [7, 7, 7, 7, 7], "last_load_update_tick": 10,
                  "runnable_load_avg": 1024, "h_nr_running": 1},
      "steps": [{"op": "nohz_exit", "jiffies": 11}]
    })");
}

} // namespace

TEST_CASE("cli: a hand-written reproducer replays: v3.13 zeroes a busy CPU on nohz exit", "[cli]") {
    fs::path d = temp_dir("good");
    std::string f = write(d / "r.json", good_repro().dump());
    Run r = run("replay --json " + f);
    REQUIRE(r.code == 0);
    auto j = nlohmann::json::parse(r.out);
    CHECK(j["violated"] == true);
    // By hand: v3.13 update_cpu_load_nohz samples 0, so cpu_load[0] = 0.
    CHECK(j["comparison"]["lhs"]["value"] == 0);
    fs::remove_all(d);
}

TEST_CASE("cli: the same scenario holds after patch 4/4", "[cli]") {
    fs::path d = temp_dir("fixed");
    auto doc = good_repro();
    doc["variant"] = "cpuload/shi-1-4";
    std::string f = write(d / "r.json", doc.dump());
    Run r = run("replay --json " + f);
    REQUIRE(r.code == 0);
    CHECK(nlohmann::json::parse(r.out)["violated"] == false);
    fs::remove_all(d);
}

TEST_CASE("cli: bad usage exits 2 with a message naming the problem and writes nothing", "[cli][bad-input]") {
    fs::path d = temp_dir("bad");
    struct Case {
        std::string args, needle;
    } cases[] = {
        {"prove --variant cpuload/v9.99 --out " + d.string(), "unknown variant \"cpuload/v9.99\""},
        {"prove --invariant cpuload.nonsense --out " + d.string(), "unknown invariant \"cpuload.nonsense\""},
        {"prove --family sched --out " + d.string(), "unknown family \"sched\""},
        {"prove --arch mips --out " + d.string(), "--arch"},
        {"prove --frobnicate", "frobnicate"},
        {"prove --jobs 0", "jobs"},
        {"replay " + (d / "missing.json").string(), "cannot open file"},
        {"nonsense-command", "nonsense-command"},
    };
    for (const auto &c : cases) {
        INFO(c.args);
        Run r = run(c.args);
        CHECK(r.code == 2);
        CHECK(r.out.find(c.needle) != std::string::npos);
    }
    CHECK_FALSE(fs::exists(d));
}

TEST_CASE("cli: a corrupt reproducer is rejected with the field named", "[cli][bad-input]") {
    fs::path d = temp_dir("corrupt");
    struct Case {
        std::string name;
        std::string text;
        std::string needle;
    };
    std::vector<Case> cases;
    cases.push_back({"not-json", "{\"format\": ", "not valid JSON"});
    cases.push_back({"array", "[1, 2]", "expected a JSON object"});
    cases.push_back({"huge-number", "{\"format\": 1E400}", "not valid JSON"}); // found by afl-fuzz
    {
        auto j = good_repro();
        j["arch"] = 5;
        cases.push_back({"arch-type", j.dump(), "arch"});
    }
    {
        auto j = good_repro();
        j["initial"]["cpu_load"][2] = 4294967296ULL; // 2^32 in a 32-bit unsigned long
        cases.push_back({"too-wide", j.dump(), "initial.cpu_load[2]: value 4294967296 is wider than its 32-bit field"});
    }
    {
        auto j = good_repro();
        j["initial"]["h_nr_running"] = -1;
        cases.push_back({"negative", j.dump(), "initial.h_nr_running: expected a non-negative integer"});
    }
    {
        auto j = good_repro();
        j["steps"][0]["jiffies"] = "eleven";
        cases.push_back({"string", j.dump(), "steps[0].jiffies"});
    }
    {
        auto j = good_repro();
        j["steps"][0]["op"] = "reboot";
        cases.push_back({"op", j.dump(), "unknown operation \"reboot\""});
    }
    {
        auto j = good_repro();
        j["version"] = 2;
        cases.push_back({"version", j.dump(), "version"});
    }
    {
        auto j = good_repro();
        j["variant"] = "cpuload/shi-1-3";
        j["invariant"] = "cpuload.decay_monotone";
        cases.push_back({"not-applicable", j.dump(), "does not apply"});
    }
    for (const auto &c : cases) {
        INFO(c.name);
        std::string f = write(d / (c.name + ".json"), c.text);
        std::size_t n_before = std::distance(fs::directory_iterator(d), fs::directory_iterator{});
        for (const char *cmd : {"replay ", "explain "}) {
            Run r = run(cmd + f);
            CHECK(r.code == 2);
            CHECK(r.out.find(c.needle) != std::string::npos);
            CHECK(r.out.find(f) != std::string::npos); // names the file
        }
        CHECK(std::distance(fs::directory_iterator(d), fs::directory_iterator{}) == (long)n_before);
    }
    fs::remove_all(d);
}

TEST_CASE("cli: prove --json has the documented shape; a counterexample comes with a replayable reproducer",
          "[cli][prove]") {
    fs::path d = temp_dir("prove");
    Run r = run("prove --variant cpuload/shi-1-4 --invariant nohz.busy_not_zeroed --json --out " + d.string());
    REQUIRE(r.code == 0); // matches proofs/expected/verdicts.txt
    auto j = nlohmann::json::parse(r.out);
    REQUIRE(j["results"].size() == 2);
    for (const auto &x : j["results"]) {
        for (const char *k : {"variant", "invariant", "arch", "verdict", "seconds", "paths", "domain", "reason",
                              "counterexample"})
            CHECK(x.contains(k));
        if (x["arch"] == "ilp32") {
            // 32-bit: the patch's "unsigned" is as wide as unsigned long.
            CHECK(x["verdict"] == "PROVED");
            CHECK(x["counterexample"].is_null());
        } else {
            // 64-bit: a runnable load that is a multiple of 2^32 truncates to 0.
            CHECK(x["verdict"] == "COUNTEREXAMPLE");
            std::uint64_t load = x["counterexample"]["inputs"]["runnable_load_avg"];
            CHECK(load % (1ULL << 32) == 0);
            std::string repro = x["counterexample"]["reproducer"];
            CHECK(fs::exists(repro));
            Run rr = run("replay --json " + repro);
            REQUIRE(rr.code == 0);
            CHECK(nlohmann::json::parse(rr.out)["violated"] == true);
            Run ex = run("explain " + repro);
            CHECK(ex.code == 0);
            CHECK(ex.out.find("runnable_load_avg") != std::string::npos);
        }
    }
    fs::remove_all(d);
}

TEST_CASE("cli: a verdict that differs from the expected file exits 1", "[cli][prove]") {
    fs::path d = temp_dir("differ");
    std::string f = write(d / "expected.txt",
                          "cpuload/shi-1-3 cpuload.constant_fixed_point lp64 COUNTEREXAMPLE  # deliberately wrong\n");
    Run r = run("prove --variant cpuload/shi-1-3 --invariant cpuload.constant_fixed_point --arch lp64 --expected " + f);
    CHECK(r.code == 1);
    CHECK(r.out.find("expected COUNTEREXAMPLE") != std::string::npos);
    std::string bad = write(d / "bad.txt", "cpuload/shi-1-3 cpuload.constant_fixed_point lp64 MAYBE\n");
    Run b = run("prove --variant cpuload/shi-1-3 --arch lp64 --expected " + bad);
    CHECK(b.code == 2);
    CHECK(b.out.find("bad.txt:1") != std::string::npos);
    fs::remove_all(d);
}

TEST_CASE("expected verdicts cover the whole built-in matrix", "[expected]") {
    for (const auto &job : sc::proofs::full_matrix()) {
        INFO(job.variant->id << " " << job.invariant->id);
        CHECK(sc::proofs::expected_verdict(job.variant->id, job.invariant->id, job.arch).has_value());
    }
}

TEST_CASE("regression: every reproducer in corpora/cpuload and corpora/pelt still reproduces", "[corpus]") {
    std::size_t n = 0;
    std::vector<fs::path> files;
    for (const char *dir : {"cpuload", "pelt"})
        for (const auto &e : fs::directory_iterator(fs::path(SCHEDCHECK_SOURCE_DIR) / "corpora" / dir))
            files.push_back(e.path());
    for (const fs::path &f : files) {
        const fs::directory_entry e(f);
        if (e.path().extension() != ".json")
            continue;
        ++n;
        INFO(e.path().string());
        Run r = run("replay --json " + e.path().string());
        REQUIRE(r.code == 0);
        auto j = nlohmann::json::parse(r.out);
        CHECK(j["violated"] == true);
        // The invariant is known to fail there: the expected file agrees.
        auto exp = sc::proofs::expected_verdict(j["variant"], j["invariant"],
                                                j["arch"] == "ilp32" ? sc::Arch::ilp32 : sc::Arch::lp64);
        REQUIRE(exp.has_value());
        CHECK(*exp == sc::proofs::Verdict::COUNTEREXAMPLE);
    }
    CHECK(n > 0);
}

TEST_CASE("cli: equiv and oracle commands", "[cli][equiv]") {
    Run u = run("equiv --variant cpuload/v3.13 --oracle linux-9.9");
    CHECK(u.code == 2);
    CHECK(u.out.find("unknown oracle \"linux-9.9\"") != std::string::npos);
    Run b = run("oracle build --patch /nonexistent.mbox");
    CHECK(b.code == 2);
    CHECK(b.out.find("/nonexistent.mbox: no such file") != std::string::npos);
    Run l = run("oracle list --json");
    REQUIRE(l.code == 0);
    CHECK(nlohmann::json::parse(l.out)["oracles"].size() == 5); // 3 seed-000 images, linux-6.1, linux-6.12
}

TEST_CASE("cli: oracle extract lists what a patch series holds, and rejects bad patches", "[cli][oracle]") {
    fs::path d = temp_dir("extract");
    // A small series of our own: patch 2 changes a line patch 1 added.
    std::string series = "Subject: [PATCH 1/2] demo: add\n"
                         "diff --git a/x.c b/x.c\n--- a/x.c\n+++ b/x.c\n@@ -1,4 +1,5 @@\n"
                         " int f(int a)\n {\n-\treturn a;\n+\tint b = a + 1;\n+\treturn b;\n }\n"
                         "Subject: [PATCH 2/2] demo: tweak\n"
                         "diff --git a/x.c b/x.c\n--- a/x.c\n+++ b/x.c\n@@ -2,3 +2,3 @@\n"
                         " {\n-\tint b = a + 1;\n+\tint b = a + 2;\n \treturn b;\n";
    std::string ok = write(d / "ok.mbox", series);
    Run r = run("oracle extract --json --patch " + ok);
    REQUIRE(r.code == 0);
    auto j = nlohmann::json::parse(r.out);
    CHECK(j["patches"].size() == 2);
    REQUIRE(j["images"].size() == 3); // pre-image, after 1, after 2
    for (const auto &img : j["images"]) {
        REQUIRE(img["files"].size() == 1);
        REQUIRE(img["files"][0]["definitions"].size() == 1);
        CHECK(img["files"][0]["definitions"][0]["name"] == "f");
    }

    // Patch 2's old side does not match what patch 1 left.
    std::string bad = series;
    bad.replace(bad.find("-\tint b = a + 1;"), 16, "-\tint b = a * 9;");
    std::string conflict = write(d / "conflict.mbox", bad);
    Run c = run("oracle extract --patch " + conflict);
    CHECK(c.code == 2);
    CHECK(c.out.find("x.c") != std::string::npos);
    CHECK(c.out.find("demo: tweak") != std::string::npos);

    std::string prose = write(d / "prose.txt", "Hello,\nthis mail has no patch in it.\n");
    Run p = run("oracle extract --patch " + prose);
    CHECK(p.code == 2);
    CHECK(p.out.find("no diff found") != std::string::npos);

    Run m = run("oracle extract --patch " + (d / "missing.mbox").string());
    CHECK(m.code == 2);
    CHECK(m.out.find("cannot open file") != std::string::npos);
    fs::remove_all(d);
}

TEST_CASE("cli: a selection with no applicable proof says so", "[cli]") {
    // wakeaffine.hot_not_moved is pjt-1-3's alone (NO_HOT_AFFINE).
    Run r = run("prove --variant wakeaffine/v6.1 --invariant wakeaffine.hot_not_moved");
    CHECK(r.code == 2);
    CHECK(r.out.find("the selection matches no (variant, invariant) pair that applies") != std::string::npos);
}

TEST_CASE("cli: a missing or corrupt oracle plug-in is bad input", "[cli][equiv]") {
    namespace fs = std::filesystem;
    fs::path dir = fs::temp_directory_path() / "schedcheck-cli-plugins";
    fs::remove_all(dir);
    fs::create_directories(dir);
    Run none = run("equiv --variant pelt/v6.1 --oracle absent --oracle-dir " + dir.string());
    CHECK(none.code == 2);
    CHECK(none.out.find("no plug-in " + (dir / "absent.so").string()) != std::string::npos);
    std::ofstream(dir / "junk.so") << "not an ELF object\n";
    Run junk = run("equiv --variant pelt/v6.1 --oracle junk --oracle-dir " + dir.string());
    CHECK(junk.code == 2);
    CHECK(junk.out.find("cannot load oracle plug-in") != std::string::npos);
    CHECK(junk.out.find("no manifest") != std::string::npos);
    fs::remove_all(dir);
}
