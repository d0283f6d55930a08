// Speed figures for `make bench`, each a ratio measured within one run.
//
// bench_update_cpu_load(): the concrete reference
// sc::cpuload::__update_cpu_load<sc::lp64, v3_13> against a plain C version
// of the same arithmetic (tests/bench_plain_c.c), over one pseudo-random
// input sequence.  DESIGN.md asks the concrete instantiation to run as fast
// as the kernel's own C; the goal checked here is ref/plain <= 1.10.
//
// bench_proof_matrix() lives in another file; it is declared weak so this
// program still links (and skips it) when that file is not part of the build.
#include "ref/cpuload.h"

#include <algorithm>
#include <chrono>
#include <cstdint>
#include <cstdio>
#include <string>
#include <vector>

extern "C" void plain_update_cpu_load(unsigned long *cpu_load, unsigned long this_load,
                                      unsigned long pending_updates);

__attribute__((weak)) int bench_proof_matrix(const char *only);
__attribute__((weak)) int bench_simulate();

namespace {

using sc::cpuload::patch_level;
using ref_rq = sc::cpuload::rq<sc::lp64>;

static_assert(sizeof(unsigned long) == sizeof(sc::lp64::ulong),
              "the plain C side assumes an lp64 host");

volatile std::uint64_t g_sink;

// The plain C function is an out-of-line call in another translation unit;
// call the reference out of line too, so both sides pay the same call cost
// and the compiler cannot specialise the reference on the loop around it.
__attribute__((noinline)) void ref_call(ref_rq &r, std::uint64_t load, std::uint64_t pending) {
    sc::cpuload::__update_cpu_load<sc::lp64, patch_level::v3_13>(r, load, pending);
}

struct input {
    std::uint64_t load, pending;
};

// xorshift64*: deterministic, so every run measures the same sequence.
std::vector<input> make_inputs(std::size_t n) {
    std::vector<input> v;
    v.reserve(n);
    std::uint64_t s = 0x9e3779b97f4a7c15ULL;
    auto next = [&s] {
        s ^= s >> 12;
        s ^= s << 25;
        s ^= s >> 27;
        return s * 0x2545f4914f6cdd1dULL;
    };
    for (std::size_t i = 0; i < n; ++i) {
        std::uint64_t r = next();
        std::uint64_t load = r & ((1ULL << 40) - 1); // up to 2^40
        std::uint64_t sel = next();
        // Half plain ticks (pending 1), half catch-ups after 1..200 ticks,
        // so every decay path (cut-off, shift, table walk) is exercised.
        std::uint64_t pending = (sel & 1) ? 1 : 1 + (sel >> 1) % 200;
        v.push_back({load, pending});
    }
    return v;
}

using clock_type = std::chrono::steady_clock;

// One pass of the reference over the inputs; returns ns per call.
double pass_ref(const std::vector<input> &in, std::uint64_t &digest) {
    ref_rq r{};
    std::uint64_t acc = 0;
    auto t0 = clock_type::now();
    for (const input &x : in) {
        ref_call(r, x.load, x.pending);
        acc += r.cpu_load[1] ^ r.cpu_load[4];
    }
    auto t1 = clock_type::now();
    for (auto v : r.cpu_load)
        acc += v;
    g_sink = g_sink + acc;
    digest = acc;
    return std::chrono::duration<double, std::nano>(t1 - t0).count() / double(in.size());
}

// The same pass through the plain C function.
double pass_plain(const std::vector<input> &in, std::uint64_t &digest) {
    unsigned long cpu_load[5] = {0, 0, 0, 0, 0};
    std::uint64_t acc = 0;
    auto t0 = clock_type::now();
    for (const input &x : in) {
        plain_update_cpu_load(cpu_load, x.load, x.pending);
        acc += cpu_load[1] ^ cpu_load[4];
    }
    auto t1 = clock_type::now();
    for (auto v : cpu_load)
        acc += v;
    g_sink = g_sink + acc;
    digest = acc;
    return std::chrono::duration<double, std::nano>(t1 - t0).count() / double(in.size());
}

} // namespace

int bench_update_cpu_load() {
    constexpr std::size_t n_inputs = 1 << 18;
    constexpr int reps = 15;
    const std::vector<input> in = make_inputs(n_inputs);

    std::uint64_t d_ref = 0, d_plain = 0;
    // Warm-up, and a check that both sides compute the same thing: a speed
    // comparison of two different computations would mean nothing.
    pass_ref(in, d_ref);
    pass_plain(in, d_plain);
    if (d_ref != d_plain) {
        std::fprintf(stderr,
                     "bench update_cpu_load: reference and plain C disagree "
                     "(digest %llu vs %llu)\n",
                     (unsigned long long)d_ref, (unsigned long long)d_plain);
        return 1;
    }

    double best_ref = 1e300, best_plain = 1e300;
    for (int i = 0; i < reps; ++i) {
        // Alternate which side goes first, so drift in clock speed or cache
        // state does not favour one of them.
        if (i % 2 == 0) {
            best_ref = std::min(best_ref, pass_ref(in, d_ref));
            best_plain = std::min(best_plain, pass_plain(in, d_plain));
        } else {
            best_plain = std::min(best_plain, pass_plain(in, d_plain));
            best_ref = std::min(best_ref, pass_ref(in, d_ref));
        }
    }

    const double ratio = best_ref / best_plain;
    std::printf("update_cpu_load (v3.13, lp64), %zu calls x %d repetitions, minimum per side\n",
                n_inputs, reps);
    std::printf("  reference __update_cpu_load<lp64, v3_13>: %8.2f ns/call\n", best_ref);
    std::printf("  plain C plain_update_cpu_load:            %8.2f ns/call\n", best_plain);
    std::printf("  ratio ref/plain = %.3f  (goal <= 1.10: %s)\n", ratio,
                ratio <= 1.10 ? "yes" : "NO");
    return 0;
}

int bench_kernel_oracles();
int bench_guards();

// `schedcheck_bench` runs every benchmark; `schedcheck_bench simulate`
// only the simulation rates, `schedcheck_bench kernel` only the reference
// against the kernel oracles, `schedcheck_bench guards` only the file
// guards (quick, for work on one of them), `schedcheck_bench matrix
// idlebal` one family's proof matrix (cpuload, "pelt + utilest", idlebal,
// wakeaffine).
int main(int argc, char **argv) {
    if (argc == 2 && std::string(argv[1]) == "simulate" && bench_simulate)
        return bench_simulate();
    if (argc == 2 && std::string(argv[1]) == "kernel")
        return bench_kernel_oracles();
    if (argc == 2 && std::string(argv[1]) == "guards")
        return bench_guards();
    // One family's matrix: cpuload, "pelt + utilest", idlebal, wakeaffine.
    if (argc == 3 && std::string(argv[1]) == "matrix" && bench_proof_matrix)
        return bench_proof_matrix(argv[2]);
    if (argc > 1) {
        std::fprintf(stderr, "usage: schedcheck_bench [simulate | kernel | guards | matrix FAMILY]\n");
        return 2;
    }
    int rc = bench_update_cpu_load();
    bench_kernel_oracles();
    bench_guards();
    if (bench_simulate)
        bench_simulate();
    if (bench_proof_matrix) {
        int rc2 = bench_proof_matrix(nullptr);
        if (rc == 0)
            rc = rc2;
    } else {
        std::printf("proof matrix benchmark: not built into this binary, skipped\n");
    }
    return rc;
}
