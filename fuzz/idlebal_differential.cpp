// Differential harness of the idle-balance helpers: idlebal/v6.1 and v6.12
// (ref/idle_balance.h) against update_avg(), update_newidle_stats() and
// update_newidle_cost() as extracted from the Linux 6.1 and 6.12 sources
// (oracle_gen/linux_6_1.h, linux_6_12.h), side by side on one runqueue's
// avg_idle and one sched_domain over a sequence of operations, the whole
// state compared after every step.  The equivalence proofs take each
// function alone; this runs them as the kernel does, one's output the
// next one's input, with jiffies moving on (and wrapping).
//
// Input layout (little-endian; bytes past the end read as 0, so every
// prefix is a valid input):
//   u8   flags: bit 0 = 6.12 (else 6.1), bit 1 = lp64 (else ilp32),
//              bits 2-3 = HZ: 100, 250, 300, 1000
//   u64  avg_idle, u64 max_newidle_lb_cost, u64 last_decay_max_lb_cost
//        (cut to unsigned long), u32 newidle_call, u32 newidle_success,
//        u32 newidle_ratio, u64 jiffies (cut to unsigned long)
//   then up to 32 operations, an op byte (low bit) and its payload:
//   0 update_avg:          u64 sample
//   1 update_newidle_cost: u64 jiffies advance (added modulo the width),
//                          u64 cost (0 is the periodic decay), u8 success
#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <cstdlib>

#include "fuzz/harness_io.h"
#include "oracle_gen/linux_6_1.h"
#include "oracle_gen/linux_6_12.h"
#include "proofs/kernel/kernel_state.h"
#include "ref/idle_balance.h"
#include "ref/kernel.h"

#if SC_ORACLE_LINUX_6_1 || SC_ORACLE_LINUX_6_12

namespace {

namespace idlebal = sc::idlebal;

constexpr int max_ops = 32;
constexpr int hz_of[] = {100, 250, 300, 1000};

using sc::fuzz::Bytes;

struct Step {
    bool cost_op;
    std::uint64_t sample, advance, cost;
    std::uint32_t success;
};

struct Input {
    bool v612, lp64;
    int hz;
    std::uint64_t avg_idle, max_cost, last_decay, jiffies;
    std::uint32_t call, success, ratio;
    int nsteps = 0;
    Step steps[max_ops];
};

Input decode(const std::uint8_t *data, std::size_t size) {
    Bytes b{data, size};
    Input in{};
    std::uint64_t f = b.le(1);
    in.v612 = f & 1;
    in.lp64 = f & 2;
    in.hz = hz_of[(f >> 2) & 3];
    in.avg_idle = b.le(8);
    in.max_cost = b.le(8);
    in.last_decay = b.le(8);
    in.call = std::uint32_t(b.le(4));
    in.success = std::uint32_t(b.le(4));
    in.ratio = std::uint32_t(b.le(4));
    in.jiffies = b.le(8);
    while (b.more() && in.nsteps < max_ops) {
        Step &s = in.steps[in.nsteps++];
        s = Step{};
        s.cost_op = b.le(1) & 1;
        if (s.cost_op) {
            s.advance = b.le(8);
            s.cost = b.le(8);
            s.success = std::uint32_t(b.le(1));
        } else {
            s.sample = b.le(8);
        }
    }
    return in;
}

using sc::fuzz::Field;

[[noreturn]] void report(const Input &in, int step, const Field *fs, int nf, std::uint64_t jiffies,
                         const std::uint8_t *data, std::size_t size) {
    std::string path = sc::fuzz::write_reproducer("idlebal-differential", data, size);
    std::fprintf(stderr, "\n==== idlebal differential mismatch: reference vs kernel oracle ====\n");
    std::fprintf(stderr, "oracle:   %s   reference: idlebal/%s   arch: %s   HZ=%d\n",
                 in.v612 ? "linux-6.12" : "linux-6.1", in.v612 ? "v6.12" : "v6.1", in.lp64 ? "lp64" : "ilp32",
                 in.hz);
    if (step < 0) {
        std::fprintf(stderr, "step:     initial state (before any operation)\n");
    } else {
        const Step &s = in.steps[step];
        if (s.cost_op)
            std::fprintf(stderr, "step:     %d of %d: update_newidle_cost: jiffies=%llu cost=%llu success=%u\n",
                         step + 1, in.nsteps, (unsigned long long)jiffies, (unsigned long long)s.cost, s.success);
        else
            std::fprintf(stderr, "step:     %d of %d: update_avg: sample=%llu\n", step + 1, in.nsteps,
                         (unsigned long long)s.sample);
    }
    sc::fuzz::print_fields(fs, nf);
    if (!path.empty())
        std::fprintf(stderr, "reproducer: %s\nreplay:     %s %s\n", path.c_str(),
                     sc::fuzz::self_path("idlebal_differential_fuzz").c_str(), path.c_str());
    std::fprintf(stderr, "====================================================================\n");
    std::fflush(stderr);
    std::abort();
}

template <idlebal::version V, template <class> class KT, class A>
int run(const Input &in, const std::uint8_t *data, std::size_t size) {
    using K = KT<A>;
    using u64 = typename A::u64;
    using ulong = typename A::ulong;
    using uint = typename A::uint;
    if constexpr (!K::shim_has_idlebal) {
        return 0; // the tree lacked the helpers: nothing to compare
    } else {
    idlebal::knobs<A> kn{};
    kn.HZ = in.hz;
    u64 avg = in.avg_idle, kavg = in.avg_idle;
    idlebal::sched_domain<A> sd{};
    sd.max_newidle_lb_cost = u64(in.max_cost);
    sd.last_decay_max_lb_cost = ulong(in.last_decay);
    sd.newidle_call = uint(in.call);
    sd.newidle_success = uint(in.success);
    sd.newidle_ratio = uint(in.ratio);
    typename K::sched_domain ksd = sc::proofs::sd_to_kernel<typename K::sched_domain>(sd);
    ulong jiffies = ulong(in.jiffies);
    K::shim_jiffies = &jiffies;
    K::shim_HZ = in.hz;
    std::uint64_t rr = 0, kr = 0;

    auto compare = [&](int step) {
        Field fs[] = {{"return", rr, kr},
                      {"avg_idle", avg, kavg},
                      {"sd.max_newidle_lb_cost", sd.max_newidle_lb_cost, ksd.max_newidle_lb_cost},
                      {"sd.last_decay_max_lb_cost", sd.last_decay_max_lb_cost, ksd.last_decay_max_lb_cost},
                      {"sd.newidle_call", sd.newidle_call, ksd.newidle_call},
                      {"sd.newidle_success", sd.newidle_success, ksd.newidle_success},
                      {"sd.newidle_ratio", sd.newidle_ratio, ksd.newidle_ratio}};
        for (const Field &f : fs)
            if (f.ref != f.ora) {
                K::shim_jiffies = nullptr;
                report(in, step, fs, int(sizeof fs / sizeof fs[0]), jiffies, data, size);
            }
    };
    compare(-1);
    for (int k = 0; k < in.nsteps; ++k) {
        const Step &s = in.steps[k];
        rr = kr = 0;
        if (s.cost_op) {
            jiffies = ulong(jiffies + ulong(s.advance));
            rr = idlebal::update_newidle_cost<V, A>(sd, u64(s.cost), uint(s.success), jiffies, kn);
            kr = K::update_newidle_cost(&ksd, u64(s.cost), uint(s.success));
        } else {
            idlebal::update_avg<V, A>(avg, u64(s.sample));
            K::update_avg(&kavg, u64(s.sample));
        }
        compare(k);
    }
    K::shim_jiffies = nullptr;
    return 0;
    }
}

} // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t *data, std::size_t size) {
    const Input in = decode(data, size);
#if SC_ORACLE_LINUX_6_12
    if (in.v612)
        return in.lp64 ? run<idlebal::version::v6_12, sc::oracle_gen::linux_6_12::kernel, sc::lp64>(in, data, size)
                       : run<idlebal::version::v6_12, sc::oracle_gen::linux_6_12::kernel, sc::ilp32>(in, data, size);
#endif
#if SC_ORACLE_LINUX_6_1
    if (!in.v612)
        return in.lp64 ? run<idlebal::version::v6_1, sc::oracle_gen::linux_6_1::kernel, sc::lp64>(in, data, size)
                       : run<idlebal::version::v6_1, sc::oracle_gen::linux_6_1::kernel, sc::ilp32>(in, data, size);
#endif
    return 0;
}

#else

// Neither kernel source was there at build time: nothing to compare.
extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t *, std::size_t) { return 0; }

#endif
