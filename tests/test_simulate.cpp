// schedcheck simulate: hand-computed PELT values (the convention "a row at
// t is the state after the update at t"), an exact-arithmetic model of the
// 6.x formulas, bit-exact agreement of the reference with the extracted
// kernel code, and bad input.
#include <catch2/catch.hpp>

#include <algorithm>
#include <cmath>
#include <filesystem>
#include <fstream>
#include <random>

#include "oracle_gen/linux_6_1.h"
#include "oracle_gen/linux_6_12.h"
#include "proofs/invariant.h"
#include <nlohmann/json.hpp>

#include "shell.h"
#include "sim/simulate.h"
#include "sim/svg.h"
#include "sim/workload.h"

using namespace sc::sim;
namespace fs = std::filesystem;

namespace {

Workload wl_of(const std::string &text) { return parse_workload(text, "test.json"); }

// The rows of one task, in order.
std::vector<Row> task_rows(const Result &r, std::uint32_t task) {
    std::vector<Row> v;
    for (const Row &x : r.rows)
        if (x.task == task)
            v.push_back(x);
    return v;
}

std::vector<std::string> ref_specs() { return {"pelt/v6.1", "pelt/v6.12"}; }

std::vector<std::string> oracle_specs() {
    std::vector<std::string> v;
#if SC_ORACLE_LINUX_6_1
    v.push_back("linux-6.1");
#endif
#if SC_ORACLE_LINUX_6_12
    v.push_back("linux-6.12");
#endif
    return v;
}

Result run(const Workload &wl, const std::string &spec, sc::Arch a = sc::Arch::lp64) {
    bool oracle = spec.rfind("linux-", 0) == 0;
    return simulate(wl, parse_impl(spec, oracle), a);
}

// parse_workload() refuses `text` with a message that starts with the
// file's name and holds `needle`.
void expect_refused(const std::string &text, const std::string &needle) {
    try {
        parse_workload(text, "w.json");
        FAIL("accepted: " << text);
    } catch (const sc::proofs::input_error &e) {
        std::string m = e.what();
        INFO(m);
        CHECK(m.rfind("w.json", 0) == 0);
        CHECK(m.find(needle) != std::string::npos);
    }
}

const char *half_task = R"({"tick_hz": 0, "tasks": [{"name": "half",
    "phases": [{"duration": 4000000, "run": 1000000, "sleep": 1000000}]}]})";

} // namespace

// A task running 1 ms out of every 2 ms, no tick: updates at 0, 1, 2, 3 ms.
// Derived by hand from the 6.x formulas (times in 1024 ns units, "us"):
//   t=0    wakeup: nothing elapsed, all zero.
//   t=1ms  sleep: 1000000 >> 10 = 976 us elapsed running, no period boundary
//          (976 < 1024): load_sum = 976, util_sum = runnable_sum = 976 << 10
//          = 999424, period_contrib = 976, last_update_time = 976 * 1024 =
//          999424; no boundary, so the averages are not recomputed: 0.
//   t=2ms  wakeup (accounted as asleep): (2000000 - 999424) >> 10 = 977 us,
//          lut = 999424 + 977*1024 = 1999872; 976 + 977 = 1953: one boundary,
//          period_contrib = 929.  Sums decay by y: x * 0xfa83b2da >> 32:
//          976 -> 955, 999424 -> 978008.  divider = 47742 - 1024 + 929 =
//          47647: load_avg = 1024*955/47647 = 20, util_avg = 978008/47647 = 20.
//   t=3ms  sleep (accounted as running): (3000000 - 1999872) >> 10 = 976 us,
//          lut = 2999296; 929 + 976 = 1905: one boundary, d1 = 1024 - 929 =
//          95, d3 = 881.  Decay: 955 -> 934, 978008 -> 957051 (both * y).
//          contrib = d1*y (95 -> 92) + (47742 - 47742*y - 1024 = 47742 -
//          46718 - 1024 = 0) + 881 = 973.  load_sum = 934 + 973 = 1907,
//          util_sum = 957051 + 973*1024 = 1953403, divider = 46718 + 881 =
//          47599: load_avg = 1024*1907/47599 = 41, util_avg = 41.
// util_est at t=3ms differs by release only in the order of the sample and
// the PELT update: 6.12 samples before (util_avg 20, the value since 2 ms:
// ewma 0 <= 20 is taken at once), 6.1 after (41; FASTUP takes the increase
// into ewma, enqueued holds the sample).
TEST_CASE("simulate: 1 ms of every 2 ms, values after each update", "[simulate]") {
    Workload wl = wl_of(half_task);
    REQUIRE(wl.events.size() == 4);
    std::vector<std::string> specs = ref_specs();
    for (const auto &o : oracle_specs())
        specs.push_back(o);
    for (sc::Arch a : {sc::Arch::lp64, sc::Arch::ilp32})
        for (const auto &spec : specs) {
            INFO(spec << " " << sc::arch_name(a));
            Result r = run(wl, spec, a);
            REQUIRE(r.rows.size() == 4);
            const Row &r0 = r.rows[0], &r1 = r.rows[1], &r2 = r.rows[2], &r3 = r.rows[3];
            CHECK(r0.t == 0);
            CHECK(r0.util_sum == 0);
            CHECK(r1.t == 1000000);
            CHECK(r1.load_sum == 976);
            CHECK(r1.util_sum == 999424);
            CHECK(r1.runnable_sum == 999424);
            CHECK(r1.period_contrib == 976);
            CHECK(r1.last_update_time == 999424);
            CHECK(r1.util_avg == 0);
            CHECK(r1.load_avg == 0);
            CHECK(r2.last_update_time == 1999872);
            CHECK(r2.period_contrib == 929);
            CHECK(r2.load_sum == 955);
            CHECK(r2.util_sum == 978008);
            CHECK(r2.load_avg == 20);
            CHECK(r2.util_avg == 20);
            CHECK(r2.runnable_avg == 20);
            CHECK(r3.last_update_time == 2999296);
            CHECK(r3.period_contrib == 881);
            CHECK(r3.load_sum == 1907);
            CHECK(r3.util_sum == 1953403);
            CHECK(r3.load_avg == 41);
            CHECK(r3.util_avg == 41);
            bool v612 = spec.find("6.12") != std::string::npos;
            if (v612) {
                CHECK(r3.ue_ewma == 20);
                CHECK(r3.ue_enqueued == none);
            } else {
                CHECK(r3.ue_ewma == 41);
                CHECK(r3.ue_enqueued == 41);
            }
        }
}

// One update after exactly 1024 us of running: one boundary, d1 = 1024,
// d3 = 0.  contrib = 1024*y = 1024 * 0xfa83b2da >> 32 = 1002 (c2 is 0 for
// one period), util_sum = 1002 << 10 = 1026048, period_contrib 0, divider
// 46718: util_avg = 1026048 / 46718 = 21, load_avg = 1024*1002/46718 = 21.
// And after 1000 us (no boundary) the sums hold the time, the averages 0.
TEST_CASE("simulate: one period of running, and less than one", "[simulate]") {
    Workload one = wl_of(R"({"tick_hz": 0, "tasks": [{"events": [{"t": 0, "event": "wakeup"},
        {"t": 1048576, "event": "sleep"}]}]})");
    Workload part = wl_of(R"({"tick_hz": 0, "tasks": [{"events": [{"t": 0, "event": "wakeup"},
        {"t": 1024000, "event": "sleep"}]}]})");
    for (const auto &spec : ref_specs()) {
        INFO(spec);
        Row a = run(one, spec).rows.back();
        CHECK(a.util_sum == 1026048);
        CHECK(a.load_sum == 1002);
        CHECK(a.period_contrib == 0);
        CHECK(a.util_avg == 21);
        CHECK(a.load_avg == 21);
        Row b = run(part, spec).rows.back();
        CHECK(b.util_sum == 1024000);
        CHECK(b.period_contrib == 1000);
        CHECK(b.util_avg == 0);
        CHECK(b.last_update_time == 1024000);
    }
}

namespace {

// The 6.x formulas evaluated in long double, without the kernel's integer
// truncations: each update decays the sum by y^p (y = 2^(-1/32)) and adds
// d1 y^p + (LOAD_AVG_MAX (1 - y^p) - 1024) + d3 for p >= 1 boundaries (the
// kernel's own closed form of the full periods, so the comparison isolates
// rounding), or the elapsed us when no boundary was crossed; the average
// is 1024 * sum / (LOAD_AVG_MAX - 1024 + period_contrib), recomputed only
// when a boundary was crossed.  Each integer step truncates: a decayed sum
// loses < 1 unit, c1 < 1 and c2 gains < 1; those losses age by y per
// period, so the integer util_sum stays within 2 * 1024 / (1 - y) ~ 2 * 47k
// of 1024 * sum, i.e. util_avg within 2 units of the exact value.
struct Exact {
    long double sum = 0, avg = 0;
    std::uint64_t lut = 0;
    std::uint32_t pc = 0;
    void update(std::uint64_t now, bool running) {
        std::uint64_t d = (now - lut) >> 10;
        if (!d)
            return;
        lut += d << 10;
        std::uint64_t total = d + pc, p = total / 1024;
        if (!p) {
            if (running)
                sum += d;
            pc = std::uint32_t(total);
            return;
        }
        long double yp = std::pow(0.5L, (long double)p / 32);
        std::uint32_t d1 = 1024 - pc, d3 = std::uint32_t(total % 1024);
        sum *= yp;
        if (running)
            sum += d1 * yp + (47742 * (1 - yp) - 1024) + d3;
        pc = d3;
        avg = 1024 * sum / (47742 - 1024 + pc);
    }
};

} // namespace

TEST_CASE("simulate: util_avg follows the exact 6.x series; always running settles at 1023..1024", "[simulate]") {
    // 1 ms out of every 2 ms and always running, 400 ms, 250 Hz tick.
    Workload wl = wl_of(R"({"tasks": [
        {"name": "half", "phases": [{"duration": 400000000, "period": 2000000, "duty": 0.5}]},
        {"name": "busy", "phases": [{"duration": 400000000, "period": 1000000, "duty": 1}]}]})");
    for (const auto &spec : ref_specs()) {
        INFO(spec);
        Result r = run(wl, spec);
        for (std::uint32_t t = 0; t < 2; ++t) {
            Exact x;
            bool running = false;
            std::size_t n = 0;
            for (const Row &row : task_rows(r, t)) {
                x.update(row.t, running);
                running = row.kind == ev::wakeup || row.kind == ev::tick || (running && row.kind != ev::sleep);
                INFO("task " << t << " t=" << row.t << " exact " << double(x.avg));
                CHECK(std::fabs(double(row.util_avg) - double(x.avg)) <= 2.0);
                CHECK(row.period_contrib == x.pc);
                CHECK(row.last_update_time == x.lut);
                // Always running: after 11 half-lives (352 ms) the series
                // is within 1024/2^11 of full; the exact value is 1024.
                if (t == 1 && row.t >= 352000000) {
                    CHECK(row.util_avg >= 1023);
                    CHECK(row.util_avg <= 1024);
                    ++n;
                }
            }
            if (t == 1)
                CHECK(n >= 10);
        }
    }
}

namespace {

// A random explicit-event workload: a few tasks, random gaps from 0 ns to
// far beyond the 2016 periods after which decay_load() returns 0, weights
// from nice values or raw, migrations between CPUs of any capacity.
std::string random_workload(std::mt19937_64 &g) {
    auto pick = [&](std::uint64_t n) { return g() % n; };
    int ncpu = 1 + int(pick(4)), ntask = 1 + int(pick(4));
    std::string s = "{\"tick_hz\": " + std::to_string(pick(3) == 0 ? 0 : 1000) + ", \"cpus\": [";
    for (int c = 0; c < ncpu; ++c)
        s += std::string(c ? "," : "") + "{\"capacity\": " + std::to_string(1 + pick(1024)) +
             ", \"freq\": " + std::to_string(pick(2) ? 1024 : 1 + pick(1024)) + "}";
    s += "], \"tasks\": [";
    for (int t = 0; t < ntask; ++t) {
        s += std::string(t ? "," : "") + "{\"weight\": " + std::to_string(1 + pick(88761)) + ", \"events\": [";
        std::uint64_t now = pick(5000000);
        int st = 0; // 0 asleep, 1 queued, 2 running
        int n = 5 + int(pick(60));
        for (int k = 0; k < n; ++k) {
            std::uint64_t gap;
            switch (pick(6)) {
            case 0: gap = 0; break;
            case 1: gap = pick(2048); break;
            case 2: gap = pick(5000000); break;
            case 3: gap = pick(100000000); break;
            case 4: gap = 1024 * 1024 * (1 + pick(3000)); break; // whole periods, past 2016
            default: gap = pick(20000000); break;
            }
            now += gap;
            std::string e;
            std::uint64_t r = pick(10);
            if (r < 1)
                e = "\"event\": \"migrate\", \"cpu\": " + std::to_string(pick(ncpu));
            else if (r < 2)
                e = "\"event\": \"set_weight\", \"nice\": " + std::to_string(int(pick(40)) - 20);
            else if (st == 0)
                e = "\"event\": \"wakeup\"", st = 2;
            else if (st == 1)
                e = r < 6 ? (st = 2, "\"event\": \"run\"") : (st = 0, "\"event\": \"sleep\"");
            else
                e = r < 5 ? (st = 1, "\"event\": \"preempt\"") : (st = 0, "\"event\": \"sleep\"");
            s += std::string(k ? "," : "") + "{\"t\": " + std::to_string(now) + ", " + e + "}";
        }
        s += "]}";
    }
    return s + "]}";
}

void require_same(const Result &a, const Result &b) {
    REQUIRE(a.rows.size() == b.rows.size());
    Difference d = compare(a.rows, b.rows);
    INFO(a.impl.spec << " vs " << b.impl.spec << ": first difference at t=" << d.first_t << " " << d.first_field
                     << " " << d.first_a << " vs " << d.first_b);
    REQUIRE_FALSE(d.differ);
    // compare() skips fields one side lacks; here both have all of them.
    for (std::size_t i = 0; i < a.rows.size(); ++i)
        REQUIRE(a.rows[i].ue_ewma == b.rows[i].ue_ewma);
}

} // namespace

TEST_CASE("simulate: pelt/v6.x equals the extracted kernel code bit for bit", "[simulate][oracle]") {
    std::vector<std::pair<std::string, std::string>> pairs;
#if SC_ORACLE_LINUX_6_1
    pairs.push_back({"pelt/v6.1", "linux-6.1"});
#endif
#if SC_ORACLE_LINUX_6_12
    pairs.push_back({"pelt/v6.12", "linux-6.12"});
#endif
    if (pairs.empty())
        WARN("no kernel oracle in this build: nothing compared");
    std::vector<std::string> fixed = {
        half_task,
        R"({"tasks": [{"phases": [{"duration": 400000000, "period": 2000000, "duty": 0.5}]},
                      {"phases": [{"duration": 400000000, "period": 1000000, "duty": 1}]}]})",
        R"({"cpus": [{"capacity": 1024}, {"capacity": 446, "freq": 700}], "tasks": [
            {"nice": -5, "phases": [{"duration": 50000000, "run": 3000000, "sleep": 7000000},
                                    {"duration": 80000000, "period": 16000000, "duty": 0.9, "cpu": 1, "nice": 5},
                                    {"duration": 30000000, "run": 0, "sleep": 1}]}]})",
    };
    std::mt19937_64 g(20240611);
    for (int i = 0; i < 300; ++i)
        fixed.push_back(random_workload(g));
    std::uint64_t rows = 0;
    for (const auto &[ref, kern] : pairs)
        for (const auto &text : fixed)
            for (sc::Arch a : {sc::Arch::lp64, sc::Arch::ilp32}) {
                Workload wl = wl_of(text);
                INFO(text);
                Result x = run(wl, ref, a), y = run(wl, kern, a);
                require_same(x, y);
                rows += x.rows.size();
            }
    if (!pairs.empty())
        CHECK(rows > 100000);
}

TEST_CASE("simulate: implementations differ where they should", "[simulate]") {
    // v4.12 divides by LOAD_AVG_MAX, 6.x by the position-dependent divider:
    // a busy task reads lower in v4.12, and compare() must say so.
    Workload wl = wl_of(R"({"tasks": [{"phases": [{"duration": 400000000, "period": 1000000, "duty": 1}]}]})");
    Result a = run(wl, "pelt/v6.1"), b = run(wl, "pelt/v4.12");
    Difference d = compare(a.rows, b.rows);
    CHECK(d.differ);
    CHECK(a.rows.back().util_avg >= 1023);
    // v4.12 at a period boundary: util_sum <= 46718*1024 over 47742 -> at most 1002.
    CHECK(b.rows.back().util_avg < 1023);
}

TEST_CASE("simulate: workload parsing", "[simulate]") {
    // Ticks at every 4 ms strictly inside the running interval (250 Hz).
    Workload wl = wl_of(R"({"tasks": [{"events": [{"t": 1000000, "event": "wakeup"}, {"t": 13000000, "event": "sleep"}]}]})");
    std::vector<std::uint64_t> ts;
    for (const Event &e : wl.events)
        ts.push_back(e.t);
    CHECK(ts == std::vector<std::uint64_t>{1000000, 4000000, 8000000, 12000000, 13000000});
    // Tasks are merged in time order; at one time, in task order, and each
    // task's own events in their order.
    Workload three = wl_of(R"({"tick_hz": 0, "tasks": [
        {"name": "a", "events": [{"t": 5, "event": "wakeup"}, {"t": 9, "event": "sleep"}]},
        {"name": "b", "events": [{"t": 1, "event": "wakeup"}, {"t": 5, "event": "preempt"}, {"t": 5, "event": "run"},
                                 {"t": 9, "event": "sleep"}]},
        {"name": "c", "events": [{"t": 5, "event": "wakeup"}, {"t": 7, "event": "sleep"}]}]})");
    std::vector<std::pair<std::uint64_t, std::uint32_t>> order;
    std::vector<ev> kinds;
    for (const Event &e : three.events) {
        order.push_back({e.t, e.task});
        kinds.push_back(e.kind);
    }
    CHECK(order == std::vector<std::pair<std::uint64_t, std::uint32_t>>{
                       {1, 1}, {5, 0}, {5, 1}, {5, 1}, {5, 2}, {7, 2}, {9, 0}, {9, 1}});
    CHECK(kinds[2] == ev::preempt);
    CHECK(kinds[3] == ev::run);
    CHECK(nice_to_weight(0) == 1024);
    CHECK(nice_to_weight(-20) == 88761);
    CHECK(nice_to_weight(19) == 15);
    auto bad = expect_refused;
    bad(R"({"tasks": [{"events": [{"t": 0, "event": "wakeup"}]}], "tick": 5})", "tick: unknown field");
    bad(R"({"tasks": [{"phases": [{"duration": -5, "period": 10, "duty": 0.5}]}]})",
        "tasks[0].phases[0].duration: must not be negative");
    bad(R"({"tasks": [{"events": [{"t": 10, "event": "wakeup"}, {"t": 5, "event": "sleep"}]}]})",
        "tasks[0].events[1].t: time goes backwards");
    bad(R"({"tasks": [{"events": [{"t": 10, "event": "sleep"}]}]})", "tasks[0].events[0].event");
    bad(R"({"tasks": [{"events": [{"t": 10, "event": "migrate", "cpu": 3}]}]})", "tasks[0].events[0].cpu");
    bad(R"({"tasks": [{"phases": [{"duration": 5, "period": 10, "duty": 1.5}]}]})", "duty");
    bad(R"({"tasks": [{"events": [{"t": 0, "event": "wakeup"}]}])", "line 1");
}

TEST_CASE("simulate command: output files, comparisons, bad input", "[simulate][cli]") {
    fs::path dir = fs::temp_directory_path() / ("sc-sim-" + std::to_string(::getpid()));
    fs::create_directories(dir);
    auto write = [&](const std::string &name, const std::string &text) {
        std::ofstream(dir / name) << text;
        return (dir / name).string();
    };
    std::string good = write("half.json", half_task);
    std::string csv = (dir / "out.csv").string(), svg = (dir / "out.svg").string();
    std::vector<std::string> args = {SCHEDCHECK_BIN, "simulate", good, "--variant", "pelt/v6.1", "--variant",
                                     "pelt/v4.12", "--csv", csv, "--svg", svg};
    Run r = run_argv(args);
    INFO(r.out);
    CHECK(r.code == 0);
    // 6.x keeps load_sum unweighted (976 us), v4.12 weighted (1024 * 976).
    CHECK(r.out.find("differ: first at t=1000000 ns, task half, load_sum: 976 vs 999424") != std::string::npos);
    REQUIRE(fs::exists(csv));
    std::ifstream in(csv);
    std::string header, line;
    std::getline(in, header);
    CHECK(header.rfind("implementation,t_ns,task,event,cpu,load_avg", 0) == 0);
    int n = 0;
    while (std::getline(in, line))
        ++n;
    CHECK(n == 8); // 4 updates x 2 implementations
    std::ifstream sv(svg);
    std::string svg_text((std::istreambuf_iterator<char>(sv)), {});
    CHECK(svg_text.find("<svg") != std::string::npos);
    CHECK(svg_text.find("<polyline") != std::string::npos);

    // Bad input: exit 2, the file and field named, no output file.
    fs::remove(csv);
    fs::remove(svg);
    struct Bad {
        std::string text, needle;
    };
    for (const Bad &b : {Bad{R"({"tasks": [{"phases": [{"duration": -1, "period": 2, "duty": 0.5}]}]})",
                             "phases[0].duration"},
                         Bad{R"({"tasks": [{"events": [{"t": 9, "event": "wakeup"}, {"t": 3, "event": "sleep"}]}]})",
                             "time goes backwards"},
                         Bad{R"({"tasks": [{"naem": "x", "events": []}]})", "tasks[0].naem: unknown field"},
                         Bad{R"({"tasks": [{"events": [{"t": 0, "ev)", "line 1"}}) {
        std::string f = write("bad.json", b.text);
        Run rb = run_argv({SCHEDCHECK_BIN, "simulate", f, "--csv", csv, "--svg", svg});
        INFO(rb.out);
        CHECK(rb.code == 2);
        CHECK(rb.out.find(f) != std::string::npos);
        CHECK(rb.out.find(b.needle) != std::string::npos);
        CHECK_FALSE(fs::exists(csv));
        CHECK_FALSE(fs::exists(svg));
    }
    // An --svg that cannot be written: exit 2, and the --csv is not left alone.
    Run ru = run_argv({SCHEDCHECK_BIN, "simulate", good, "--csv", csv, "--svg", (dir / "no" / "x.svg").string()});
    CHECK(ru.code == 2);
    CHECK(ru.out.find("--svg") != std::string::npos);
    CHECK_FALSE(fs::exists(csv));
    Run rv = run_argv({SCHEDCHECK_BIN, "simulate", good, "--variant", "pelt/v9.9"});
    CHECK(rv.code == 2);
    Run ro = run_argv({SCHEDCHECK_BIN, "simulate", good, "--oracle", "linux-2.6"});
    CHECK(ro.code == 2);
    fs::remove_all(dir);
}

namespace {

// The 1-ms-of-2 task of the first test as trace-cmd saw it, from 100 s on,
// with the kernel's sched_pelt_se reports after the updates at 2 and 3 ms
// (the hand-computed values: 20 and 41; update_time = 100 s + the
// last_update_time computed there).
std::string half_trace(const std::string &util_at_3ms) {
    return "cpus=2\n"
           "          <idle>-0     [000]   100.000000: sched_wakeup:         comm=half pid=42 prio=120 target_cpu=000\n"
           "          <idle>-0     [000]   100.000000: sched_switch:         prev_comm=swapper/0 prev_pid=0 prev_prio=120 "
           "prev_state=R ==> next_comm=half next_pid=42 next_prio=120\n"
           "            half-42    [000]   100.001000: sched_switch:         prev_comm=half prev_pid=42 prev_prio=120 "
           "prev_state=S ==> next_comm=swapper/0 next_pid=0 next_prio=120\n"
           "            other-7    [001]   100.001500: sched_switch:         prev_comm=other prev_pid=7 prev_prio=120 "
           "prev_state=S ==> next_comm=swapper/1 next_pid=0 next_prio=120\n"
           "          <idle>-0     [000]   100.002000: sched_wakeup:         comm=half pid=42 prio=120 target_cpu=000\n"
           "          <idle>-0     [000]   100.002000: sched_pelt_se:        cpu=0 path=(null) comm=half pid=42 load=20 "
           "runnable=20 util=20 update_time=100001999872\n"
           "          <idle>-0     [000]   100.002000: sched_switch:         prev_comm=swapper/0 prev_pid=0 prev_prio=120 "
           "prev_state=R ==> next_comm=half next_pid=42 next_prio=120\n"
           "            half-42    [000]   100.003000: sched_pelt_se:        cpu=0 path=(null) comm=half pid=42 load=41 "
           "runnable=41 util=" + util_at_3ms + " update_time=100002999296\n"
           "            half-42    [000]   100.003000: sched_switch:         prev_comm=half prev_pid=42 prev_prio=120 "
           "prev_state=S ==> next_comm=swapper/0 next_pid=0 next_prio=120\n";
}

} // namespace

TEST_CASE("simulate: trace-cmd report input and --check", "[simulate][trace]") {
    fs::path dir = fs::temp_directory_path() / ("sc-simtrace-" + std::to_string(::getpid()));
    fs::create_directories(dir);
    auto write = [&](const std::string &name, const std::string &text) {
        std::ofstream(dir / name) << text;
        return (dir / name).string();
    };
    std::string good = write("half.txt", half_trace("41"));
    Run r = run_argv({SCHEDCHECK_BIN, "simulate", good, "--pid", "42", "--oracle", "linux-6.12", "--variant",
                      "pelt/v6.12", "--json"});
    INFO(r.out);
    REQUIRE(r.code == 0);
    auto j = nlohmann::json::parse(r.out);
    const auto &rows = j["implementations"][0]["rows"];
    // wakeup_queued and run at 0, sleep at 1 ms; wakeup_queued and run at
    // 2 ms, sleep at 3 ms; only pid 42 (other-7 is not chosen).
    REQUIRE(rows.size() == 6);
    CHECK(rows[2]["event"] == "sleep");
    CHECK(rows[2]["util_sum"] == 999424);
    CHECK(rows[3]["event"] == "wakeup_queued");
    CHECK(rows[3]["util_avg"] == 20);
    CHECK(rows[5]["util_avg"] == 41);
    CHECK(rows[5]["last_update_time"] == 100002999296ULL);
    CHECK(j["comparisons"][0]["differ"] == false);

    // --check: 20 and 41 lie in the interval; 3 does not (exit 1, line 9).
    Run c = run_argv({SCHEDCHECK_BIN, "simulate", good, "--comm", "half", "--check"});
    INFO(c.out);
    CHECK(c.code == 0);
    CHECK(c.out.find("2 sched_pelt_se event(s), 0 outside") != std::string::npos);
    std::string off = write("off.txt", half_trace("3"));
    Run c2 = run_argv({SCHEDCHECK_BIN, "simulate", off, "--comm", "half", "--check"});
    INFO(c2.out);
    CHECK(c2.code == 1);
    CHECK(c2.out.find("1 outside") != std::string::npos);
    CHECK(c2.out.find(off + ":9:") != std::string::npos);

    // Bad traces: exit 2, file and line named, nothing written.
    std::string csv = (dir / "t.csv").string();
    std::string text = half_trace("41");
    std::string back = text;
    back.replace(back.find("100.002000: sched_wakeup"), 10, "100.000500");
    // The switch at 2 ms cut short before next_pid.
    std::string cut = text.substr(0, text.find("next_pid=42 next_prio=120\n            half-42    [000]   100.003000")) + "\n";
    struct Bad {
        std::string name, text;
        std::vector<std::string> extra;
        std::string needle;
    };
    for (const Bad &b : {Bad{"back.txt", back, {}, ":6: timestamp: time goes backwards on CPU 0"},
                         Bad{"cut.txt", cut, {}, "sched_switch: missing field next_pid"},
                         Bad{"pid.txt", text, {"--pid", "4242"}, "--pid 4242: no such pid"}}) {
        std::string f = write(b.name, b.text);
        std::vector<std::string> argv = {SCHEDCHECK_BIN, "simulate", f, "--csv", csv};
        argv.insert(argv.end(), b.extra.begin(), b.extra.end());
        Run rb = run_argv(argv);
        INFO(rb.out);
        CHECK(rb.code == 2);
        CHECK(rb.out.find(f) != std::string::npos);
        CHECK(rb.out.find(b.needle) != std::string::npos);
        CHECK_FALSE(fs::exists(csv));
    }
    fs::remove_all(dir);
}

TEST_CASE("replay and explain: pelt reproducers, as recorded or not", "[replay][pelt]") {
    fs::path dir = fs::temp_directory_path() / ("sc-replay-pelt-" + std::to_string(::getpid()));
    fs::create_directories(dir);
    // v3.8 sets last_update_time to now and drops the sub-1024 ns part
    // (ref/pelt.h), so pelt.time_accounted has a counterexample there.
    Run p = run_argv({SCHEDCHECK_BIN, "prove", "--variant", "pelt/v3.8", "--invariant", "pelt.time_accounted",
                      "--arch", "lp64", "--out", dir.string()});
    INFO(p.out);
    REQUIRE(p.out.find("COUNTEREXAMPLE") != std::string::npos);
    std::string repro;
    for (const auto &e : fs::directory_iterator(dir / "reproducers"))
        repro = e.path().string();
    REQUIRE_FALSE(repro.empty());
    Run r = run_argv({SCHEDCHECK_BIN, "replay", repro});
    INFO(r.out);
    CHECK(r.code == 0);
    CHECK(r.out.find("VIOLATED") != std::string::npos);
    CHECK(r.out.find("as recorded") != std::string::npos);
    Run j = run_argv({SCHEDCHECK_BIN, "replay", "--json", repro});
    REQUIRE(j.code == 0);
    auto doc = nlohmann::json::parse(j.out);
    CHECK(doc["as_recorded"] == true);
    REQUIRE(doc["steps"].size() == 1);
    // Every traced value is there, named: the text trace has one line each.
    std::size_t lines = 0;
    for (char c : doc["trace"].get<std::string>())
        lines += c == '\n';
    CHECK(doc["steps"][0]["values"].size() == lines);
    CHECK(lines > 0);
    // The same file claiming the invariant held: replay says it does not
    // behave as recorded, exit 1.
    std::ifstream in(repro);
    auto rep = nlohmann::json::parse(in);
    rep["claim"]["violated"] = false;
    std::string flipped = (dir / "flipped.json").string();
    std::ofstream(flipped) << rep.dump(2);
    Run f = run_argv({SCHEDCHECK_BIN, "replay", flipped});
    INFO(f.out);
    CHECK(f.code == 1);
    CHECK(f.out.find("NOT AS RECORDED") != std::string::npos);
    // explain --svg: the report, and a plot with the failed comparison.
    std::string svg = (dir / "cex.svg").string();
    Run e = run_argv({SCHEDCHECK_BIN, "explain", repro, "--svg", svg});
    INFO(e.out);
    CHECK(e.code == 0);
    std::ifstream sv(svg);
    std::string text((std::istreambuf_iterator<char>(sv)), {});
    CHECK(text.find("<svg") != std::string::npos);
    CHECK(text.find("failed:") != std::string::npos);
    CHECK(text.find("violated") != std::string::npos);
    fs::remove_all(dir);
}

// A few bytes of workload must not become gigabytes: the events of a phase
// and of a run of ticks are counted before they are made, the rows of all
// simulations and the --every samples too, and the outputs are streamed.
TEST_CASE("simulate: size limits are checked before the memory is spent", "[simulate][cli]") {
    auto too_many = [](const std::string &text) { expect_refused(text, "more than 20000000 events"); };
    // 1 ns run, 1 ns sleep for 90 ms: 45 M cycles, 90 M events.
    too_many(R"({"tick_hz": 0, "tasks": [{"name": "x", "phases": [{"duration": 90000000, "run": 1, "sleep": 1}]}]})");
    // The same for 4000 s: 4e12 events, refused as fast.
    too_many(R"({"tick_hz": 0, "tasks": [{"phases": [{"duration": 4000000000000, "run": 1, "sleep": 1}]}]})");
    // Always running for 4000 s at 100 kHz: 4e8 ticks.
    too_many(R"({"tick_hz": 100000, "tasks": [{"phases": [{"duration": 4000000000000, "period": 1000, "duty": 1}]}]})");
    // At the limit: 10 M cycles of 2 events is accepted, exactly 20 M.
    Workload at = wl_of(R"({"tick_hz": 0, "tasks": [{"phases": [{"duration": 20000000, "run": 1, "sleep": 1}]}]})");
    CHECK(at.events.size() == 20000000);

    // --every: (end - first) / step + 1 sample times per task, counted first.
    Workload wl = wl_of(half_task);
    Result r = simulate(wl, parse_impl("pelt/v6.12", false), sc::Arch::lp64);
    CHECK(resample(r.rows, 1, 1000000, wl.end).size() == 4); // 0, 1, 2, 3 ms
    CHECK_THROWS_AS(resample(r.rows, 1, 1, std::uint64_t(max_rows) * 2), sc::proofs::input_error);
    CHECK_THROWS_AS(resample(r.rows, 1000, 1, max_rows / 1000), sc::proofs::input_error);

    // Rows: 11 M events on three implementations is 33 M rows, over the 30 M
    // limit; refused before any simulation, nothing written.
    fs::path dir = fs::temp_directory_path() / ("sc-sim-lim-" + std::to_string(::getpid()));
    fs::create_directories(dir);
    std::string big = (dir / "big.json").string();
    std::ofstream(big) << R"({"tick_hz": 0, "tasks": [{"phases": [{"duration": 11000000, "run": 1, "sleep": 1}]}]})";
    std::string csv = (dir / "out.csv").string();
    Run rr = run_argv({SCHEDCHECK_BIN, "simulate", big, "--variant", "pelt/v6.1", "--variant", "pelt/v6.12",
                       "--variant", "pelt/v4.12", "--csv", csv});
    INFO(rr.out);
    CHECK(rr.code == 2);
    CHECK(rr.out.find("11000000 events on 3 simulation(s) make more than the 30000000 rows") != std::string::npos);
    CHECK_FALSE(fs::exists(csv));
    // --every 1e-6 ms is a 1 ns step over 11 ms: 11 M samples, accepted
    // with one implementation; a step of 1 ns over a 4000 s phase is not.
    std::string far = (dir / "far.json").string();
    std::ofstream(far) << R"({"tick_hz": 0, "tasks": [{"phases": [{"duration": 4000000000000, "period": 1000, "duty": 1}]}]})";
    Run rf = run_argv({SCHEDCHECK_BIN, "simulate", far, "--every", "0.000001", "--csv", csv});
    INFO(rf.out);
    CHECK(rf.code == 2);
    CHECK(rf.out.find("--every: 4000000000001 sample times of 1 task(s)") != std::string::npos);
    CHECK_FALSE(fs::exists(csv));
    for (const auto &e : fs::directory_iterator(dir))
        CHECK(e.path().filename().string().find(".tmp.") == std::string::npos);
    fs::remove_all(dir);
}

// The plot of a long run keeps per pixel column the first, lowest, highest
// and last points, so a single spike among a million points still shows.
TEST_CASE("simulate: the SVG line of a million points is thinned, spikes kept", "[simulate]") {
    LineThinner th(0, 1000, 100);
    for (int i = 0; i < 1000000; ++i)
        th.add(i / 1000.0, i == 123457 ? 5000.0 : (i == 876543 ? -7.0 : double(i % 97)));
    auto pts = th.take();
    CHECK(pts.size() <= 400);
    CHECK(pts.size() >= 100);
    CHECK(std::is_sorted(pts.begin(), pts.end(), [](auto &a, auto &b) { return a.first < b.first; }));
    CHECK(std::count(pts.begin(), pts.end(), std::pair<double, double>{123.457, 5000.0}) == 1);
    CHECK(std::count(pts.begin(), pts.end(), std::pair<double, double>{876.543, -7.0}) == 1);
    CHECK(pts.front() == std::pair<double, double>{0.0, 0.0});
    CHECK(pts.back() == std::pair<double, double>{999.999, double(999999 % 97)});
    CHECK(th.take().empty());
}
