// `review --fuzz-seconds`: the post-image against the pre-image on random
// task lives (cli/review_fuzz.cpp).
#pragma once
#include <cstdint>
#include <optional>
#include <vector>

#include <nlohmann/json.hpp>

#include "proofs/kernel/builtin_images.h"
#include "proofs/invariant.h"

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

// Runs random lives on both images (plug-ins or built-in oracles) for
// `seconds` (or until the first difference, which is shrunk).
ReviewFuzz fuzz_pre_post(const proofs::TaskRunner &pre, const proofs::TaskRunner &post, unsigned seconds,
                         std::uint64_t seed);

nlohmann::json to_json(const proofs::TaskRun &r);

} // namespace sc::cli
