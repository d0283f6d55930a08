// `schedcheck review`, end to end, on patches made here from Debian's
// linux-source-6.1 tarball at test time (nothing of the kernel is in the
// tests): each patch reintroduces a kind of bug into a 6.1 tree, and the
// review must name the invariant it breaks as a regression; the reverse
// patch, applied to the broken tree, must come out as a fix.
//
//   - a lost remainder of the time delta: last_update_time set to now
//     instead of advanced by whole 1024 ns units  -> pelt.time_accounted;
//   - the UNCHANGED flag not masked out of util_est.enqueued by its reader
//                                                  -> utilest.flag_isolated;
//   - a stale comparison in util_est's filter: the enqueued difference left
//     as the old value, not old minus the new sample -> utilest.filter_sound;
//     the same patch swaps wake_affine_idle()'s choice between two idle
//     CPUs, which must show as a changed function (wake_affine_idle and
//     wake_affine), checked against the 6.1 rule.
//
// `--fuzz-seconds` is checked on the first patch (the difference it finds
// is checked against the kernel's rounding of last_update_time) and on a
// patch that only rewords a comment (no difference may be found).
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

const char *tarball = "/usr/src/linux-source-6.1.tar.xz";

// False, with a warning, on a machine without the tarball: the test is skipped.
bool have_tarball() {
    if (fs::exists(tarball))
        return true;
    WARN("no " << tarball << ": skipped");
    return false;
}

struct Tree {
    fs::path dir;
    ~Tree() {
        std::error_code ec;
        if (!dir.empty())
            fs::remove_all(dir, ec);
    }
};

// The tarball's sched files, unpacked once per test process.
fs::path tree() {
    static Tree tr;
    if (tr.dir.empty()) {
        fs::path d = fs::temp_directory_path() / ("schedcheck-review-tree-" + std::to_string(getpid()));
        fs::create_directories(d);
        REQUIRE(run_argv({"tar", "-xf", tarball, "-C", d.string(), "--strip-components=1", "--wildcards",
                          "*/Makefile", "*/kernel/sched/*", "*/include/linux/sched.h"})
                    .code == 0);
        tr.dir = d;
    }
    return tr.dir;
}

struct Scratch {
    fs::path dir;
    explicit Scratch(const std::string &name)
        : dir(fs::temp_directory_path() / ("schedcheck-review-" + name + "-" + std::to_string(getpid()))) {
        fs::remove_all(dir);
        fs::create_directories(dir);
    }
    ~Scratch() {
        std::error_code ec;
        fs::remove_all(dir, ec);
    }
};

// A patch of FILE (relative to the tree) made by a sed expression, written
// to dir/forward.patch, and the reverse one to dir/reverse.patch; the
// broken tree (the forward patch applied) is made in dir/broken.
void make_patches(const fs::path &dir, const std::string &file, const std::string &sed) {
    fs::create_directories(dir / "a" / fs::path(file).parent_path());
    fs::create_directories(dir / "b" / fs::path(file).parent_path());
    fs::copy_file(tree() / file, dir / "a" / file);
    fs::copy_file(tree() / file, dir / "b" / file);
    REQUIRE(run_argv({"sed", "-i", sed, (dir / "b" / file).string()}).code == 0);
    Run fwd = run_argv({"diff", "-u", "a/" + file, "b/" + file}, dir);
    REQUIRE(fwd.code == 1); // the sed expression changed something
    std::ofstream(dir / "forward.patch") << fwd.out;
    Run rev = run_argv({"diff", "-u", "b/" + file, "a/" + file}, dir);
    std::ofstream(dir / "reverse.patch") << rev.out;
    fs::copy(tree(), dir / "broken", fs::copy_options::recursive);
    fs::copy_file(dir / "b" / file, dir / "broken" / file, fs::copy_options::overwrite_existing);
}

// Each solver query may take 60 s (the default is 10 s): the limit is
// wall-clock time, and under CI's load a query that takes a few seconds on
// an idle machine can run out and turn a verdict UNKNOWN.
Run review(const std::vector<std::string> &args) {
    std::vector<std::string> argv = {SCHEDCHECK_BIN, "review", "--timeout-ms", "60000"};
    argv.insert(argv.end(), args.begin(), args.end());
    return run_argv(argv);
}

// The regression (or fix) entries of a review's JSON, as "invariant arch".
std::vector<std::string> entries(const std::string &out, const std::string &kind) {
    std::vector<std::string> r;
    auto j = nlohmann::json::parse(without_warnings(out));
    for (const auto &c : j["changes"])
        if (c["kind"] == kind)
            r.push_back(c["invariant"].get<std::string>() + " " + c["arch"].get<std::string>());
    return r;
}

bool has(const std::vector<std::string> &v, const std::string &s) {
    return std::find(v.begin(), v.end(), s) != v.end();
}

// A function change listed in a review's JSON ("functions"), or null.
nlohmann::json function_change(const std::string &out, const std::string &function) {
    const nlohmann::json doc = nlohmann::json::parse(without_warnings(out));
    for (const auto &f : doc["functions"])
        if (f["function"] == function)
            return f;
    return nullptr;
}

// The wake_affine_idle() change of the "filter" patch: with this_cpu idle
// and sharing the cache, the kernel answers prev_cpu (1) if prev_cpu is idle
// too, else this_cpu (0); the patched code the other way round.
void check_idle_choice_swapped(const std::string &out, bool forward) {
    nlohmann::json f = function_change(out, "wake_affine_idle");
    REQUIRE(f.is_object());
    const auto &in = f["inputs"];
    CHECK(in["this_idle"] == 1);
    CHECK(in["cpus_share_cache"] == 1);
    const std::uint64_t kernel = in["prev_idle"] == 1 ? 1 : 0, swapped = 1 - kernel;
    CHECK(f["outputs"]["target"]["before"] == (forward ? kernel : swapped));
    CHECK(f["outputs"]["target"]["after"] == (forward ? swapped : kernel));
    CHECK(function_change(out, "wake_affine").is_object());
}

// unchanged: the families whose definitions the patch does not touch, in
// the review's order (pelt, utilest, idlebal, wakeaffine), whose invariants the review
// does not prove again.
void regression_and_fix(const std::string &name, const std::string &file, const std::string &sed,
                        const std::string &invariant, const std::vector<std::string> &unchanged,
                        bool idle_choice_swapped = false) {
    if (!have_tarball())
        return;
    Scratch s(name);
    make_patches(s.dir, file, sed);
    Run fwd = review({"--patch", (s.dir / "forward.patch").string(), "--kernel", tree().string(), "--json"});
    INFO(fwd.out);
    REQUIRE(fwd.code == 1);
    auto reg = entries(fwd.out, "regression");
    CHECK(has(reg, invariant + " ilp32"));
    CHECK(has(reg, invariant + " lp64"));
    CHECK(entries(fwd.out, "fix").empty());
    if (idle_choice_swapped)
        check_idle_choice_swapped(fwd.out, true);
    const auto jf = nlohmann::json::parse(without_warnings(fwd.out));
    CHECK(jf["unchanged_families"] == nlohmann::json(unchanged));
    // None of the test patches touches decay_load(): where the PELT
    // invariants are proved, decay_monotone alone is not.
    const bool pelt_proved = !has(unchanged, "pelt");
    CHECK(jf["unchanged_invariants"] ==
          (pelt_proved ? nlohmann::json::array({"pelt.decay_monotone"}) : nlohmann::json::array()));
    // The unpatched tree is Debian's 6.1 tarball, the source of the
    // built-in linux-6.1 oracle: the pre-image runs on that oracle, the
    // patched one on its plug-in.
    CHECK(jf["images"]["pre"] == "linux-6.1");
    CHECK(jf["images"]["post"] == "review-post");
    // The one invariant too slow for a review is named, not silently left
    // out, when its family is proved.
    CHECK(jf["not_proved"] ==
          (pelt_proved ? nlohmann::json::array({"pelt.load_bounded"}) : nlohmann::json::array()));

    Run rev = review({"--patch", (s.dir / "reverse.patch").string(), "--kernel", (s.dir / "broken").string(),
                      "--json"});
    INFO(rev.out);
    REQUIRE(rev.code == 0);
    auto fix = entries(rev.out, "fix");
    CHECK(has(fix, invariant + " ilp32"));
    CHECK(has(fix, invariant + " lp64"));
    CHECK(entries(rev.out, "regression").empty());
    // Reversed: the broken tree is compiled, the fixed one is linux-6.1's.
    const auto jr = nlohmann::json::parse(without_warnings(rev.out));
    CHECK(jr["images"]["pre"] == "review-pre");
    CHECK(jr["images"]["post"] == "linux-6.1");
    if (idle_choice_swapped)
        check_idle_choice_swapped(rev.out, false);
}

} // namespace

// The tests below parse a review's JSON from stdout and stderr together;
// an engine warning (one line on stderr) must not be read as part of it,
// and nothing else may be dropped.
TEST_CASE("without_warnings drops the engine's warning lines and nothing else", "[review]") {
    CHECK(without_warnings("schedcheck: warning: pelt.x on y ilp32: z; the proof starts again on new solvers\n"
                           "{\"a\": 1}\n") == "{\"a\": 1}\n");
    CHECK(without_warnings("{\n  \"w\": \"schedcheck: warning: inside\"\n}\n") ==
          "{\n  \"w\": \"schedcheck: warning: inside\"\n}\n");
}

TEST_CASE("review: a lost remainder of the time delta is a pelt.time_accounted regression", "[review]") {
    regression_and_fix("remainder", "kernel/sched/pelt.c",
                       "s/last_update_time += delta << 10;/last_update_time = now;/", "pelt.time_accounted",
                       {"utilest", "idlebal", "wakeaffine"});
}

// --all-invariants proves pelt.load_bounded too (left out by default for
// its minutes per image): nothing is left "not proved", and the unpatched
// image, which runs on the built-in linux-6.1, gets the verdicts the
// expected file records for linux-6.1 (checked by every `make run`).  The
// JSON lists every proof on both images, changed or not.
TEST_CASE("review --all-invariants: pelt.load_bounded is proved on both images", "[review]") {
    if (!have_tarball())
        return;
    Scratch s("all");
    make_patches(s.dir, "kernel/sched/pelt.c", "s/last_update_time += delta << 10;/last_update_time = now;/");
    Run r = review({"--patch", (s.dir / "forward.patch").string(), "--kernel", tree().string(), "--json",
                    "--all-invariants"});
    INFO(r.out);
    REQUIRE(r.code == 1); // the pelt.time_accounted regression, as without the option
    const auto j = nlohmann::json::parse(without_warnings(r.out));
    CHECK(j["not_proved"] == nlohmann::json::array());
    int seen = 0;
    for (const auto &p : j["proofs"]) {
        const std::string arch = p["arch"];
        const sc::Arch a = arch == "ilp32" ? sc::Arch::ilp32 : sc::Arch::lp64;
        auto want = sc::proofs::expected_verdict("linux-6.1", p["invariant"], a);
        REQUIRE(want.has_value());
        CHECK(p["pre"]["verdict"] == sc::proofs::verdict_name(*want));
        CHECK(p["post"].is_object());
        seen += p["invariant"] == "pelt.load_bounded";
    }
    CHECK(seen == 2);
}

TEST_CASE("review: the util_est flag shown to readers is a utilest.flag_isolated regression", "[review]") {
    regression_and_fix("flag", "kernel/sched/fair.c",
                       "s/(ue.enqueued & ~UTIL_AVG_UNCHANGED));/ue.enqueued);/", "utilest.flag_isolated",
                       {"pelt", "idlebal", "wakeaffine"});
}

// The same patch also swaps wake_affine_idle()'s answer for an idle pair of
// CPUs: the wakeaffine invariants are proved again, and decision_symmetric,
// which swaps loads and not idleness, stays PROVED; the swap shows as a
// changed function, beside the regression and not instead of it.
TEST_CASE("review: a stale util_est filter is a utilest.filter_sound regression", "[review]") {
    regression_and_fix("filter", "kernel/sched/fair.c",
                       "s/last_enqueued_diff -= ue.enqueued;/;/;"
                       "s/available_idle_cpu(prev_cpu) ? prev_cpu : this_cpu/available_idle_cpu(prev_cpu) ? this_cpu : "
                       "prev_cpu/",
                       "utilest.filter_sound", {"pelt", "idlebal"}, true);
}

// An avg_idle step of a quarter of the difference, where the kernel takes an
// eighth: one wake-up may then move avg_idle by 1/4 of |sample - avg_idle|,
// which idlebal.avg_idle_no_jump forbids (8 * |move| <= |difference| + 7).
// The review runs the idlebal invariants inside the patched plug-in, on its
// own update_avg().
TEST_CASE("review: a quarter step in update_avg() is an idlebal.avg_idle_no_jump regression", "[review]") {
    regression_and_fix("avgidle", "kernel/sched/sched.h", "s|\\*avg += diff / 8;|*avg += diff / 4;|",
                       "idlebal.avg_idle_no_jump", {"pelt", "utilest", "wakeaffine"});
}

// wake_affine_weight() reading this_cpu's load for the previous CPU's side:
// with WA_BIAS both effective loads then follow this_cpu's load a alone,
// (a + t) * 100 * 1024 against (a - t) * 112 * 1024, so the wakee (load t)
// is pulled exactly when 12 a > 212 t.  Pulled to the busier this_cpu
// (a = 1800, t = 100), it is no longer pulled once this_cpu carries the
// lighter load (b = 0): wakeaffine.decision_symmetric breaks, and the
// review proves it inside the patched plug-in, on its own wake_affine().
TEST_CASE("review: the wrong CPU's load in wake_affine_weight() is a wakeaffine.decision_symmetric regression",
          "[review]") {
    regression_and_fix("wrongcpu", "kernel/sched/fair.c",
                       "s/prev_eff_load = cpu_load(cpu_rq(prev_cpu));/prev_eff_load = cpu_load(cpu_rq(this_cpu));/",
                       "wakeaffine.decision_symmetric", {"pelt", "utilest", "idlebal"});
}

TEST_CASE("review: text output, --out, a patch that changes nothing modelled, bad input", "[review]") {
    if (!have_tarball())
        return;
    Scratch s("text");
    make_patches(s.dir, "kernel/sched/pelt.c", "s/last_update_time += delta << 10;/last_update_time = now;/");
    fs::path out = s.dir / "out";
    Run r = review({"--patch", (s.dir / "forward.patch").string(), "--kernel", tree().string(), "--out",
                    out.string(), "--fuzz-seconds", "2"});
    INFO(r.out);
    REQUIRE(r.code == 1);
    CHECK(r.out.find("REGRESSION: pelt.time_accounted (lp64): PROVED before, COUNTEREXAMPLE after.") !=
          std::string::npos);
    // The function that changed, with the pre-image's output next to the
    // post-image's: last_update_time moves by whole units before, to now after.
    CHECK(r.out.find("___update_load_sum changed; a distinguishing input:") != std::string::npos);
    std::istringstream lines(r.out);
    for (std::string l; std::getline(lines, l);)
        CHECK(l.size() <= 80);
    CHECK(fs::exists(out / "review.txt"));
    CHECK(fs::exists(out / "review.json"));
    CHECK(fs::exists(out / "reproducers/pelt.time_accounted_lp64.json"));
    // The reproducer replays on the post-image kept in out/oracles.
    Run rp = run_argv({SCHEDCHECK_BIN, "replay", (out / "reproducers/pelt.time_accounted_lp64.json").string(),
                       "--oracle-dir", (out / "oracles").string()});
    INFO(rp.out);
    CHECK(rp.code == 0);
    CHECK(rp.out.find("VIOLATED") != std::string::npos);

    // The post-image fuzzed against the pre-image: the first difference is a
    // PELT update after which the patched code has last_update_time = now,
    // while the kernel's advances it by whole 1024 ns units from where the
    // task started, so it stays less than 1024 ns behind now.
    CHECK(r.out.find("Fuzzing the post-image against the pre-image:") != std::string::npos);
    REQUIRE(fs::exists(out / "reproducers/fuzz.json"));
    {
        std::ifstream in(out / "reproducers/fuzz.json");
        auto j = nlohmann::json::parse(in);
        const auto &d = j.at("difference");
        const auto &calls = d.at("life").at("calls");
        std::size_t k = d.at("call").get<std::size_t>();
        REQUIRE(k >= 1);
        REQUIRE(k == calls.size()); // shrunk: nothing after the differing call
        REQUIRE(calls[k - 1].at("call") == "pelt");
        std::uint64_t start = d.at("life").at("start_ns").get<std::uint64_t>(), now = start;
        for (const auto &c : calls)
            if (c.at("call") == "pelt")
                now += c.at("delta_ns").get<std::uint64_t>();
        std::uint64_t pre = d.at("state").at("last_update_time").at("before").get<std::uint64_t>();
        std::uint64_t post = d.at("state").at("last_update_time").at("after").get<std::uint64_t>();
        CHECK(post == now);
        CHECK(pre <= now);
        CHECK(now - pre < 1024);
        CHECK((pre - start) % 1024 == 0);
        CHECK(pre != post);
    }

    // A patch that touches only what schedcheck does not model.
    make_patches(s.dir / "other", "kernel/sched/fair.c", "s|^static void update_sysctl(void)|static void update_sysctl(void) /* x */|");
    Run none = review({"--patch", (s.dir / "other/forward.patch").string(), "--kernel", tree().string()});
    INFO(none.out);
    CHECK(none.code == 0);
    CHECK(none.out.find("changes nothing that schedcheck models") != std::string::npos);

    // --reply-to: the same review as a reply threaded under the patch mail.
    std::ofstream(s.dir / "mail.mbox") << "From 1234 Mon Sep 17 00:00:00 2001\n"
                                          "From: A Developer <dev@example.org>\n"
                                          "To: sched@example.org\n"
                                          "Message-ID: <patch-1@example.org>\n"
                                          "References: <cover@example.org>\n"
                                          "Subject: [PATCH 1/2] sched: a change\n"
                                          "\n"
                                          "body\n";
    fs::path out3 = s.dir / "out3";
    Run reply = review({"--patch", (s.dir / "other/forward.patch").string(), "--kernel", tree().string(),
                        "--reply-to", (s.dir / "mail.mbox").string(), "--out", out3.string()});
    INFO(reply.out);
    CHECK(reply.code == 0);
    CHECK(reply.out.rfind("From schedcheck ", 0) == 0);
    CHECK(reply.out.find("\nSubject: Re: [PATCH 1/2] sched: a change\n") != std::string::npos);
    CHECK(reply.out.find("\nIn-Reply-To: <patch-1@example.org>\n") != std::string::npos);
    CHECK(reply.out.find("\nReferences: <cover@example.org> <patch-1@example.org>\n") != std::string::npos);
    CHECK(reply.out.find("\nTo: A Developer <dev@example.org>\n") != std::string::npos);
    CHECK(reply.out.find("changes nothing that schedcheck models") != std::string::npos);
    CHECK(fs::exists(out3 / "reply.mbox"));
    // A mail without a Message-ID cannot be replied to: exit 2 before any build.
    std::ofstream(s.dir / "nomsgid.mbox") << "From: x@example.org\nSubject: [PATCH] y\n\nbody\n";
    fs::path out4 = s.dir / "out4";
    Run noid = review({"--patch", (s.dir / "other/forward.patch").string(), "--kernel", tree().string(),
                       "--reply-to", (s.dir / "nomsgid.mbox").string(), "--out", out4.string()});
    CHECK(noid.code == 2);
    CHECK(noid.out.find("Message-ID") != std::string::npos);
    CHECK(!fs::exists(out4));

    // Bad input: exit 2 naming the file; nothing left in --out.
    fs::path out2 = s.dir / "out2";
    Run missing = review({"--patch", (s.dir / "nope.patch").string(), "--kernel", tree().string(), "--out",
                          out2.string()});
    CHECK(missing.code == 2);
    CHECK(missing.out.find("nope.patch") != std::string::npos);
    CHECK(!fs::exists(out2));
    std::ofstream(s.dir / "garbage.patch") << "this is not a patch\n";
    Run garbage = review({"--patch", (s.dir / "garbage.patch").string(), "--kernel", tree().string(), "--out",
                          out2.string()});
    CHECK(garbage.code == 2);
    CHECK(!fs::exists(out2));
    Run notree = review({"--patch", (s.dir / "forward.patch").string(), "--kernel", (s.dir / "nowhere").string()});
    CHECK(notree.code == 2);
    CHECK(notree.out.find("nowhere") != std::string::npos);
}

// A patched image whose code no longer compiles against the shims (a
// call with one argument too many): exit 2 naming the image, nothing left
// in --out.  The unpatched image runs on the built-in linux-6.1, so its
// proofs were started while the other compiled; they are cancelled, and
// the review ends with the error rather than with their verdicts.
TEST_CASE("review: a patched image that does not compile is bad input, and the early proofs stop", "[review]") {
    if (!have_tarball())
        return;
    Scratch s("nocompile");
    make_patches(s.dir, "kernel/sched/pelt.c",
                 "s/sa->load_sum = decay_load(sa->load_sum, periods);/sa->load_sum = decay_load(sa->load_sum, "
                 "periods, 1);/");
    const fs::path out = s.dir / "out";
    Run r = review({"--patch", (s.dir / "forward.patch").string(), "--kernel", tree().string(), "--out",
                    out.string()});
    INFO(r.out);
    CHECK(r.code == 2);
    CHECK(r.out.find("review-post") != std::string::npos);
    CHECK(r.out.find("does not compile") != std::string::npos);
    CHECK(!fs::exists(out));
}

TEST_CASE("review --fuzz-seconds: a patch that only rewords a comment in a modelled function", "[review]") {
    if (!have_tarball())
        return;
    // The code the oracles are built from changes (the comment is kept in
    // it), so the review compares and fuzzes; nothing may differ.  The
    // definitions' tokens are the same, so no invariant is proved again.
    Scratch s("comment");
    make_patches(s.dir, "kernel/sched/pelt.c", "s|A period is 1024us (~1ms)|one period: 1024 us|");
    Run r = review({"--patch", (s.dir / "forward.patch").string(), "--kernel", tree().string(), "--json",
                    "--fuzz-seconds", "2", "--fuzz-seed", "7"});
    INFO(r.out);
    REQUIRE(r.code == 0);
    auto j = nlohmann::json::parse(without_warnings(r.out));
    CHECK(j["modelled_change"] == true);
    CHECK(j["regressions"] == 0);
    CHECK(j["fixes"] == 0);
    CHECK(j["functions"].empty());
    CHECK(j["unchanged_families"] == nlohmann::json::array({"pelt", "utilest", "idlebal", "wakeaffine"}));
    CHECK(j["changes"].empty());
    REQUIRE(j.contains("fuzz"));
    CHECK(j["fuzz"]["seed"] == 7);
    CHECK(j["fuzz"]["lives"].get<std::uint64_t>() > 100);
    CHECK(!j["fuzz"].contains("difference"));
}

TEST_CASE("review: a patch to wake_affine_idle() alone lists the function and proves only wakeaffine", "[review]") {
    if (!have_tarball())
        return;
    Scratch s("idlechoice");
    make_patches(s.dir, "kernel/sched/fair.c",
                 "s/available_idle_cpu(prev_cpu) ? prev_cpu : this_cpu/available_idle_cpu(prev_cpu) ? this_cpu : "
                 "prev_cpu/");
    Run r = review({"--patch", (s.dir / "forward.patch").string(), "--kernel", tree().string(), "--json"});
    INFO(r.out);
    REQUIRE(r.code == 0);
    auto j = nlohmann::json::parse(without_warnings(r.out));
    CHECK(j["modelled_change"] == true);
    // No PELT, util_est or newidle-cost definition changed: only the
    // wakeaffine invariants are proved again.  decision_symmetric (the one
    // that applies to 6.x) swaps the two CPUs' loads, not their idleness,
    // so a choice made from idleness alone keeps it PROVED on both images
    // (the argument of proofs/expected/verdicts.txt): no change.
    CHECK(j["unchanged_families"] == nlohmann::json::array({"pelt", "utilest", "idlebal"}));
    CHECK(j["changes"].empty());
    CHECK(j["not_proved"].empty());
    REQUIRE(j["proofs"].size() == 2);
    for (const auto &p : j["proofs"]) {
        CHECK(p["invariant"] == "wakeaffine.decision_symmetric");
        CHECK(p["pre"]["verdict"] == "PROVED");
        CHECK(p["post"]["verdict"] == "PROVED");
    }
    check_idle_choice_swapped(r.out, true);
}
