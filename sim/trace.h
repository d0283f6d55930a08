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
    bool trace = false; // read from trace-cmd text: tasks start at their first event (Start::zero)
    std::vector<PeltEvent> pelt_events;
};

// A JSON workload (the text starts with '{') or a trace-cmd report.
// pids/comms choose the traced tasks to simulate (all when both are
// empty).  Throws proofs::input_error naming the file, line and field.
Input load_input(const std::string &path, const std::vector<std::int64_t> &pids,
                 const std::vector<std::string> &comms);
// The same on text already read; path names it in messages.
Input parse_input(const std::string &text, const std::string &path, const std::vector<std::int64_t> &pids,
                  const std::vector<std::string> &comms);

// --check.  The sums are not traced, so the simulation runs twice, from the
// smallest (all zero) and the largest (saturated) state at each task's
// first event: PELT is monotone in the sums it starts from (decay_load() is
// monotone in its value, and what an update adds does not depend on the
// state), so the kernel's values lie between the two runs.  A
// sched_pelt_se event is compared with the two runs' last rows at or
// before its timestamp, widened by what the signals can move in the time
// between that row's last_update_time and the event's update_time
// (1024 * gap / 46718 + 2 units; weight instead of 1024 for load) to allow
// for the kernel's updates the trace does not show (ticks, blocked-load
// updates).
struct CheckReport {
    std::string impl;
    std::size_t events = 0, outside = 0;
    std::vector<std::string> first_outside; // at most 20, in words
};
CheckReport check_against_trace(const Input &in, const Impl &impl, Arch arch);
nlohmann::json check_json(const CheckReport &c);
std::string check_text(const CheckReport &c);

} // namespace sc::sim
