// Ctrl-C and SIGTERM during a proof: exit 128 + the signal, no verdict made
// up, no result and no temporary file written.
#include <catch2/catch.hpp>

#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <filesystem>
#include <fstream>
#include <string>
#include <thread>
#include <vector>

#include <nlohmann/json.hpp>

#include "tests/shell.h"

namespace fs = std::filesystem;

namespace {

// Starts `schedcheck prove --out DIR` on a slow selection, sends `sig`
// after `ms`, and returns the exit status.
int interrupted_prove(int sig, const fs::path &out, int ms) {
    pid_t pid = fork();
    REQUIRE(pid >= 0);
    if (pid == 0) {
        // pelt.decay_monotone takes about 20 s a proof: long enough.
        execl(SCHEDCHECK_BIN, SCHEDCHECK_BIN, "prove", "--invariant", "pelt.decay_monotone", "--out",
              out.c_str(), static_cast<char *>(nullptr));
        _exit(127);
    }
    usleep(ms * 1000);
    kill(pid, sig);
    int st = 0;
    REQUIRE(waitpid(pid, &st, 0) == pid);
    REQUIRE(WIFEXITED(st));
    return WEXITSTATUS(st);
}

} // namespace

TEST_CASE("signals: SIGINT and SIGTERM during prove write nothing and exit 130 / 143", "[signals]") {
    for (auto [sig, code] : {std::pair{SIGINT, 130}, std::pair{SIGTERM, 143}}) {
        fs::path out = fs::temp_directory_path() / ("schedcheck-sig-" + std::to_string(getpid()) + "-" +
                                                    std::to_string(sig));
        fs::remove_all(out);
        CHECK(interrupted_prove(sig, out, 1500) == code);
        // Nothing at all: not the results, not a report, not a temporary.
        CHECK((!fs::exists(out) || fs::is_empty(out) ||
               (!fs::exists(out / "results.json") && !fs::exists(out / "verdicts.txt"))));
        if (fs::exists(out))
            for (const auto &e : fs::recursive_directory_iterator(out))
                CHECK(e.path().filename().string().find(".tmp.") == std::string::npos);
        fs::remove_all(out);
    }
}

// What a run killed outright (SIGKILL) leaves behind carries its pid; the
// next run removes it when that process is gone, and never touches the
// temporaries of a process that is still running.
TEST_CASE("signals: temporaries of a killed run are removed by the next run", "[signals]") {
    // A pid that certainly belonged to a process that has ended.
    pid_t dead = fork();
    REQUIRE(dead >= 0);
    if (dead == 0)
        _exit(0);
    int st = 0;
    REQUIRE(waitpid(dead, &st, 0) == dead);
    const std::string d = std::to_string(dead), alive = std::to_string(getpid());

    const fs::path tmp = fs::temp_directory_path();
    const fs::path stale_kernel = tmp / ("schedcheck-kernel-" + d + "-abcdef");
    const fs::path live_kernel = tmp / ("schedcheck-kernel-" + alive + "-abcdef");
    for (const fs::path &p : {stale_kernel, live_kernel}) {
        fs::create_directories(p / "linux/kernel");
        std::ofstream(p / "linux/kernel/x.c") << "left behind\n";
    }
    // A tarball run: it makes its own schedcheck-kernel-<pid>-* first.
    const fs::path work = tmp / ("schedcheck-stale-" + alive);
    fs::remove_all(work);
    fs::create_directories(work);
    std::ofstream(work / "corrupt.tar.xz") << "not an xz stream\n";
    Run r = run_argv({SCHEDCHECK_BIN, "oracle", "build", "--kernel", (work / "corrupt.tar.xz").string(), "--out",
                      (work / "o").string()});
    CHECK(r.code == 2);
    CHECK(!fs::exists(stale_kernel));
    CHECK(fs::exists(live_kernel / "linux/kernel/x.c"));
    fs::remove_all(live_kernel);

    // prove --out: a half-written reproducer of the dead run goes, one of a
    // live process and every whole file stay.
    const fs::path out = work / "out";
    fs::create_directories(out / "reproducers");
    std::ofstream(out / "reproducers" / ("a.json.tmp." + d)) << "{";
    std::ofstream(out / "reproducers" / ("b.json.tmp." + alive)) << "{";
    std::ofstream(out / "reproducers" / "c.json") << "{}\n";
    Run p = run_argv({SCHEDCHECK_BIN, "prove", "--variant", "cpuload/shi-1-3", "--invariant",
                      "cpuload.idle_decay_nonincreasing", "--arch", "lp64", "--out", out.string()});
    CHECK(p.code == 0);
    CHECK(!fs::exists(out / "reproducers" / ("a.json.tmp." + d)));
    CHECK(fs::exists(out / "reproducers" / ("b.json.tmp." + alive)));
    CHECK(fs::exists(out / "reproducers" / "c.json"));
    fs::remove_all(work);
}

// Two runs writing into the same --out and --corpus at once: every file is
// whole (each is written to NAME.tmp.<pid> and renamed), none is lost.
TEST_CASE("concurrency: two prove runs into the same --out and --corpus", "[signals]") {
    const fs::path work = fs::temp_directory_path() / ("schedcheck-twice-" + std::to_string(getpid()));
    fs::remove_all(work);
    const std::vector<std::string> argv = {SCHEDCHECK_BIN, "prove", "--variant", "cpuload/v3.13", "--invariant",
                                           "nohz.busy_not_zeroed", "--out", (work / "out").string(), "--corpus",
                                           (work / "corpus").string()};
    Run r1, r2;
    std::thread t1([&] { r1 = run_argv(argv); }), t2([&] { r2 = run_argv(argv); });
    t1.join();
    t2.join();
    CHECK(r1.code == 0);
    CHECK(r2.code == 0);
    std::size_t out_files = 0, corpus_files = 0;
    for (const auto &e : fs::recursive_directory_iterator(work)) {
        if (!e.is_regular_file())
            continue;
        ++(e.path().string().find("/corpus/") != std::string::npos ? corpus_files : out_files);
        const std::string name = e.path().filename().string();
        INFO(e.path());
        CHECK(name.find(".tmp.") == std::string::npos); // nothing half-written left
        if (e.path().extension() == ".json") {
            std::ifstream in(e.path());
            CHECK_NOTHROW(nlohmann::json::parse(in));
        }
    }
    // results.json, verdicts.txt, and per data model a reproducer and a
    // report in out/; at least one reproducer per data model in the corpus
    // (content-named: the two runs' coincide when their content does).
    CHECK(out_files == 2 + 2 * 2);
    CHECK(corpus_files >= 2);
    fs::remove_all(work);
}

// Ctrl-C while `oracle build` unpacks and extracts a tarball: exit 130, no
// oracle reported or left in --out, and no unpacked tree or build
// directory of this run left in the temporary directory.
TEST_CASE("signals: SIGINT during oracle build leaves nothing", "[signals]") {
    const char *tarball = "/usr/src/linux-source-6.1.tar.xz";
    if (!fs::exists(tarball)) {
        WARN("no " << tarball << ": skipped");
        return;
    }
    const fs::path work = fs::temp_directory_path() / ("schedcheck-sigbuild-" + std::to_string(getpid()));
    fs::remove_all(work);
    fs::create_directories(work);
    const fs::path out = work / "o";
    int p[2];
    REQUIRE(pipe(p) == 0);
    pid_t pid = fork();
    REQUIRE(pid >= 0);
    if (pid == 0) {
        dup2(p[1], 1);
        dup2(p[1], 2);
        close(p[0]);
        execl(SCHEDCHECK_BIN, SCHEDCHECK_BIN, "oracle", "build", "--kernel", tarball, "--out", out.c_str(),
              static_cast<char *>(nullptr));
        _exit(127);
    }
    close(p[1]);
    // Unpacking the tarball alone takes seconds: the signal lands in it or
    // in the compile after it.
    usleep(1500 * 1000);
    kill(pid, SIGINT);
    std::string text;
    char buf[4096];
    for (ssize_t n; (n = read(p[0], buf, sizeof buf)) > 0;)
        text.append(buf, static_cast<std::size_t>(n));
    close(p[0]);
    int st = 0;
    REQUIRE(waitpid(pid, &st, 0) == pid);
    INFO(text);
    REQUIRE(WIFEXITED(st));
    CHECK(WEXITSTATUS(st) == 130);
    // Not a made-up failure about the tarball's content.
    CHECK(text.find("holds no kernel tree") == std::string::npos);
    CHECK(text.find("built") == std::string::npos);
    if (fs::exists(out))
        for (const auto &e : fs::recursive_directory_iterator(out)) {
            INFO(e.path());
            CHECK(e.path().extension() != ".so");
            CHECK(e.path().extension() != ".json");
            CHECK(e.path().filename().string().find(".build-") == std::string::npos);
        }
    const std::string mine = "-" + std::to_string(pid) + "-";
    for (const auto &e : fs::directory_iterator(fs::temp_directory_path())) {
        const std::string name = e.path().filename().string();
        INFO(name);
        CHECK(!(name.rfind("schedcheck-", 0) == 0 && name.find(mine) != std::string::npos));
    }
    fs::remove_all(work);
}

// Two `oracle build`s of one tarball into one --out at once: both succeed,
// and what is left is one whole oracle whose plug-in matches its manifest
// (each build works in its own OUT/.build-<pid>-* and renames into place).
TEST_CASE("concurrency: two oracle builds into the same --out", "[signals]") {
    const char *tarball = "/usr/src/linux-source-6.1.tar.xz";
    if (!fs::exists(tarball)) {
        WARN("no " << tarball << ": skipped");
        return;
    }
    const fs::path work = fs::temp_directory_path() / ("schedcheck-twobuilds-" + std::to_string(getpid()));
    fs::remove_all(work);
    const std::vector<std::string> argv = {SCHEDCHECK_BIN, "oracle", "build", "--kernel", tarball, "--name",
                                           "twice", "--out", (work / "o").string()};
    Run r1, r2;
    std::thread t1([&] { r1 = run_argv(argv); }), t2([&] { r2 = run_argv(argv); });
    t1.join();
    t2.join();
    INFO(r1.out << "\n----\n" << r2.out);
    CHECK(r1.code == 0);
    CHECK(r2.code == 0);
    for (const auto &e : fs::recursive_directory_iterator(work)) {
        INFO(e.path());
        CHECK(e.path().filename().string().find(".tmp.") == std::string::npos);
        CHECK(e.path().filename().string().find(".build-") == std::string::npos);
    }
    // The oracle loads (size and checksum as recorded) and proves.
    Run pr = run_argv({SCHEDCHECK_BIN, "prove", "--oracle", "twice", "--oracle-dir", (work / "o").string(),
                       "--invariant", "utilest.flag_isolated", "--arch", "lp64"});
    INFO(pr.out);
    CHECK(pr.code == 0);
    CHECK(pr.out.find("PROVED") != std::string::npos);
    fs::remove_all(work);
}
