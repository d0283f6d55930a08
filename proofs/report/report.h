// Text and JSON renderings of verdicts and counterexamples.
#pragma once
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "proofs/invariant.h"
#include "proofs/report/reproducer.h"

namespace sc::proofs {

// The reviewer report for a reproducer and its replay: plain text, fit to
// paste into a mail reply.
std::string reviewer_report(const Reproducer &r, const ReplayResult &rr, const std::string &repro_path);

// One row per result, aligned; the expected verdict is shown where it differs.
std::string verdict_table(const std::vector<ProofResult> &results);

nlohmann::json result_json(const ProofResult &r);
nlohmann::json replay_json(const Reproducer &r, const ReplayResult &rr);

std::string with_hex(std::uint64_t v);

} // namespace sc::proofs
