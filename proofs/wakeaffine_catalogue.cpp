// The wakeaffine invariants in the catalogue (seed 003), on every reference
// variant of the family and on the built-in kernel oracles' own
// wake_affine() (proofs/kernel/wakeaffine_kernel.h); an `oracle build`
// plug-in runs the same entries on its own code.
#include "oracle_gen/linux_6_1.h"
#include "oracle_gen/linux_6_12.h"
#include "proofs/balance_entry.h"
#include "proofs/balance_invariants.h"
#include "proofs/kernel/wakeaffine_kernel.h"
#include "proofs/wakeaffine_invariants.h"

namespace sc::proofs {

namespace {

using balance_detail::Entry;

template <class F> auto with_wakeaffine(const Variant &v, F &&f) {
    using wv = wakeaffine::version;
    using wakeaffine_inv::RefWakeAffine;
    if (v.family == "wakeaffine") {
        switch (static_cast<wv>(v.code)) {
        case wv::v2_6_37: return f.template operator()<RefWakeAffine<wv::v2_6_37>>();
        case wv::pjt_1: return f.template operator()<RefWakeAffine<wv::pjt_1>>();
        case wv::pjt_1_3: return f.template operator()<RefWakeAffine<wv::pjt_1_3>>();
        case wv::v3_13: return f.template operator()<RefWakeAffine<wv::v3_13>>();
        case wv::v6_1: return f.template operator()<RefWakeAffine<wv::v6_1>>();
        }
    }
    using wakeaffine_inv::KernelWakeAffine;
    using wakeaffine_inv::wakeaffine_runs_on;
#if SC_ORACLE_LINUX_6_1
    if constexpr (wakeaffine_runs_on<oracle_gen::linux_6_1::kernel>)
        if (v.id == "linux-6.1")
            return f.template operator()<KernelWakeAffine<oracle_gen::linux_6_1::kernel>>();
#endif
#if SC_ORACLE_LINUX_6_12
    if constexpr (wakeaffine_runs_on<oracle_gen::linux_6_12::kernel>)
        if (v.id == "linux-6.12")
            return f.template operator()<KernelWakeAffine<oracle_gen::linux_6_12::kernel>>();
#endif
    throw input_error(v.id + " has no wake_affine functions");
}

// The built-in oracles whose trees held the family's functions.
bool wakeaffine_on_kernel(const Variant &v) {
#if SC_ORACLE_LINUX_6_1
    if (v.id == "linux-6.1")
        return wakeaffine_inv::wakeaffine_runs_on<oracle_gen::linux_6_1::kernel>;
#endif
#if SC_ORACLE_LINUX_6_12
    if (v.id == "linux-6.12")
        return wakeaffine_inv::wakeaffine_runs_on<oracle_gen::linux_6_12::kernel>;
#endif
    (void)v;
    return false;
}

struct WakeAffineFamily {
    static constexpr const char *name = "wakeaffine";
    static bool on_kernel(const Variant &v) { return wakeaffine_on_kernel(v); }
    template <class F> static auto with(const Variant &v, F &&f) { return with_wakeaffine(v, std::forward<F>(f)); }
};

} // namespace

void register_wakeaffine_invariants(std::vector<InvariantInfo> &out) {
    using namespace wakeaffine_inv;
    out.push_back(Entry<NoOverflow, WakeAffineFamily>::info(
        "no arithmetic of the wake_affine() decision wraps where the code does not mean it to, signed or unsigned; "
        "reports the largest safe load"));
    out.push_back(Entry<HotNotMoved, WakeAffineFamily>::info(
        "with NO_HOT_AFFINE on, a wakee cache-hot on prev_cpu is never pulled to this_cpu"));
    // On the variants that have effective_load() (v2.6.37 .. v3.13); 6.1
    // weighs the wake-up in wake_affine_weight() and has none.
    out.push_back(Entry<EffectiveLoadMonotone, WakeAffineFamily>::info(
        "adding more weight to a group's cfs_rq never lowers effective_load() there (one group level)"));
    out.push_back(Entry<DecisionSymmetric, WakeAffineFamily>::info(
        "swapping the two CPUs' loads changes the decision consistently: pulled to the busier this_cpu implies "
        "pulled once it is the lighter; equal loads are one state, decided by the variant's tie rule"));
}

} // namespace sc::proofs
