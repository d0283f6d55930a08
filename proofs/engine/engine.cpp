#include <atomic>
#include <exception>
#include <mutex>
#include <thread>

#include "proofs/kernel/kernel_invariants.h"
#include "proofs/engine/matrix.h"

namespace sc::proofs {

std::vector<ProofResult> run_matrix(const std::vector<Job> &jobs, const ProveOptions &opt, unsigned threads) {
    std::vector<ProofResult> results(jobs.size());
    std::atomic<std::size_t> next{0};
    std::exception_ptr failure;
    std::mutex m;
    auto worker = [&] {
        for (;;) {
            std::size_t k = next++;
            if (k >= jobs.size())
                return;
            if (opt.cancelled()) { // not run: UNKNOWN, and said so
                results[k].variant = jobs[k].variant->id;
                results[k].invariant = jobs[k].invariant->id;
                results[k].arch = jobs[k].arch;
                results[k].reason = "cancelled";
                continue;
            }
            try {
                results[k] = jobs[k].invariant->prove(*jobs[k].variant, jobs[k].arch, opt);
            } catch (...) {
                std::lock_guard<std::mutex> g(m);
                if (!failure)
                    failure = std::current_exception();
                next = jobs.size();
                return;
            }
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
