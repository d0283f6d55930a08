// `make bench`: the whole built-in proof matrix, timed in one run on every
// core, with per-proof times, the time per solver query, and the goals:
// cpuload matrix <= 20 s with zero UNKNOWN.
#include <algorithm>
#include <chrono>
#include <cstdio>
#include <thread>

#include "proofs/matrix.h"

int bench_proof_matrix() {
    using namespace sc::proofs;
    std::vector<Job> jobs = full_matrix();
    unsigned threads = std::max(1u, std::thread::hardware_concurrency());
    auto t0 = std::chrono::steady_clock::now();
    std::vector<ProofResult> rs = run_matrix(jobs, ProveOptions{}, threads);
    double wall = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();

    std::printf("\nproof matrix: %zu proofs (every variant x invariant x arch), %u threads\n", rs.size(), threads);
    std::printf("  %-16s %-33s %-5s %-14s %8s %7s %8s %10s\n", "variant", "invariant", "arch", "verdict", "seconds",
                "paths", "queries", "ms/query");
    double cpu = 0;
    std::size_t queries = 0, unknown = 0;
    for (const ProofResult &r : rs) {
        cpu += r.seconds;
        queries += r.queries;
        unknown += r.verdict == Verdict::UNKNOWN;
        std::printf("  %-16s %-33s %-5s %-14s %8.3f %7zu %8zu %10.3f\n", r.variant.c_str(), r.invariant.c_str(),
                    std::string(sc::arch_name(r.arch)).c_str(), verdict_name(r.verdict), r.seconds, r.paths,
                    r.queries, r.queries ? 1000.0 * r.seconds / r.queries : 0.0);
    }
    std::printf("  total: %.2f s wall, %.2f s summed over proofs, %zu solver queries (%.3f ms per query)\n", wall,
                cpu, queries, queries ? 1000.0 * cpu / queries : 0.0);
    std::printf("  goal: whole cpuload matrix <= 20 s with zero UNKNOWN: %s (%.2f s, %zu UNKNOWN)\n",
                wall <= 20.0 && unknown == 0 ? "yes" : "NO", wall, unknown);
    return 0;
}
