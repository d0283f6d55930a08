// Ctrl-C and SIGTERM during a proof: exit 128 + the signal, no verdict made
// up, no result and no temporary file written.
#include <catch2/catch.hpp>

#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <filesystem>
#include <string>
#include <vector>

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
