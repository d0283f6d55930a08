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
