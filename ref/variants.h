// The variant registry: every built-in, named, kernel-faithful version of a
// family's code, with the source it follows.
#pragma once
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "ref/cpuload.h"
#include "ref/idle_balance.h"
#include "ref/pelt.h"
#include "ref/util_est.h"
#include "ref/wake_affine.h"

namespace sc {

struct Variant {
    std::string id;          // stable, e.g. "cpuload/shi-1-4"
    std::string family;      // "cpuload"
    std::string description; // which seed, patch or release it follows
    cpuload::patch_level level = cpuload::patch_level::v3_13;
    int code = 0; // the family's version enum (pelt::version, utilest::version, idlebal::version,
                  // wakeaffine::version) as a number
};

const std::vector<Variant> &variants();
const Variant *find_variant(std::string_view id);
std::vector<std::string> families();

} // namespace sc
