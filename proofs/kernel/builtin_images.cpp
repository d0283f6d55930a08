#include "proofs/kernel/builtin_images.h"

#include <filesystem>

#include "oracle_gen/linux_6_12.h"
#include "oracle_gen/linux_6_12_neutral.h"
#include "oracle_gen/linux_6_1.h"
#include "oracle_gen/linux_6_1_neutral.h"
#include "proofs/invariant.h"
#include "proofs/kernel/oracle_plugin.h"

namespace sc::proofs {

std::string builtin_with_code(const std::string &code) {
    if (oracle_gen::linux_6_1_neutral::code && code == oracle_gen::linux_6_1_neutral::code)
        return "linux-6.1";
    if (oracle_gen::linux_6_12_neutral::code && code == oracle_gen::linux_6_12_neutral::code)
        return "linux-6.12";
    return "";
}

namespace {

template <template <class> class K, utilest::version V> TaskRunner builtin_runner() {
    using Pelt = iface::KernelPelt<K>;
    using UE = iface::KernelUtilEst<K, V>;
    constexpr bool has_ue = K<lp64>::shim_has_util_est;
    return [](const TaskRun &r) {
        return r.lp64 ? run_task<Pelt, UE, has_ue, lp64>(r) : run_task<Pelt, UE, has_ue, ilp32>(r);
    };
}

} // namespace

TaskRunner task_runner(const std::string &oracle, const std::string &oracle_dir) {
#if SC_ORACLE_LINUX_6_1
    if (oracle == "linux-6.1")
        return builtin_runner<oracle_gen::linux_6_1::kernel, utilest::version::v6_1>();
#endif
#if SC_ORACLE_LINUX_6_12
    if (oracle == "linux-6.12")
        return builtin_runner<oracle_gen::linux_6_12::kernel, utilest::version::v6_12>();
#endif
    check_oracle_name(oracle, "--oracle");
    const Plugin *pl = &load_plugin((std::filesystem::path(oracle_dir) / (oracle + ".so")).string(), oracle);
    return [pl](const TaskRun &r) { return run_with_plugin(*pl, r); };
}

} // namespace sc::proofs
