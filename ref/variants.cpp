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
