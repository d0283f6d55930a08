// Differential harness of the PELT moves between an entity and its cfs_rq:
// the 6.x reference (ref/pelt_cfs.h, through iface::RefPelt) against the
// functions extracted from the Linux 6.1 and 6.12 sources (through
// iface::KernelPelt, on the kernel's own structs): attach and detach,
// enqueue and dequeue, the runqueue's update with its removed-load path,
// and a new task's start values (init_entity_runnable_average(), then
// post_init_entity_util_avg()).  Each side keeps its own runqueue and
// entity; both are compared after every step.
//
// Three inputs are bent to what both sides can take, as the kernel never
// has them and each would be a division by 0 on both sides:
//   - an entity's load.weight is taken modulo 2^29, and 0 as 2: attach
//     divides load_sum by se_weight() cut to u32 (div_u64()), which is 0
//     for a weight whose se_weight() is a multiple of 2^32; no entity
//     weighs more than scale_load(MAX_SHARES) = 2^28 on 64-bit;
//   - at a new task, a runqueue load_avg of ULONG_MAX is taken one lower
//     (post_init_entity_util_avg() divides by it plus one);
//   - period_contrib is taken modulo 1024 (the kernel never stores more).
//
// Input layout (little-endian; bytes past the end read as 0, so every
// prefix is a valid input):
//   u8   flags: bit 0 = 6.12 (else 6.1), bit 1 = lp64 (else ilp32),
//              bit 2 = the entity is a group (else a task),
//              bit 3 = the runqueue has a current entity
//   the runqueue's sched_avg: u64 last_update_time, load_sum, runnable_sum,
//        u32 util_sum, u16 period_contrib, u64 load_avg, runnable_avg,
//        util_avg; then u64 load.weight, u32 runnable count, s32 removed.nr,
//        u64 removed load_avg, util_avg, runnable_avg
//   the entity's sched_avg (the same eight fields), u64 load.weight
//   then up to 16 steps, each a u8 operation (modulo 7) and a u64 value:
//   0 attach  1 detach  2 enqueue  3 dequeue
//   4 update_cfs_rq_load_avg() at the runqueue's clock plus the value
//   5 a new task of weight the value (its sched_avg is set by the two
//     start functions against the runqueue)
//   6 the entity's averages put in the removed buffer, as
//     remove_entity_load_avg() does (the same on both sides)
#include <array>
#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <cstdlib>

#include "fuzz/harness_io.h"
#include "oracle_gen/linux_6_1.h"
#include "oracle_gen/linux_6_12.h"
#include "proofs/kernel/kernel_iface.h"

#if SC_ORACLE_LINUX_6_1 || SC_ORACLE_LINUX_6_12

namespace {

namespace pelt = sc::pelt;
namespace iface = sc::proofs::iface;
using sc::fuzz::Bytes;
using sc::fuzz::Field;

constexpr int max_ops = 16;
constexpr int nops = 7;
const char *const op_name[nops] = {"attach_entity_load_avg", "detach_entity_load_avg", "enqueue_load_avg",
                                   "dequeue_load_avg",       "update_cfs_rq_load_avg", "a new task",
                                   "remove_entity_load_avg"};

struct Avg {
    std::uint64_t last_update_time, load_sum, runnable_sum, util_sum, period_contrib, load_avg, runnable_avg,
        util_avg;
};
struct Step {
    int op;
    std::uint64_t value;
};
struct Input {
    bool v612, lp64, group, curr;
    Avg rq_avg, se_avg;
    std::uint64_t rq_weight, runnable, removed_nr, removed_load, removed_util, removed_runnable, se_weight;
    int nsteps = 0;
    Step steps[max_ops];
};

Avg read_avg(Bytes &b) {
    Avg a{};
    a.last_update_time = b.le(8);
    a.load_sum = b.le(8);
    a.runnable_sum = b.le(8);
    a.util_sum = b.le(4);
    a.period_contrib = b.le(2) % 1024;
    a.load_avg = b.le(8);
    a.runnable_avg = b.le(8);
    a.util_avg = b.le(8);
    return a;
}

Input decode(const std::uint8_t *data, std::size_t size) {
    Bytes b{data, size};
    Input in{};
    std::uint64_t f = b.le(1);
    in.v612 = f & 1;
    in.lp64 = f & 2;
    in.group = f & 4;
    in.curr = f & 8;
    in.rq_avg = read_avg(b);
    in.rq_weight = b.le(8);
    in.runnable = b.le(4);
    in.removed_nr = b.le(4);
    in.removed_load = b.le(8);
    in.removed_util = b.le(8);
    in.removed_runnable = b.le(8);
    in.se_avg = read_avg(b);
    in.se_weight = b.le(8);
    while (b.more() && in.nsteps < max_ops) {
        Step &s = in.steps[in.nsteps++];
        s.op = int(b.le(1) % nops);
        s.value = b.le(8);
    }
    return in;
}

template <class A> pelt::sched_avg<A> make_avg(const Avg &a) {
    pelt::sched_avg<A> s{};
    s.last_update_time = typename A::u64(a.last_update_time);
    s.load_sum = typename A::u64(a.load_sum);
    s.runnable_sum = typename A::u64(a.runnable_sum);
    s.util_sum = typename A::uint(a.util_sum);
    s.period_contrib = typename A::uint(a.period_contrib);
    s.load_avg = typename A::ulong(a.load_avg);
    s.runnable_avg = typename A::ulong(a.runnable_avg);
    s.util_avg = typename A::ulong(a.util_avg);
    return s;
}

template <class A> typename A::ulong entity_weight(std::uint64_t w) {
    typename A::ulong x = typename A::ulong(w % (std::uint64_t(1) << 29));
    return x ? x : typename A::ulong(2);
}

template <class A> struct State {
    pelt::cfs_rq<A> rq;
    pelt::sched_entity<A> se;
};

template <class A> std::array<std::uint64_t, 8> avg_fields(const pelt::sched_avg<A> &x) {
    return {x.last_update_time, x.load_sum,  x.runnable_sum, x.util_sum,
            x.period_contrib,   x.load_avg,  x.runnable_avg, x.util_avg};
}

template <class A> int fill(Field *fs, const State<A> &r, const State<A> &k) {
    int n = 0;
    auto avg = [&](const char *const names[8], const pelt::sched_avg<A> &x, const pelt::sched_avg<A> &y) {
        const auto xs = avg_fields(x), ys = avg_fields(y);
        for (int j = 0; j < 8; ++j)
            fs[n++] = {names[j], xs[j], ys[j]};
    };
    static const char *const rq_names[8] = {"cfs_rq.last_update_time", "cfs_rq.load_sum",   "cfs_rq.runnable_sum",
                                            "cfs_rq.util_sum",         "cfs_rq.period_contrib",
                                            "cfs_rq.load_avg",         "cfs_rq.runnable_avg", "cfs_rq.util_avg"};
    static const char *const se_names[8] = {"se.last_update_time", "se.load_sum",     "se.runnable_sum",
                                            "se.util_sum",         "se.period_contrib", "se.load_avg",
                                            "se.runnable_avg",     "se.util_avg"};
    avg(rq_names, r.rq.avg, k.rq.avg);
    fs[n++] = {"cfs_rq.removed.nr", std::uint64_t(r.rq.removed.nr), std::uint64_t(k.rq.removed.nr)};
    fs[n++] = {"cfs_rq.removed.load_avg", r.rq.removed.load_avg, k.rq.removed.load_avg};
    fs[n++] = {"cfs_rq.removed.util_avg", r.rq.removed.util_avg, k.rq.removed.util_avg};
    fs[n++] = {"cfs_rq.removed.runnable_avg", r.rq.removed.runnable_avg, k.rq.removed.runnable_avg};
    avg(se_names, r.se.avg, k.se.avg);
    return n;
}

constexpr int nfields = 8 + 4 + 8;

[[noreturn]] void report(const Input &in, int step, const Field *fs, std::uint64_t ret_ref, std::uint64_t ret_ora,
                         const std::uint8_t *data, std::size_t size) {
    std::string path = sc::fuzz::write_reproducer("cfsrq-differential", data, size);
    std::fprintf(stderr, "\n==== cfs_rq moves differential mismatch: reference vs kernel oracle ====\n");
    std::fprintf(stderr, "oracle:   %s   reference: pelt/%s   arch: %s\n", in.v612 ? "linux-6.12" : "linux-6.1",
                 in.v612 ? "v6.12" : "v6.1", in.lp64 ? "lp64" : "ilp32");
    std::fprintf(stderr, "entity:   %s, load.weight %llu; cfs_rq load.weight %llu, runnable %llu, curr %d\n",
                 in.group ? "a group" : "a task", (unsigned long long)in.se_weight,
                 (unsigned long long)in.rq_weight, (unsigned long long)in.runnable, in.curr);
    for (int s = 0; s <= step; ++s)
        std::fprintf(stderr, "step %2d:  %s (value %llu)%s\n", s + 1, op_name[in.steps[s].op],
                     (unsigned long long)in.steps[s].value, s == step ? "   <-- differs after this" : "");
    if (in.steps[step].op == 4)
        std::fprintf(stderr, "return:   reference %llu, oracle %llu\n", (unsigned long long)ret_ref,
                     (unsigned long long)ret_ora);
    sc::fuzz::print_fields(fs, nfields);
    if (!path.empty())
        std::fprintf(stderr, "reproducer: %s\nreplay:     %s %s\n", path.c_str(),
                     sc::fuzz::self_path("cfsrq_differential_fuzz").c_str(), path.c_str());
    std::fprintf(stderr, "=======================================================================\n");
    std::fflush(stderr);
    std::abort();
}

// One step on one side's runqueue and entity, through implementation P.
// The bends and the removal are the harness's own, the same on both sides.
// Returns update_cfs_rq_load_avg()'s result, 0 for the other steps.
template <class P, class A> std::uint64_t apply(const Step &st, State<A> &x) {
    using ulong = typename A::ulong;
    switch (st.op) {
    case 0: P::attach_entity_load_avg(x.rq, x.se); return 0;
    case 1: P::detach_entity_load_avg(x.rq, x.se); return 0;
    case 2: P::enqueue_load_avg(x.rq, x.se); return 0;
    case 3: P::dequeue_load_avg(x.rq, x.se); return 0;
    case 4:
        return std::uint64_t(
            P::update_cfs_rq_load_avg(x.rq.avg.last_update_time + typename A::u64(st.value), x.rq));
    case 5: {
        const ulong ulong_max = ulong(~std::uint64_t(0));
        if (x.rq.avg.load_avg == ulong_max)
            x.rq.avg.load_avg = ulong_max - ulong(1);
        x.se.load_weight = entity_weight<A>(st.value);
        x.se.is_task = true;
        P::init_new_task(x.se, x.rq);
        return 0;
    }
    default:
        x.rq.removed.nr += typename A::sint(1);
        x.rq.removed.load_avg += x.se.avg.load_avg;
        x.rq.removed.util_avg += x.se.avg.util_avg;
        x.rq.removed.runnable_avg += x.se.avg.runnable_avg;
        return 0;
    }
}

template <class R, class K, class A> int run(const Input &in, const std::uint8_t *data, std::size_t size) {
    if constexpr (!K::cfs_moves) {
        return 0; // the tree lacked the moves: nothing to compare
    } else {
        using ulong = typename A::ulong;
        State<A> init{};
        init.rq.avg = make_avg<A>(in.rq_avg);
        init.rq.load_weight = ulong(in.rq_weight);
        init.rq.h_nr_runnable = ulong(std::uint32_t(in.runnable));
        init.rq.curr = typename A::sint(in.curr ? 1 : 0);
        init.rq.removed.nr = typename A::sint(std::int32_t(in.removed_nr));
        init.rq.removed.load_avg = ulong(in.removed_load);
        init.rq.removed.util_avg = ulong(in.removed_util);
        init.rq.removed.runnable_avg = ulong(in.removed_runnable);
        init.se.avg = make_avg<A>(in.se_avg);
        init.se.load_weight = entity_weight<A>(in.se_weight);
        init.se.is_task = !in.group;
        // Both sides start from the same state and are compared after
        // every step, so the clock a step reads is the same on both.
        State<A> r = init, k = init;
        for (int s = 0; s < in.nsteps; ++s) {
            const std::uint64_t ret_r = apply<typename R::template on<A>>(in.steps[s], r);
            const std::uint64_t ret_k = apply<typename K::template on<A>>(in.steps[s], k);
            Field fs[nfields];
            fill<A>(fs, r, k);
            bool same = ret_r == ret_k;
            for (const Field &x : fs)
                same = same && x.ref == x.ora;
            if (!same)
                report(in, s, fs, ret_r, ret_k, data, size);
        }
        return 0;
    }
}

} // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t *data, std::size_t size) {
    const Input in = decode(data, size);
#if SC_ORACLE_LINUX_6_12
    if (in.v612) {
        using R = iface::RefPelt<pelt::version::v6_12>;
        using K = iface::KernelPelt<sc::oracle_gen::linux_6_12::kernel>;
        return in.lp64 ? run<R, K, sc::lp64>(in, data, size) : run<R, K, sc::ilp32>(in, data, size);
    }
#endif
#if SC_ORACLE_LINUX_6_1
    if (!in.v612) {
        using R = iface::RefPelt<pelt::version::v6_1>;
        using K = iface::KernelPelt<sc::oracle_gen::linux_6_1::kernel>;
        return in.lp64 ? run<R, K, sc::lp64>(in, data, size) : run<R, K, sc::ilp32>(in, data, size);
    }
#endif
    return 0;
}

#else

// Neither kernel source was there at build time: nothing to compare.
extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t *, std::size_t) { return 0; }

#endif
