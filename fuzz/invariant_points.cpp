// libFuzzer harness: points of the proofs' domains, replayed on the concrete
// implementation (proofs/engine/case_points.h).
//
// Every proof of the built-in matrix whose cases can be listed (pelt,
// utilest and the cfs_rq moves on the variants and both kernels; idlebal;
// wakeaffine) is a target.  The input picks a target, one of its cases and a
// value for each of the case's inputs; a point outside the case's domain
// (an input relation fails) is dropped.  What counts as a bug (the harness
// aborts): a point that breaks a check of a base or step case of a proof
// the expected file marks PROVED (cp::breaks_claim).  That would mean the
// prover, or the way a case states its domain, let a real violation
// through.  A violation of a proof expected to fail is
// what the proof already reports, and is not a bug.
//
// It also reaches code no other harness does: the releases before 6.1,
// the entity <-> cfs_rq moves (ref/pelt_cfs.h), the idle-balance paths and
// wake_affine (ref/wake_affine.h).
//
// Input layout (little-endian; bytes past the end read as 0):
//   u16 target index, u16 case index (each modulo the count), then per
//   input of the case a u8 mode and a u64 value (case_points::pick).
//
// Seeds: corpora/invariant_points/.
#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <string>

#include "fuzz/harness_io.h"
#include "proofs/engine/case_points.h"

namespace cp = sc::proofs::case_points;

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t *data, std::size_t size) {
    const auto &ts = cp::targets();
    if (ts.empty())
        return 0;
    sc::fuzz::Bytes b{data, size};
    const cp::Target &t = ts[b.le(2) % ts.size()];
    const auto &cases = cp::cases_of(t);
    if (cases.empty())
        return 0;
    const sc::proofs::CaseInputs &c = cases[b.le(2) % cases.size()];
    bool mode_next = true;
    const auto vals = cp::point(c, [&] {
        const std::uint64_t w = b.le(mode_next ? 1 : 8);
        mode_next = !mode_next;
        return w;
    });
    const auto rr = cp::replay(t, c, vals);
    if (!rr || !cp::breaks_claim(t, c, *rr))
        return 0;
    std::fprintf(stderr, "invariant_points: %s on %s %s is expected PROVED, but case \"%s\" fails at:\n",
                 t.job.invariant->id.c_str(), t.job.variant->id.c_str(),
                 std::string(sc::arch_name(t.job.arch)).c_str(), c.label.c_str());
    for (const auto &[name, x] : vals)
        std::fprintf(stderr, "  %s = %llu\n", name.c_str(), static_cast<unsigned long long>(x));
    std::fprintf(stderr, "failed: %s (%s = %llu %s %s = %llu)\n%s", rr->failed.c_str(), rr->lhs_name.c_str(),
                 static_cast<unsigned long long>(rr->lhs), rr->op.c_str(), rr->rhs_name.c_str(),
                 static_cast<unsigned long long>(rr->rhs), rr->trace.c_str());
    std::abort();
}
