// Workloads for `schedcheck simulate`: what each task does over time, as a
// flat, time-ordered list of scheduler events.
//
// A workload file is JSON (format in README's simulate section and below).
// It describes tasks either by rt-app-style phases (periodic run/sleep at a
// duty cycle) or by explicit timed events.  Both become the same event
// list; the simulator (sim/simulate.h) then updates every task's PELT and
// util_est state at each event, in time order.
//
//   {
//     "tick_hz": 250,                          optional, 0 = no ticks
//     "cpus": [{"capacity": 1024, "freq": 1024}],  optional, default one CPU
//     "tasks": [
//       {"name": "half", "nice": 0, "cpu": 0, "start": 0,
//        "phases": [{"duration": 100000000, "period": 2000000, "duty": 0.5}]},
//       {"name": "ev", "weight": 1024,
//        "events": [{"t": 0, "event": "wakeup"}, {"t": 3000000, "event": "sleep"}]}
//     ]
//   }
//
// Times are in ns.  A task is asleep until its first wakeup.  Tasks do not
// contend for a CPU: a task runs whenever its phases or events say so (write
// preempt/run events to model waiting on a runqueue).
#pragma once
#include <cstdint>
#include <string>
#include <vector>

namespace sc::sim {

enum class ev : std::uint8_t {
    wakeup,     // sleeping -> running (enqueue, then picked at once)
    wakeup_queued, // sleeping -> runnable, waiting to be picked
    run,        // runnable -> running (picked after waiting)
    preempt,    // running -> runnable (put back, still queued)
    sleep,      // running or runnable -> sleeping (dequeue with DEQUEUE_SLEEP)
    migrate,    // to CPU arg, in any state
    set_weight, // se weight := arg
    tick,       // the scheduler tick while running: an update of the current task
};
const char *ev_name(ev e);

struct Event {
    std::uint64_t t;   // ns
    std::uint32_t task;
    ev kind;
    std::uint32_t arg; // migrate: cpu; set_weight: weight
};

struct Cpu {
    std::uint32_t capacity = 1024; // arch_scale_cpu_capacity()
    std::uint32_t freq = 1024;     // arch_scale_freq_capacity()
};

struct Task {
    std::string name;
    std::int64_t pid = -1;     // -1: none given
    std::uint32_t cpu = 0;     // where it starts
    std::uint32_t weight = 1024;
};

struct Workload {
    std::string origin;        // the file, for messages
    std::vector<Cpu> cpus;
    std::vector<Task> tasks;
    std::vector<Event> events; // sorted by (t, task), a task's own events in order
    std::uint64_t end = 0;     // last event time
};

// The kernel's sched_prio_to_weight[] for nice -20..19 (nice 0 is 1024;
// each step is a factor of about 1.25).
std::uint32_t nice_to_weight(int nice);

// Largest se weight accepted: MAX_SHARES, the largest group weight.
constexpr std::uint32_t max_weight = 1u << 18;
// A workload may expand to at most this many events (24 bytes each, 480 MB).
// A phase or a run of ticks is counted before it is expanded, so a short
// file that asks for more fails at once, not after gigabytes.  simulate
// holds one row per event and implementation on top (sim/simulate.h).
constexpr std::size_t max_events = 20'000'000;
// At most this far in time: 2^62 ns, so that t + period never wraps.
constexpr std::uint64_t max_time = 1ULL << 62;
// Workload files are read up to this size.
constexpr std::size_t workload_max_bytes = 64u << 20;

// Parse and expand.  Throws proofs::input_error "ORIGIN: FIELD: what" for
// anything invalid (unknown field, wrong type, negative or zero duration,
// time going backwards, an event the task's state does not allow, ...);
// JSON syntax errors carry the line and column.
Workload parse_workload(const std::string &text, const std::string &origin);
Workload load_workload(const std::string &path);

// Sort events by time; equal times keep task order, and a task's own events
// their given order.
void sort_events(std::vector<Event> &evs);

} // namespace sc::sim
