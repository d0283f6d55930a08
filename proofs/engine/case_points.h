// Points of a proof's domain, replayed on the concrete implementation.
//
// A PROVED verdict says that no input of any case's domain breaks a check.
// Replaying points of that domain tests the claim with the code the proof
// did not use: the concrete arithmetic of the reference or of the extracted
// kernel.  A point that breaks a check of a proof expected PROVED is a
// defect of the prover or of the case's statement, never of the kernel.
// The fuzz harness fuzz/invariant_points.cpp draws the points from its
// input bytes; the tests draw them from a seeded generator.
#pragma once
#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include "proofs/invariant.h"
#include "proofs/engine/matrix.h"

namespace sc::proofs::case_points {

// One proof of the built-in matrix whose cases can be listed, and the
// verdict the expected file gives it (UNKNOWN-expected proofs are left out).
struct Target {
    Job job;
    Verdict expected;
};
const std::vector<Target> &targets();
// The cases of t (listed once, then kept), search cases included.
const std::vector<CaseInputs> &cases_of(const Target &t);

// A value in [lo, hi] from two words: `mode` picks the kind (a bound, near
// a bound, a power of two, anywhere) and `v` the value.  Corners matter:
// most wraps and truncations sit at them.
std::uint64_t pick(std::uint64_t lo, std::uint64_t hi, std::uint64_t mode, std::uint64_t v);

// Every input of c, each from two words of `next`.
template <class Next> std::map<std::string, std::uint64_t> point(const CaseInputs &c, Next &&next) {
    std::map<std::string, std::uint64_t> vals;
    for (const auto &in : c.inputs) {
        const std::uint64_t mode = next(), v = next();
        vals[in.name] = pick(in.lo, in.hi, mode, v);
    }
    return vals;
}

// The point replayed on case c of t: nothing when it lies outside the
// case's domain (an input relation fails), else the replay's result.
std::optional<ReplayResult> replay(const Target &t, const CaseInputs &c, const std::map<std::string, std::uint64_t> &vals);

// Whether a replayed point refutes the verdict the expected file gives t:
// it breaks a check of a base or step case of a proof expected PROVED.  A
// search case is not part of that claim: its declared ranges are wider
// than the traces it searches (an update after 2^32 periods, which 6.x
// reads as no crossing, breaks pelt.running_converges's search but lies
// outside the 1..1024 crossed periods its induction states).
bool breaks_claim(const Target &t, const CaseInputs &c, const ReplayResult &rr);

} // namespace sc::proofs::case_points
