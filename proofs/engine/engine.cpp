#include <algorithm>
#include <chrono>
#include <condition_variable>
#include <exception>
#include <future>
#include <map>
#include <mutex>
#include <optional>
#include <set>
#include <thread>

#include "proofs/engine/matrix.h"
#include "proofs/equiv/carry_over.h"
#include "proofs/kernel/iface_uses.h"
#include "proofs/kernel/kernel_invariants.h"

namespace sc::proofs {

// Proofs of one invariant ask many of the same queries (its two data
// models, releases that share a function, a kernel and its reference).
// Run side by side, both solve them; one after the other, the second finds
// the first's answers in the query cache (proofs/engine/query_cache.h).
// So a worker takes the first waiting job whose invariant no running job
// proves, or the first waiting job when each of them has such a twin.
//
// A pelt or wakeaffine proof that can be carried over from another job's (a
// built-in kernel's from its release's variant, pelt/v6.12's from pelt/v6.1's:
// proofs/equiv/carry_over.h) waits for that job, and is carried when the
// functions that proof reached are proved equivalent, proved directly
// otherwise.
std::vector<ProofResult> run_matrix(const std::vector<Job> &jobs, const ProveOptions &opt, unsigned threads) {
    std::vector<ProofResult> results(jobs.size());
    std::exception_ptr failure;
    std::mutex m;
    std::condition_variable changed;
    std::vector<std::size_t> waiting; // job numbers, in order
    for (std::size_t k = 0; k < jobs.size(); ++k)
        waiting.push_back(k);
    std::vector<std::optional<std::size_t>> source(jobs.size());
    if (opt.carry_over)
        source = carry_sources(jobs);
    std::vector<bool> is_source(jobs.size()), finished(jobs.size());
    for (const auto &j : source)
        if (j)
            is_source[*j] = true;
    std::vector<std::set<std::string>> used(jobs.size());
    std::vector<const InvariantInfo *> running; // one entry per running job
    auto take = [&]() -> std::optional<std::size_t> {
        std::unique_lock<std::mutex> g(m);
        for (;;) {
            if (failure || waiting.empty())
                return std::nullopt;
            auto ready = [&](std::size_t k) { return !source[k] || finished[*source[k]]; };
            auto busy = [&](std::size_t k) {
                return std::find(running.begin(), running.end(), jobs[k].invariant) != running.end();
            };
            auto it = std::find_if(waiting.begin(), waiting.end(), [&](std::size_t k) { return ready(k) && !busy(k); });
            if (it == waiting.end())
                it = std::find_if(waiting.begin(), waiting.end(), ready);
            if (it != waiting.end()) {
                const std::size_t k = *it;
                waiting.erase(it);
                running.push_back(jobs[k].invariant);
                return k;
            }
            changed.wait(g); // every waiting job waits for a running one
        }
    };
    auto done = [&](std::size_t k) {
        std::lock_guard<std::mutex> g(m);
        running.erase(std::find(running.begin(), running.end(), jobs[k].invariant));
        finished[k] = true;
        changed.notify_all();
    };
    // One equivalence per (variant, kernel, arch), shared by the proofs it
    // carries.
    std::map<std::string, std::shared_future<EquivResult>> equivalences;
    auto equivalence = [&](const Variant &v, const std::string &kernel, Arch a) {
        std::promise<EquivResult> mine;
        std::shared_future<EquivResult> f;
        bool compute = false;
        {
            std::lock_guard<std::mutex> g(m);
            auto [it, fresh] = equivalences.try_emplace(v.id + " " + kernel + " " + std::string(arch_name(a)));
            if (fresh)
                it->second = mine.get_future().share();
            f = it->second;
            compute = fresh;
        }
        if (compute) {
            try {
                mine.set_value(prove_equivalence(v, kernel, a, opt.timeout_ms));
            } catch (...) {
                mine.set_exception(std::current_exception());
            }
        }
        return f.get();
    };
    auto prove = [&](std::size_t k) -> ProofResult {
        const Job &job = jobs[k];
        if (source[k] && results[*source[k]].verdict != Verdict::UNKNOWN) {
            const auto t0 = std::chrono::steady_clock::now();
            const std::size_t j = *source[k];
            const CarryPlan plan = *carry_source(*job.variant, *job.invariant);
            std::vector<EquivResult> eqs;
            try {
                for (const auto &[variant, kernel] : plan.equivalences(*job.variant)) {
                    const Variant *v = find_variant(variant);
                    if (!v)
                        throw input_error("no variant " + variant);
                    eqs.push_back(equivalence(*v, kernel, job.arch));
                }
            } catch (const input_error &) { // not comparable here: proved directly
                eqs.clear();
            }
            if (!eqs.empty())
                if (std::optional<ProofResult> r =
                        carry_over(*job.variant, *job.invariant, job.arch, results[j], used[j], plan, eqs)) {
                    r->seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
                    used[k] = used[j]; // for the proofs carried on from this one
                    return *r;
                }
        }
        if (is_source[k]) {
            iface::UseRecording rec;
            ProofResult r = job.invariant->prove(*job.variant, job.arch, opt);
            used[k] = rec.names();
            return r;
        }
        return job.invariant->prove(*job.variant, job.arch, opt);
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
                results[k] = prove(k);
            } catch (...) {
                std::lock_guard<std::mutex> g(m);
                if (!failure)
                    failure = std::current_exception();
                changed.notify_all();
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
