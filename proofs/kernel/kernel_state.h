// The reference's state as a kernel oracle's shims hold it
// (oracle/pelt_codegen.h): the PELT fields in a sched_avg, a task's
// util_avg, runnable_avg and util_est in task_struct::se.avg, the
// runqueue's sum in cfs_rq::avg.util_est, in the oracle's layout
// ({enqueued, ewma} up to 6.1, one word from 6.12 on).  K is the oracle's
// kernel class for one arithmetic.  Shared by the equivalence cases and the
// differential harness; no solver in here.
#pragma once
#include "ref/idle_balance.h"
#include "ref/pelt.h"
#include "ref/util_est.h"
#include "ref/wake_affine.h"

namespace sc::proofs {

template <class KS, class A> void put_avg(KS &k, const pelt::sched_avg<A> &r) {
    k.last_update_time = r.last_update_time;
    k.load_sum = r.load_sum;
    k.runnable_sum = r.runnable_sum;
    k.util_sum = r.util_sum;
    k.period_contrib = r.period_contrib;
    k.load_avg = r.load_avg;
    k.runnable_avg = r.runnable_avg;
    k.util_avg = r.util_avg;
}

template <class K, class A> typename K::sched_avg to_kernel(const pelt::sched_avg<A> &r) {
    typename K::sched_avg k{};
    put_avg(k, r);
    return k;
}

template <class K, class A> typename K::task_struct task_to_kernel(const utilest::task<A> &p) {
    typename K::task_struct k{};
    k.se.avg.util_avg = p.util_avg;
    k.se.avg.runnable_avg = p.runnable_avg;
    if constexpr (requires { k.se.avg.util_est.enqueued; }) {
        k.se.avg.util_est.enqueued = p.enqueued;
        k.se.avg.util_est.ewma = p.ewma;
    } else {
        k.se.avg.util_est = p.ewma;
    }
    return k;
}

template <class K, class A> typename K::cfs_rq rq_to_kernel(const utilest::cfs_rq<A> &r) {
    typename K::cfs_rq k{};
    if constexpr (requires { k.avg.util_est.enqueued; })
        k.avg.util_est.enqueued = r.util_est_enqueued;
    else
        k.avg.util_est = r.util_est_enqueued;
    return k;
}

} // namespace sc::proofs

namespace sc::proofs {

// Whether oracle K counts newidle successes: Debian's trees carry the
// stable backport of the NI_RANDOM dice, with update_newidle_stats() and a
// third (success) argument to update_newidle_cost().  An upstream release
// tree (v6.1, v6.12 as tagged) has neither: its update_newidle_cost() takes
// the domain and the cost only, and no dice is thrown.
template <template <class> class K>
constexpr bool kernel_has_ni_random = requires(typename K<lp64>::sched_domain *d, typename lp64::uint s) {
    K<lp64>::update_newidle_stats(d, s);
    K<lp64>::update_newidle_cost(d, typename lp64::u64(0), s);
};
template <template <class> class K>
constexpr bool kernel_has_plain_cost = requires(typename K<lp64>::sched_domain *d) {
    K<lp64>::update_newidle_cost(d, typename lp64::u64(0));
};

// A sched_domain's newidle cost fields in the kernel oracle's layout.
template <class KD, class A> KD sd_to_kernel(const idlebal::sched_domain<A> &sd) {
    KD k{};
    k.max_newidle_lb_cost = sd.max_newidle_lb_cost;
    k.last_decay_max_lb_cost = sd.last_decay_max_lb_cost;
    k.newidle_call = sd.newidle_call;
    k.newidle_success = sd.newidle_success;
    k.newidle_ratio = sd.newidle_ratio;
    return k;
}

} // namespace sc::proofs

// And back: the kernel's state in the reference's shape, so that a property
// stated over the reference's fields reads the kernel's results.
namespace sc::proofs {

template <class A, class KS> pelt::sched_avg<A> from_kernel(const KS &k) {
    pelt::sched_avg<A> r{};
    r.last_update_time = k.last_update_time;
    r.load_sum = k.load_sum;
    r.runnable_sum = k.runnable_sum;
    r.util_sum = k.util_sum;
    r.period_contrib = k.period_contrib;
    r.load_avg = k.load_avg;
    r.runnable_avg = k.runnable_avg;
    r.util_avg = k.util_avg;
    return r;
}

template <class A, class KT> void task_from_kernel(utilest::task<A> &p, const KT &k) {
    p.util_avg = k.se.avg.util_avg;
    p.runnable_avg = k.se.avg.runnable_avg;
    if constexpr (requires { k.se.avg.util_est.enqueued; }) {
        p.enqueued = k.se.avg.util_est.enqueued;
        p.ewma = k.se.avg.util_est.ewma;
    } else {
        p.ewma = k.se.avg.util_est;
    }
}

template <class A, class KR> void rq_from_kernel(utilest::cfs_rq<A> &r, const KR &k) {
    if constexpr (requires { k.avg.util_est.enqueued; })
        r.util_est_enqueued = k.avg.util_est.enqueued;
    else
        r.util_est_enqueued = k.avg.util_est;
}

} // namespace sc::proofs

namespace sc::proofs {

// And back: the kernel's sched_domain cost fields into the reference's.
template <class A, class KD> void sd_from_kernel(idlebal::sched_domain<A> &sd, const KD &k) {
    sd.max_newidle_lb_cost = k.max_newidle_lb_cost;
    sd.last_decay_max_lb_cost = k.last_decay_max_lb_cost;
    sd.newidle_call = k.newidle_call;
    sd.newidle_success = k.newidle_success;
    sd.newidle_ratio = k.newidle_ratio;
}

} // namespace sc::proofs

namespace sc::proofs {

// One wake-up as the reference takes it, and the kernel-only part: 6.12
// counts this_cpu's delayed-dequeue tasks (h_nr_queued - h_nr_runnable)
// out of nr_running, which no reference variant models.
template <class A> struct wa_input {
    wakeaffine::wake_env<A> e;
    wakeaffine::knobs<A> k;
    typename A::uint h_nr_queued{}, h_nr_runnable{};
};

// The kernel's view of one wake-up, and its shims pointed at it for the
// life of the object.
template <class KA, class A> struct wa_kernel {
    typename KA::rq this_rq{}, prev_rq{};
    typename KA::cfs_rq p_cfs{}, curr_cfs{};
    typename KA::task_struct p{}, curr{};
    typename KA::sched_domain sd{};

    explicit wa_kernel(const wa_input<A> &w) {
        auto cpu = [](typename KA::rq &r, const wakeaffine::cpu<A> &c) {
            r.cfs.avg.load_avg = c.weighted_cpuload;
            r.nr_running = c.nr_running;
            r.cpu_capacity = c.power;
            r.shim_idle = c.idle;
        };
        auto task = [](typename KA::task_struct &t, typename KA::cfs_rq &q, const wakeaffine::task<A> &r) {
            t.se.avg.load_avg = r.load_avg;
            q.h_load = r.cfs_h_load;
            q.avg.load_avg = r.cfs_load_avg;
            t.shim_cfs_rq = &q;
        };
        cpu(this_rq, w.e.this_rq);
        cpu(prev_rq, w.e.prev_rq);
        this_rq.cfs.h_nr_queued = w.h_nr_queued;
        this_rq.cfs.h_nr_runnable = w.h_nr_runnable;
        task(p, p_cfs, w.e.p);
        task(curr, curr_cfs, w.e.curr);
        sd.imbalance_pct = w.k.imbalance_pct;
        KA::shim_this_cpu = w.e.this_cpu;
        KA::shim_this_rq = &this_rq;
        KA::shim_prev_rq = &prev_rq;
        KA::shim_current = &curr;
        KA::shim_share_cache = w.k.cpus_share_cache;
        KA::shim_nr_cpumask_bits = w.e.nr_cpumask_bits;
        KA::shim_feat_WA_IDLE = w.k.WA_IDLE;
        KA::shim_feat_WA_WEIGHT = w.k.WA_WEIGHT;
        KA::shim_feat_WA_BIAS = w.k.WA_BIAS;
    }
    ~wa_kernel() {
        KA::shim_this_rq = KA::shim_prev_rq = nullptr;
        KA::shim_current = nullptr;
    }
    wa_kernel(const wa_kernel &) = delete;
    wa_kernel &operator=(const wa_kernel &) = delete;
};

} // namespace sc::proofs
