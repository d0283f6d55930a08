// `make bench`: the whole built-in proof matrix, timed family by family in
// one run on every core, with per-proof times, the time per solver query,
// and each family's goal (cpuload, idlebal and wakeaffine <= 20 s, pelt
// with utilest and both kernels <= 60 s, zero UNKNOWN); then the
// equivalence proofs against the seed-000 oracles.
#include <algorithm>
#include <chrono>
#include <cstdio>
#include <thread>

#include "proofs/equiv/equiv.h"
#include "proofs/engine/matrix.h"

namespace {

// The families' goals, each timed on its own (variants and kernel subjects
// alike, both data models): the group of an invariant is its family, with
// cpuload's balance.* invariants in cpuload and pelt with utilest.
struct Group {
    const char *name;
    double goal_s;
    bool (*holds)(const std::string &family);
};
const Group groups[] = {
    {"cpuload", 20.0, [](const std::string &f) { return f == "cpuload" || f == "balance"; }},
    {"pelt + utilest", 60.0, [](const std::string &f) { return f == "pelt" || f == "utilest"; }},
    {"idlebal", 20.0, [](const std::string &f) { return f == "idlebal"; }},
    {"wakeaffine", 20.0, [](const std::string &f) { return f == "wakeaffine"; }},
};

} // namespace

int bench_proof_matrix(const char *only) {
    using namespace sc::proofs;
    if (only && std::none_of(std::begin(groups), std::end(groups),
                             [&](const Group &g) { return std::string(only) == g.name; })) {
        std::fprintf(stderr, "schedcheck_bench: no family \"%s\" (cpuload, \"pelt + utilest\", idlebal, wakeaffine)\n",
                     only);
        return 2;
    }
    const std::vector<Job> all = full_matrix();
    unsigned threads = std::max(1u, std::thread::hardware_concurrency());
    struct Summary {
        const Group *g;
        std::size_t proofs, unknown;
        double wall;
    };
    std::vector<Summary> sums;
    double cpu = 0;
    std::size_t queries = 0, total = 0;
    std::printf("\nproof matrix, family by family (every variant and kernel x invariant x arch), %u threads\n",
                threads);
    std::printf("  %-16s %-33s %-5s %-14s %8s %7s %8s %10s\n", "variant", "invariant", "arch", "verdict", "seconds",
                "paths", "queries", "ms/query");
    for (const Group &g : groups) {
        if (only && std::string(only) != g.name)
            continue;
        std::vector<Job> jobs;
        for (const Job &j : all)
            if (g.holds(j.invariant->family))
                jobs.push_back(j);
        auto t0 = std::chrono::steady_clock::now();
        std::vector<ProofResult> rs = run_matrix(jobs, ProveOptions{}, threads);
        double wall = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
        std::size_t unknown = 0, carried = 0;
        for (const ProofResult &r : rs) {
            carried += r.reason.find("carried over from") != std::string::npos;
            cpu += r.seconds;
            queries += r.queries;
            unknown += r.verdict == Verdict::UNKNOWN;
            std::printf("  %-16s %-33s %-5s %-14s %8.3f %7zu %8zu %10.3f\n", r.variant.c_str(), r.invariant.c_str(),
                        std::string(sc::arch_name(r.arch)).c_str(), verdict_name(r.verdict), r.seconds, r.paths,
                        r.queries, r.queries ? 1000.0 * r.seconds / r.queries : 0.0);
        }
        total += rs.size();
        sums.push_back({&g, rs.size(), unknown, wall});
        std::printf("  -- %s: %zu proofs in %.2f s wall (%zu carried over through equiv)\n", g.name, rs.size(), wall,
                    carried);
    }
    std::printf("  total: %zu proofs, %.2f s summed over proofs, %zu solver queries (%.3f ms per query)\n", total,
                cpu, queries, queries ? 1000.0 * cpu / queries : 0.0);
    for (const Summary &s : sums)
        std::printf("  goal: %s matrix <= %.0f s with zero UNKNOWN: %s (%zu proofs, %.2f s, %zu UNKNOWN)\n",
                    s.g->name, s.g->goal_s, s.wall <= s.g->goal_s && s.unknown == 0 ? "yes" : "NO", s.proofs, s.wall,
                    s.unknown);
    if (only)
        return 0;

    // The equivalence proofs of the variants against the seed-000 oracles.
    std::vector<OracleInfo> os = oracles();
    if (os.empty() || !os.front().available) {
        std::printf("\nequivalence proofs: skipped (%s)\n", os.empty() ? "no oracle" : os.front().reason.c_str());
        return 0;
    }
    std::printf("\nequivalence proofs against the seed-000 oracles (one thread):\n");
    auto e0 = std::chrono::steady_clock::now();
    std::size_t n = 0, unknown_eq = 0;
    for (const OracleInfo &o : os)
        for (sc::Arch a : {sc::Arch::ilp32, sc::Arch::lp64}) {
            // The kernel oracles name two variants ("pelt/v6.1, utilest/v6.1")
            // and are timed by bench_kernel.cpp; only the seed-000 ones here.
            const sc::Variant *v = sc::find_variant(o.same_as);
            if (!v || !o.available)
                continue;
            EquivResult r = prove_equivalence(*v, o.id, a, 10000);
            ++n;
            unknown_eq += r.verdict == EquivVerdict::UNKNOWN;
            std::printf("  %-16s %-14s %-5s %-11s %7.3f s %6zu paths %4zu queries\n", r.variant.c_str(),
                        r.oracle.c_str(), std::string(sc::arch_name(a)).c_str(), equiv_name(r.verdict), r.seconds,
                        r.paths, r.queries);
        }
    double et = std::chrono::duration<double>(std::chrono::steady_clock::now() - e0).count();
    std::printf("  total: %zu equivalence proofs in %.2f s; goal <= 30 s with zero UNKNOWN: %s\n", n, et,
                et <= 30.0 && unknown_eq == 0 ? "yes" : "NO");
    return 0;
}
