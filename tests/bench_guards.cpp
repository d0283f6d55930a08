// `make bench`, the cost of the input and output guards (proofs/report/input_file.h)
// against the plain library calls they wrap, in one run:
//   reading: read_input_file() (a regular file, size-capped) and
//     parse_json_document() (depth cap, NUL and duplicate-key checks, the
//     text of every inexact number kept) against std::ifstream and
//     nlohmann::json::parse, on the checked-in PELT reproducers;
//   writing: write_file_atomic() (a temporary file, fsync, rename) against
//     std::ofstream, on report-sized texts.
// The proof, simulation and equivalence figures do not go through either:
// the guards sit where the CLI reads and writes files.
#include <chrono>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>
#include <unistd.h>

#include "proofs/report/input_file.h"

namespace fs = std::filesystem;

namespace {

template <class F> double best_seconds(F f) {
    double best = 1e30;
    for (int rep = 0; rep < 5; ++rep) {
        auto t0 = std::chrono::steady_clock::now();
        f();
        best = std::min(best, std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count());
    }
    return best;
}

volatile std::size_t guard_sink;

} // namespace

int bench_guards() {
    std::vector<std::string> files;
    for (const auto &e : fs::directory_iterator(fs::path(SCHEDCHECK_SOURCE_DIR) / "corpora/pelt"))
        if (e.path().extension() == ".json")
            files.push_back(e.path().string());
    if (files.empty()) {
        std::printf("input guards: no corpora/pelt reproducers, skipped\n");
        return 0;
    }
    constexpr int rounds = 50;
    double guarded = best_seconds([&] {
        std::size_t n = 0;
        for (int r = 0; r < rounds; ++r)
            for (const auto &f : files)
                n += sc::proofs::parse_json_document(sc::proofs::read_input_file(f, sc::proofs::InputKind::reproducer), f)
                         .value.size();
        guard_sink = n;
    });
    double plain = best_seconds([&] {
        std::size_t n = 0;
        for (int r = 0; r < rounds; ++r)
            for (const auto &f : files) {
                std::ifstream in(f);
                std::stringstream ss;
                ss << in.rdbuf();
                n += nlohmann::json::parse(ss.str()).size();
            }
        guard_sink = n;
    });
    std::size_t reads = rounds * files.size();
    std::printf("input guards: %zu reproducer reads, guarded %.1f us each, plain ifstream + json::parse %.1f us "
                "each: ratio %.2f\n",
                reads, guarded / reads * 1e6, plain / reads * 1e6, guarded / plain);

    fs::path dir = fs::temp_directory_path() / ("schedcheck-bench-guards-" + std::to_string(::getpid()));
    fs::create_directories(dir);
    const std::string text(4096, 'x'); // a report's size
    constexpr int writes = 200;
    double atomic = best_seconds([&] {
        for (int k = 0; k < writes; ++k)
            sc::proofs::write_file_atomic((dir / ("a" + std::to_string(k))).string(), text);
    });
    double stream = best_seconds([&] {
        for (int k = 0; k < writes; ++k)
            std::ofstream(dir / ("p" + std::to_string(k))) << text;
    });
    fs::remove_all(dir);
    std::printf("output guards: %d writes of 4 KB, write_file_atomic (temporary, fsync, rename) %.1f us each, "
                "plain ofstream %.1f us each: ratio %.1f, %.3f s per 100 files\n",
                writes, atomic / writes * 1e6, stream / writes * 1e6, atomic / stream, atomic / writes * 100);
    return 0;
}
