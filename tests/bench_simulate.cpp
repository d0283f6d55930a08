// `schedcheck simulate` speed: PELT updates per second on one core, lp64,
// a 1000-task workload, no output kept.  Goal: >= 50 million per second.
//
// The workload: 1000 rt-app-style periodic tasks (periods 1..16 ms, duty
// 5..95 %, a 250 Hz tick while running) over 2 s of simulated time, so
// that nearly every update crosses at least one PELT period boundary and
// takes the full path (decay, three segments, division).
#include <algorithm>
#include <chrono>
#include <cstdio>
#include <string>

#include "oracle_gen/linux_6_12.h"
#include "sim/simulate.h"
#include "sim/workload.h"

int bench_simulate() {
    using namespace sc::sim;
    std::string text = "{\"tick_hz\": 250, \"tasks\": [";
    std::uint64_t s = 0x9e3779b97f4a7c15ULL;
    auto next = [&s] {
        s ^= s >> 12;
        s ^= s << 25;
        s ^= s >> 27;
        return s * 0x2545f4914f6cdd1dULL;
    };
    for (int i = 0; i < 1000; ++i) {
        std::uint64_t period = 1000000 * (1 + next() % 16);
        double duty = 0.05 + double(next() % 91) / 100;
        text += std::string(i ? "," : "") + "{\"start\": " + std::to_string(next() % 1000000) +
                ", \"phases\": [{\"duration\": 2000000000, \"period\": " + std::to_string(period) +
                ", \"duty\": " + std::to_string(duty) + "}]}";
    }
    text += "]}";
    Workload wl = parse_workload(text, "bench");
    std::vector<Impl> impls = {parse_impl("pelt/v6.12", false), parse_impl("pelt/v6.12+utilest/v6.12", false)};
#if SC_ORACLE_LINUX_6_12
    impls.push_back(parse_impl("linux-6.12", true));
#endif
    std::printf("simulate: 1000 tasks, %zu events over 2 s of simulated time, lp64, no output\n", wl.events.size());
    for (const Impl &im : impls) {
        double best = 0;
        std::uint64_t updates = 0;
        for (int rep = 0; rep < 5; ++rep) {
            auto t0 = std::chrono::steady_clock::now();
            Result r = simulate(wl, im, sc::Arch::lp64, false);
            double sec = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
            updates = r.updates;
            best = std::max(best, double(r.updates) / sec);
        }
        std::printf("  %-34s %llu updates, %.1f million PELT updates/s (goal >= 50)\n", im.label.c_str(),
                    static_cast<unsigned long long>(updates), best / 1e6);
    }
    return 0;
}
