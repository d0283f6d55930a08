// Inputs of `schedcheck simulate`: a workload file (sim/workload.h) or a
// `trace-cmd report` text, and the comparison of a simulation with the
// sched_pelt_se events of such a trace (--check).
#pragma once
#include <cstdint>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "sim/simulate.h"
#include "sim/workload.h"

namespace sc::sim {

// One sched_pelt_se line: what the kernel reported after an update.
struct PeltEvent {
    std::size_t line;
    std::uint32_t task;
    std::uint64_t t, load, runnable, util, update_time;
};

// trace-cmd report text is read up to this size.
constexpr std::size_t trace_max_bytes = std::size_t(2) << 30;

struct Input {
    Workload workload;
    std::vector<PeltEvent> pelt_events;
};

// A JSON workload (the text starts with '{') or a trace-cmd report.
// pids/comms choose the traced tasks to simulate (all when both are
// empty).  Throws proofs::input_error naming the file, line and field.
Input load_input(const std::string &path, const std::vector<std::int64_t> &pids,
                 const std::vector<std::string> &comms);

struct CheckReport {
    std::string impl;
    std::size_t events = 0, outside = 0;
    std::vector<std::string> first_outside; // at most 20, in words
};
CheckReport check_against_trace(const Input &in, const Result &r);
nlohmann::json check_json(const CheckReport &c);
std::string check_text(const CheckReport &c);

} // namespace sc::sim
