// Running a command from a test: its exit code and its stdout and stderr
// together.  `shell` takes a fixed command line written in the test;
// `run_argv` an argument vector, for file names that no shell may see.
#pragma once
#include <catch2/catch.hpp>

#include <sys/wait.h>
#include <unistd.h>

#include <array>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>
#include <vector>

#include "oracle/process.h"

struct Run {
    int code;
    std::string out; // stdout and stderr
};

inline Run shell(const std::string &cmd) {
    FILE *p = popen((cmd + " 2>&1").c_str(), "r");
    REQUIRE(p != nullptr);
    std::string out;
    std::array<char, 4096> buf{};
    std::size_t n;
    while ((n = fread(buf.data(), 1, buf.size(), p)) > 0)
        out.append(buf.data(), n);
    int st = pclose(p);
    return {WIFEXITED(st) ? WEXITSTATUS(st) : -1, out};
}

inline Run run_argv(const std::vector<std::string> &argv, const std::filesystem::path &cwd = {}) {
    char tmpl[] = "/tmp/schedcheck-test-out-XXXXXX";
    int fd = mkstemp(tmpl);
    REQUIRE(fd >= 0);
    close(fd);
    sc::sys::RunOptions o;
    o.cwd = cwd;
    o.out_file = tmpl;
    o.err_to_out = true;
    sc::sys::RunResult r = sc::sys::run(argv, o);
    std::ifstream in(tmpl, std::ios::binary);
    std::stringstream ss;
    ss << in.rdbuf();
    std::filesystem::remove(tmpl);
    return {r.spawned && r.signal == 0 ? r.exit_code : -1, ss.str()};
}

// A command's output without the engine's warnings, for the JSON that a
// test parses from stdout and stderr together: a proof that its solver
// answered wrongly and that it started again says so on stderr in one line
// ("schedcheck: warning: ..."), and the JSON that follows is whole.
inline std::string without_warnings(const std::string &out) {
    std::istringstream in(out);
    std::string line, kept;
    while (std::getline(in, line))
        if (line.rfind("schedcheck: warning:", 0) != 0)
            kept += line + "\n";
    return kept;
}
