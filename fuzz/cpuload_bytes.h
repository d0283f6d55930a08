// The cpuload property harness's compact binary input: the byte decoder
// (every byte string is an input; bytes past the end read as 0, so every
// prefix is one too), the domain check of a scenario, and the exact
// encoder that turns a scenario back into bytes the decoder maps to that
// very scenario (fuzz/cpuload_convert.cpp: reproducer JSON <-> bytes).
// The layout is in fuzz/README.md.
#pragma once
#include <cstddef>
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "proofs/domain.h"
#include "ref/cpuload_scenario.h"

namespace sc::fuzz_cpuload {

using sc::Arch;
using sc::cpuload::op;
using sc::cpuload::patch_level;
using sc::proofs::LoadDomain;

constexpr std::size_t max_steps = 64;

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

// The limits of one data model: its domain, and its word as the domain
// states it.
inline Limits limits_for(Arch a) {
    const LoadDomain &d = sc::proofs::load_domain(a);
    return {d, d.ulong_max};
}

inline std::uint64_t sat_add(std::uint64_t a, std::uint64_t b, std::uint64_t max) {
    return (a > max || b > max - a) ? max : a + b;
}

// A load in [0, max], biased towards the values where arithmetic changes
// character: 0, 1, the top of the domain, powers of two and their
// neighbours, the 32-bit boundary, and realistic task weights.
inline std::uint64_t pick_value(Bytes &in, std::uint64_t max) {
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
inline std::uint64_t pick_ticks(Bytes &in) {
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
inline std::uint64_t pick_tick_delta(Bytes &in) {
    std::uint8_t sel = in.u8();
    if (sel < 160)
        return 1;
    if (sel < 176)
        return 0;
    return pick_ticks(in);
}

inline std::uint64_t pick_initial_jiffies(Bytes &in, std::uint64_t ulong_max) {
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

inline std::uint32_t pick_pct(Bytes &in, const LoadDomain &dom) {
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
inline sc::cpuload::scenario<A> decode(Bytes &in, std::uint8_t flags, patch_level level, const Limits &lim,
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
template <class A> inline bool in_domain(const sc::cpuload::scenario<A> &s, patch_level level, const Limits &lim) {
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
// Exact encoding: every field through the decoder's raw selectors, which
// give a value back unchanged when it is inside the domain (pick_value
// selector 15 + 8 bytes, pick_ticks selector 7 + 8 bytes, a tick delta
// selector 255 then a tick count, the jiffies selector 7 + 8 bytes,
// imbalance_pct selector 0 + 2 bytes of offset, a decay selector idx-1 with
// no reuse bits).  Returns nothing, with `why`, for a scenario the decoder
// cannot produce: more than max_steps steps, or outside the domain.
struct Encoder {
    std::string out;
    void u8(std::uint8_t b) { out.push_back(static_cast<char>(b)); }
    void le(std::uint64_t v, int k) {
        for (int j = 0; j < k; ++j)
            u8(static_cast<std::uint8_t>(v >> (8 * j)));
    }
    void value(std::uint64_t v) { u8(15), le(v, 8); }
    void ticks(std::uint64_t v) { u8(7), le(v, 8); }
};

template <class A>
std::optional<std::string> encode(unsigned variant_index, patch_level level, const sc::cpuload::scenario<A> &s,
                                  const Limits &lim, std::string &why) {
    if (s.steps.size() > max_steps) {
        why = std::to_string(s.steps.size()) + " steps; the binary input holds at most " + std::to_string(max_steps);
        return std::nullopt;
    }
    if (!in_domain(s, level, lim)) {
        why = "the scenario is outside the proof domain";
        return std::nullopt;
    }
    const LoadDomain &dom = lim.dom;
    Encoder e;
    e.u8(static_cast<std::uint8_t>(variant_index));
    e.u8(static_cast<std::uint8_t>((A::arch == Arch::lp64 ? 1 : 0) | (s.kn.lb_bias ? 0 : 2)));
    e.u8(0);
    e.le(s.kn.imbalance_pct.value() - dom.pct_lo, 2);
    for (const auto &c : s.init.cpu_load)
        e.value(c.value());
    std::uint64_t now = s.init.last_load_update_tick.value();
    e.u8(7);
    e.le(now, 8);
    e.value(s.init.cfs.runnable_load_avg.value());
    e.value(s.init.cfs.h_nr_running.value());
    for (const auto &st : s.steps) {
        e.u8(static_cast<std::uint8_t>(st.kind));
        switch (st.kind) {
        case op::tick:
            e.value(st.a.value());
            e.u8(255);
            e.ticks(st.b.value() - now);
            now = st.b.value();
            break;
        case op::idle_update:
        case op::nohz_exit:
            e.ticks(st.a.value() - now);
            now = st.a.value();
            break;
        case op::set_load:
            e.value(st.a.value());
            e.value(st.n.value());
            break;
        case op::update:
            e.ticks(st.b.value());
            e.value(st.a.value());
            break;
        case op::decay:
            e.u8(static_cast<std::uint8_t>(st.idx - 1));
            e.ticks(st.b.value());
            e.value(st.a.value());
            break;
        case op::balance:
            e.u8(static_cast<std::uint8_t>(st.idx));
            break;
        }
    }
    return e.out;
}

} // namespace sc::fuzz_cpuload
