// `review --fuzz-seconds`: the post-image against the pre-image on random
// task lives (cli/review_fuzz.cpp).
#pragma once
#include <cstdint>
#include <optional>
#include <vector>

#include <nlohmann/json.hpp>

#include "proofs/oracle_plugin.h"

namespace sc::cli {

struct ReviewFuzz {
    std::uint64_t seed = 0, lives = 0, calls = 0;
    double seconds = 0;
    struct Difference {
        proofs::TaskRun run;  // shrunk
        std::size_t step = 0; // the first call after which the images differ
        std::vector<proofs::TaskSnapshot> pre, post;
    };
    std::optional<Difference> found;
};

// Runs random lives on both plug-ins for `seconds` (or until the first
// difference, which is shrunk).
ReviewFuzz fuzz_pre_post(const proofs::Plugin &pre, const proofs::Plugin &post, unsigned seconds, std::uint64_t seed);

nlohmann::json to_json(const proofs::TaskRun &r);

} // namespace sc::cli
