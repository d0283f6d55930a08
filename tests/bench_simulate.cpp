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

#include <time.h>
#include <unistd.h>

#include "oracle_gen/linux_6_12.h"
#include "sim/simulate.h"
#include "sim/trace.h"
#include "sim/workload.h"

int bench_simulate_trace();

namespace {
// CPU time of this thread: on a shared machine, wall time would count the
// time other processes held the core.
double thread_seconds() {
    timespec ts;
    clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts);
    return double(ts.tv_sec) + double(ts.tv_nsec) * 1e-9;
}
} // namespace

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
    std::vector<Impl> impls = {parse_impl("pelt/v6.12+none", false), parse_impl("pelt/v6.12", false)};
#if SC_ORACLE_LINUX_6_12
    impls.push_back(parse_impl("linux-6.12", true));
#endif
    std::printf("simulate: 1000 tasks, %zu events over 2 s of simulated time, lp64, no output\n", wl.events.size());
    for (const Impl &im : impls) {
        double best = 0;
        std::uint64_t updates = 0;
        for (int rep = 0; rep < 5; ++rep) {
            double t0 = thread_seconds();
            Result r = simulate(wl, im, sc::Arch::lp64, false);
            double sec = thread_seconds() - t0;
            updates = r.updates;
            best = std::max(best, double(r.updates) / sec);
        }
        std::printf("  %-34s %llu updates, %.1f million PELT updates/s of CPU time (goal >= 50)\n", im.label.c_str(),
                    static_cast<unsigned long long>(updates), best / 1e6);
    }
    return bench_simulate_trace();
}

// A `trace-cmd report` of a busy 8-CPU system: 6 tasks per CPU, slices of
// 0.5..4 ms, then a preemption (prev_state=R) or a sleep of 1..20 ms
// (prev_state=S) ended by a sched_wakeup; now and then a migration.
// Written to `path`; returns the number of lines.
std::size_t write_busy_trace(const std::string &path, double seconds) {
    struct Line {
        std::uint64_t t;
        std::string text;
    };
    std::uint64_t s = 0x243f6a8885a308d3ULL;
    auto next = [&s] {
        s ^= s >> 12;
        s ^= s << 25;
        s ^= s >> 27;
        return s * 0x2545f4914f6cdd1dULL;
    };
    const int ncpu = 8, per = 6;
    const std::uint64_t end = std::uint64_t(seconds * 1e9), t0 = 1000000000000ULL; // starts at 1000 s
    auto ts = [&](std::uint64_t t) {
        char b[32];
        std::snprintf(b, sizeof b, "%llu.%06llu", (unsigned long long)((t0 + t) / 1000000000ULL),
                      (unsigned long long)((t0 + t) % 1000000000ULL / 1000));
        return std::string(b);
    };
    std::vector<std::vector<Line>> per_cpu(ncpu);
    for (int c = 0; c < ncpu; ++c) {
        struct Tk {
            int pid;
            std::uint64_t wake_at; // 0: runnable
        };
        std::vector<Tk> tk;
        for (int k = 0; k < per; ++k)
            tk.push_back({1000 + c * 100 + k, 0});
        int cur = 0; // index running, -1 idle
        std::uint64_t t = 0;
        auto comm = [](int pid) { return "w" + std::to_string(pid); };
        auto &out = per_cpu[c];
        char b[512];
        while (t < end) {
            std::uint64_t slice = 500000 + next() % 3500000;
            std::uint64_t sw = t + slice;
            // Wakeups due before the switch, in time order.
            for (;;) {
                int w = -1;
                for (int k = 0; k < per; ++k)
                    if (tk[k].wake_at && tk[k].wake_at <= sw && (w < 0 || tk[k].wake_at < tk[w].wake_at))
                        w = k;
                if (w < 0)
                    break;
                std::uint64_t wt = tk[w].wake_at;
                int waker = cur >= 0 ? tk[cur].pid : 0;
                std::snprintf(b, sizeof b, "%16s-%-5d [%03d] %s: sched_wakeup:         comm=%s pid=%d prio=120 target_cpu=%03d",
                              waker ? comm(waker).c_str() : "<idle>", waker, c, ts(wt).c_str(), comm(tk[w].pid).c_str(),
                              tk[w].pid, c);
                out.push_back({wt, b});
                tk[w].wake_at = 0;
                if (cur < 0) { // idle CPU: the woken task runs at once
                    sw = wt;
                    break;
                }
            }
            int prev = cur;
            const char *state = "R";
            if (prev >= 0 && next() % 10 < 4) {
                state = "S";
                tk[prev].wake_at = sw + 1000000 + next() % 19000000;
            }
            int nx = -1;
            for (int k = 1; k <= per; ++k) {
                int cand = ((prev < 0 ? 0 : prev) + k) % per;
                if (!tk[cand].wake_at) {
                    nx = cand;
                    break;
                }
            }
            if (nx < 0 && prev >= 0 && !tk[prev].wake_at)
                nx = prev;
            int ppid = prev >= 0 ? tk[prev].pid : 0, npid = nx >= 0 ? tk[nx].pid : 0;
            if (ppid != npid) {
                std::snprintf(b, sizeof b,
                              "%16s-%-5d [%03d] %s: sched_switch:         prev_comm=%s prev_pid=%d prev_prio=120 "
                              "prev_state=%s ==> next_comm=%s next_pid=%d next_prio=120",
                              ppid ? comm(ppid).c_str() : "<idle>", ppid, c, ts(sw).c_str(),
                              ppid ? comm(ppid).c_str() : "swapper", ppid, ppid ? state : "R",
                              npid ? comm(npid).c_str() : "swapper", npid);
                out.push_back({sw, b});
            }
            cur = nx;
            if (cur < 0) { // idle until the next wakeup
                std::uint64_t nw = ~0ULL;
                for (auto &k : tk)
                    if (k.wake_at)
                        nw = std::min(nw, k.wake_at);
                t = nw - 1;
                continue;
            }
            t = sw;
        }
    }
    // trace-cmd report merges the CPUs' buffers by time.
    std::vector<std::pair<std::uint64_t, std::pair<int, std::size_t>>> order;
    for (int c = 0; c < ncpu; ++c)
        for (std::size_t i = 0; i < per_cpu[c].size(); ++i)
            order.push_back({per_cpu[c][i].t, {c, i}});
    std::stable_sort(order.begin(), order.end(),
                     [](const auto &a, const auto &b) { return a.first < b.first; });
    std::FILE *f = std::fopen(path.c_str(), "w");
    if (!f)
        return 0;
    std::fprintf(f, "cpus=%d\n", ncpu);
    for (const auto &o : order) {
        const std::string &l = per_cpu[o.second.first][o.second.second].text;
        std::fwrite(l.data(), 1, l.size(), f);
        std::fputc('\n', f);
    }
    std::fclose(f);
    return order.size();
}

int bench_simulate_trace() {
    using namespace sc::sim;
    std::string path = "/tmp/schedcheck-bench-trace-" + std::to_string(::getpid()) + ".txt";
    std::size_t lines = write_busy_trace(path, 600);
    double t0 = thread_seconds();
    Input in = load_input(path, {}, {});
    double t1 = thread_seconds();
    Result r = simulate(in.workload, parse_impl("pelt/v6.12", false), sc::Arch::lp64, false);
    double t2 = thread_seconds();
    std::remove(path.c_str());
    double rd = t1 - t0, sm = t2 - t1;
    std::printf("simulate trace: 10-minute busy 8-CPU trace-cmd report, %zu lines, %zu tasks, %llu updates: read %.2f s "
                "+ simulate %.2f s = %.2f s CPU time (goal <= 10 s)\n",
                lines, in.workload.tasks.size(), (unsigned long long)r.updates, rd, sm, rd + sm);
    return 0;
}
