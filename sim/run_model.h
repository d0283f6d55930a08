// The event loop of `schedcheck simulate` (sim/simulate.h), header-only so
// that an `oracle build` plug-in instantiates it with its own kernel class
// (sim/plugin_simulate.h) and runs a workload on the patched code itself.
// A model M supplies the task state and the calls: RefModel (a reference
// variant, sim/simulate.cpp) or KernelModel (a kernel oracle, below).
#pragma once
#include <cstdint>
#include <vector>

#include "ref/kernel.h"
#include "ref/pelt.h"
#include "ref/util_est.h"
#include "sim/simulate.h"

namespace sc::sim {

// When the end-of-activation sample is taken relative to the sleep's PELT
// update.
enum Order { sample_in_dequeue_after = 0, sample_after = 1, sample_before = 2 };

// 6.x: the largest sums right at a period boundary (period_contrib 0):
// an always-runnable, always-running task's, LOAD_AVG_MAX - 1024 for the
// unweighted load_sum and that << 10 for the runnable and util sums; the
// averages are then weight, 1024 and 1024.
template <class SA, class W> void saturate(SA &a, W weight) {
    const std::uint64_t m = pelt::PELT_MIN_DIVIDER;
    a.period_contrib = 0;
    a.load_sum = m;
    a.runnable_sum = m << 10;
    a.util_sum = std::uint32_t(m << 10);
    a.load_avg = weight;
    a.runnable_avg = 1024;
    a.util_avg = 1024;
}

// A kernel oracle, built in or an `oracle build` plug-in: the kernel's own
// structs and functions.  An oracle made from a tree without util_est runs
// PELT alone.
template <template <class> class KT, class A> struct KernelModel {
    using K = KT<A>;
    using ulong = typename A::ulong;
    using TaskState = typename K::task_struct;
    using Rq = typename K::cfs_rq;
    static constexpr bool ue = K::shim_has_util_est;
    static constexpr bool one_word = !requires(TaskState t) { t.se.avg.util_est.enqueued; };

    bool has_ue() const { return ue; }
    int order() const { return one_word ? sample_before : sample_after; }

    __attribute__((always_inline)) int update(TaskState &s, std::uint64_t now, ulong load, ulong runnable,
                                              int running, ulong weight) {
        if (K::___update_load_sum(now, &s.se.avg, load, runnable, running)) {
            K::___update_load_avg(&s.se.avg, weight);
            if constexpr (ue)
                K::cfs_se_util_change(&s.se.avg);
            return 1;
        }
        return 0;
    }
    // Called only when has_ue().
    void ue_enqueue(Rq &rq, TaskState &s) {
        if constexpr (ue)
            K::util_est_enqueue(&rq, &s);
    }
    void ue_dequeue(Rq &rq, TaskState &s, bool) {
        if constexpr (ue)
            K::util_est_dequeue(&rq, &s);
    }
    void ue_update(Rq &rq, TaskState &s, ulong cap) {
        if constexpr (ue) {
            K::shim_capacity = &cap;
            K::util_est_update(&rq, &s, true);
            K::shim_capacity = nullptr;
        }
    }
    void reweight(TaskState &s, ulong weight) {
        typename A::uint divider = K::get_pelt_divider(&s.se.avg);
        s.se.avg.load_avg = ulong(sc::div_u64(std::uint64_t(weight) * s.se.avg.load_sum, divider));
    }
    void rebase(TaskState &s, std::uint64_t lut) { s.se.avg.last_update_time = lut; }
    std::uint64_t lut(const TaskState &s) const { return s.se.avg.last_update_time; }
    void begin(TaskState &s, std::uint64_t now, bool saturated, ulong weight) {
        s.se.avg.last_update_time = now;
        if (saturated)
            saturate(s.se.avg, weight);
    }
    void fill(Row &r, const TaskState &s, const Rq &rq) const {
        const auto &a = s.se.avg;
        r.load_avg = a.load_avg;
        r.runnable_avg = a.runnable_avg;
        r.util_avg = a.util_avg;
        r.load_sum = a.load_sum;
        r.runnable_sum = a.runnable_sum;
        r.util_sum = a.util_sum;
        r.period_contrib = a.period_contrib;
        r.last_update_time = a.last_update_time;
        if constexpr (!ue) {
            r.ue_enqueued = r.ue_ewma = r.rq_util_est = none;
        } else if constexpr (one_word) {
            r.ue_enqueued = none;
            r.ue_ewma = a.util_est & ~utilest::UTIL_AVG_UNCHANGED;
            r.rq_util_est = rq.avg.util_est;
        } else {
            r.ue_enqueued = a.util_est.enqueued & ~utilest::UTIL_AVG_UNCHANGED;
            r.ue_ewma = a.util_est.ewma;
            r.rq_util_est = rq.avg.util_est.enqueued;
        }
    }
};


enum class St : std::uint8_t { asleep, queued, on_cpu };

// The PELT clock of one CPU (see simulate.h).
struct Clock {
    std::uint64_t wall = 0, pelt = 0;
    std::uint32_t running = 0; // tasks running on it
    std::uint32_t scale = 1024 * 1024; // capacity * freq
    std::uint32_t capacity = 1024, freq = 1024;
    void advance(std::uint64_t t) {
        if (t > wall) {
            if (running) {
                // cap_scale(cap_scale(delta, capacity), freq)
                unsigned __int128 d = t - wall;
                d = (d * capacity) >> 10;
                d = (d * freq) >> 10;
                pelt += std::uint64_t(d);
            } else {
                pelt = t; // idle: the PELT clock is synced to the task clock
            }
            wall = t;
        }
    }
};

template <class M, class A, bool Record>
Result run_model(M &m, const Workload &wl, const Impl &impl, Start start) {
    using ulong = typename A::ulong;
    Result res;
    res.impl = impl;
    res.arch = A::arch;
    const std::size_t n = wl.tasks.size();
    struct PerTask {
        typename M::TaskState s{};
        std::uint32_t cpu;
        std::uint32_t weight;
        St st = St::asleep;
        bool started = false;
    };
    std::vector<PerTask> tasks(n);
    for (std::size_t i = 0; i < n; ++i) {
        tasks[i].cpu = wl.tasks[i].cpu;
        tasks[i].weight = wl.tasks[i].weight;
    }
    std::vector<typename M::Rq> rqs(wl.cpus.size());
    std::vector<Clock> clocks(wl.cpus.size());
    bool scaled = false;
    for (std::size_t c = 0; c < wl.cpus.size(); ++c) {
        clocks[c].capacity = wl.cpus[c].capacity;
        clocks[c].freq = wl.cpus[c].freq;
        scaled |= wl.cpus[c].capacity != 1024 || wl.cpus[c].freq != 1024;
    }
    if constexpr (Record)
        res.rows.reserve(wl.events.size());
    const bool ue = m.has_ue();
    const int order = ue ? m.order() : 0;
    std::uint64_t updates = 0;

    for (const Event &e : wl.events) {
        PerTask &p = tasks[e.task];
        std::uint64_t now = e.t;
        if (scaled) {
            clocks[p.cpu].advance(e.t);
            now = clocks[p.cpu].pelt;
        }
        if (start != Start::empty && !p.started) {
            m.begin(p.s, now, start == Start::saturated, ulong(p.weight));
            p.started = true;
        }
        // The inputs of __update_load_avg_se() in the state before the event:
        // load = se->on_rq, runnable = se_runnable(), running = curr == se.
        ulong load = p.st != St::asleep, running = p.st == St::on_cpu;
        auto pelt = [&](ulong ld, ulong rn, ulong run) {
            ++updates;
            m.update(p.s, now, ld, rn, int(run), ulong(p.weight));
        };
        switch (e.kind) {
        case ev::tick: pelt(load, load, running); break;
        case ev::wakeup:
            if (ue)
                m.ue_enqueue(rqs[p.cpu], p.s);
            pelt(0, 0, 0);
            p.st = St::on_cpu;
            clocks[p.cpu].running++;
            break;
        case ev::wakeup_queued:
            if (ue)
                m.ue_enqueue(rqs[p.cpu], p.s);
            pelt(0, 0, 0);
            p.st = St::queued;
            break;
        case ev::run:
            pelt(load, load, running);
            p.st = St::on_cpu;
            clocks[p.cpu].running++;
            break;
        case ev::preempt:
            pelt(load, load, running);
            p.st = St::queued;
            clocks[p.cpu].running--;
            break;
        case ev::sleep:
            if (ue && order != sample_in_dequeue_after)
                m.ue_dequeue(rqs[p.cpu], p.s, true);
            if (ue && order == sample_before)
                m.ue_update(rqs[p.cpu], p.s, ulong(wl.cpus[p.cpu].capacity));
            pelt(load, load, running);
            if (ue && order == sample_after)
                m.ue_update(rqs[p.cpu], p.s, ulong(wl.cpus[p.cpu].capacity));
            if (ue && order == sample_in_dequeue_after)
                m.ue_dequeue(rqs[p.cpu], p.s, true);
            if (p.st == St::on_cpu)
                clocks[p.cpu].running--;
            p.st = St::asleep;
            break;
        case ev::migrate: {
            pelt(load, load, running);
            std::uint32_t to = e.arg;
            if (to != p.cpu) {
                if (ue && p.st != St::asleep) {
                    m.ue_dequeue(rqs[p.cpu], p.s, false);
                    m.ue_enqueue(rqs[to], p.s);
                }
                if (scaled) {
                    // Keep the time not yet accounted (now - last_update_time)
                    // across the change of clock.
                    clocks[to].advance(e.t);
                    std::uint64_t pending = now - m.lut(p.s);
                    m.rebase(p.s, clocks[to].pelt - pending);
                }
                if (p.st == St::on_cpu) {
                    clocks[p.cpu].running--;
                    clocks[to].running++;
                }
                p.cpu = to;
            }
            break;
        }
        case ev::set_weight:
            pelt(load, load, running);
            p.weight = e.arg;
            m.reweight(p.s, ulong(p.weight));
            break;
        }
        if constexpr (Record) {
            Row r;
            r.t = e.t;
            r.task = e.task;
            r.kind = e.kind;
            r.cpu = p.cpu;
            m.fill(r, p.s, rqs[p.cpu]);
            res.rows.push_back(r);
        }
    }
    res.updates = updates;
    return res;
}

template <class M, class A> Result run_any(M &m, const Workload &wl, const Impl &impl, bool record, Start start) {
    return record ? run_model<M, A, true>(m, wl, impl, start) : run_model<M, A, false>(m, wl, impl, start);
}

} // namespace sc::sim
