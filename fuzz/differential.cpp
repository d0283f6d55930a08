// Differential harness: the 6.x PELT and util_est reference (ref/pelt.h,
// ref/util_est.h) against the functions extracted from the Linux 6.1 and
// 6.12 sources (oracle_gen/linux_6_1.h, linux_6_12.h), run side by side on
// one sequence of operations on one task.  libFuzzer entry point; the AFL++
// build links the same file against afl's libAFLDriver.
//
// The equivalence proofs (proofs/equiv/equiv_kernel_cases.h) compare each function on
// its own; this harness checks the composition: the task's sched_avg is the
// one state that the PELT updates write and util_est reads, as in the
// kernel, and the whole state is compared after every step.
//
// Input layout (fixed-size little-endian fields; bytes past the end read as
// 0, so every prefix is a valid input):
//   u8   flags: bit 0 = 6.12 (else 6.1), bit 1 = lp64 (else ilp32),
//              bit 2 = UTIL_EST, bit 3 = UTIL_EST_FASTUP
//   u64  capacity (cut to unsigned long)
//   u64  last_update_time, u64 load_sum, u64 runnable_sum, u32 util_sum,
//   u16  period_contrib (mod 1024), u64 load_avg, u64 runnable_avg,
//   u64  util_avg, u32 util_est.enqueued (6.1 only), u32 util_est.ewma (the
//        util_est word in 6.12), u32 cfs_rq util_est(.enqueued)
//   then up to 16 operations, each an op byte (low 2 bits) and its payload:
//   0 PELT update: u64 delta (added to the clock modulo 2^64, so 0, huge and
//                  backwards steps all occur), u64 load, u64 runnable,
//                  s8 running, u64 weight
//   1 util_est_enqueue   2 util_est_dequeue   3 util_est_update: u8 task_sleep
#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <string>
#include <unistd.h>

// SC_DIFF_ORACLE_HEADER / SC_DIFF_ORACLE_NS: an oracle made by
// `schedcheck oracle build` instead of the built-in ones.  Its task layout
// picks the reference: {enqueued, ewma} means 6.1, one word 6.12.
#ifdef SC_DIFF_ORACLE_HEADER
#include SC_DIFF_ORACLE_HEADER
#else
#include "oracle_gen/linux_6_1.h"
#include "oracle_gen/linux_6_12.h"
#endif
#include "fuzz/harness_io.h"
#include "proofs/kernel/kernel_state.h"
#include "ref/kernel.h"
#include "ref/pelt.h"
#include "ref/util_est.h"

// A release whose source was not available at build time has no oracle to
// compare against (the generated header only records why), so the harness
// only runs the releases that do have one; with neither it accepts every
// input and checks nothing.
#if defined(SC_DIFF_ORACLE_NS) || SC_ORACLE_LINUX_6_1 || SC_ORACLE_LINUX_6_12

namespace {

namespace pelt = sc::pelt;
namespace utilest = sc::utilest;

constexpr int max_ops = 16;

using sc::fuzz::Bytes;

enum class Op : std::uint8_t { pelt, enqueue, dequeue, update };

struct Step {
    Op op;
    std::uint64_t delta, load, runnable, weight;
    std::int32_t running;
    bool task_sleep;
};

struct Input {
    bool v612, lp64, util_est, fastup;
    std::uint64_t capacity;
    std::uint64_t last_update_time, load_sum, runnable_sum, load_avg, runnable_avg, util_avg;
    std::uint32_t util_sum, period_contrib, enqueued, ewma, rq;
    int nsteps = 0;
    Step steps[max_ops];
};

Input decode(const std::uint8_t *data, std::size_t size) {
    Bytes b{data, size};
    Input in{};
    std::uint64_t f = b.le(1);
    in.v612 = f & 1;
    in.lp64 = f & 2;
    in.util_est = f & 4;
    in.fastup = f & 8;
    in.capacity = b.le(8);
    in.last_update_time = b.le(8);
    in.load_sum = b.le(8);
    in.runnable_sum = b.le(8);
    in.util_sum = std::uint32_t(b.le(4));
    // The kernel only ever stores delta % 1024 here; a larger value makes
    // get_pelt_divider() wrap towards a division by 0 on both sides.
    in.period_contrib = std::uint32_t(b.le(2) % 1024);
    in.load_avg = b.le(8);
    in.runnable_avg = b.le(8);
    in.util_avg = b.le(8);
    in.enqueued = std::uint32_t(b.le(4));
    in.ewma = std::uint32_t(b.le(4));
    in.rq = std::uint32_t(b.le(4));
    while (b.more() && in.nsteps < max_ops) {
        Step &s = in.steps[in.nsteps++];
        s = Step{};
        s.op = Op(b.le(1) & 3);
        if (s.op == Op::pelt) {
            s.delta = b.le(8);
            s.load = b.le(8);
            s.runnable = b.le(8);
            s.running = std::int8_t(b.le(1)); // any int, negative too
            s.weight = b.le(8);
        } else if (s.op == Op::update) {
            s.task_sleep = b.le(1) & 1;
        }
    }
    return in;
}

// ---------------------------------------------------------------------------
// Reporting.

using sc::fuzz::Field;

const char *oracle_label(const Input &in) {
#ifdef SC_DIFF_ORACLE_NS
    (void)in;
    return sc::oracle_gen::SC_DIFF_ORACLE_NS::id;
#else
    return in.v612 ? "linux-6.12" : "linux-6.1";
#endif
}

std::string describe(const Step &s, std::uint64_t now, bool lp64) {
    char buf[256];
    std::uint64_t lmask = lp64 ? ~0ULL : 0xffffffffULL;
    switch (s.op) {
    case Op::pelt:
        std::snprintf(buf, sizeof buf,
                      "pelt update: delta=%llu now=%llu load=%llu runnable=%llu running=%d weight=%llu",
                      (unsigned long long)s.delta, (unsigned long long)now, (unsigned long long)(s.load & lmask),
                      (unsigned long long)(s.runnable & lmask), s.running, (unsigned long long)(s.weight & lmask));
        break;
    case Op::enqueue: std::snprintf(buf, sizeof buf, "util_est_enqueue"); break;
    case Op::dequeue: std::snprintf(buf, sizeof buf, "util_est_dequeue"); break;
    case Op::update: std::snprintf(buf, sizeof buf, "util_est_update: task_sleep=%d", s.task_sleep ? 1 : 0); break;
    }
    return buf;
}

[[noreturn]] void report(const Input &in, int step, const std::string &what, const Field *fs, int nf,
                         const std::uint8_t *data, std::size_t size) {
    std::string path = sc::fuzz::write_reproducer("differential", data, size);
    std::fprintf(stderr, "\n==== differential mismatch: reference vs kernel oracle ====\n");
    std::fprintf(stderr, "oracle:   %s   arch: %s   UTIL_EST=%d UTIL_EST_FASTUP=%d capacity=%llu\n",
                 oracle_label(in), in.lp64 ? "lp64" : "ilp32", in.util_est, in.fastup,
                 (unsigned long long)(in.lp64 ? in.capacity : in.capacity & 0xffffffffULL));
    if (step < 0)
        std::fprintf(stderr, "step:     initial state (before any operation)\n");
    else
        std::fprintf(stderr, "step:     %d of %d: %s\n", step + 1, in.nsteps, what.c_str());
    sc::fuzz::print_fields(fs, nf);
    if (!path.empty()) // the command that replays it: this very binary
        std::fprintf(stderr, "reproducer: %s\nreplay:     %s %s\n", path.c_str(),
                     sc::fuzz::self_path("differential_fuzz").c_str(), path.c_str());
    std::fprintf(stderr, "============================================================\n");
    std::fflush(stderr);
    std::abort();
}

// ---------------------------------------------------------------------------
// One run: reference release (PV, UV), oracle K, arithmetic A.

template <pelt::version PV, utilest::version UV, template <class> class KT, class A>
int run(const Input &in, const std::uint8_t *data, std::size_t size) {
    using K = KT<A>;
    using u64 = typename A::u64;
    using ulong = typename A::ulong;
    using sint = typename A::sint;
    using uint = typename A::uint;
    constexpr bool split = PV == pelt::version::v6_1;

    const utilest::knobs kn{in.util_est, in.fastup};
    const ulong cap = ulong(in.capacity);

    // Reference state: the task's sched_avg, its util_est words and the
    // runqueue sum.  util_est reads util_avg/runnable_avg from the task,
    // so those are copied from the sched_avg before each util_est call.
    pelt::sched_avg<A> sa{};
    sa.last_update_time = u64(in.last_update_time);
    sa.load_sum = u64(in.load_sum);
    sa.runnable_sum = u64(in.runnable_sum);
    sa.util_sum = uint(in.util_sum);
    sa.period_contrib = uint(in.period_contrib);
    sa.load_avg = ulong(in.load_avg);
    sa.runnable_avg = ulong(in.runnable_avg);
    sa.util_avg = ulong(in.util_avg);
    utilest::task<A> p{};
    if constexpr (split)
        p.enqueued = uint(in.enqueued);
    p.ewma = uint(in.ewma);
    utilest::cfs_rq<A> rq{};
    rq.util_est_enqueued = uint(in.rq);

    // The oracle's state: the task's se.avg holds the PELT fields and
    // util_est, the runqueue's avg.util_est the sum.
    typename K::task_struct kp = sc::proofs::task_to_kernel<K>(p);
    auto &ka = kp.se.avg;
    sc::proofs::put_avg(ka, sa);
    typename K::cfs_rq krq = sc::proofs::rq_to_kernel<K>(rq);

    K::shim_feat_UTIL_EST = in.util_est;
    K::shim_feat_UTIL_EST_FASTUP = in.fastup;

    std::uint64_t ref_ret = 0, ora_ret = 0;
    std::uint64_t now = in.last_update_time;
    // Every field after every step; the step is only described (with the
    // clock it ran at) on a mismatch.
    auto compare = [&](int step) {
        Field fs[13];
        int n = 0;
        fs[n++] = {"return", ref_ret, ora_ret};
        fs[n++] = {"last_update_time", sa.last_update_time, ka.last_update_time};
        fs[n++] = {"load_sum", sa.load_sum, ka.load_sum};
        fs[n++] = {"runnable_sum", sa.runnable_sum, ka.runnable_sum};
        fs[n++] = {"util_sum", sa.util_sum, ka.util_sum};
        fs[n++] = {"period_contrib", sa.period_contrib, ka.period_contrib};
        fs[n++] = {"load_avg", sa.load_avg, ka.load_avg};
        fs[n++] = {"runnable_avg", sa.runnable_avg, ka.runnable_avg};
        fs[n++] = {"util_avg", sa.util_avg, ka.util_avg};
        if constexpr (split) {
            fs[n++] = {"util_est.enqueued", p.enqueued, ka.util_est.enqueued};
            fs[n++] = {"util_est.ewma", p.ewma, ka.util_est.ewma};
            fs[n++] = {"cfs_rq.util_est.enqueued", rq.util_est_enqueued, krq.avg.util_est.enqueued};
        } else {
            fs[n++] = {"util_est", p.ewma, ka.util_est};
            fs[n++] = {"cfs_rq.util_est", rq.util_est_enqueued, krq.avg.util_est};
        }
        for (int k = 0; k < n; ++k)
            if (fs[k].ref != fs[k].ora)
                report(in, step, step < 0 ? std::string() : describe(in.steps[step], now, in.lp64), fs, n,
                       data, size);
    };

    compare(-1);
    for (int k = 0; k < in.nsteps; ++k) {
        const Step &s = in.steps[k];
        ref_ret = ora_ret = 0;
        switch (s.op) {
        case Op::pelt: {
            now += s.delta;
            const ulong load = ulong(s.load), runnable = ulong(s.runnable), weight = ulong(s.weight);
            const sint running = sint(s.running);
            // __update_load_avg_se(): the averages and the util_est flag
            // only change when the sums crossed a period boundary.
            auto rr = pelt::___update_load_sum<PV, A>(u64(now), sa, load, runnable, running);
            if (rr) {
                pelt::___update_load_avg<PV, A>(sa, weight);
                if constexpr (K::shim_has_util_est)
                    utilest::cfs_se_util_change<UV, A>(p, kn);
            }
            auto kr = K::___update_load_sum(u64(now), &ka, load, runnable, running);
            if (kr) {
                K::___update_load_avg(&ka, weight);
                if constexpr (K::shim_has_util_est)
                    K::cfs_se_util_change(&ka);
            }
            ref_ret = std::uint64_t(std::int64_t(rr));
            ora_ret = std::uint64_t(std::int64_t(kr));
            break;
        }
        case Op::enqueue:
        case Op::dequeue:
        case Op::update:
            // A PELT-only oracle (its tree lacks util_est): nothing to run.
            if constexpr (K::shim_has_util_est) {
            p.util_avg = sa.util_avg;
            p.runnable_avg = sa.runnable_avg;
            if (s.op == Op::enqueue) {
                utilest::util_est_enqueue<UV, A>(rq, p, kn);
                K::util_est_enqueue(&krq, &kp);
            } else if (s.op == Op::dequeue) {
                utilest::util_est_dequeue<UV, A>(rq, p, typename A::boolean(false), kn);
                K::util_est_dequeue(&krq, &kp);
            } else {
                utilest::util_est_update<UV, A>(rq, p, typename A::boolean(s.task_sleep), cap, kn);
                K::shim_capacity = &cap;
                K::util_est_update(&krq, &kp, typename A::boolean(s.task_sleep));
                K::shim_capacity = nullptr;
            }
            }
            break;
        }
        compare(k);
    }
    return 0;
}

} // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t *data, std::size_t size) {
    using namespace sc;
    const Input in = decode(data, size);
#ifdef SC_DIFF_ORACLE_NS
    {
        namespace o = oracle_gen::SC_DIFF_ORACLE_NS;
        constexpr bool six_one = o::split_util_est;
        constexpr auto pv = six_one ? pelt::version::v6_1 : pelt::version::v6_12;
        constexpr auto uv = six_one ? utilest::version::v6_1 : utilest::version::v6_12;
        return in.lp64 ? run<pv, uv, o::kernel, lp64>(in, data, size) : run<pv, uv, o::kernel, ilp32>(in, data, size);
    }
#endif
    if (in.v612) {
#if SC_ORACLE_LINUX_6_12
        using oracle_gen::linux_6_12::kernel;
        return in.lp64 ? run<pelt::version::v6_12, utilest::version::v6_12, kernel, lp64>(in, data, size)
                       : run<pelt::version::v6_12, utilest::version::v6_12, kernel, ilp32>(in, data, size);
#endif
    } else {
#if SC_ORACLE_LINUX_6_1
        using oracle_gen::linux_6_1::kernel;
        return in.lp64 ? run<pelt::version::v6_1, utilest::version::v6_1, kernel, lp64>(in, data, size)
                       : run<pelt::version::v6_1, utilest::version::v6_1, kernel, ilp32>(in, data, size);
#endif
    }
    return 0;
}

#else

// Neither kernel source was available when the oracle headers were
// generated: there is nothing to compare the reference with, so every
// input passes (`schedcheck equiv` reports the reason).
extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t *, std::size_t) { return 0; }

#endif
