// Input from a hostile or careless user: every file schedcheck reads, and
// every file it writes, under conditions that broke earlier versions.  Each
// case runs the built command (SCHEDCHECK_BIN) with an argument vector and
// checks the exit code (2: bad input, never a crash, never 0 or 1 for
// nonsense) and that the message names the problem and stays short.
//
// The expected messages and limits come from proofs/report/input_file.h (the
// documented caps) and from the kernel types the fields stand for
// (int type, int imbalance_pct), not from the program's output.
#include <catch2/catch.hpp>

#include <fcntl.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <chrono>
#include <cstdint>
#include <filesystem>
#include <fstream>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "proofs/invariant.h"
#include "proofs/kernel/oracle_manifest.h"
#include "ref/checked.h"
#include "ref/cpuload_scenario.h"
#include "tests/shell.h"

namespace fs = std::filesystem;

namespace {

const std::string bin = SCHEDCHECK_BIN;

Run sc_run(std::vector<std::string> args) {
    args.insert(args.begin(), bin);
    return run_argv(args);
}

fs::path temp_dir(const std::string &name) {
    fs::path d = fs::temp_directory_path() / ("schedcheck-hostile-" + name + "-" + std::to_string(::getpid()));
    fs::remove_all(d);
    fs::create_directories(d);
    return d;
}

std::string write(const fs::path &p, const std::string &text) {
    fs::create_directories(p.parent_path());
    std::ofstream(p, std::ios::binary) << text;
    return p.string();
}

// A sparse file of `bytes` bytes (no disk space used).
std::string sparse(const fs::path &p, std::uintmax_t bytes) {
    write(p, "");
    fs::resize_file(p, bytes);
    return p.string();
}

bool has(const std::string &out, const std::string &needle) { return out.find(needle) != std::string::npos; }

// A valid reproducer, as text, with `repl` substituted for `what`.
const std::string good_text = R"({"format": "schedcheck-reproducer", "version": 1,
 "variant": "cpuload/v3.13", "arch": "ilp32", "invariant": "nohz.busy_not_zeroed",
 "inputs": {}, "claim": {},
 "knobs": {"lb_bias": true, "imbalance_pct": 125},
 "initial": {"cpu_load": [7, 7, 7, 7, 7], "last_load_update_tick": 10,
             "runnable_load_avg": 1024, "h_nr_running": 1},
 "steps": [{"op": "nohz_exit", "jiffies": 11}]}
)";

std::string good_with(const std::string &what, const std::string &repl) {
    std::string t = good_text;
    auto at = t.find(what);
    REQUIRE(at != std::string::npos);
    t.replace(at, what.size(), repl);
    return t;
}

// Runs argv (the built command and its arguments) in a child with one
// resource limit set, stdout and stderr into a pipe (a pipe is not subject
// to a file size limit, so the messages survive RLIMIT_FSIZE).
Run run_limited(std::vector<std::string> args, int resource, rlim_t limit) {
    args.insert(args.begin(), bin);
    std::vector<char *> argv;
    for (auto &a : args)
        argv.push_back(a.data());
    argv.push_back(nullptr);
    int fds[2];
    REQUIRE(::pipe(fds) == 0);
    pid_t pid = ::fork();
    REQUIRE(pid >= 0);
    if (pid == 0) {
        struct rlimit rl {limit, limit};
        ::setrlimit(resource, &rl);
        ::dup2(fds[1], 1);
        ::dup2(fds[1], 2);
        ::close(fds[0]);
        ::close(fds[1]);
        int devnull = ::open("/dev/null", O_RDONLY);
        ::dup2(devnull, 0);
        ::execv(argv[0], argv.data());
        ::_exit(127);
    }
    ::close(fds[1]);
    std::string out;
    char buf[4096];
    for (ssize_t n; (n = ::read(fds[0], buf, sizeof buf)) != 0;) {
        if (n < 0 && errno == EINTR)
            continue;
        if (n < 0)
            break;
        out.append(buf, static_cast<std::size_t>(n));
    }
    ::close(fds[0]);
    int st = 0;
    ::waitpid(pid, &st, 0);
    return {WIFEXITED(st) ? WEXITSTATUS(st) : -1, out};
}

// No temporary file (NAME.tmp.<pid>) anywhere under d.
bool no_temporaries(const fs::path &d) {
    for (const auto &e : fs::recursive_directory_iterator(d))
        if (e.path().filename().string().find(".tmp.") != std::string::npos)
            return false;
    return true;
}

} // namespace

// ---------------------------------------------------------------------------
// Defect 2: deep nesting and unbounded echo

TEST_CASE("hostile: a reproducer nested 100000 levels deep is refused with a short message", "[hostile][json]") {
    fs::path d = temp_dir("deep");
    const std::string deep = std::string(100000, '[') + std::string(100000, ']');
    // In a checked field (its error message used to dump the value
    // recursively), in an ignored one, and as the whole document.
    std::vector<std::string> files = {
        write(d / "pct.json", good_with("125", deep)),
        write(d / "claim.json", good_with("\"claim\": {}", "\"claim\": " + deep)),
        write(d / "whole.json", deep),
    };
    for (const auto &f : files)
        for (const char *cmd : {"replay", "explain"}) {
            INFO(cmd << " " << f);
            Run r = sc_run({cmd, f});
            CHECK(r.code == 2);
            CHECK(has(r.out, f));
            CHECK(has(r.out, "nested more than 64 levels"));
            CHECK(r.out.size() < 600);
        }
    fs::remove_all(d);
}

TEST_CASE("hostile: nesting up to 64 levels is read, 65 is not", "[hostile][json]") {
    fs::path d = temp_dir("depth-edge");
    // The top-level object is level 1, "claim" level 2, then n arrays.
    auto with_arrays = [&](int n) {
        return good_with("\"claim\": {}", "\"claim\": {\"note\": " + std::string(n, '[') + std::string(n, ']') + "}");
    };
    Run ok = sc_run({"replay", write(d / "64.json", with_arrays(62))});
    CHECK(ok.code == 0);
    Run bad = sc_run({"replay", write(d / "65.json", with_arrays(63))});
    CHECK(bad.code == 2);
    CHECK(has(bad.out, "nested more than 64 levels"));
    fs::remove_all(d);
}

TEST_CASE("hostile: a message echoes at most 80 characters of what the user wrote", "[hostile][json]") {
    fs::path d = temp_dir("echo");
    const std::string big(100000, 'x');
    struct Case {
        std::string name, text, needle;
    } cases[] = {
        {"variant", good_with("cpuload/v3.13", big), "unknown variant \"" + std::string(80, 'x') + "...\""},
        {"op", good_with("nohz_exit", big), "unknown operation \"" + std::string(80, 'x') + "...\""},
        {"string-field", good_with("\"jiffies\": 11", "\"jiffies\": \"" + big + "\""), "steps[0].jiffies"},
        {"long-number", good_with("125", std::string(100000, '9')), "not valid JSON"},
        {"unterminated", "{\"format\": \"" + big, "not valid JSON"},
        {"bad-token", "{\"format\": " + big + "}", "not valid JSON"},
    };
    for (const auto &c : cases) {
        INFO(c.name);
        std::string f = write(d / (c.name + ".json"), c.text);
        Run r = sc_run({"replay", f});
        CHECK(r.code == 2);
        CHECK(has(r.out, c.needle));
        CHECK(r.out.size() < 600);
    }
    // Found by fuzz/reproducer_reader.cpp: a bad token of 81 bytes but 80
    // characters (one is two bytes of UTF-8) looped forever while it was
    // being cut short.  Under a CPU limit, so a regression fails, not hangs.
    {
        std::string tok = "{\"" + std::string(75, 'a') + "\xc2\xbe\"format\": 1}";
        std::string f = write(d / "utf8-token.json", tok);
        Run r = run_limited({"replay", f}, RLIMIT_CPU, 20);
        CHECK(r.code == 2);
        CHECK(has(r.out, "not valid JSON"));
    }
    // Command-line values too.
    Run v = sc_run({"prove", "--variant", big});
    CHECK(v.code == 2);
    CHECK(v.out.size() < 1000);
    // Control characters are shown escaped, not sent to the terminal.
    Run e = sc_run({"replay", write(d / "esc.json", good_with("cpuload/v3.13", "\\u001b[2J"))});
    CHECK(e.code == 2);
    CHECK(has(e.out, "\\x1b[2J"));
    CHECK_FALSE(has(e.out, "\x1b"));
    fs::remove_all(d);
}

// ---------------------------------------------------------------------------
// Defect 3: values the kernel's int cannot hold

TEST_CASE("hostile: a balance type or load index is checked before it becomes an int", "[hostile][kernel-types]") {
    fs::path d = temp_dir("types");
    // type is `int type` in source_load()/target_load(): 0..4 (0 the
    // instantaneous load, k > 0 reads cpu_load[k-1]).  2^32-1 would become
    // -1, and 2^31 INT_MIN.
    for (const char *type : {"5", "2147483648", "4294967295", "4294967296"}) {
        INFO(type);
        std::string f = write(d / (std::string("type-") + type + ".json"),
                              good_with("{\"op\": \"nohz_exit\", \"jiffies\": 11}",
                                        std::string("{\"op\": \"balance\", \"type\": ") + type + "}"));
        for (const char *cmd : {"replay", "explain"}) {
            Run r = sc_run({cmd, f});
            CHECK(r.code == 2);
            CHECK(has(r.out, f));
            CHECK(has(r.out, std::string("steps[0].type: load type must be 0..4, got ") + type));
        }
    }
    // decay_load_missed(load, missed, int idx): 1..4.
    for (const char *idx : {"0", "5", "4294967295"}) {
        INFO(idx);
        std::string f = write(d / (std::string("idx-") + idx + ".json"),
                              good_with("{\"op\": \"nohz_exit\", \"jiffies\": 11}",
                                        std::string("{\"op\": \"decay\", \"load\": 1, \"missed_updates\": 1, \"idx\": ") +
                                            idx + "}"));
        Run r = sc_run({"replay", f});
        CHECK(r.code == 2);
        CHECK(has(r.out, std::string("steps[0].idx: load index must be 1..4, got ") + idx));
    }
    // Every valid type still replays (v3.13 reads cpu_load[type-1]).
    for (int t = 0; t <= 4; ++t) {
        std::string f = write(d / ("ok-" + std::to_string(t) + ".json"),
                              good_with("{\"op\": \"nohz_exit\", \"jiffies\": 11}",
                                        "{\"op\": \"balance\", \"type\": " + std::to_string(t) + "}"));
        Run r = sc_run({"replay", "--json", f});
        CHECK(r.code == 0);
    }
    fs::remove_all(d);
}

TEST_CASE("hostile: imbalance_pct must fit the kernel's int", "[hostile][kernel-types]") {
    fs::path d = temp_dir("pct");
    // target_load(int cpu, int imbalance_pct): at most INT_MAX = 2^31 - 1.
    for (const char *pct : {"2147483648", "4294967295", "4294967296", "18446744073709551615"}) {
        INFO(pct);
        std::string f = write(d / (std::string("pct-") + pct + ".json"), good_with("125", pct));
        Run r = sc_run({"replay", f});
        CHECK(r.code == 2);
        CHECK(has(r.out, "knobs.imbalance_pct: must be 0..2147483647"));
        CHECK(has(r.out, std::string("got ") + pct));
    }
    // The largest value, where it is used: shi-1-5's target_load().
    std::string doc = good_with("cpuload/v3.13", "cpuload/shi-1-5");
    doc.replace(doc.find("125"), 3, "2147483647");
    doc.replace(doc.find("nohz.busy_not_zeroed"), 20, "balance.source_le_target");
    doc.replace(doc.find("{\"op\": \"nohz_exit\", \"jiffies\": 11}"), 34, "{\"op\": \"balance\", \"type\": 0}");
    Run ok = sc_run({"replay", write(d / "max.json", doc)});
    CHECK(ok.code == 0);
    fs::remove_all(d);
}

TEST_CASE("hostile: simulate() refuses a load index out of range whoever built the scenario", "[hostile][ref]") {
    namespace cl = sc::cpuload;
    auto run_one = [](cl::op kind, int idx) {
        cl::scenario<sc::checked_lp64> s{};
        cl::step<sc::checked_lp64> st{kind};
        st.idx = idx;
        s.steps.push_back(st);
        return cl::simulate(cl::patch_level::v3_13, s);
    };
    for (int bad : {-1, -2147483647 - 1, 5})
        CHECK_THROWS_AS(run_one(cl::op::balance, bad), cl::invalid_step);
    for (int bad : {0, -1, 5})
        CHECK_THROWS_AS(run_one(cl::op::decay, bad), cl::invalid_step);
    for (int good = 0; good <= 4; ++good)
        CHECK_NOTHROW(run_one(cl::op::balance, good));
    CHECK_NOTHROW(run_one(cl::op::decay, 4));
}

// ---------------------------------------------------------------------------
// Defect 6: what a file is and how big, and what follows the JSON

TEST_CASE("hostile: only regular files within their size cap are read", "[hostile][files]") {
    fs::path d = temp_dir("files");
    fs::create_directories(d / "dir.json");
    std::string fifo = (d / "fifo.json").string();
    REQUIRE(::mkfifo(fifo.c_str(), 0600) == 0);
    // Caps from proofs/report/input_file.h: reproducer 16 MB, expected file 1 MB,
    // patch 64 MB.
    std::string repro17 = sparse(d / "17mb.json", 17u << 20);
    std::string repro16 = sparse(d / "16mb.json", 16u << 20); // at the cap: read, then not JSON
    std::string exp2 = sparse(d / "2mb.txt", 2u << 20);
    std::string patch65 = sparse(d / "65mb.mbox", 65u << 20);
    struct Case {
        std::vector<std::string> args;
        std::string needle;
    } cases[] = {
        {{"replay", "/dev/zero"}, "/dev/zero is not a regular file"},
        {{"explain", "/dev/zero"}, "/dev/zero is not a regular file"},
        {{"replay", (d / "dir.json").string()}, (d / "dir.json").string() + " is a directory"},
        {{"replay", fifo}, fifo + " is not a regular file"},
        {{"replay", repro17}, repro17 + " is larger than 16 MB"},
        {{"replay", repro16}, "not valid JSON"},
        {{"prove", "--expected", "/dev/zero"}, "/dev/zero is not a regular file"},
        {{"prove", "--expected", d.string()}, d.string() + " is a directory"},
        {{"prove", "--expected", exp2}, exp2 + " is larger than 1 MB"},
        {{"oracle", "extract", "--patch", "/dev/zero"}, "/dev/zero is not a regular file"},
        {{"oracle", "extract", "--patch", patch65}, patch65 + " is larger than 64 MB"},
        {{"oracle", "extract", "--patch", d.string()}, d.string() + " is a directory"},
        {{"oracle", "build", "--patch", "/dev/zero"}, "/dev/zero is not a regular file"},
    };
    for (const auto &c : cases) {
        INFO(c.args[0] << " " << c.args.back());
        auto t0 = std::chrono::steady_clock::now();
        Run r = sc_run(c.args);
        CHECK(r.code == 2);
        CHECK(has(r.out, c.needle));
        // Refused without reading: well under the time to read 16 MB of zeros
        // into a parser, and without waiting for a FIFO writer.
        CHECK(std::chrono::steady_clock::now() - t0 < std::chrono::seconds(20));
    }
    fs::remove_all(d);
}

TEST_CASE("hostile: oracle list skips manifests that are not regular files or too big", "[hostile][files]") {
    fs::path d = temp_dir("manifests");
    std::string fifo = (d / "fifo.json").string();
    REQUIRE(::mkfifo(fifo.c_str(), 0600) == 0);
    fs::create_directories(d / "dir.json");
    sparse(d / "big.json", 2u << 20); // the manifest cap is 1 MB
    Run r = sc_run({"oracle", "list", "--oracle-dir", d.string()});
    CHECK(r.code == 0);
    CHECK(has(r.out, "warning: skipping " + fifo + ": not an oracle manifest (" + fifo + " is not a regular file)"));
    CHECK(has(r.out, (d / "dir.json").string() + " is a directory"));
    CHECK(has(r.out, (d / "big.json").string() + " is larger than 1 MB"));
    fs::remove_all(d);
}

TEST_CASE("hostile: JSON followed by a NUL byte or anything else is refused", "[hostile][json]") {
    fs::path d = temp_dir("trailing");
    std::string nul = good_text;
    nul += '\0';
    nul += "garbage";
    struct Case {
        std::string name, text, needle;
    } cases[] = {
        {"nul", nul, "NUL byte"},
        {"nul-inside", good_with("\"claim\": {}", std::string("\"claim\": {}\0", 12)), "NUL byte"},
        {"second-object", good_text + "{}", "not valid JSON"},
        {"garbage", good_text + "garbage", "not valid JSON"},
        {"duplicate-key", good_with("\"version\": 1", "\"version\": 1, \"version\": 1"), "duplicate key \"version\""},
    };
    for (const auto &c : cases) {
        INFO(c.name);
        std::string f = write(d / (c.name + ".json"), c.text);
        Run r = sc_run({"replay", f});
        CHECK(r.code == 2);
        CHECK(has(r.out, f));
        CHECK(has(r.out, c.needle));
    }
    // Trailing white space is fine.
    CHECK(sc_run({"replay", write(d / "ws.json", good_text + "\n\t \n")}).code == 0);
    fs::remove_all(d);
}

TEST_CASE("hostile: /dev/zero and a 200 MB reproducer under ulimit -v 512 MB", "[hostile][files][limits]") {
    fs::path d = temp_dir("vmem");
    std::string big = sparse(d / "200mb.json", 200u << 20);
    const rlim_t mem = rlim_t(512) << 20;
    struct Case {
        std::vector<std::string> args;
        std::string needle;
    } cases[] = {
        {{"replay", "/dev/zero"}, "is not a regular file"},
        {{"explain", "/dev/zero"}, "is not a regular file"},
        {{"replay", big}, "is larger than 16 MB"},
        {{"explain", big}, "is larger than 16 MB"},
        {{"prove", "--expected", big}, "is larger than 1 MB"},
        {{"oracle", "extract", "--patch", big}, "is larger than 64 MB"},
        {{"oracle", "extract", "--patch", "/dev/zero"}, "is not a regular file"},
    };
    for (const auto &c : cases) {
        INFO(c.args[0] << " " << c.args.back());
        Run r = run_limited(c.args, RLIMIT_AS, mem);
        CHECK(r.code == 2);
        CHECK(has(r.out, c.needle));
        CHECK_FALSE(has(r.out, "bad_alloc"));
    }
    fs::remove_all(d);
}

// ---------------------------------------------------------------------------
// Defect 8: exit codes, and the expected-verdict file

TEST_CASE("hostile: an expected file with unknown names or contradictions is bad input", "[hostile][expected]") {
    fs::path d = temp_dir("expected");
    const std::string pair = "cpuload/shi-1-3 cpuload.constant_fixed_point lp64 ";
    struct Case {
        std::string name, text, needle;
    } cases[] = {
        {"variant", "# c\n\ncpuload/v9.99 cpuload.constant_fixed_point lp64 PROVED\n", ":3: unknown variant \"cpuload/v9.99\""},
        {"invariant", "cpuload/shi-1-3 cpuload.nonsense lp64 PROVED\n", ":1: unknown invariant \"cpuload.nonsense\""},
        {"arch", pair.substr(0, pair.size() - 5) + "mips PROVED\n", ":1: unknown arch \"mips\""},
        {"verdict", pair + "MAYBE\n", ":1: unknown verdict \"MAYBE\""},
        {"contradiction", pair + "PROVED\n" + pair + "UNKNOWN   # oops\n", ":2: cpuload/shi-1-3 cpuload.constant_fixed_point lp64 is UNKNOWN here but PROVED on line 1"},
        {"long-line", pair + std::string(5000, 'Z') + "\n", ":1: unknown verdict"},
    };
    for (const auto &c : cases) {
        INFO(c.name);
        std::string f = write(d / (c.name + ".txt"), c.text);
        Run r = sc_run({"prove", "--variant", "cpuload/shi-1-3", "--invariant", "cpuload.constant_fixed_point",
                        "--arch", "lp64", "--expected", f});
        CHECK(r.code == 2);
        CHECK(has(r.out, f + c.needle));
        CHECK(r.out.size() < 600);
    }
    // The same line twice is harmless: the built-in file says PROVED here.
    std::string twice = write(d / "twice.txt", pair + "PROVED\n" + pair + "PROVED\n");
    Run ok = sc_run({"prove", "--variant", "cpuload/shi-1-3", "--invariant", "cpuload.constant_fixed_point",
                     "--arch", "lp64", "--expected", twice});
    CHECK(ok.code == 0);
    fs::remove_all(d);
}

TEST_CASE("hostile: oracle build --out naming a file is bad input", "[hostile][oracle]") {
    fs::path d = temp_dir("obuild");
    std::string patch = write(d / "demo.mbox", "Subject: [PATCH] demo\n"
                                               "diff --git a/x.c b/x.c\n--- a/x.c\n+++ b/x.c\n@@ -1,3 +1,3 @@\n"
                                               " int f(int a)\n {\n-\treturn a;\n+\treturn a + 1;\n");
    std::string file = write(d / "not-a-dir", "x\n");
    Run r = sc_run({"oracle", "build", "--patch", patch, "--out", file});
    CHECK(r.code == 2);
    CHECK(has(r.out, file));
    CHECK(has(r.out, "not a directory"));
    fs::remove_all(d);
}

TEST_CASE("hostile: oracle list warns about manifests of the wrong shape and lists the rest", "[hostile][oracle]") {
    fs::path d = temp_dir("olist");
    write(d / "good.json", R"({"id": "demo-post", "plugin": "demo-post.so", "source": "demo.mbox"})");
    write(d / "id-number.json", R"({"id": 5, "plugin": "x.so"})");
    write(d / "plugin-array.json", R"({"id": "x", "plugin": []})");
    write(d / "plugin-path.json", R"({"id": "x", "plugin": "../../etc/passwd"})");
    write(d / "source-object.json", R"({"id": "x", "plugin": "x.so", "source": {}})");
    write(d / "deep.json", std::string(1000, '[') + std::string(1000, ']'));
    write(d / "dup.json", R"({"id": "a", "id": "b", "plugin": "x.so"})");
    write(d / "other.json", R"([1, 2, 3])"); // some other JSON file: ignored
    for (bool json : {false, true}) {
        INFO(json);
        std::vector<std::string> args = {"oracle", "list", "--oracle-dir", d.string()};
        if (json)
            args.push_back("--json");
        Run r = sc_run(args);
        CHECK(r.code == 0);
        for (const char *bad : {"id-number", "plugin-array", "plugin-path", "source-object", "deep", "dup"})
            CHECK(has(r.out, "warning: skipping " + (d / (std::string(bad) + ".json")).string()));
        CHECK_FALSE(has(r.out, "other.json"));
        if (!json) {
            CHECK(has(r.out, "demo-post"));
        } else {
            auto j = nlohmann::json::parse(r.out.substr(r.out.find("\n{") + 1));
            REQUIRE(j["built"].size() == 1);
            CHECK(j["built"][0]["id"] == "demo-post");
        }
    }
    fs::remove_all(d);
}

// One reader for every manifest (proofs/kernel/oracle_manifest.h): what oracle list
// accepts is what a plug-in load accepts, under the same JSON limits.
TEST_CASE("hostile: the oracle manifest reader names the field and the file", "[hostile][oracle]") {
    using sc::proofs::parse_oracle_manifest;
    auto m = parse_oracle_manifest(R"({"id": "fix-post", "plugin": "fix-post.so", "plugin_size": 42,
        "plugin_fnv1a64": "0123456789abcdef", "source": "t + p.patch", "version": "6.1.192"})", "o/m.json");
    REQUIRE(m);
    CHECK(m->id == "fix-post");
    CHECK(m->plugin == "fix-post.so");
    CHECK(*m->plugin_size == 42);
    CHECK(*m->plugin_fnv1a64 == "0123456789abcdef");
    CHECK(*m->source == "t + p.patch");
    CHECK(*m->version == "6.1.192");
    CHECK_FALSE(parse_oracle_manifest(R"({"tasks": []})", "o/m.json")); // another JSON file
    CHECK_FALSE(parse_oracle_manifest(R"({"id": "x", "plugin": "x.so"})", "o/m.json")->plugin_size);
    struct Bad {
        std::string text, needle;
    };
    for (const Bad &b : {Bad{R"({"id": "x", "plugin": "x.so", "plugin_size": -1})", "\"plugin_size\" is -1, not a size"},
                         Bad{R"({"id": "x", "plugin": "x.so", "plugin_size": 1e400})", "1e400"},
                         Bad{R"({"id": "x", "plugin": "x.so", "plugin_fnv1a64": "ABCDEF0123456789"})",
                             "\"plugin_fnv1a64\" is \"ABCDEF0123456789\", not 16 hex digits"},
                         Bad{R"({"id": "x", "plugin": "x.so", "version": 6.1})", "\"version\" is 6.1, not a string"},
                         Bad{R"({"id": "x", "plugin": "../x.so"})", "\"plugin\" is \"../x.so\", not a plug-in file name"},
                         Bad{R"({"id": ".x", "plugin": "x.so"})", "\"id\" is \".x\", not an oracle name"},
                         Bad{std::string(100000, '[') + std::string(100000, ']'), "deep"},
                         Bad{std::string(R"({"id": "x", "plugin": "x.so"})") + '\0' + "junk", "NUL"}}) {
        INFO(b.text.substr(0, 80));
        try {
            parse_oracle_manifest(b.text, "o/m.json");
            FAIL("accepted");
        } catch (const sc::proofs::input_error &e) {
            std::string msg = e.what();
            INFO(msg);
            CHECK(msg.rfind("o/m.json", 0) == 0);
            CHECK(has(msg, b.needle));
            CHECK(msg.size() < 400);
        }
    }
    // A plug-in whose manifest is unusable is not loaded, and the message says why.
    fs::path d = temp_dir("manifest-load");
    write(d / "m.so", "not a shared object");
    write(d / "m.json", std::string(100000, '[') + std::string(100000, ']'));
    Run r = sc_run({"equiv", "--variant", "pelt/v6.1", "--oracle", "m", "--oracle-dir", d.string()});
    CHECK(r.code == 2);
    CHECK(has(r.out, "its manifest is unusable"));
    fs::remove_all(d);
}

// ---------------------------------------------------------------------------
// Defect 9: output directories are checked before the proofs run

TEST_CASE("hostile: an unusable --out or --corpus is found before proving", "[hostile][prove]") {
    fs::path d = temp_dir("late");
    std::string file = write(d / "file", "x\n");
    fs::create_directories(d / "out-with-file");
    write(d / "out-with-file" / "reports", "not a directory\n");
    struct Case {
        std::vector<std::string> extra;
        std::string needle;
    } cases[] = {
        {{"--out", file}, "--out " + file + ": exists and is not a directory"},
        {{"--out", file + "/sub"}, file + " is not a directory"},
        {{"--corpus", file}, "--corpus " + file + ": exists and is not a directory"},
        {{"--out", (d / "out-with-file").string()}, (d / "out-with-file" / "reports").string() + " is not a directory"},
    };
    for (const auto &c : cases) {
        INFO(c.needle);
        // The whole matrix: had it run first, this would take minutes.
        std::vector<std::string> args = {"prove"};
        args.insert(args.end(), c.extra.begin(), c.extra.end());
        auto t0 = std::chrono::steady_clock::now();
        Run r = sc_run(args);
        CHECK(r.code == 2);
        CHECK(has(r.out, c.needle));
        CHECK_FALSE(has(r.out, "proofs in")); // no proof ran
        CHECK(std::chrono::steady_clock::now() - t0 < std::chrono::seconds(20));
    }
    if (::geteuid() != 0) { // root writes anywhere
        fs::create_directories(d / "ro");
        fs::permissions(d / "ro", fs::perms::owner_read | fs::perms::owner_exec);
        Run r = sc_run({"prove", "--out", (d / "ro" / "out").string()});
        CHECK(r.code == 2);
        CHECK(has(r.out, "cannot write in " + (d / "ro").string()));
        fs::permissions(d / "ro", fs::perms::owner_all);
    }
    fs::remove_all(d);
}

// ---------------------------------------------------------------------------
// Defect 10: numbers are echoed as written

TEST_CASE("hostile: a number no integer field can hold is echoed as the user wrote it", "[hostile][json]") {
    fs::path d = temp_dir("numbers");
    for (const char *n : {"18446744073709551616", "18446744073709551617", "1.50", "1e3", "-0.0", "-5"}) {
        INFO(n);
        std::string f = write(d / "n.json", good_with("[7, 7, 7, 7, 7]", std::string("[7, 7, ") + n + ", 7, 7]"));
        Run r = sc_run({"replay", f});
        CHECK(r.code == 2);
        CHECK(has(r.out, std::string("initial.cpu_load[2]: expected a non-negative integer, got ") + n + "\n"));
        CHECK_FALSE(has(r.out, "e+19"));
    }
    // 2^64 - 1 is a valid lp64 value but too wide for ilp32.
    std::string f = write(d / "w.json", good_with("[7, 7, 7, 7, 7]", "[7, 7, 18446744073709551615, 7, 7]"));
    Run r = sc_run({"replay", f});
    CHECK(r.code == 2);
    CHECK(has(r.out, "initial.cpu_load[2]: value 18446744073709551615 is wider than its 32-bit field"));
    fs::remove_all(d);
}

// ---------------------------------------------------------------------------
// Writes: atomic, and a write error is an error, not a partial file

TEST_CASE("hostile: prove --out under a file size limit fails cleanly and still prints the verdicts",
          "[hostile][prove][limits]") {
    fs::path d = temp_dir("fsize");
    fs::path out = d / "out";
    // 256 bytes: smaller than any reproducer or report prove writes.
    Run r = run_limited({"prove", "--variant", "cpuload/shi-1-4", "--invariant", "nohz.busy_not_zeroed", "--arch",
                         "lp64", "--out", out.string()},
                        RLIMIT_FSIZE, 256);
    CHECK((r.code == 2 || r.code == 3));
    CHECK(has(r.out, "cannot write " + (out / "reproducers").string()));
    CHECK(has(r.out, "file too large")); // EFBIG
    // The table is printed all the same (the counterexample of
    // README's "What the matrix finds": a 64-bit load truncated to 0).
    CHECK(has(r.out, "nohz.busy_not_zeroed"));
    CHECK(has(r.out, "COUNTEREXAMPLE"));
    // Nothing half-written: no temporary, no results.
    CHECK(no_temporaries(d));
    CHECK_FALSE(fs::exists(out / "results.json"));
    for (const auto &e : fs::recursive_directory_iterator(d))
        if (e.is_regular_file())
            CHECK(e.file_size() > 0);
    fs::remove_all(d);
}

TEST_CASE("hostile: prove --out writes whole files and leaves no temporaries", "[hostile][prove]") {
    fs::path d = temp_dir("atomic");
    Run r = sc_run({"prove", "--variant", "cpuload/shi-1-4", "--invariant", "nohz.busy_not_zeroed", "--arch", "lp64",
                    "--out", (d / "out").string(), "--corpus", (d / "corpus").string()});
    CHECK(r.code == 0);
    CHECK(no_temporaries(d));
    auto results = nlohmann::json::parse(std::ifstream(d / "out" / "results.json"));
    REQUIRE(results["results"].size() == 1);
    std::string repro = results["results"][0]["counterexample"]["reproducer"];
    CHECK(sc_run({"replay", repro}).code == 0);
    std::size_t in_corpus = 0;
    for (const auto &e : fs::directory_iterator(d / "corpus")) {
        ++in_corpus;
        CHECK(sc_run({"replay", e.path().string()}).code == 0);
    }
    CHECK(in_corpus == 1);
    fs::remove_all(d);
}
