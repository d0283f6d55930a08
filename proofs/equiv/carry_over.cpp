#include "proofs/equiv/carry_over.h"

#include <algorithm>

#include <fmt/format.h>

#include "proofs/kernel/kernel_invariants.h"

namespace sc::proofs {

std::vector<std::pair<std::string, std::string>> CarryPlan::equivalences(const Variant &subject) const {
    std::vector<std::pair<std::string, std::string>> eqs = {{from, via}};
    if (subject.id != via)
        eqs.push_back({subject.id, via});
    return eqs;
}

std::optional<CarryPlan> carry_source(const Variant &subject, const InvariantInfo &i) {
    // The families whose reference notes the kernel functions a proof
    // reaches (pelt: proofs/kernel/kernel_iface.h; wakeaffine: its 6.1
    // decision, proofs/wakeaffine_invariants.h).
    if ((i.family != "pelt" && i.family != "wakeaffine") || is_plugin_subject(subject))
        return std::nullopt;
    // A built-in kernel that the invariant applies to (so built here).
    auto kernel = [&](const std::string &id) {
        for (const Variant &k : kernel_subjects())
            if (k.id == id && i.applies(k))
                return true;
        return false;
    };
    if (subject.family == "kernel" && kernel(subject.id)) {
        // linux-6.1 -> pelt/v6.1, wakeaffine/v6.1 (there is no wakeaffine/v6.12)
        const std::string from = i.family + "/v" + subject.id.substr(subject.id.find('-') + 1);
        if (find_variant(from))
            return CarryPlan{from, subject.id};
    }
    // Only between subjects the invariants see alike: they tell releases
    // apart by I::shape as before v4.12, v4.12 and 6.x, and a kernel is
    // of the 6.x shape (a test holds the invariants to that), so pelt/v6.12
    // and both kernels go with pelt/v6.1.  An older release would run
    // other code of the invariant than the one whose uses were noted.
    if (subject.id == "pelt/v6.12" && kernel("linux-6.1"))
        return CarryPlan{"pelt/v6.1", "linux-6.1"};
    // An invariant that reads no shape runs the same code on v4.12 as on
    // 6.1: pelt/v6.1's proof comes from pelt/v4.12's when the functions it
    // reached are those of linux-6.1 in both.
    if (i.shape_blind && subject.id == "pelt/v6.1" && kernel("linux-6.1"))
        return CarryPlan{"pelt/v4.12", "linux-6.1"};
    return std::nullopt;
}

std::vector<std::optional<std::size_t>> carry_sources(const std::vector<Job> &jobs) {
    std::vector<std::optional<std::size_t>> source(jobs.size());
    for (std::size_t k = 0; k < jobs.size(); ++k)
        if (std::optional<CarryPlan> plan = carry_source(*jobs[k].variant, *jobs[k].invariant))
            for (std::size_t j = 0; j < jobs.size(); ++j)
                if (jobs[j].variant->id == plan->from && jobs[j].invariant == jobs[k].invariant &&
                    jobs[j].arch == jobs[k].arch)
                    source[k] = j;
    return source;
}

namespace {

bool same_cases(const std::vector<CaseInputs> &x, const std::vector<CaseInputs> &y) {
    auto same_input = [](const CaseInputs::Input &p, const CaseInputs::Input &q) {
        return p.name == q.name && p.lo == q.lo && p.hi == q.hi;
    };
    auto same = [&](const CaseInputs &p, const CaseInputs &q) {
        return p.label == q.label && p.search == q.search &&
               std::equal(p.inputs.begin(), p.inputs.end(), q.inputs.begin(), q.inputs.end(), same_input);
    };
    return std::equal(x.begin(), x.end(), y.begin(), y.end(), same);
}

} // namespace

std::optional<ProofResult> carry_over(const Variant &subject, const InvariantInfo &i, Arch a,
                                      const ProofResult &src, const std::set<std::string> &used,
                                      const CarryPlan &plan, const std::vector<EquivResult> &eqs) {
    const Variant *from = find_subject(plan.from);
    // Nothing noted means nothing was recorded, not that nothing was used.
    if (!from || src.variant != plan.from || src.verdict == Verdict::UNKNOWN || used.empty())
        return std::nullopt;
    const auto wanted = plan.equivalences(subject);
    if (eqs.size() != wanted.size())
        return std::nullopt;
    // An equivalence that ends DIFFERENT has compared every function and
    // lists each one that differs (an UNKNOWN anywhere ends it UNKNOWN:
    // proofs/equiv/equiv_engine.h), so a compared function not listed is
    // EQUIVALENT.
    for (std::size_t n = 0; n < eqs.size(); ++n) {
        const EquivResult &eq = eqs[n];
        if (eq.verdict == EquivVerdict::UNKNOWN || eq.arch != a || eq.variant != wanted[n].first ||
            eq.oracle != wanted[n].second)
            return std::nullopt;
        for (const std::string &f : used) {
            const bool differs = std::any_of(eq.differences.begin(), eq.differences.end(),
                                             [&](const EquivDifference &d) { return d.function == f; });
            if (differs || std::find(eq.compared.begin(), eq.compared.end(), f) == eq.compared.end())
                return std::nullopt;
        }
    }
    // The same cases over the same input ranges: the invariant did not
    // split or bound its domain differently for the subject's shape.
    if (!i.cases || !same_cases(i.cases(*from, a), i.cases(subject, a)))
        return std::nullopt;

    std::string fns;
    for (const std::string &f : used)
        fns += (fns.empty() ? "" : ", ") + f;
    double eq_seconds = 0;
    for (const EquivResult &eq : eqs)
        eq_seconds += eq.seconds;
    ProofResult r = src;
    r.variant = subject.id;
    r.seconds = 0;
    r.queries = 0;
    const std::string whose = subject.id == plan.via ? "" : fmt::format(" (and {}'s)", subject.id);
    const std::string carried =
        fmt::format("carried over from {} ({}, {:.1f} s): {}{} EQUIVALENT to {}'s on {} ({:.2f} s)", src.variant,
                    verdict_name(src.verdict), src.seconds, fns, whose, plan.via, arch_name(a), eq_seconds);
    r.reason = src.reason.empty() ? carried : src.reason + "; " + carried;
    if (src.verdict == Verdict::COUNTEREXAMPLE) {
        if (!src.cex)
            throw internal_error("a counterexample of " + i.id + " on " + src.variant + " has no inputs");
        Counterexample ce = *src.cex;
        ce.reproducer["variant"] = subject.id;
        ce.reproducer_path.clear();
        const ReplayResult rr = i.replay(subject, a, ce.reproducer);
        if (!rr.violated)
            throw internal_error("the counterexample of " + i.id + " on " + src.variant + " " +
                                 std::string(arch_name(a)) + " does not replay on " + subject.id +
                                 ", which equiv proved equivalent to it");
        r.cex = ce;
    }
    return r;
}

} // namespace sc::proofs
