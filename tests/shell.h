// Running a shell command from a test: its exit code and its stdout and
// stderr together.
#pragma once
#include <catch2/catch.hpp>

#include <sys/wait.h>

#include <array>
#include <cstdio>
#include <string>

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
