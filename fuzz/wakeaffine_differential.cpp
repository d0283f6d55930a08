// Differential harness of the wake-up placement: wakeaffine/v6.1
// (ref/wake_affine.h) against wake_affine() as extracted from the Linux 6.1
// and 6.12 sources (oracle_gen/linux_6_1.h, linux_6_12.h), with its helpers
// wake_affine_idle(), wake_affine_weight() and task_h_load().  The decision
// keeps no state of its own, so a sequence here is a run of wake-ups
// between which one field of the two CPUs or the two tasks changes, or a
// flag flips; every decision and both tasks' task_h_load() are compared
// (the effective loads are the kernel's locals: a report prints the
// reference's).
//
// Two inputs are bent to what both sides can take:
//   - a task's cfs_rq load_avg of ULONG_MAX is taken one lower: task_h_load()
//     divides by it plus one, which would be a division by 0 on both sides;
//   - on 6.12, this_cpu has no delayed-dequeue task (h_nr_runnable equals
//     h_nr_queued): 6.12 takes them out of nr_running, which no reference
//     variant models (`equiv` shows that difference; here it would hide
//     every other).
//
// Input layout (little-endian; bytes past the end read as 0, so every
// prefix is a valid input):
//   u8   flags: bit 0 = 6.12 (else 6.1), bit 1 = lp64 (else ilp32),
//              bit 2 = sync, bit 3 = this_cpu idle, bit 4 = prev_cpu idle,
//              bit 5 = the CPUs share a cache, bit 6 = WA_IDLE,
//              bit 7 = WA_WEIGHT
//   u8   bit 0 = WA_BIAS
//   u32  sd->imbalance_pct
//   the 11 fields below, in order, as u64 (cut to their C type)
//   then up to 32 changes, each a u8 field number (modulo 11 + 3, the
//   last three toggling sync, this_cpu's and prev_cpu's idleness) and a
//   u64 value; the wake-up is decided again after each.
#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <cstdlib>

#include "fuzz/harness_io.h"
#include "oracle_gen/linux_6_1.h"
#include "oracle_gen/linux_6_12.h"
#include "proofs/kernel/kernel_state.h"
#include "ref/kernel.h"
#include "ref/wake_affine.h"

#if SC_ORACLE_LINUX_6_1 || SC_ORACLE_LINUX_6_12

namespace {

namespace wa = sc::wakeaffine;
using sc::fuzz::Bytes;
using sc::fuzz::Field;

constexpr int max_ops = 32;
constexpr int nfields = 11;
const char *const field_name[nfields] = {
    "this_rq.load_avg", "this_rq.nr_running", "this_rq.cpu_capacity", "prev_rq.load_avg",
    "prev_rq.nr_running", "prev_rq.cpu_capacity", "p.se.avg.load_avg", "p.cfs_rq.h_load",
    "p.cfs_rq.avg.load_avg", "current.se.avg.load_avg", "current.cfs_rq.h_load"};
// current's cfs_rq load_avg is p's: the two tasks share a cfs_rq here.

struct Change {
    int field; // 0..10 a field, 11 sync, 12 this idle, 13 prev idle
    std::uint64_t value;
};

struct Input {
    bool v612, lp64, sync, this_idle, prev_idle, share, wa_idle, wa_weight, wa_bias;
    std::uint32_t imbalance_pct;
    std::uint64_t f[nfields];
    int nops = 0;
    Change ops[max_ops];
};

Input decode(const std::uint8_t *data, std::size_t size) {
    Bytes b{data, size};
    Input in{};
    std::uint64_t f = b.le(1);
    in.v612 = f & 1;
    in.lp64 = f & 2;
    in.sync = f & 4;
    in.this_idle = f & 8;
    in.prev_idle = f & 16;
    in.share = f & 32;
    in.wa_idle = f & 64;
    in.wa_weight = f & 128;
    in.wa_bias = b.le(1) & 1;
    in.imbalance_pct = std::uint32_t(b.le(4));
    for (auto &x : in.f)
        x = b.le(8);
    while (b.more() && in.nops < max_ops) {
        Change &c = in.ops[in.nops++];
        c.field = int(b.le(1) % (nfields + 3));
        c.value = b.le(8);
    }
    return in;
}

struct Decision {
    std::uint64_t target, this_eff, prev_eff, h_load_p, h_load_curr;
};

[[noreturn]] void report(const Input &in, int step, const Input &now, const Decision &r, const Decision &k,
                         const std::uint8_t *data, std::size_t size) {
    std::string path = sc::fuzz::write_reproducer("wakeaffine-differential", data, size);
    std::fprintf(stderr, "\n==== wakeaffine differential mismatch: reference vs kernel oracle ====\n");
    std::fprintf(stderr, "oracle:   %s   reference: wakeaffine/v6.1   arch: %s\n", in.v612 ? "linux-6.12" : "linux-6.1",
                 in.lp64 ? "lp64" : "ilp32");
    if (step < 0)
        std::fprintf(stderr, "step:     the first wake-up\n");
    else
        std::fprintf(stderr, "step:     wake-up %d of %d, after a change of %s\n", step + 2, in.nops + 1,
                     in.ops[step].field < nfields ? field_name[in.ops[step].field]
                     : in.ops[step].field == nfields ? "sync"
                     : in.ops[step].field == nfields + 1 ? "this_cpu's idleness"
                                                         : "prev_cpu's idleness");
    std::fprintf(stderr, "wake-up:  sync=%d this_idle=%d prev_idle=%d share_cache=%d WA_IDLE=%d WA_WEIGHT=%d "
                         "WA_BIAS=%d imbalance_pct=%u\n",
                 now.sync, now.this_idle, now.prev_idle, now.share, now.wa_idle, now.wa_weight, now.wa_bias,
                 now.imbalance_pct);
    // Each field as the wake-up read it: cut to unsigned int (the counts)
    // or to unsigned long, and a cfs_rq load_avg of ULONG_MAX one lower.
    const std::uint64_t ulong_max = in.lp64 ? ~std::uint64_t(0) : 0xffffffffu;
    for (int j = 0; j < nfields; ++j) {
        std::uint64_t v = now.f[j] & (j == 1 || j == 4 ? 0xffffffffu : ulong_max);
        if (j == 8 && v == ulong_max)
            --v;
        std::fprintf(stderr, "          %-26s = %llu\n", field_name[j], (unsigned long long)v);
    }
    Field fs[] = {{"target (0 this, 1 prev)", r.target, k.target},
                  {"task_h_load(p)", r.h_load_p, k.h_load_p},
                  {"task_h_load(current)", r.h_load_curr, k.h_load_curr}};
    sc::fuzz::print_fields(fs, int(sizeof fs / sizeof fs[0]));
    std::fprintf(stderr, "reference effective loads (s64): this %lld, prev %lld\n", (long long)r.this_eff,
                 (long long)r.prev_eff);
    if (!path.empty())
        std::fprintf(stderr, "reproducer: %s\nreplay:     %s %s\n", path.c_str(),
                     sc::fuzz::self_path("wakeaffine_differential_fuzz").c_str(), path.c_str());
    std::fprintf(stderr, "=======================================================================\n");
    std::fflush(stderr);
    std::abort();
}

// The kernel's decision on the same wake-up (its view set up by
// proofs/kernel/kernel_state.h), with no delayed-dequeue task on this_cpu.
template <template <class> class KT, class A>
Decision decide_kernel(const wa::wake_env<A> &e, const wa::knobs<A> &kn) {
    using K = KT<A>;
    using sint = typename A::sint;
    sc::proofs::wa_input<A> w{};
    w.e = e;
    w.k = kn;
    w.h_nr_queued = w.h_nr_runnable = e.this_rq.nr_running;
    sc::proofs::wa_kernel<K, A> k(w);
    Decision d{};
    int t = int(K::wake_affine(&k.sd, &k.p, sint(e.this_cpu), sint(e.prev_cpu), sint(e.sync ? 1 : 0)));
    d.target = t == e.this_cpu ? 0 : 1;
    d.h_load_p = std::uint64_t(K::task_h_load(&k.p));
    d.h_load_curr = std::uint64_t(K::task_h_load(&k.curr));
    return d;
}

template <template <class> class KT, class A> int run(const Input &in0, const std::uint8_t *data, std::size_t size) {
    if constexpr (!KT<A>::shim_has_wakeaffine) {
        return 0; // the tree lacked the placement: nothing to compare
    } else {
        using ulong = typename A::ulong;
        using uint = typename A::uint;
        const std::uint64_t ulong_max = A::long_bits == 64 ? ~std::uint64_t(0) : 0xffffffffu;
        Input now = in0;
        auto decide = [&](int step) {
            wa::wake_env<A> e{};
            wa::knobs<A> k{};
            auto cut = [&](int j) { return ulong(now.f[j]); };
            e.this_rq.weighted_cpuload = cut(0);
            e.this_rq.nr_running = uint(now.f[1]);
            e.this_rq.power = cut(2);
            e.prev_rq.weighted_cpuload = cut(3);
            e.prev_rq.nr_running = uint(now.f[4]);
            e.prev_rq.power = cut(5);
            e.this_rq.idle = now.this_idle;
            e.prev_rq.idle = now.prev_idle;
            e.p.load_avg = cut(6);
            e.p.cfs_h_load = cut(7);
            std::uint64_t cfs_load = now.f[8] & ulong_max;
            e.p.cfs_load_avg = ulong(cfs_load == ulong_max ? cfs_load - 1 : cfs_load);
            e.curr.load_avg = cut(9);
            e.curr.cfs_h_load = cut(10);
            e.curr.cfs_load_avg = e.p.cfs_load_avg;
            e.sync = now.sync;
            k.imbalance_pct = uint(now.imbalance_pct);
            k.cpus_share_cache = now.share;
            k.WA_IDLE = now.wa_idle;
            k.WA_WEIGHT = now.wa_weight;
            k.WA_BIAS = now.wa_bias;
            wa::wa_trace<A> tr{};
            Decision r{};
            r.target = wa::affine<wa::version::v6_1, A>(e, k, &tr) ? 0 : 1;
            r.this_eff = std::uint64_t(tr.this_eff_load);
            r.prev_eff = std::uint64_t(tr.prev_eff_load);
            r.h_load_p = std::uint64_t(wa::task_h_load<wa::version::v6_1, A>(e.p));
            r.h_load_curr = std::uint64_t(wa::task_h_load<wa::version::v6_1, A>(e.curr));
            Decision kd = decide_kernel<KT, A>(e, k);
            if (r.target != kd.target || r.h_load_p != kd.h_load_p || r.h_load_curr != kd.h_load_curr)
                report(in0, step, now, r, kd, data, size);
        };
        decide(-1);
        for (int s = 0; s < in0.nops; ++s) {
            const Change &c = in0.ops[s];
            if (c.field < nfields)
                now.f[c.field] = c.value;
            else if (c.field == nfields)
                now.sync = !now.sync;
            else if (c.field == nfields + 1)
                now.this_idle = !now.this_idle;
            else
                now.prev_idle = !now.prev_idle;
            decide(s);
        }
        return 0;
    }
}

} // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t *data, std::size_t size) {
    const Input in = decode(data, size);
#if SC_ORACLE_LINUX_6_12
    if (in.v612)
        return in.lp64 ? run<sc::oracle_gen::linux_6_12::kernel, sc::lp64>(in, data, size)
                       : run<sc::oracle_gen::linux_6_12::kernel, sc::ilp32>(in, data, size);
#endif
#if SC_ORACLE_LINUX_6_1
    if (!in.v612)
        return in.lp64 ? run<sc::oracle_gen::linux_6_1::kernel, sc::lp64>(in, data, size)
                       : run<sc::oracle_gen::linux_6_1::kernel, sc::ilp32>(in, data, size);
#endif
    return 0;
}

#else

// Neither kernel source was there at build time: nothing to compare.
extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t *, std::size_t) { return 0; }

#endif
