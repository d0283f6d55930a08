#include "proofs/engine/case_points.h"

#include <memory>
#include <mutex>

#include "proofs/report/expected.h"

namespace sc::proofs::case_points {

const std::vector<Target> &targets() {
    static const std::vector<Target> all = [] {
        std::vector<Target> ts;
        for (const Job &j : full_matrix()) {
            if (!j.invariant->cases)
                continue;
            const auto exp = expected_verdict(j.variant->id, j.invariant->id, j.arch);
            if (exp && *exp != Verdict::UNKNOWN)
                ts.push_back({j, *exp});
        }
        return ts;
    }();
    return all;
}

const std::vector<CaseInputs> &cases_of(const Target &t) {
    // Listing the cases builds each one once (thousands for the crossing
    // splits): keep them per target.
    static std::mutex mu;
    static std::map<const Target *, std::unique_ptr<std::vector<CaseInputs>>> memo;
    std::lock_guard<std::mutex> lock(mu);
    auto &slot = memo[&t];
    if (!slot)
        slot = std::make_unique<std::vector<CaseInputs>>(t.job.invariant->cases(*t.job.variant, t.job.arch));
    return *slot;
}

std::uint64_t pick(std::uint64_t lo, std::uint64_t hi, std::uint64_t mode, std::uint64_t v) {
    const std::uint64_t span = hi - lo; // hi >= lo
    auto within = [&](std::uint64_t n) { return span == ~0ULL ? n : n % (span + 1); };
    switch (mode % 8) {
    case 0: return lo;
    case 1: return hi;
    case 2: return lo + within(v % 1024);
    case 3: return hi - within(v % 1024);
    case 4: { // a power of two, or one below it, clamped into the range
        const std::uint64_t p = std::uint64_t(1) << (v % 64);
        const std::uint64_t x = (v >> 6) & 1 ? p - 1 : p;
        return x < lo ? lo : x > hi ? hi : x;
    }
    default: return lo + within(v);
    }
}

std::optional<ReplayResult> replay(const Target &t, const CaseInputs &c, const std::map<std::string, std::uint64_t> &vals) {
    nlohmann::json doc = {{"case", c.label}, {"inputs", nlohmann::json::object()}};
    for (const auto &[name, x] : vals)
        doc["inputs"][name] = x;
    try {
        return t.job.invariant->replay(*t.job.variant, t.job.arch, doc);
    } catch (const input_error &) {
        // The replay's only input error here: the point breaks a relation
        // of the case's domain (the case label and the values come from
        // the case itself).
        return std::nullopt;
    }
}

bool breaks_claim(const Target &t, const CaseInputs &c, const ReplayResult &rr) {
    return rr.violated && !c.search && t.expected == Verdict::PROVED;
}

} // namespace sc::proofs::case_points
