// `schedcheck simulate`: run a workload on one or more PELT/util_est
// implementations and show the signals (text, CSV, JSON, SVG), and where
// the implementations part.
#include "cli/simulate.h"

#include <filesystem>
#include <iostream>
#include <utility>

#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include "oracle/process.h"
#include "proofs/report/input_file.h"
#include "proofs/invariant.h"
#include "sim/simulate.h"
#include "sim/svg.h"
#include "sim/trace.h"

namespace sc::cli {

using nlohmann::json;
using proofs::input_error;
using namespace sc::sim;

namespace {

std::string cell(std::uint64_t v) { return v == none ? "" : std::to_string(v); }

// Rows are written as they are formatted, never held as one text: a
// workload may have millions of them.  A signal is looked at every 64k rows.
void check_interrupt_every(std::size_t i) {
    if ((i & 0xffff) == 0)
        sys::check_interrupt();
}

void write_csv(const std::string &path, const std::vector<Result> &rs, const std::vector<std::vector<Row>> &rows,
               const Workload &wl, bool sampled) {
    proofs::AtomicWriter w(path);
    std::string line = "implementation,t_ns,task,event,cpu";
    for (const auto &f : row_fields())
        line += std::string(",") + f.name;
    line += "\n";
    w.write(line);
    for (std::size_t k = 0; k < rs.size(); ++k)
        for (std::size_t i = 0; i < rows[k].size(); ++i) {
            check_interrupt_every(i);
            const Row &r = rows[k][i];
            line.clear();
            fmt::format_to(std::back_inserter(line), "{},{},{},{},{}", rs[k].impl.spec, r.t, wl.tasks[r.task].name,
                           sampled ? "sample" : ev_name(r.kind), r.cpu);
            for (const auto &f : row_fields())
                line += "," + cell(r.*f.member);
            line += "\n";
            w.write(line);
        }
    w.commit();
}

// One row as a JSON object on one line; a field the implementation lacks
// is null.  `task` is the task's name already in JSON form.
void append_row_json(std::string &o, const Row &r, const std::string &task, bool sampled) {
    fmt::format_to(std::back_inserter(o), R"({{"t": {}, "task": {}, "event": "{}", "cpu": {})", r.t, task,
                   sampled ? "sample" : ev_name(r.kind), r.cpu);
    for (const auto &f : row_fields()) {
        std::uint64_t v = r.*f.member;
        fmt::format_to(std::back_inserter(o), R"(, "{}": {})", f.name, v == none ? "null" : std::to_string(v));
    }
    o += "}";
}

std::string svg_text(const std::vector<Result> &rs, const std::vector<std::vector<Row>> &rows, const Workload &wl,
                     Arch arch, std::string &note) {
    // At most 8 lines per panel: every implementation for the first tasks.
    std::size_t per = std::max<std::size_t>(1, 8 / rs.size());
    std::size_t ntasks = std::min(wl.tasks.size(), per);
    if (ntasks < wl.tasks.size())
        note = fmt::format("the plot shows the first {} of {} tasks", ntasks, wl.tasks.size());
    Plot p;
    p.title = fmt::format("schedcheck simulate {} ({}): state after the update at each time", wl.origin,
                          arch_name(arch));
    p.x_label = "time (ms)";
    struct Sig {
        const char *title;
        std::uint64_t Row::*m;
    };
    std::vector<Sig> sigs = {{"util_avg", &Row::util_avg},
                             {"load_avg", &Row::load_avg},
                             {"runnable_avg", &Row::runnable_avg},
                             {"util_est ewma", &Row::ue_ewma},
                             {"util_est enqueued", &Row::ue_enqueued}};
    for (const Sig &s : sigs) {
        Panel pn;
        pn.title = s.title;
        for (std::size_t t = 0; t < ntasks; ++t)
            for (std::size_t k = 0; k < rs.size(); ++k) {
                Series se;
                se.label = rs[k].impl.spec + (wl.tasks.size() > 1 ? " " + wl.tasks[t].name : "");
                LineThinner line(0, double(wl.end) / 1e6);
                for (const Row &r : rows[k])
                    if (r.task == t && r.*s.m != none)
                        line.add(double(r.t) / 1e6, double(r.*s.m));
                se.points = line.take();
                if (!se.points.empty())
                    pn.series.push_back(std::move(se));
            }
        if (!pn.series.empty())
            p.panels.push_back(std::move(pn));
    }
    return render_svg(p);
}

} // namespace

int cmd_simulate(const SimulateArgs &a) {
    Arch arch;
    if (a.arch == "lp64")
        arch = Arch::lp64;
    else if (a.arch == "ilp32")
        arch = Arch::ilp32;
    else
        throw input_error("--arch: expected ilp32 or lp64, got \"" + proofs::excerpt(a.arch) + "\"");
    std::vector<Impl> impls;
    for (const auto &v : a.variants)
        impls.push_back(parse_impl(v, false));
    for (const auto &o : a.oracles)
        impls.push_back(parse_impl(o, true, a.oracle_dir));
    if (impls.empty())
        impls.push_back(parse_impl("pelt/v6.12", false));
    if (!(a.every_ms >= 0) || a.every_ms > 1e12)
        throw input_error("--every: expected a positive number of milliseconds");
    std::uint64_t every = std::uint64_t(a.every_ms * 1e6 + 0.5);
    if (a.every_ms > 0 && every == 0)
        throw input_error("--every: below one nanosecond");

    Input in = load_input(a.input, a.pids, a.comms);
    const Workload &wl = in.workload;
    if (a.check && in.pelt_events.empty())
        throw input_error(a.input + ": --check needs sched_pelt_se events of the chosen tasks, and there are none");

    // Every row is kept until the end (comparison, outputs); --check runs
    // two more simulations of an implementation at a time.  Counted before
    // any is made.
    const std::size_t runs = impls.size() + (a.check ? 2 : 0);
    if (wl.events.size() > max_rows / runs)
        throw input_error(fmt::format("{}: {} events on {} simulation(s) make more than the {} rows simulate holds; "
                                      "shorten the workload or give fewer implementations at once",
                                      a.input, wl.events.size(), runs, max_rows));
    std::vector<Result> rs;
    for (const Impl &im : impls) {
        rs.push_back(simulate(wl, im, arch, true, in.trace ? Start::zero : Start::empty));
        sys::check_interrupt();
    }
    // What is shown: the samples, or every row (moved, not copied: the
    // rows are the bulk of the memory).  `updates(k)` is every row of k.
    std::vector<std::vector<Row>> rows;
    for (Result &r : rs)
        rows.push_back(every ? resample(r.rows, wl.tasks.size(), every, wl.end) : std::move(r.rows));
    auto updates = [&](std::size_t k) -> const std::vector<Row> & { return every ? rs[k].rows : rows[k]; };

    // Where the implementations part (on every update, not the samples).
    std::vector<std::pair<std::size_t, Difference>> diffs;
    for (std::size_t k = 1; k < rs.size(); ++k)
        diffs.push_back({k, compare(updates(0), updates(k))});

    std::vector<CheckReport> checks;
    if (a.check)
        for (const Result &r : rs)
            checks.push_back(check_against_trace(in, r.impl, arch));

    // Files first, each whole or not at all; nothing is written when any
    // input was bad (we would not be here).
    std::string note;
    std::string svg = a.svg.empty() ? "" : svg_text(rs, rows, wl, arch, note);
    // Both destinations are checked first, so a bad --svg does not leave
    // the --csv written alone.
    for (const auto &[opt, path] : {std::pair<const char *, const std::string &>{"--csv", a.csv}, {"--svg", a.svg}}) {
        if (path.empty())
            continue;
        std::string dir = std::filesystem::path(path).parent_path().string();
        std::string why = proofs::directory_write_problem(dir.empty() ? "." : dir);
        if (!why.empty())
            throw input_error(std::string(opt) + " " + path + ": " + why);
    }
    if (!a.csv.empty())
        write_csv(a.csv, rs, rows, wl, every != 0);
    if (!a.svg.empty())
        proofs::write_file_atomic(a.svg, svg);

    bool check_failed = false;
    for (const auto &c : checks)
        check_failed |= c.outside > 0;

    if (a.json) {
        json j;
        j["input"] = a.input;
        j["arch"] = std::string(arch_name(arch));
        j["convention"] = "a row at time t is the state after the update at t";
        j["end_ns"] = wl.end;
        j["events"] = wl.events.size();
        json tasks = json::array();
        for (const Task &t : wl.tasks)
            tasks.push_back({{"name", t.name}, {"pid", t.pid < 0 ? json(nullptr) : json(t.pid)}, {"cpu", t.cpu},
                             {"weight", t.weight}});
        j["tasks"] = tasks;
        json dj = json::array();
        for (const auto &[k, d] : diffs) {
            json x = {{"a", rs[0].impl.spec}, {"b", rs[k].impl.spec}, {"differ", d.differ}};
            if (d.differ) {
                x["first"] = {{"t", d.first_t}, {"task", wl.tasks[d.first_task].name}, {"field", d.first_field},
                              {"a", d.first_a}, {"b", d.first_b}};
                json m = json::object();
                for (const auto &[f, v] : d.max_abs)
                    m[f] = v;
                x["max_abs_difference"] = m;
            }
            dj.push_back(x);
        }
        j["comparisons"] = dj;
        if (a.check) {
            json cj = json::array();
            for (const auto &c : checks)
                cj.push_back(check_json(c));
            j["check"] = cj;
        }
        // The rows are streamed, implementation by implementation, one row
        // a line, after the small fields.
        std::string o = "{\n";
        for (const auto &[key, val] : j.items())
            o += "  " + json(key).dump() + ": " + val.dump() + ",\n";
        o += "  \"implementations\": [";
        std::vector<std::string> names;
        for (const Task &t : wl.tasks)
            names.push_back(json(t.name).dump(-1, ' ', false, json::error_handler_t::replace));
        for (std::size_t k = 0; k < rs.size(); ++k) {
            o += fmt::format("{}\n    {{\"spec\": {}, \"label\": {}, \"updates\": {}, \"rows\": [", k ? "," : "",
                             json(rs[k].impl.spec).dump(-1, ' ', false, json::error_handler_t::replace),
                             json(rs[k].impl.label).dump(-1, ' ', false, json::error_handler_t::replace),
                             rs[k].updates);
            for (std::size_t i = 0; i < rows[k].size(); ++i) {
                o += i ? ",\n      " : "\n      ";
                append_row_json(o, rows[k][i], names[rows[k][i].task], every != 0);
                if (o.size() >= (1u << 20)) {
                    std::cout << o;
                    o.clear();
                    sys::check_interrupt();
                }
            }
            o += rows[k].empty() ? "]}" : "\n    ]}";
        }
        o += "\n  ]\n}\n";
        std::cout << o << std::flush;
        return check_failed ? 1 : 0;
    }

    std::cout << fmt::format("simulate {}: {} task(s), {} event(s) over {} ns, {}\n", a.input, wl.tasks.size(),
                             wl.events.size(), wl.end, arch_name(arch));
    for (std::size_t k = 0; k < rs.size(); ++k)
        std::cout << fmt::format("  [{}] {}: {} PELT updates\n", k, rs[k].impl.label, rs[k].updates);
    std::cout << "convention: a row at time t is the state after the update at t"
              << (every ? fmt::format("; resampled every {} ns (the last row at or before each time)", every) : "")
              << "\n";
    if (a.csv.empty() && a.svg.empty()) {
        std::cout << fmt::format("{:>4} {:>14} {:<12} {:<10} {:>3}", "impl", "t_ns", "task", "event", "cpu");
        for (const auto &f : row_fields())
            std::cout << fmt::format(" {:>{}}", f.name, std::max<std::size_t>(8, std::string(f.name).size()));
        std::cout << "\n";
        for (std::size_t k = 0; k < rs.size(); ++k)
            for (std::size_t i = 0; i < rows[k].size(); ++i) {
                check_interrupt_every(i);
                const Row &r = rows[k][i];
                std::cout << fmt::format("{:>4} {:>14} {:<12} {:<10} {:>3}", k, r.t, wl.tasks[r.task].name,
                                         every ? "sample" : ev_name(r.kind), r.cpu);
                for (const auto &f : row_fields())
                    std::cout << fmt::format(" {:>{}}", r.*f.member == none ? "-" : std::to_string(r.*f.member),
                                             std::max<std::size_t>(8, std::string(f.name).size()));
                std::cout << "\n";
            }
    }
    for (const auto &[k, d] : diffs) {
        if (!d.differ) {
            std::cout << fmt::format("[0] {} and [{}] {}: identical on all {} updates\n", rs[0].impl.spec, k,
                                     rs[k].impl.spec, updates(0).size());
            continue;
        }
        std::cout << fmt::format("[0] {} and [{}] {} differ: first at t={} ns, task {}, {}: {} vs {}\n",
                                 rs[0].impl.spec, k, rs[k].impl.spec, d.first_t, wl.tasks[d.first_task].name,
                                 d.first_field, d.first_a, d.first_b);
        std::string m;
        for (const auto &[f, v] : d.max_abs)
            m += fmt::format("{}{} {}", m.empty() ? "" : ", ", f, v);
        std::cout << "  largest differences: " << m << "\n";
    }
    for (const auto &c : checks)
        std::cout << check_text(c);
    if (!a.csv.empty())
        std::cout << "wrote " << a.csv << "\n";
    if (!a.svg.empty())
        std::cout << "wrote " << a.svg << (note.empty() ? "" : " (" + note + ")") << "\n";
    return check_failed ? 1 : 0;
}

} // namespace sc::cli
