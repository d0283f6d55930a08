// Property harness for the cpuload family (libFuzzer entry point; the AFL++
// build links the same file against afl's libAFLDriver).
//
// An input is either
//  - a reproducer file (first non-blank byte '{'), as written by
//    `schedcheck prove` or by this harness, or
//  - raw bytes, decoded into a variant, an arch, the balance knobs, an
//    initial runqueue and up to 64 steps (see decode() below and
//    fuzz/README.md).
// Every value either way stays inside the proof domain of proofs/domain.h,
// so a failing check is a real disagreement with a proof, not an input the
// proof never claimed anything about.
//
// The scenario is then run on the checked concrete reference (ref/checked.h)
// for each invariant that applies to the variant and is expected to be
// PROVED on that arch (proofs/expected/verdicts.txt).  A violation prints a
// report, writes crash-repro-<hash>.json into the working directory and
// aborts.  Invariants expected to have a COUNTEREXAMPLE are never checked.
#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <map>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include <nlohmann/json.hpp>

#include "proofs/cpuload_fast.h"
#include "proofs/cpuload_invariants.h"
#include "proofs/domain.h"
#include "proofs/report/expected.h"
#include "proofs/invariant.h"
#include "proofs/report/reproducer.h"
#include "ref/checked.h"
#include "ref/cpuload_scenario.h"
#include "ref/variants.h"
#include "fuzz/cpuload_bytes.h"

namespace {

using sc::Arch;
using sc::Variant;
using sc::cpuload::op;
using sc::cpuload::patch_level;
using sc::proofs::InvariantInfo;
using sc::proofs::ReplayResult;
using namespace sc::fuzz_cpuload;

// SCHEDCHECK_FUZZ_ALL=1: also check invariants whose expected verdict is
// UNKNOWN or not listed (never the COUNTEREXAMPLE ones).
bool g_check_unproved = false;
// SCHEDCHECK_FUZZ_PRINT=1: print every decoded scenario (for writing seeds
// and for reading a crashing input).
bool g_print = false;
// SCHEDCHECK_FUZZ_SLOW=1: evaluate each invariant on its own simulation and
// with its text, as the harness did before first_violated(); for measuring
// the difference (make bench) and for cross-checking the fast path.
bool g_slow = false;

bool env_flag(const char *name) {
    const char *v = std::getenv(name);
    return v && *v && std::string(v) != "0";
}

// ---------------------------------------------------------------------------
// Which checks run for a (variant, arch).

const std::vector<const Variant *> &cpuload_variants() {
    static const std::vector<const Variant *> vs = [] {
        std::vector<const Variant *> out;
        for (const Variant &v : sc::variants())
            if (v.family == "cpuload")
                out.push_back(&v);
        return out;
    }();
    return vs;
}

bool worth_checking(const Variant &v, const InvariantInfo &inv, Arch a) {
    if (!inv.applies || !inv.applies(v))
        return false;
    std::optional<sc::proofs::Verdict> e = sc::proofs::expected_verdict(v.id, inv.id, a);
    if (e == sc::proofs::Verdict::PROVED)
        return true;
    if (e == sc::proofs::Verdict::COUNTEREXAMPLE)
        return false; // known to fail; a "finding" would be no news
    return g_check_unproved;
}

constexpr const char *converges_id = "cpuload.converges";

// What runs for one (variant, arch), worked out once.
struct Plan {
    std::vector<const InvariantInfo *> checks;
    std::vector<sc::proofs::cpuload_inv::fast_check> fast; // the same, for first_violated()
    // The number of constant-load ticks after which the proof says every
    // cpu_load[i] has reached the load; passed to the converges check.
    std::uint64_t converge_ticks = 0;
};

const Plan &plan_for(const Variant &v, Arch a) {
    static std::map<std::pair<const Variant *, Arch>, Plan> cache;
    auto key = std::make_pair(&v, a);
    auto it = cache.find(key);
    if (it != cache.end())
        return it->second;
    Plan pl;
    std::vector<std::string> ids;
    for (const InvariantInfo &inv : sc::proofs::invariants())
        if (worth_checking(v, inv, a))
            pl.checks.push_back(&inv), ids.push_back(inv.id);
    pl.fast = sc::proofs::cpuload_inv::fast_checks(ids);
    pl.converge_ticks = sc::proofs::cpuload_inv::converge_bound(v.level, a);
    return cache.emplace(key, std::move(pl)).first->second;
}

// ---------------------------------------------------------------------------
// Reporting a violation.

template <class A>
std::vector<std::pair<std::string, std::uint64_t>> named_inputs(const sc::cpuload::scenario<A> &s) {
    std::vector<std::pair<std::string, std::uint64_t>> in;
    for (int i = 0; i < sc::cpuload::CPU_LOAD_IDX_MAX; ++i)
        in.emplace_back("cpu_load[" + std::to_string(i) + "]", s.init.cpu_load[i].value());
    in.emplace_back("last_load_update_tick", s.init.last_load_update_tick.value());
    in.emplace_back("runnable_load_avg", s.init.cfs.runnable_load_avg.value());
    in.emplace_back("h_nr_running", s.init.cfs.h_nr_running.value());
    in.emplace_back("lb_bias", s.kn.lb_bias ? 1 : 0);
    in.emplace_back("imbalance_pct", s.kn.imbalance_pct.value());
    in.emplace_back("steps", s.steps.size());
    return in;
}

std::string with_hex(std::uint64_t x) {
    char buf[64];
    std::snprintf(buf, sizeof buf, "%llu (0x%llx)", static_cast<unsigned long long>(x),
                  static_cast<unsigned long long>(x));
    return buf;
}

// Writes the reproducer; returns its path, or "" (with a message) if it
// could not be written.
template <class A>
std::string write_reproducer(const Variant &v, const InvariantInfo &inv, const sc::cpuload::scenario<A> &s,
                             std::uint64_t bound) {
    nlohmann::json claim = nlohmann::json::object();
    if (bound)
        claim["bound_ticks"] = bound; // what `schedcheck replay` checks converges against
    nlohmann::json doc = sc::proofs::make_reproducer(v, A::arch, inv.id, named_inputs(s),
                                                     sc::proofs::scenario_to_json(s), claim);
    std::string text = doc.dump(2) + "\n";
    std::uint64_t h = 1469598103934665603ULL; // FNV-1a of the content
    for (unsigned char ch : text)
        h = (h ^ ch) * 1099511628211ULL;
    char name[64];
    std::snprintf(name, sizeof name, "crash-repro-%016llx.json", static_cast<unsigned long long>(h));
    try {
        sc::proofs::write_file_atomic(name, text);
    } catch (const sc::proofs::input_error &e) {
        std::fprintf(stderr, "schedcheck fuzz: could not write the reproducer: %s\n", e.what());
        return "";
    }
    return name;
}

template <class A>
[[noreturn]] void report_and_abort(const Variant &v, const InvariantInfo &inv, const ReplayResult &rr,
                                   const sc::cpuload::scenario<A> &s, std::uint64_t bound) {
    std::string path = write_reproducer(v, inv, s, bound);
    std::string r;
    r += "\n==== schedcheck property violation ====\n";
    r += "variant:   " + v.id + "\n";
    r += "arch:      " + std::string(sc::arch_name(A::arch)) + "\n";
    std::optional<sc::proofs::Verdict> e = sc::proofs::expected_verdict(v.id, inv.id, A::arch);
    r += "invariant: " + inv.id + " (expected " + (e ? sc::proofs::verdict_name(*e) : "verdict: not listed") +
         ")\n";
    if (!inv.statement.empty())
        r += "statement: " + inv.statement + "\n";
    r += "domain:    " + sc::proofs::load_domain(A::arch).summary + "\n";
    r += "failed:    " + rr.failed + "\n";
    if (!rr.lhs_name.empty() || !rr.rhs_name.empty()) {
        r += "  " + rr.lhs_name + " = " + with_hex(rr.lhs) + "\n";
        r += "  " + (rr.op.empty() ? std::string("?") : rr.op) + "\n";
        r += "  " + rr.rhs_name + " = " + with_hex(rr.rhs) + "\n";
    }
    if (!rr.wraps.empty()) {
        r += "wraps:\n";
        constexpr std::size_t shown = 16;
        for (std::size_t k = 0; k < rr.wraps.size() && k < shown; ++k)
            r += "  " + rr.wraps[k] + "\n";
        if (rr.wraps.size() > shown)
            r += "  ... " + std::to_string(rr.wraps.size() - shown) + " more\n";
    }
    if (!rr.trace.empty()) {
        r += "trace:\n" + rr.trace;
        if (r.back() != '\n')
            r += "\n";
    }
    if (!path.empty()) {
        r += "reproducer: " + path + "\n";
        r += "replay:     schedcheck replay " + path + "\n";
        r += "            cpuload_property_fuzz " + path + "\n";
    }
    r += "=======================================\n";
    std::fputs(r.c_str(), stderr);
    std::fflush(stderr);
    std::abort();
}

// ---------------------------------------------------------------------------

template <class A> int check(const Variant &v, const Plan &pl, const sc::cpuload::scenario<A> &s) {
    if (g_print)
        std::fprintf(stderr, "schedcheck fuzz: %s %s %s\n", v.id.c_str(), std::string(sc::arch_name(A::arch)).c_str(),
                     sc::proofs::scenario_to_json(s).dump().c_str());
    if (g_slow) { // every invariant on its own simulation, with text (the harness before the fast path)
        for (const InvariantInfo *inv : pl.checks) {
            ReplayResult rr;
            std::uint64_t bound = inv->id == converges_id ? pl.converge_ticks : 0;
            try {
                sc::wrap_log().clear();
                rr = sc::proofs::cpuload_inv::evaluate<A>(inv->id, v.level, s, bound);
            } catch (const sc::cpuload::unsupported_step &) {
                return 0;
            } catch (const sc::proofs::input_error &) {
                return 0;
            }
            if (rr.violated)
                report_and_abort(v, *inv, rr, s, bound);
        }
        return 0;
    }
    int k;
    try {
        // All checks on one simulation, without text (proofs/cpuload_fast.h).
        k = sc::proofs::cpuload_inv::first_violated<A>(pl.fast, v.level, s, pl.converge_ticks);
    } catch (const sc::cpuload::unsupported_step &) {
        return 0; // not a valid scenario for this variant
    } catch (const sc::proofs::input_error &) {
        return 0;
    }
    if (k < 0)
        return 0;
    // A violation: evaluate that invariant again with its text, for the report.
    const InvariantInfo &inv = *pl.checks[k];
    std::uint64_t bound = inv.id == converges_id ? pl.converge_ticks : 0;
    sc::wrap_log().clear();
    ReplayResult rr = sc::proofs::cpuload_inv::evaluate<A>(inv.id, v.level, s, bound);
    if (!rr.violated) {
        std::fprintf(stderr, "schedcheck fuzz: INTERNAL ERROR: %s fails without text but holds with it on %s %s\n",
                     inv.id.c_str(), v.id.c_str(), std::string(sc::arch_name(A::arch)).c_str());
        std::abort();
    }
    report_and_abort(v, inv, rr, s, bound);
}

template <class A> int run_bytes(Bytes &in, std::uint8_t flags, const Variant &v, const Plan &pl) {
    static const Limits lim = limits_for(A::arch);
    sc::cpuload::scenario<A> s = decode<A>(in, flags, v.level, lim, pl.converge_ticks);
    return check<A>(v, pl, s);
}

template <class A> int run_reproducer(const sc::proofs::Reproducer &rep) {
    const Limits lim = limits_for(A::arch);
    sc::cpuload::scenario<A> s;
    try {
        s = sc::proofs::scenario_from_json<A>(rep.doc, A::long_bits);
    } catch (const sc::proofs::input_error &) {
        return 0;
    }
    if (!in_domain(s, rep.variant->level, lim))
        return 0;
    return check<A>(*rep.variant, plan_for(*rep.variant, A::arch), s);
}

int run_json(const std::uint8_t *data, std::size_t size) {
    sc::proofs::Reproducer rep{};
    try {
        rep = sc::proofs::parse_reproducer(std::string(reinterpret_cast<const char *>(data), size), "fuzz input");
    } catch (const sc::proofs::input_error &) {
        return 0;
    }
    if (!rep.variant || rep.variant->family != "cpuload")
        return 0;
    return rep.arch == Arch::ilp32 ? run_reproducer<sc::checked_ilp32>(rep) : run_reproducer<sc::checked_lp64>(rep);
}

} // namespace

extern "C" int LLVMFuzzerInitialize(int *, char ***) {
    g_check_unproved = env_flag("SCHEDCHECK_FUZZ_ALL");
    g_print = env_flag("SCHEDCHECK_FUZZ_PRINT");
    g_slow = env_flag("SCHEDCHECK_FUZZ_SLOW");
    std::size_t total = 0;
    for (const Variant *v : cpuload_variants())
        for (Arch a : {Arch::ilp32, Arch::lp64})
            total += plan_for(*v, a).checks.size();
    std::fprintf(stderr,
                 "schedcheck fuzz: %zu (variant, arch, invariant) checks over %zu cpuload variants%s\n", total,
                 cpuload_variants().size(),
                 g_check_unproved ? " (SCHEDCHECK_FUZZ_ALL: UNKNOWN and unlisted included)"
                                  : " (expected PROVED only)");
    if (total == 0)
        std::fprintf(stderr, "schedcheck fuzz: warning: nothing to check; proofs/expected/verdicts.txt lists no "
                             "PROVED cpuload invariant (set SCHEDCHECK_FUZZ_ALL=1 to check the unlisted ones)\n");
    return 0;
}

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t *data, std::size_t size) {
    std::size_t k = 0;
    while (k < size && (data[k] == ' ' || data[k] == '\t' || data[k] == '\n' || data[k] == '\r'))
        ++k;
    if (k < size && data[k] == '{')
        return run_json(data, size);

    const std::vector<const Variant *> &vs = cpuload_variants();
    if (vs.empty())
        return 0;
    // The plans of (variant, ilp32) and (variant, lp64), by index, so that
    // an input pays for no lookup.
    static const std::vector<std::pair<const Plan *, const Plan *>> plans = [&vs] {
        std::vector<std::pair<const Plan *, const Plan *>> out;
        for (const Variant *v : vs)
            out.emplace_back(&plan_for(*v, Arch::ilp32), &plan_for(*v, Arch::lp64));
        return out;
    }();
    Bytes in{data, size};
    std::size_t vi = in.u8() % vs.size();
    const Variant &v = *vs[vi];
    std::uint8_t flags = in.u8(); // bit 0: lp64, bit 1: LB_BIAS off
    return (flags & 1) ? run_bytes<sc::checked_lp64>(in, flags, v, *plans[vi].second)
                       : run_bytes<sc::checked_ilp32>(in, flags, v, *plans[vi].first);
}
