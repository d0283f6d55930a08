// A cpuload scenario: an initial runqueue, the balance knobs, and a list of
// steps, each one call into ref/cpuload.h.  Proofs build scenarios with
// symbolic holes, reproducers store concrete ones, and the fuzzer generates
// them; simulate() runs one on any arithmetic and records the trace.
#pragma once
#include "ref/cpuload.h"

#include <stdexcept>
#include <string>
#include <string_view>
#include <vector>

namespace sc::cpuload {

enum class op : unsigned char {
    tick,        // rq load := a, then update_cpu_load_active() at jiffies b
    idle_update, // update_idle_cpu_load() at jiffies a
    nohz_exit,   // update_cpu_load_nohz() at jiffies a
    set_load,    // enqueue/dequeue: runnable_load_avg := a, h_nr_running := n
    update,      // __update_cpu_load(this_load = a, pending_updates = b)
    decay,       // out0 := decay_load_missed(a, b, idx)
    balance,     // out0 := source_load(idx), out1 := target_load(idx)
};
constexpr int op_count = 7;

inline std::string_view op_name(op o) {
    constexpr std::string_view names[op_count] = {"tick",   "idle_update", "nohz_exit", "set_load",
                                                  "update", "decay",       "balance"};
    return names[static_cast<int>(o)];
}

// The load index a step reads rq->cpu_load[] at, which the kernel passes
// as an int: decay_load_missed()'s idx is 1..4 (index 0, the instantaneous
// load, is never decayed); source_load()/target_load()'s type is 0..4 (0
// the instantaneous load, k > 0 means cpu_load[k - 1]).  Other ops ignore
// idx.  Readers of scenarios check these ranges and name the field;
// simulate() checks them again, so no scenario can index out of bounds.
constexpr int step_idx_min(op o) { return o == op::decay ? 1 : 0; }
constexpr int step_idx_max(op o) { return o == op::decay || o == op::balance ? CPU_LOAD_IDX_MAX - 1 : 0; }
constexpr bool step_uses_idx(op o) { return o == op::decay || o == op::balance; }
constexpr bool step_idx_valid(op o, int idx) {
    return !step_uses_idx(o) || (idx >= step_idx_min(o) && idx <= step_idx_max(o));
}

// A step whose idx is out of its range: a bug in whatever built the
// scenario (readers reject such input first).
struct invalid_step : std::logic_error {
    using std::logic_error::logic_error;
};

template <class A> struct step {
    op kind;
    typename A::ulong a{0}, b{0};
    typename A::uint n{0};
    int idx = 0; // load index (decay) or load type (balance)
};

template <class A> struct knobs {
    bool lb_bias = true;                   // sched_feat(LB_BIAS)
    typename A::uint imbalance_pct{125};   // sd->imbalance_pct (shi-1-5 target_load)
};

template <class A> struct scenario {
    rq<A> init;
    knobs<A> kn;
    std::vector<step<A>> steps;
};

template <class A> struct record {
    rq<A> after;
    typename A::ulong out0{0}, out1{0};
};

template <class A> struct trace {
    std::vector<record<A>> recs;
};

// An op that does not exist at this patch level (decay after 2/4 removed it).
struct unsupported_step : std::runtime_error {
    using std::runtime_error::runtime_error;
};

template <class A, patch_level P> trace<A> simulate(const scenario<A> &s) {
    trace<A> t;
    t.recs.reserve(s.steps.size());
    rq<A> r = s.init;
    for (const step<A> &st : s.steps) {
        if (!step_idx_valid(st.kind, st.idx))
            throw invalid_step(std::string(op_name(st.kind)) + " step with load index " + std::to_string(st.idx) +
                               " (valid: " + std::to_string(step_idx_min(st.kind)) + ".." +
                               std::to_string(step_idx_max(st.kind)) + ")");
        record<A> rec{r};
        switch (st.kind) {
        case op::tick:
            r.cfs.runnable_load_avg = st.a;
            update_cpu_load_active<A, P>(r, st.b);
            break;
        case op::idle_update: update_idle_cpu_load<A, P>(r, st.a); break;
        case op::nohz_exit: update_cpu_load_nohz<A, P>(r, st.a); break;
        case op::set_load:
            r.cfs.runnable_load_avg = st.a;
            r.cfs.h_nr_running = st.n;
            break;
        case op::update: __update_cpu_load<A, P>(r, st.a, st.b); break;
        case op::decay:
            if constexpr (P >= patch_level::shi_1_3)
                throw unsupported_step("decay_load_missed() does not exist at this patch level");
            else
                rec.out0 = decay_load_missed<A>(st.a, st.b, st.idx);
            break;
        case op::balance:
            rec.out0 = source_load<A, P>(r, st.idx, s.kn.lb_bias);
            rec.out1 = target_load<A, P>(r, st.idx, s.kn.imbalance_pct, s.kn.lb_bias);
            break;
        }
        rec.after = r;
        t.recs.push_back(rec);
    }
    return t;
}

// Run f.template operator()<P>() for a patch level known only at run time.
template <class F> decltype(auto) with_patch_level(patch_level p, F &&f) {
    switch (p) {
    case patch_level::v3_13: return f.template operator()<patch_level::v3_13>();
    case patch_level::shi_1: return f.template operator()<patch_level::shi_1>();
    case patch_level::shi_1_3: return f.template operator()<patch_level::shi_1_3>();
    case patch_level::shi_1_4: return f.template operator()<patch_level::shi_1_4>();
    case patch_level::shi_1_5: break;
    }
    return f.template operator()<patch_level::shi_1_5>();
}

template <class A> trace<A> simulate(patch_level p, const scenario<A> &s) {
    return with_patch_level(p, [&]<patch_level P>() { return simulate<A, P>(s); });
}

} // namespace sc::cpuload
