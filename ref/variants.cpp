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
         "Linux v3.8 per-entity runnable average (__update_entity_runnable_avg, 64-bit decay_load product)",
         {}, int(pelt::version::v3_8)},
        {"pelt/v4.3", "pelt",
         "Linux v4.3: the per-entity load tracking rewrite of seed 001 as merged (__update_load_avg, "
         "load_sum/util_sum, runnable_avg_yN_sum)",
         {}, int(pelt::version::v4_3)},
        {"pelt/v4.12", "pelt",
         "Linux v4.12: three-segment accumulate_sum (__accumulate_pelt_segments)", {},
         int(pelt::version::v4_12)},
        {"pelt/v6.1", "pelt", "Linux 6.1 kernel/sched/pelt.c: ___update_load_sum / ___update_load_avg, runnable_sum",
         {}, int(pelt::version::v6_1)},
        {"pelt/v6.12", "pelt", "Linux 6.12 kernel/sched/pelt.c (arithmetic as in 6.1)", {},
         int(pelt::version::v6_12)},
        {"utilest/bellasi-v3", "utilest",
         "seed 004: Bellasi's util_est v3 as posted (conditional EWMA update)", {},
         int(utilest::version::bellasi_v3)},
        {"utilest/bellasi-v3-uncond", "utilest",
         "seed 004 with the EWMA updated unconditionally, as suggested in review", {},
         int(utilest::version::bellasi_v3_uncond)},
        {"utilest/v6.1", "utilest",
         "Linux 6.1: util_est {enqueued, ewma}, UTIL_EST_FASTUP, within_margin", {},
         int(utilest::version::v6_1)},
        {"utilest/v6.12", "utilest",
         "Linux 6.12: util_est as one word, dequeued/ewma update with the runnable check", {},
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
