// `schedcheck simulate`: every task's PELT and util_est state, updated at
// every event of a workload (sim/workload.h), on a reference variant or on
// a kernel oracle (built in, or an `oracle build` plug-in running the same
// event loop, sim/run_model.h), bit for bit as that code computes it.
//
// Convention: a row at time t is the state *after* the update at t.  Each
// event is one update (and one row); several events of a task at one time
// give several rows, the last being the state at t.
//
// What an event does, in the order the kernel's callers do it (6.x):
//   wakeup   util_est_enqueue(); PELT update as not runnable (se->on_rq is
//            still 0 in enqueue_entity()); then runnable and running.
//   wakeup_queued  as wakeup, but the task then waits to be picked.
//   run      PELT update as runnable, waiting; then running.
//   preempt  PELT update as running; then runnable, waiting.
//   tick     PELT update as running (entity_tick()).
//   sleep    util_est_dequeue(); PELT update in the current state;
//            util_est_update(sleep) -- 6.12 calls util_est_update() before
//            the PELT update, 6.1 after it; bellasi-v3 folds the sample in
//            util_est_dequeue(), after the PELT update (as merged in 4.17).
//   migrate  PELT update on the old CPU; the task leaves the old CPU's
//            util_est sum and joins the new one's (if queued).  The sums are
//            kept (the kernel's re-derivation of the sums from the averages
//            on attach is not modelled).
//   set_weight  PELT update with the old weight; then, in 6.x, load_avg =
//            weight * load_sum / divider as reweight_entity() does.
// Every PELT update that crosses a period boundary recomputes the averages
// and (6.x) clears util_est's UTIL_AVG_UNCHANGED flag (cfs_se_util_change()).
//
// Time: the PELT clock of each CPU (rq->clock_pelt) advances by
// delta * capacity/1024 * freq/1024 while a task runs on it and catches up
// with the wall clock when it is idle, so a slow or small CPU accrues less
// running time and the lost time is seen as extra idle time.  At 1024/1024
// it is the wall clock.
#pragma once
#include <cstdint>
#include <functional>
#include <string>
#include <vector>

#include "ref/kernel.h"
#include "sim/workload.h"

namespace sc::sim {

constexpr std::uint64_t none = ~0ULL; // a field this implementation lacks

struct Row {
    std::uint64_t t;
    std::uint32_t task;
    ev kind;
    std::uint32_t cpu;
    std::uint64_t load_avg, runnable_avg, util_avg;
    std::uint64_t load_sum, runnable_sum, util_sum;
    std::uint64_t period_contrib, last_update_time;
    std::uint64_t ue_enqueued, ue_ewma; // util_est without the UNCHANGED flag; `none` if not modelled
    std::uint64_t rq_util_est;          // the CPU's cfs_rq util_est sum after the event, or `none`
};

// The fields a Row shows, by name, for output and comparison.
struct Field {
    const char *name;
    std::uint64_t Row::*member;
};
const std::vector<Field> &row_fields();

// One implementation: "pelt/v6.1" (with its release's util_est),
// "pelt/v4.12+utilest/bellasi-v3", "utilest/v6.12" (with pelt/v6.12), or a
// kernel oracle "linux-6.1" / "linux-6.12" or one `oracle build` made (the
// kernel's own PELT and util_est code).
struct Impl {
    std::string spec;  // as given
    std::string label; // what runs, e.g. "pelt/v6.1 + utilest/v6.1"
    std::string pelt, utilest; // variant ids, or the oracle id; utilest empty: none
    bool oracle = false;
    std::string plugin; // an `oracle build` oracle: its plug-in (DIR/NAME.so); empty when built in
};
// Throws proofs::input_error naming the spec.
// An oracle that is not built in is looked for as oracle_dir/NAME.so (made
// by `schedcheck oracle build`), and loaded after its manifest check.
Impl parse_impl(const std::string &spec, bool oracle, const std::string &oracle_dir = "oracles");
// The ids --variant and --oracle take, for messages.
std::string known_impls();

struct Result {
    Impl impl;
    Arch arch;
    std::vector<Row> rows;    // empty when not recorded
    std::uint64_t updates = 0; // PELT updates performed
};

// The state a task has at its first event.
enum class Start {
    empty,     // all zero, last_update_time 0 (a new task at time 0)
    zero,      // all zero, last_update_time = the first event's time
    saturated, // 6.x only: every sum at its largest (util_avg 1024, load_avg
               // = weight), period_contrib 0, last_update_time = that time
};

// Runs the workload.  record = false keeps no rows (for speed figures).
// Throws proofs::input_error for Start::saturated on a pre-6.x variant.
Result simulate(const Workload &wl, const Impl &impl, Arch arch, bool record = true, Start start = Start::empty);

// simulate keeps every row of every implementation it runs, for the
// comparison and the outputs (which are streamed, not built in memory):
// 112 bytes a row, so at most this many rows in one command (3.4 GB).
constexpr std::size_t max_rows = 30'000'000;

// --every: per task, the row in force at 0, step, 2*step, ... (the last
// row at or before each time; none before a task's first row).  kind of a
// sampled row is ev::tick... marked as a sample by the caller.  Throws
// proofs::input_error when the samples would be more than max_rows.
std::vector<Row> resample(const std::vector<Row> &rows, std::size_t ntasks, std::uint64_t step, std::uint64_t end);

// Where two runs of one workload first differ and by how much at most.
struct Difference {
    bool differ = false;
    std::uint64_t first_t = 0;
    std::uint32_t first_task = 0;
    std::string first_field;
    std::uint64_t first_a = 0, first_b = 0;
    std::vector<std::pair<std::string, std::uint64_t>> max_abs; // per field, where non-zero
};
Difference compare(const std::vector<Row> &a, const std::vector<Row> &b);

} // namespace sc::sim
