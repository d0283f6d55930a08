// One task's life as a sequence of kernel calls, run concretely on any
// implementation of the pelt and utilest interfaces (proofs/kernel/kernel_iface.h):
// the PELT update of the task's sched_avg (__update_load_avg_se() of 6.x:
// the sums, then, when a period boundary was crossed, the averages and
// cfs_se_util_change()), and util_est's enqueue, dequeue and update at
// dequeue.  The state after every call is recorded, field by field, so two
// implementations (the pre- and post-image of a patch in `review
// --fuzz-seconds`) can be compared step by step.
//
// Header-only: an oracle plug-in instantiates it with its own kernel class
// (proofs/kernel/plugin_prove.h), the host with nothing; only the plain structs
// below cross the plug-in boundary.
#pragma once
#include <array>
#include <cstdint>
#include <string>
#include <vector>

#include "proofs/kernel/kernel_iface.h"

namespace sc::proofs {

struct TaskOp {
    enum Kind : std::uint8_t { pelt, enqueue, dequeue, update } kind = pelt;
    // pelt: the clock advances by delta ns (mod 2^64), then the update runs
    // with these arguments (cut to unsigned long / int as the kernel's
    // parameters are).
    std::uint64_t delta = 0, load = 0, runnable = 0, weight = 0;
    std::int32_t running = 0;
    bool sleep = false; // update: task_sleep
};

struct TaskRun {
    bool lp64 = true;
    bool util_est = true, fastup = true; // sched_feat(UTIL_EST), (UTIL_EST_FASTUP) where it exists
    std::uint64_t capacity = 1024;       // capacity_orig_of() the task's CPU
    std::uint64_t start = 0;             // the clock at the first call; the task's sched_avg starts zeroed there
    std::vector<TaskOp> ops;
};

// The fields recorded after each call, in this order.
inline constexpr std::array<const char *, 12> task_fields = {
    "return",       "last_update_time", "load_sum",          "runnable_sum",
    "util_sum",     "period_contrib",   "load_avg",          "runnable_avg",
    "util_avg",     "util_est.enqueued", "util_est.ewma",    "cfs_rq.util_est"};
using TaskSnapshot = std::array<std::uint64_t, task_fields.size()>;

// Runs r on Pelt (and UE, when has_ue) in data model A; one snapshot per op.
template <class Pelt, class UE, bool has_ue, class A> std::vector<TaskSnapshot> run_task(const TaskRun &r) {
    using u64 = typename A::u64;
    using ulong = typename A::ulong;
    using sint = typename A::sint;
    using P = typename Pelt::template on<A>;
    const utilest::knobs kn{r.util_est, r.fastup};

    pelt::sched_avg<A> sa{};
    sa.last_update_time = u64(r.start);
    utilest::task<A> p{};
    utilest::cfs_rq<A> rq{};
    std::uint64_t now = r.start;
    std::vector<TaskSnapshot> out;
    out.reserve(r.ops.size());
    for (const TaskOp &op : r.ops) {
        std::uint64_t ret = 0;
        if (op.kind == TaskOp::pelt) {
            now += op.delta;
            if (P::___update_load_sum(u64(now), sa, ulong(op.load), ulong(op.runnable), sint(op.running))) {
                P::___update_load_avg(sa, ulong(op.weight));
                if constexpr (has_ue)
                    UE::template on<A>::cfs_se_util_change(p, kn);
                ret = 1;
            }
        } else if constexpr (has_ue) {
            using U = typename UE::template on<A>;
            p.util_avg = sa.util_avg;
            p.runnable_avg = sa.runnable_avg;
            if (op.kind == TaskOp::enqueue)
                U::util_est_enqueue(rq, p, kn);
            else if (op.kind == TaskOp::dequeue)
                U::util_est_dequeue(rq, p, op.sleep, kn);
            else
                U::util_est_update(rq, p, op.sleep, ulong(r.capacity), kn);
        }
        out.push_back({ret, std::uint64_t(sa.last_update_time), std::uint64_t(sa.load_sum),
                       std::uint64_t(sa.runnable_sum), std::uint64_t(sa.util_sum), std::uint64_t(sa.period_contrib),
                       std::uint64_t(sa.load_avg), std::uint64_t(sa.runnable_avg), std::uint64_t(sa.util_avg),
                       std::uint64_t(p.enqueued), std::uint64_t(p.ewma), std::uint64_t(rq.util_est_enqueued)});
    }
    return out;
}

// One line for an op, for a review.
inline std::string describe(const TaskOp &op, std::uint64_t now) {
    switch (op.kind) {
    case TaskOp::pelt:
        return "PELT update at " + std::to_string(now) + " ns (+" + std::to_string(op.delta) +
               "): load=" + std::to_string(op.load) + " runnable=" + std::to_string(op.runnable) +
               " running=" + std::to_string(op.running) + " weight=" + std::to_string(op.weight);
    case TaskOp::enqueue: return "util_est_enqueue";
    case TaskOp::dequeue: return std::string("util_est_dequeue") + (op.sleep ? " (task_sleep)" : "");
    case TaskOp::update: return std::string("util_est_update, task_sleep=") + (op.sleep ? "1" : "0");
    }
    return "?";
}

} // namespace sc::proofs
