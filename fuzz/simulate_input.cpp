// libFuzzer harness: what `schedcheck simulate INPUT` reads, a JSON
// workload or `trace-cmd report` text (sim/trace.h parse_input), on
// arbitrary bytes; an accepted input is then simulated.
//
// What counts as a bug (the harness aborts):
//   - any exception other than input_error, from the parser or from the
//     simulation of an input it accepted;
//   - an input_error message longer than max_message bytes, or one that
//     does not name the file;
//   - an accepted workload whose events are not in time order, or name a
//     task or CPU it does not have (the simulation indexes by them).
//
// Accepted inputs of up to simulated_max events are simulated on pelt/v6.12
// (lp64, with its util_est) and on pelt/v4.12 + utilest/bellasi-v3
// (ilp32), every row kept.  It is also a random-workload differential
// fuzzer: pelt/v6.12 (lp64) and pelt/v6.1 (ilp32), each with its util_est,
// must give the rows of the kernel's own code (--oracle linux-6.12,
// linux-6.1) bit for bit, or the harness aborts naming the first
// difference (skipped for an oracle this build lacks).
//
// Seeds: corpora/simulate_input/.
#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <string>

#include "proofs/invariant.h"
#include "sim/simulate.h"
#include "sim/trace.h"

namespace {

constexpr std::size_t max_message = 1024;
constexpr std::size_t simulated_max = 20000; // events; larger accepted inputs are not simulated
const std::string origin = "fuzz-input";

[[noreturn]] void bug(const char *what, const std::string &detail) {
    std::fprintf(stderr, "simulate_input: %s: %s\n", what, detail.c_str());
    std::abort();
}

void check_message(const std::string &m) {
    if (m.size() > max_message)
        bug("an error message longer than max_message", m.substr(0, 300) + "...");
    if (m.find(origin) == std::string::npos)
        bug("an error message that does not name the file", m.substr(0, 300));
}

} // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t *data, std::size_t size) {
    using namespace sc::sim;
    const std::string text(reinterpret_cast<const char *>(data), size);
    Input in;
    try {
        in = parse_input(text, origin, {}, {});
    } catch (const sc::proofs::input_error &e) {
        check_message(e.what());
        return 0;
    }
    const Workload &wl = in.workload;
    std::uint64_t last = 0;
    for (const Event &e : wl.events) {
        if (e.t < last)
            bug("events out of time order", std::to_string(e.t) + " after " + std::to_string(last));
        last = e.t;
        if (e.task >= wl.tasks.size())
            bug("an event of a task the workload lacks", std::to_string(e.task));
        if (e.kind == ev::migrate && e.arg >= wl.cpus.size())
            bug("a migration to a CPU the workload lacks", std::to_string(e.arg));
    }
    for (const Task &t : wl.tasks)
        if (t.cpu >= wl.cpus.size())
            bug("a task on a CPU the workload lacks", std::to_string(t.cpu));
    if (wl.events.size() > simulated_max)
        return 0;
    const Start start = in.trace ? Start::zero : Start::empty;
    try {
        simulate(wl, parse_impl("pelt/v4.12+utilest/bellasi-v3", false), sc::Arch::ilp32, true, start);
    } catch (const sc::proofs::input_error &e) {
        check_message(e.what());
    }
    auto same = [&](const char *ref, const char *oracle, sc::Arch a) {
        Result r, k;
        try {
            r = simulate(wl, parse_impl(ref, false), a, true, start);
        } catch (const sc::proofs::input_error &e) {
            check_message(e.what());
            return;
        }
        try {
            k = simulate(wl, parse_impl(oracle, true), a, true, start);
        } catch (const sc::proofs::input_error &) {
            return; // this build has no such oracle (its source was missing)
        }
        const Difference d = compare(r.rows, k.rows);
        if (d.differ || r.rows.size() != k.rows.size())
            bug("the reference and the kernel's code part",
                std::string(ref) + " vs " + oracle + " at t=" + std::to_string(d.first_t) + " task " +
                    std::to_string(d.first_task) + " " + d.first_field + ": " + std::to_string(d.first_a) + " vs " +
                    std::to_string(d.first_b) + " (" + std::to_string(r.rows.size()) + " and " +
                    std::to_string(k.rows.size()) + " rows)");
    };
    same("pelt/v6.12", "linux-6.12", sc::Arch::lp64);
    same("pelt/v6.1", "linux-6.1", sc::Arch::ilp32);
    return 0;
}
