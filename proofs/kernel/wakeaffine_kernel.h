// The wakeaffine invariants on a kernel oracle's own code: its
// wake_affine(), with the wake_affine_idle(), wake_affine_weight() and
// task_h_load() it calls, extracted from the tree.  Unlike idlebal there is
// no walk around them: an invariant's wake-up (proofs/wakeaffine_invariants.h)
// is handed to the kernel's wake_affine() through its shims
// (proofs/kernel/kernel_state.h, wa_kernel), and the answer is the CPU it
// returns.  The invariants that apply are those of the 6.1 form.
#pragma once
#include <stdexcept>
#include <tuple>

#include "proofs/kernel/kernel_state.h"
#include "proofs/wakeaffine_invariants.h"

namespace sc::proofs::wakeaffine_inv {

// In catalogue order (proofs/wakeaffine_catalogue.cpp).
using WakeAffineInvariants = std::tuple<NoOverflow, HotNotMoved, EffectiveLoadMonotone, DecisionSymmetric>;

// Whether oracle K holds the wake-up placement (wake_affine() and what it
// calls).
template <template <class> class K> constexpr bool wakeaffine_runs_on = K<lp64>::shim_has_wakeaffine;

template <template <class> class K> struct KernelWakeAffine {
    static constexpr version shape = version::v6_1;
    // The effective loads stay inside the kernel's wake_affine_weight():
    // a report shows the targets the two helpers return, not those loads.
    static constexpr bool kernel = true;

    template <class A> struct on {
        [[noreturn]] static typename A::slong effective_load(const wakeaffine::tg_path<A> &, typename A::slong,
                                                             typename A::slong, const wakeaffine::knobs<A> &) {
            throw std::logic_error("a 6.x kernel has no effective_load()");
        }
        [[noreturn]] static bool task_hot(const wakeaffine::task<A> &, typename A::u64, const wakeaffine::knobs<A> &) {
            throw std::logic_error("a 6.x kernel's wake_affine() has no task_hot() test");
        }
        // 6.12 counts this_cpu's delayed-dequeue tasks out of nr_running:
        // none here (h_nr_queued = h_nr_runnable = 0), as in 6.1.
        static bool affine(const wakeaffine::wake_env<A> &e, const wakeaffine::knobs<A> &k,
                           wakeaffine::wa_trace<A> *tr) {
            using sint = typename A::sint;
            const wa_input<A> w{e, k, {}, {}};
            wa_kernel<K<A>, A> kk(w);
            const sint this_cpu(e.this_cpu), prev_cpu(e.prev_cpu), sync(e.sync ? 1 : 0);
            // The helpers' answers, for a concrete replay's report only.
            if constexpr (is_concrete<A>)
                if (tr) {
                    tr->idle_target = k.WA_IDLE ? int(K<A>::wake_affine_idle(this_cpu, prev_cpu, sync))
                                                : e.nr_cpumask_bits;
                    if (k.WA_WEIGHT && tr->idle_target == e.nr_cpumask_bits)
                        tr->weight_target = int(K<A>::wake_affine_weight(&kk.sd, &kk.p, this_cpu, prev_cpu, sync));
                }
            return bool(K<A>::wake_affine(&kk.sd, &kk.p, this_cpu, prev_cpu, sync) == this_cpu);
        }
    };
};

} // namespace sc::proofs::wakeaffine_inv
