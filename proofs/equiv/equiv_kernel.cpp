// The built-in kernel oracles (generated at build time from the
// linux-source tarballs): what they are, their self-check, and the
// equivalence of the pelt and utilest variants with them
// (proofs/equiv/equiv_kernel_cases.h).
#include "proofs/equiv/equiv_kernel.h"

#include "oracle_gen/linux_6_1.h"
#include "oracle_gen/linux_6_12.h"
#include "proofs/decay_table.h"
#include "proofs/equiv/equiv_kernel_cases.h"

namespace sc::proofs {

std::vector<OracleInfo> kernel_oracles() {
    std::vector<OracleInfo> out;
#if SC_ORACLE_LINUX_6_1
    out.push_back({"linux-6.1", std::string("Linux ") + oracle_gen::linux_6_1::version + ", PELT, util_est, newidle cost and wake_affine", true,
                   "", definition_list(oracle_gen::linux_6_1::has), "pelt/v6.1, utilest/v6.1, idlebal/v6.1, wakeaffine/v6.1", true,
                   check_decay_table(oracle_gen::linux_6_1::kernel<lp64>::runnable_avg_yN_inv,
                                     oracle_gen::linux_6_1::load_avg_max)});
#else
    out.push_back({"linux-6.1", "Linux 6.1, PELT and util_est", false, oracle_gen::linux_6_1::reason, {}, "", false, {}});
#endif
#if SC_ORACLE_LINUX_6_12
    out.push_back({"linux-6.12", std::string("Linux ") + oracle_gen::linux_6_12::version + ", PELT, util_est, newidle cost and wake_affine",
                   true, "", definition_list(oracle_gen::linux_6_12::has), "pelt/v6.12, utilest/v6.12, idlebal/v6.12, wakeaffine/v6.1", true,
                   check_decay_table(oracle_gen::linux_6_12::kernel<lp64>::runnable_avg_yN_inv,
                                     oracle_gen::linux_6_12::load_avg_max)});
#else
    out.push_back({"linux-6.12", "Linux 6.12, PELT and util_est", false, oracle_gen::linux_6_12::reason, {}, "", false, {}});
#endif
    return out;
}

void prove_kernel_equivalence(EquivResult &res, const Variant &v, unsigned timeout_ms) {
#if SC_ORACLE_LINUX_6_1
    if (res.oracle == "linux-6.1")
        return kequiv::prove_with_oracle<oracle_gen::linux_6_1::kernel, oracle_gen::linux_6_1::split_util_est>(
            res, v, timeout_ms);
#endif
#if SC_ORACLE_LINUX_6_12
    if (res.oracle == "linux-6.12")
        return kequiv::prove_with_oracle<oracle_gen::linux_6_12::kernel, oracle_gen::linux_6_12::split_util_est>(
            res, v, timeout_ms);
#endif
    (void)v;
    (void)timeout_ms;
    throw input_error("oracle " + res.oracle + " is not available in this build");
}

} // namespace sc::proofs
