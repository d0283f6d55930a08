#include "ref/variants.h"

namespace sc {

const std::vector<Variant> &variants() {
    using cpuload::patch_level;
    static const std::vector<Variant> all = {
        {"cpuload/v3.13", "cpuload",
         "v3.13 rq->cpu_load[5] with missed-tick decay (the tree seed 000's series applies to)",
         patch_level::v3_13},
        {"cpuload/shi-1", "cpuload",
         "seed 000 patch 1/4: periodic balancing reads load index 0", patch_level::shi_1},
        {"cpuload/shi-1-3", "cpuload",
         "seed 000 patches 1-3/4: one rq->cpu_load, decay and pending updates removed",
         patch_level::shi_1_3},
        {"cpuload/shi-1-4", "cpuload",
         "seed 000 patches 1-4/4: nohz update keeps the cfs load of a busy nohz_full CPU",
         patch_level::shi_1_4},
        {"cpuload/shi-1-5", "cpuload",
         "seed 000 patches 1-4/4 + follow-up: target_load() scaled by sd->imbalance_pct",
         patch_level::shi_1_5},
        {"pelt/v3.8", "pelt",
         "Linux v3.8 per-entity runnable average: runnable_avg_sum/period, contrib = w*sum/(period+1), "
         "64-bit wrapping decay_load (read in a v3.8.13 tree)",
         {}, int(pelt::version::v3_8)},
        {"pelt/v4.3", "pelt",
         "Linux v4.3: seed 001's rewrite as merged: weighted 64-bit load_sum, period_contrib, piecewise decay, "
         "divides by LOAD_AVG_MAX (rebuilt from derived trees; the v4.3 tag itself was not available)",
         {}, int(pelt::version::v4_3)},
        {"pelt/v4.12", "pelt",
         "Linux v4.12: three-segment accumulate_sum / __accumulate_pelt_segments, last_update_time += "
         "delta<<10, divides by LOAD_AVG_MAX (read in a v4.12.4 tree)", {},
         int(pelt::version::v4_12)},
        {"pelt/v6.1", "pelt", "Linux 6.1 kernel/sched/pelt.c: ___update_load_sum / ___update_load_avg, runnable_sum",
         {}, int(pelt::version::v6_1)},
        {"pelt/v6.12", "pelt", "Linux 6.12 kernel/sched/pelt.c (arithmetic as in 6.1)", {},
         int(pelt::version::v6_12)},
        {"utilest/bellasi-v3", "utilest",
         "seed 004: Bellasi's util_est, EWMA w=1/4 updated in util_est_dequeue on sleep, skipped within 1%; "
         "follows the series as merged (v4.19 text, before the UNCHANGED flag), the v3 posting's text "
         "was not available", {},
         int(utilest::version::bellasi_v3)},
        {"utilest/bellasi-v3-uncond", "utilest",
         "bellasi-v3 with the EWMA updated on every sleep (the unconditional update asked for in review)", {},
         int(utilest::version::bellasi_v3_uncond)},
        {"utilest/v6.1", "utilest",
         "Linux 6.1: UNCHANGED flag in enqueued, UTIL_EST_FASTUP, 1% skip on both members, capacity_orig_of "
         "check", {},
         int(utilest::version::v6_1)},
        {"utilest/v6.12", "utilest",
         "Linux 6.12: one util_est word, increases taken at once, 1% skip, arch capacity and runnable_avg "
         "checks", {},
         int(utilest::version::v6_12)},
        {"idlebal/v3.11", "idlebal",
         "seed 002 baseline: ttwu_do_wakeup() sets avg_idle to 2*sysctl_sched_migration_cost when the sample "
         "exceeds it and averages otherwise (update_avg: diff >> 3); idle_balance() skips below the sysctl and "
         "balances every domain until a pull (read in a v3.11/v3.12-era core.c and in v3.11-rc fair.c excerpts)",
         {}, int(idlebal::version::v3_11)},
        {"idlebal/low-1", "idlebal",
         "seed 002 patch 1/3 (abfafa54db9a): avg_idle averaged first, then capped at 2*sysctl; the posting's text "
         "was not available, follows the commit as merged for v3.13 with the later patches removed",
         {}, int(idlebal::version::low_1)},
        {"idlebal/low-1-2", "idlebal",
         "seed 002 patches 1-2/3 (+ 9bd721c55c8a): per-domain max_newidle_lb_cost, the domain walk stops when "
         "avg_idle < curr_cost + max_newidle_lb_cost; rebuilt from the v3.13 tree without patch 3",
         {}, int(idlebal::version::low_1_2)},
        {"idlebal/low-1-3", "idlebal",
         "seed 002 patches 1-3/3 (+ f48627e686a6) = Linux v3.13 (read in a v3.13.10 tree): decay by 253/256 in "
         "rebalance_domains() once jiffies passes next_decay_max_lb_cost (+HZ), rq->max_idle_balance_cost caps "
         "avg_idle at twice itself; the v4 posting's RFC text was not available",
         {}, int(idlebal::version::low_1_3)},
        {"idlebal/v6.1", "idlebal",
         "Linux 6.1 as in Debian's 6.1.192 tree: update_avg() with diff / 8, update_newidle_cost() (decay after "
         "> HZ jiffies without a new max), early skip on !overload || avg_idle < sd->max_newidle_lb_cost, "
         "wake_avg_idle; carries the NI_RANDOM newidle dice backport (knob; off = upstream v6.1)",
         {}, int(idlebal::version::v6_1)},
        {"idlebal/v6.12", "idlebal",
         "Linux 6.12 as in Debian's 6.12.117 tree: as 6.1 without wake_avg_idle, sched_balance_newidle() stops "
         "on !continue_balancing; NI_RANDOM backport as in 6.1",
         {}, int(idlebal::version::v6_12)},
        {"wakeaffine/v2.6.37", "wakeaffine",
         "seed 003 baseline, Linux v2.6.37 (read in a v2.6.37 tree): effective_load() on the old per-cpu "
         "shares (cfs_rq->shares, rq_weight, ASYM_EFF_LOAD), wake_affine() in unsigned long with imbalance_pct",
         {}, int(wakeaffine::version::v2_6_37)},
        {"wakeaffine/pjt-1", "wakeaffine",
         "seed 003 patch 1/3 as merged for v2.6.38 (read in a v2.6.38 tree): effective_load() from the "
         "group's global load_weight, MIN_SHARES clip, s64 loads in wake_affine() (s64 not confirmed to be part "
         "of the patch); the posting's text was not available",
         {}, int(wakeaffine::version::pjt_1)},
        {"wakeaffine/pjt-1-3", "wakeaffine",
         "seed 003 patches 1-3/3: pjt-1 + task_hot() without its domain argument + sched_feat(NO_HOT_AFFINE) "
         "(no affine pull of a task cache-hot on prev_cpu); 2/3 and 3/3 rebuilt from the cover letter, never "
         "merged",
         {}, int(wakeaffine::version::pjt_1_3)},
        {"wakeaffine/v3.13", "wakeaffine",
         "Linux v3.13 (read in a v3.13.10 tree): effective_load() on tg->load_avg (calc_tg_weight), unsigned "
         "MIN_SHARES, wake_wide() first, s64 loads",
         {}, int(wakeaffine::version::v3_13)},
        {"wakeaffine/v6.1", "wakeaffine",
         "Linux 6.1 (read in Debian's 6.1.192 tree): wake_affine_idle(), wake_affine_weight() with s64 effective "
         "loads, task_h_load(), capacity_of(), WA_IDLE/WA_WEIGHT/WA_BIAS",
         {}, int(wakeaffine::version::v6_1)},
    };
    return all;
}

const Variant *find_variant(std::string_view id) {
    for (const Variant &v : variants())
        if (v.id == id)
            return &v;
    return nullptr;
}

std::vector<std::string> families() {
    std::vector<std::string> f;
    for (const Variant &v : variants())
        if (f.empty() || f.back() != v.family)
            f.push_back(v.family);
    return f;
}

} // namespace sc
