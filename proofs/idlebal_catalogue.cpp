// The idlebal invariants in the catalogue (seed 002), on every reference
// variant of the family and on the built-in kernel oracles' own
// update_avg() and update_newidle_cost() (proofs/kernel/idlebal_kernel.h);
// an `oracle build` plug-in runs the same entries on its own code.
#include "oracle_gen/linux_6_1.h"
#include "oracle_gen/linux_6_12.h"
#include "proofs/balance_entry.h"
#include "proofs/balance_invariants.h"
#include "proofs/idlebal_invariants.h"
#include "proofs/kernel/idlebal_kernel.h"

namespace sc::proofs {

namespace {

using balance_detail::Entry;

// Calls f.template operator()<I>() with the implementation behind v.
template <class F> auto with_idlebal(const Variant &v, F &&f) {
    using iv = idlebal::version;
    using idlebal_inv::RefIdleBal;
    if (v.family == "idlebal") {
        switch (static_cast<iv>(v.code)) {
        case iv::v3_11: return f.template operator()<RefIdleBal<iv::v3_11>>();
        case iv::low_1: return f.template operator()<RefIdleBal<iv::low_1>>();
        case iv::low_1_2: return f.template operator()<RefIdleBal<iv::low_1_2>>();
        case iv::low_1_3: return f.template operator()<RefIdleBal<iv::low_1_3>>();
        case iv::v6_1: return f.template operator()<RefIdleBal<iv::v6_1>>();
        case iv::v6_12: return f.template operator()<RefIdleBal<iv::v6_12>>();
        }
    }
#if SC_ORACLE_LINUX_6_1
    if constexpr (idlebal_inv::idlebal_runs_on<oracle_gen::linux_6_1::kernel>)
        if (v.id == "linux-6.1")
            return f.template operator()<idlebal_inv::KernelIdleBal<oracle_gen::linux_6_1::kernel, iv::v6_1>>();
#endif
#if SC_ORACLE_LINUX_6_12
    if constexpr (idlebal_inv::idlebal_runs_on<oracle_gen::linux_6_12::kernel>)
        if (v.id == "linux-6.12")
            return f.template operator()<idlebal_inv::KernelIdleBal<oracle_gen::linux_6_12::kernel, iv::v6_12>>();
#endif
    throw input_error(v.id + " has no idle-balance functions");
}

// The built-in oracles whose trees held the family's functions.  (An
// `oracle build` plug-in runs them itself: proofs/kernel/plugin_prove.h.)
bool idlebal_on_kernel(const Variant &v) {
#if SC_ORACLE_LINUX_6_1
    if (v.id == "linux-6.1")
        return idlebal_inv::idlebal_runs_on<oracle_gen::linux_6_1::kernel>;
#endif
#if SC_ORACLE_LINUX_6_12
    if (v.id == "linux-6.12")
        return idlebal_inv::idlebal_runs_on<oracle_gen::linux_6_12::kernel>;
#endif
    (void)v;
    return false;
}

struct IdleBalFamily {
    static constexpr const char *name = "idlebal";
    static bool on_kernel(const Variant &v) { return idlebal_on_kernel(v); }
    template <class F> static auto with(const Variant &v, F &&f) { return with_idlebal(v, std::forward<F>(f)); }
};

} // namespace

void register_idlebal_invariants(std::vector<InvariantInfo> &out) {
    using namespace idlebal_inv;
    out.push_back(Entry<AvgIdleCapped, IdleBalFamily>::info(
        "avg_idle never exceeds the cap the wake-up applies (2 * sysctl up to low-1-2, 2 * "
        "rq->max_idle_balance_cost from low-1-3 on), at any point of any trace (induction over one step)"));
    out.push_back(Entry<AvgIdleNoJump, IdleBalFamily>::info(
        "one wake-up sample moves avg_idle towards the sample by at most 1/8 of the difference: 8*|move| <= "
        "|sample - avg_idle|, + 7 ns for a falling sample where update_avg() shifts (>> 3 rounds down)"));
    out.push_back(Entry<CostDecayMonotone, IdleBalFamily>::info(
        "a periodic rebalance never raises a domain's max_newidle_lb_cost and is monotone in it; reports the time "
        "a 2^42 ns cost needs to decay to 0 (ms, HZ 100)"));
    out.push_back(Entry<Recovers, IdleBalFamily>::info(
        "after one expensive newidle balance (<= 2^30 ns), balancing at the lowest domain is allowed again "
        "(whenever avg_idle >= sysctl) within a bounded time; reports it in ms (HZ 100)"));
    out.push_back(Entry<SkipSound, IdleBalFamily>::info(
        "a newidle balance is cut short for cost only when avg_idle is below the cost the variant compares it "
        "with, and goes on whenever it is not (NI_RANDOM dice skips aside)"));
    out.push_back(Entry<NoOverflow, IdleBalFamily>::info(
        "no arithmetic of a wake-up, newidle balance or periodic rebalance wraps where the code does not mean it "
        "to (update_avg()'s difference is an exact s64)"));
}

} // namespace sc::proofs
