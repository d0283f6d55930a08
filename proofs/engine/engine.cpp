#include <algorithm>
#include <exception>
#include <mutex>
#include <optional>
#include <thread>

#include "proofs/kernel/kernel_invariants.h"
#include "proofs/engine/matrix.h"

namespace sc::proofs {

// Proofs of one invariant ask many of the same queries (its two data
// models, releases that share a function, a kernel and its reference).
// Run side by side, both solve them; one after the other, the second finds
// the first's answers in the query cache (proofs/engine/query_cache.h).
// So a worker takes the first waiting job whose invariant no running job
// proves, or the first waiting job when each of them has such a twin.
std::vector<ProofResult> run_matrix(const std::vector<Job> &jobs, const ProveOptions &opt, unsigned threads) {
    std::vector<ProofResult> results(jobs.size());
    std::exception_ptr failure;
    std::mutex m;
    std::vector<std::size_t> waiting; // job numbers, in order
    for (std::size_t k = 0; k < jobs.size(); ++k)
        waiting.push_back(k);
    std::vector<const InvariantInfo *> running; // one entry per running job
    auto take = [&]() -> std::optional<std::size_t> {
        std::lock_guard<std::mutex> g(m);
        if (failure || waiting.empty())
            return std::nullopt;
        auto busy = [&](std::size_t k) {
            return std::find(running.begin(), running.end(), jobs[k].invariant) != running.end();
        };
        auto it = std::find_if_not(waiting.begin(), waiting.end(), busy);
        if (it == waiting.end())
            it = waiting.begin();
        const std::size_t k = *it;
        waiting.erase(it);
        running.push_back(jobs[k].invariant);
        return k;
    };
    auto done = [&](std::size_t k) {
        std::lock_guard<std::mutex> g(m);
        running.erase(std::find(running.begin(), running.end(), jobs[k].invariant));
    };
    auto worker = [&] {
        while (std::optional<std::size_t> next = take()) {
            const std::size_t k = *next;
            if (opt.cancelled()) { // not run: UNKNOWN, and said so
                results[k].variant = jobs[k].variant->id;
                results[k].invariant = jobs[k].invariant->id;
                results[k].arch = jobs[k].arch;
                results[k].reason = "cancelled";
                done(k);
                continue;
            }
            try {
                results[k] = jobs[k].invariant->prove(*jobs[k].variant, jobs[k].arch, opt);
            } catch (...) {
                std::lock_guard<std::mutex> g(m);
                if (!failure)
                    failure = std::current_exception();
                return;
            }
            done(k);
        }
    };
    if (threads < 1)
        threads = 1;
    std::vector<std::thread> pool;
    for (unsigned t = 0; t < threads; ++t)
        pool.emplace_back(worker);
    for (auto &t : pool)
        t.join();
    if (failure)
        std::rethrow_exception(failure);
    return results;
}

std::vector<Job> full_matrix() {
    std::vector<Job> jobs;
    std::vector<const Variant *> subjects;
    for (const Variant &v : variants())
        subjects.push_back(&v);
    for (const Variant &v : kernel_subjects())
        subjects.push_back(&v);
    for (const Variant *vp : subjects)
        for (const InvariantInfo &i : invariants())
            if (i.applies(*vp))
                for (Arch a : {Arch::ilp32, Arch::lp64})
                    jobs.push_back({vp, &i, a});
    return jobs;
}

} // namespace sc::proofs
