// `schedcheck simulate`: run a workload on one or more PELT/util_est
// implementations and show the signals (text, CSV, JSON, SVG), and where
// the implementations part.
#include "cli/simulate.h"

#include <filesystem>
#include <iostream>
#include <utility>

#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include "proofs/input_file.h"
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

std::string csv_text(const std::vector<Result> &rs, const std::vector<std::vector<Row>> &rows, const Workload &wl,
                     bool sampled) {
    std::string o = "implementation,t_ns,task,event,cpu";
    for (const auto &f : row_fields())
        o += std::string(",") + f.name;
    o += "\n";
    for (std::size_t k = 0; k < rs.size(); ++k)
        for (const Row &r : rows[k]) {
            o += fmt::format("{},{},{},{},{}", rs[k].impl.spec, r.t, wl.tasks[r.task].name,
                             sampled ? "sample" : ev_name(r.kind), r.cpu);
            for (const auto &f : row_fields())
                o += "," + cell(r.*f.member);
            o += "\n";
        }
    return o;
}

json row_json(const Row &r, const Workload &wl, bool sampled) {
    json j = {{"t", r.t}, {"task", wl.tasks[r.task].name}, {"event", sampled ? "sample" : ev_name(r.kind)},
              {"cpu", r.cpu}};
    for (const auto &f : row_fields()) {
        std::uint64_t v = r.*f.member;
        j[f.name] = v == none ? json(nullptr) : json(v);
    }
    return j;
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
                for (const Row &r : rows[k])
                    if (r.task == t && r.*s.m != none)
                        se.points.push_back({double(r.t) / 1e6, double(r.*s.m)});
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

    std::vector<Result> rs;
    for (const Impl &im : impls)
        rs.push_back(simulate(wl, im, arch, true, in.trace ? Start::zero : Start::empty));
    std::vector<std::vector<Row>> rows;
    for (const Result &r : rs)
        rows.push_back(every ? resample(r.rows, wl.tasks.size(), every, wl.end) : r.rows);

    // Where the implementations part (on every update, not the samples).
    std::vector<std::pair<std::size_t, Difference>> diffs;
    for (std::size_t k = 1; k < rs.size(); ++k)
        diffs.push_back({k, compare(rs[0].rows, rs[k].rows)});

    std::vector<CheckReport> checks;
    if (a.check)
        for (const Result &r : rs)
            checks.push_back(check_against_trace(in, r.impl, arch));

    // Files first, each whole or not at all; nothing is written when any
    // input was bad (we would not be here).
    std::string note;
    std::string csv = a.csv.empty() ? "" : csv_text(rs, rows, wl, every != 0);
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
        proofs::write_file_atomic(a.csv, csv);
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
        json ims = json::array();
        for (std::size_t k = 0; k < rs.size(); ++k) {
            json rj = json::array();
            for (const Row &r : rows[k])
                rj.push_back(row_json(r, wl, every != 0));
            ims.push_back({{"spec", rs[k].impl.spec}, {"label", rs[k].impl.label}, {"updates", rs[k].updates},
                           {"rows", rj}});
        }
        j["implementations"] = ims;
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
        std::cout << j.dump(2) << "\n";
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
            for (const Row &r : rows[k]) {
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
                                     rs[k].impl.spec, rs[0].rows.size());
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
