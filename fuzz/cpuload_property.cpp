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

#include "proofs/cpuload_invariants.h"
#include "proofs/domain.h"
#include "proofs/expected.h"
#include "proofs/invariant.h"
#include "proofs/reproducer.h"
#include "ref/checked.h"
#include "ref/cpuload_scenario.h"
#include "ref/variants.h"

namespace {

using sc::Arch;
using sc::Variant;
using sc::cpuload::op;
using sc::cpuload::patch_level;
using sc::proofs::InvariantInfo;
using sc::proofs::LoadDomain;
using sc::proofs::ReplayResult;

constexpr std::size_t max_steps = 64;

// SCHEDCHECK_FUZZ_ALL=1: also check invariants whose expected verdict is
// UNKNOWN or not listed (never the COUNTEREXAMPLE ones).
bool g_check_unproved = false;
// SCHEDCHECK_FUZZ_PRINT=1: print every decoded scenario (for writing seeds
// and for reading a crashing input).
bool g_print = false;

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
    for (const InvariantInfo &inv : sc::proofs::invariants())
        if (worth_checking(v, inv, a))
            pl.checks.push_back(&inv);
    pl.converge_ticks = sc::proofs::cpuload_inv::converge_bound(v.level, a);
    return cache.emplace(key, std::move(pl)).first->second;
}

// ---------------------------------------------------------------------------
// Byte decoder.  Reading past the end yields zero bytes, so every prefix of
// an input is itself a valid input and the fuzzer can shrink freely.

struct Bytes {
    const std::uint8_t *p;
    std::size_t n, i = 0;

    bool more() const { return i < n; }
    std::uint8_t u8() { return i < n ? p[i++] : 0; }
    std::uint64_t le(int k) { // k bytes, little endian
        std::uint64_t v = 0;
        for (int j = 0; j < k; ++j)
            v |= std::uint64_t(u8()) << (8 * j);
        return v;
    }
};

// Limits for one arch: the domain plus the machine word.
struct Limits {
    const LoadDomain &dom;
    std::uint64_t ulong_max;
};

std::uint64_t sat_add(std::uint64_t a, std::uint64_t b, std::uint64_t max) {
    return (a > max || b > max - a) ? max : a + b;
}

// A load in [0, max], biased towards the values where arithmetic changes
// character: 0, 1, the top of the domain, powers of two and their
// neighbours, the 32-bit boundary, and realistic task weights.
std::uint64_t pick_value(Bytes &in, std::uint64_t max) {
    std::uint8_t sel = in.u8();
    std::uint64_t v;
    bool exact = true; // structured values are clamped, random ones reduced
    switch (sel % 16) {
    case 0: return 0;
    case 1: return max < 1 ? max : 1;
    case 2: return max;
    case 3: { std::uint64_t d = in.u8(); return d > max ? 0 : max - d; }
    case 4: v = 1ULL << (in.u8() % 64); break;                  // 2^k
    case 5: v = (1ULL << (in.u8() % 64)) - 1; break;            // 2^k - 1
    case 6: v = (1ULL << 32) + std::int8_t(in.u8()); break;     // around 2^32
    case 7: v = in.u8(); break;
    case 8: v = in.le(2); break;
    case 9: v = 1024 * (std::uint64_t(in.u8()) + 1); break;     // NICE_0_LOAD multiples
    case 10: v = 88761 * (in.le(2) + 1); break;                 // nice -20 tasks
    case 11: v = (std::uint64_t(1) << 18) * in.le(3); break;    // MAX_SHARES groups
    case 12:
    case 13: v = in.le(4); exact = false; break;
    default: v = in.le(8); exact = false; break;
    }
    if (v <= max)
        return v;
    if (exact || max == ~0ULL)
        return max;
    return v % (max + 1);
}

// A number of ticks: mostly small (1..300), sometimes 0, sometimes on the
// decay table's edges, sometimes huge.  Not yet limited to the word.
std::uint64_t pick_ticks(Bytes &in) {
    static constexpr std::uint64_t edges[16] = {1,  2,  7,   8,   9,   31,  32,    33,
                                                63, 64, 65,  127, 128, 129, 0xffffffffULL, ~0ULL};
    std::uint8_t sel = in.u8();
    switch (sel % 8) {
    case 0: return 0;
    case 1:
    case 2:
    case 3: return 1 + in.le(2) % 300;
    case 4: return edges[in.u8() % 16];
    case 5: return in.le(2);
    case 6: return in.le(4);
    default: return in.le(8);
    }
}

// The jiffies of a tick: one later than now, as scheduler_tick() sees it,
// unless the selector asks for something else.
std::uint64_t pick_tick_delta(Bytes &in) {
    std::uint8_t sel = in.u8();
    if (sel < 160)
        return 1;
    if (sel < 176)
        return 0;
    return pick_ticks(in);
}

std::uint64_t pick_initial_jiffies(Bytes &in, std::uint64_t ulong_max) {
    constexpr std::uint64_t initial_jiffies = 0xfffb6c20ULL; // (unsigned int)(-300 * HZ), HZ = 1000
    std::uint8_t sel = in.u8();
    std::uint64_t v;
    switch (sel % 8) {
    case 0: v = 0; break;
    case 1: v = in.le(2); break;
    case 2: v = initial_jiffies; break;
    case 3: v = ulong_max - 1 - in.u8(); break;
    case 4: v = 0xffffffffULL - in.u8(); break;
    default: v = in.le(8); break;
    }
    v &= ulong_max;
    return v == ulong_max ? v - 1 : v; // the proofs leave room for one more tick
}

std::uint32_t pick_pct(Bytes &in, const LoadDomain &dom) {
    static constexpr std::uint32_t usual[8] = {100, 101, 110, 117, 125, 200, 999, 1000};
    std::uint8_t sel = in.u8();
    std::uint64_t v = (sel & 1) ? usual[(sel >> 1) % 8] : dom.pct_lo + in.le(2) % (dom.pct_hi - dom.pct_lo + 1);
    if (v < dom.pct_lo)
        v = dom.pct_lo;
    if (v > dom.pct_hi)
        v = dom.pct_hi;
    return static_cast<std::uint32_t>(v);
}

// Flags byte: bit 0 lp64, bit 1 LB_BIAS off, bits 2-4 all set: a
// convergence run (constant load for as many ticks as the converges bound,
// from the decoded initial state) instead of decoded steps.
constexpr std::uint8_t converge_mode = 0x1c;

template <class A>
sc::cpuload::scenario<A> decode(Bytes &in, std::uint8_t flags, patch_level level, const Limits &lim,
                                std::uint64_t converge_ticks) {
    const LoadDomain &dom = lim.dom;
    sc::cpuload::scenario<A> s;
    s.kn.lb_bias = (flags & 2) == 0; // LB_BIAS is on by default
    s.kn.imbalance_pct = pick_pct(in, dom);

    for (auto &c : s.init.cpu_load)
        c = pick_value(in, dom.max_load);
    std::uint64_t now = pick_initial_jiffies(in, lim.ulong_max);
    s.init.last_load_update_tick = now;
    s.init.cfs.runnable_load_avg = pick_value(in, dom.max_load);
    s.init.cfs.h_nr_running = pick_value(in, dom.max_tasks);

    if ((flags & converge_mode) == converge_mode && converge_ticks <= 4096) {
        std::uint64_t L = pick_value(in, dom.max_load);
        std::uint64_t n = converge_ticks + in.u8() % 4;
        for (std::uint64_t k = 0; k < n; ++k) {
            now = sat_add(now, 1, lim.ulong_max);
            sc::cpuload::step<A> st{op::tick};
            st.a = L;
            st.b = now;
            s.steps.push_back(st);
        }
        return s;
    }

    const bool has_decay = level <= patch_level::shi_1;
    // The decay checks compare pairs of decay steps with an equal load or an
    // equal tick count, so a decay step may repeat the previous one's.
    std::uint64_t last_decay_load = 0, last_missed = 0;
    while (in.more() && s.steps.size() < max_steps) {
        op kind = static_cast<op>(in.u8() % sc::cpuload::op_count);
        if (kind == op::decay && !has_decay)
            kind = op::tick; // patch 2/4 removed decay_load_missed()
        sc::cpuload::step<A> st{kind};
        switch (kind) {
        case op::tick:
            st.a = pick_value(in, dom.max_load);
            now = sat_add(now, pick_tick_delta(in), lim.ulong_max);
            st.b = now;
            break;
        case op::idle_update:
        case op::nohz_exit:
            now = sat_add(now, pick_ticks(in), lim.ulong_max);
            st.a = now;
            break;
        case op::set_load:
            st.a = pick_value(in, dom.max_load);
            st.n = pick_value(in, dom.max_tasks);
            break;
        case op::update: { // pending_updates >= 1: the code subtracts one
            std::uint64_t p = pick_ticks(in);
            st.a = pick_value(in, dom.max_load);
            st.b = p == 0 ? 1 : p > lim.ulong_max ? lim.ulong_max : p;
            break;
        }
        case op::decay: { // missed_updates + 1 must not wrap
            std::uint8_t sel = in.u8();
            st.idx = 1 + sel % (sc::cpuload::CPU_LOAD_IDX_MAX - 1);
            std::uint64_t m;
            if ((sel & 0x60) == 0x60)
                m = sat_add(last_missed, 1, lim.ulong_max); // one more missed tick
            else if (sel & 0x10)
                m = last_missed;
            else
                m = pick_ticks(in);
            std::uint64_t load = (sel & 0x80) ? last_decay_load : pick_value(in, dom.max_load);
            m = m > lim.ulong_max - 1 ? lim.ulong_max - 1 : m;
            st.a = load;
            st.b = m;
            last_decay_load = load;
            last_missed = m;
            break;
        }
        case op::balance: st.idx = in.u8() % sc::cpuload::CPU_LOAD_IDX_MAX; break;
        }
        s.steps.push_back(st);
    }
    return s;
}

// The same domain, checked on a scenario that came from a reproducer file:
// a mutated file outside the domain is ignored, like any invalid input.
template <class A> bool in_domain(const sc::cpuload::scenario<A> &s, patch_level level, const Limits &lim) {
    const LoadDomain &dom = lim.dom;
    auto load_ok = [&](const auto &x) { return x.value() <= dom.max_load; };
    if (s.kn.imbalance_pct.value() < dom.pct_lo || s.kn.imbalance_pct.value() > dom.pct_hi)
        return false;
    for (const auto &c : s.init.cpu_load)
        if (!load_ok(c))
            return false;
    if (!load_ok(s.init.cfs.runnable_load_avg) || s.init.cfs.h_nr_running.value() > dom.max_tasks)
        return false;
    std::uint64_t now = s.init.last_load_update_tick.value();
    if (now > lim.ulong_max - 1)
        return false;
    if (s.steps.size() > 4096)
        return false; // keep each run short
    for (const auto &st : s.steps) {
        switch (st.kind) {
        case op::tick:
            if (!load_ok(st.a) || st.b.value() < now)
                return false;
            now = st.b.value();
            break;
        case op::idle_update:
        case op::nohz_exit:
            if (st.a.value() < now)
                return false;
            now = st.a.value();
            break;
        case op::set_load:
            if (!load_ok(st.a) || st.n.value() > dom.max_tasks)
                return false;
            break;
        case op::update:
            if (!load_ok(st.a) || st.b.value() == 0)
                return false;
            break;
        case op::decay:
            if (level > patch_level::shi_1 || !load_ok(st.a) || st.b.value() > lim.ulong_max - 1 ||
                st.idx < 1 || st.idx >= sc::cpuload::CPU_LOAD_IDX_MAX)
                return false;
            break;
        case op::balance:
            if (st.idx < 0 || st.idx >= sc::cpuload::CPU_LOAD_IDX_MAX)
                return false;
            break;
        }
    }
    return true;
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

template <class A> int check(const Variant &v, const sc::cpuload::scenario<A> &s) {
    if (g_print)
        std::fprintf(stderr, "schedcheck fuzz: %s %s %s\n", v.id.c_str(), std::string(sc::arch_name(A::arch)).c_str(),
                     sc::proofs::scenario_to_json(s).dump().c_str());
    const Plan &pl = plan_for(v, A::arch);
    for (const InvariantInfo *inv : pl.checks) {
        ReplayResult rr;
        std::uint64_t bound = inv->id == converges_id ? pl.converge_ticks : 0;
        try {
            sc::wrap_log().clear();
            rr = sc::proofs::cpuload_inv::evaluate<A>(inv->id, v.level, s, bound);
        } catch (const sc::cpuload::unsupported_step &) {
            return 0; // not a valid scenario for this variant
        } catch (const sc::proofs::input_error &) {
            return 0;
        }
        if (rr.violated)
            report_and_abort(v, *inv, rr, s, bound);
    }
    return 0;
}

template <class A> int run_bytes(Bytes &in, std::uint8_t flags, const Variant &v) {
    const LoadDomain &dom = sc::proofs::load_domain(A::arch);
    Limits lim{dom, A::arch == Arch::ilp32 ? 0xffffffffULL : ~0ULL};
    sc::cpuload::scenario<A> s = decode<A>(in, flags, v.level, lim, plan_for(v, A::arch).converge_ticks);
    return check<A>(v, s);
}

template <class A> int run_reproducer(const sc::proofs::Reproducer &rep) {
    const LoadDomain &dom = sc::proofs::load_domain(A::arch);
    Limits lim{dom, A::arch == Arch::ilp32 ? 0xffffffffULL : ~0ULL};
    sc::cpuload::scenario<A> s;
    try {
        s = sc::proofs::scenario_from_json<A>(rep.doc, A::long_bits);
    } catch (const sc::proofs::input_error &) {
        return 0;
    }
    if (!in_domain(s, rep.variant->level, lim))
        return 0;
    return check<A>(*rep.variant, s);
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
    Bytes in{data, size};
    const Variant &v = *vs[in.u8() % vs.size()];
    std::uint8_t flags = in.u8(); // bit 0: lp64, bit 1: LB_BIAS off
    return (flags & 1) ? run_bytes<sc::checked_lp64>(in, flags, v) : run_bytes<sc::checked_ilp32>(in, flags, v);
}
