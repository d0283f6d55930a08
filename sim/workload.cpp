#include "sim/workload.h"

#include <algorithm>
#include <cmath>
#include <initializer_list>
#include <iterator>
#include <string_view>

#include <nlohmann/json.hpp>

#include "proofs/report/input_file.h"
#include "proofs/invariant.h"

namespace sc::sim {

using nlohmann::json;
using proofs::input_error;

const char *ev_name(ev e) {
    switch (e) {
    case ev::wakeup: return "wakeup";
    case ev::wakeup_queued: return "wakeup_queued";
    case ev::run: return "run";
    case ev::preempt: return "preempt";
    case ev::sleep: return "sleep";
    case ev::migrate: return "migrate";
    case ev::set_weight: return "set_weight";
    case ev::tick: return "tick";
    }
    return "?";
}

std::uint32_t nice_to_weight(int nice) {
    // sched_prio_to_weight[]: 1024 at nice 0, about 1.25x per nice step
    // (each step moves ~10% of CPU time between two competing tasks).
    static constexpr std::uint32_t w[40] = {
        88761, 71755, 56483, 46273, 36291, 29154, 23254, 18705, 14949, 11916,
        9548,  7620,  6100,  4904,  3906,  3121,  2501,  1991,  1586,  1277,
        1024,  820,   655,   526,   423,   335,   272,   215,   172,   137,
        110,   87,    70,    56,    45,    36,    29,    23,    18,    15,
    };
    return w[nice + 20];
}

void sort_events(std::vector<Event> &evs) {
    std::stable_sort(evs.begin(), evs.end(), [](const Event &a, const Event &b) {
        return a.t != b.t ? a.t < b.t : a.task < b.task;
    });
}

namespace {

// A field's place, "tasks[2].phases[0].duration", and its JSON pointer for
// echoing numbers as written.
struct Where {
    std::string name, pointer;
    Where field(const std::string &k) const { return {name.empty() ? k : name + "." + k, pointer + "/" + k}; }
    Where element(std::size_t i) const {
        return {name + "[" + std::to_string(i) + "]", pointer + "/" + std::to_string(i)};
    }
};

class Parser {
  public:
    Parser(const proofs::JsonDocument &d) : doc_(d) {}

    [[noreturn]] void fail(const Where &w, const std::string &what) const {
        throw input_error((w.name.empty() ? std::string("workload") : w.name) + ": " + what);
    }
    std::string shown(const json &v, const Where &w) const {
        return proofs::describe_json_value(v, w.pointer, &doc_.number_text);
    }
    void only(const json &obj, const Where &w, std::initializer_list<std::string_view> keys) const {
        if (!obj.is_object())
            fail(w, "expected an object, got " + shown(obj, w));
        for (auto it = obj.begin(); it != obj.end(); ++it)
            if (std::find(keys.begin(), keys.end(), it.key()) == keys.end()) {
                std::string list;
                for (auto k : keys)
                    list += (list.empty() ? "" : ", ") + std::string(k);
                fail(w.field(proofs::excerpt(it.key(), 40)), "unknown field (known: " + list + ")");
            }
    }
    // A non-negative integer up to hi.
    std::uint64_t uint(const json &obj, const std::string &k, const Where &w, std::uint64_t hi) const {
        const json &v = obj.at(k);
        Where f = w.field(k);
        if (v.is_number_integer() && !v.is_number_unsigned() && v.get<std::int64_t>() < 0)
            fail(f, "must not be negative, got " + shown(v, f));
        if (!v.is_number_unsigned() && !(v.is_number_integer() && v.get<std::int64_t>() >= 0))
            fail(f, "expected a non-negative integer, got " + shown(v, f));
        std::uint64_t x = v.get<std::uint64_t>();
        if (x > hi)
            fail(f, "must be at most " + std::to_string(hi) + ", got " + shown(v, f));
        return x;
    }
    std::int64_t sint(const json &obj, const std::string &k, const Where &w, std::int64_t lo, std::int64_t hi) const {
        const json &v = obj.at(k);
        Where f = w.field(k);
        if (!v.is_number_integer() || (v.is_number_unsigned() && v.get<std::uint64_t>() > std::uint64_t(hi)))
            fail(f, "expected an integer " + std::to_string(lo) + ".." + std::to_string(hi) + ", got " + shown(v, f));
        std::int64_t x = v.get<std::int64_t>();
        if (x < lo || x > hi)
            fail(f, "expected an integer " + std::to_string(lo) + ".." + std::to_string(hi) + ", got " + shown(v, f));
        return x;
    }
    std::string str(const json &obj, const std::string &k, const Where &w) const {
        const json &v = obj.at(k);
        if (!v.is_string())
            fail(w.field(k), "expected a string, got " + shown(v, w.field(k)));
        return v.get<std::string>();
    }
    // weight or nice (not both); def when neither.
    std::uint32_t weight(const json &obj, const Where &w, std::uint32_t def) const {
        if (obj.contains("weight") && obj.contains("nice"))
            fail(w, "give \"weight\" or \"nice\", not both");
        if (obj.contains("weight")) {
            std::uint64_t x = uint(obj, "weight", w, max_weight);
            if (x == 0)
                fail(w.field("weight"), "must be at least 1");
            return std::uint32_t(x);
        }
        if (obj.contains("nice"))
            return nice_to_weight(int(sint(obj, "nice", w, -20, 19)));
        return def;
    }

    Workload parse(const std::string &origin) {
        const json &root = doc_.value;
        Where top{"", ""};
        only(root, top, {"tick_hz", "cpus", "tasks"});
        Workload wl;
        wl.origin = origin;
        std::uint64_t tick_ns = 0;
        if (root.contains("tick_hz")) {
            std::uint64_t hz = uint(root, "tick_hz", top, 100000);
            if (hz)
                tick_ns = 1000000000ULL / hz;
        } else {
            tick_ns = 4000000; // CONFIG_HZ=250, Debian's default
        }
        if (root.contains("cpus")) {
            const json &cs = root.at("cpus");
            Where wc = top.field("cpus");
            if (!cs.is_array() || cs.empty() || cs.size() > 4096)
                fail(wc, "expected an array of 1 to 4096 CPUs, got " + shown(cs, wc));
            for (std::size_t i = 0; i < cs.size(); ++i) {
                Where we = wc.element(i);
                only(cs[i], we, {"capacity", "freq"});
                Cpu c;
                if (cs[i].contains("capacity"))
                    c.capacity = std::uint32_t(uint(cs[i], "capacity", we, 1024));
                if (cs[i].contains("freq"))
                    c.freq = std::uint32_t(uint(cs[i], "freq", we, 1024));
                if (!c.capacity || !c.freq)
                    fail(we, "capacity and freq must be 1..1024");
                wl.cpus.push_back(c);
            }
        } else {
            wl.cpus.push_back(Cpu{});
        }
        if (!root.contains("tasks"))
            fail(top, "missing field \"tasks\"");
        const json &ts = root.at("tasks");
        Where wt = top.field("tasks");
        if (!ts.is_array() || ts.empty())
            fail(wt, "expected a non-empty array of tasks, got " + shown(ts, wt));
        if (ts.size() > 1000000)
            fail(wt, "more than 1000000 tasks");
        std::vector<std::vector<Event>> per(ts.size());
        for (std::size_t i = 0; i < ts.size(); ++i) {
            Where w = wt.element(i);
            only(ts[i], w, {"name", "pid", "cpu", "weight", "nice", "start", "phases", "events"});
            Task t;
            t.name = ts[i].contains("name") ? str(ts[i], "name", w) : "task" + std::to_string(i);
            if (t.name.empty() || t.name.size() > 64 ||
                !std::all_of(t.name.begin(), t.name.end(), [](char c) { return c > ' ' && c < 0x7f && c != ','; }))
                fail(w.field("name"), "expected 1 to 64 printable characters without spaces or commas");
            if (ts[i].contains("pid"))
                t.pid = std::int64_t(uint(ts[i], "pid", w, 4194304));
            if (ts[i].contains("cpu"))
                t.cpu = cpu(ts[i], w, wl);
            t.weight = weight(ts[i], w, 1024);
            bool ph = ts[i].contains("phases"), evs = ts[i].contains("events");
            if (ph == evs)
                fail(w, "give exactly one of \"phases\" and \"events\"");
            std::uint64_t start = ts[i].contains("start") ? uint(ts[i], "start", w, max_time) : 0;
            if (ph)
                phases(ts[i].at("phases"), w.field("phases"), i, t, start, wl, per[i]);
            else {
                if (ts[i].contains("start"))
                    fail(w.field("start"), "only for phases; events carry their own times");
                events(ts[i].at("events"), w.field("events"), i, t, wl, per[i]);
            }
            wl.tasks.push_back(t);
        }
        for (const auto &v : per)
            if (!v.empty())
                wl.end = std::max(wl.end, v.back().t);
        if (tick_ns)
            for (std::size_t i = 0; i < per.size(); ++i)
                add_ticks(per[i], tick_ns, wl.end, wt.element(i));
        std::size_t n = 0;
        for (const auto &v : per)
            n += v.size();
        if (n > max_events)
            fail(top, "expands to " + std::to_string(n) + " events, more than the " + std::to_string(max_events) +
                          " allowed");
        // Each task's events are in time order already (phases and ticks
        // are made in order, given events checked): merge the tasks pairwise,
        // O(n log tasks), instead of sorting all.  std::merge takes the
        // first run's event on a tie and the runs stay in task order, so the
        // order is sort_events()'s: time, then task.
        std::vector<std::vector<Event>> runs;
        for (auto &v : per)
            if (!v.empty())
                runs.push_back(std::move(v));
        while (runs.size() > 1) {
            std::vector<std::vector<Event>> next;
            for (std::size_t i = 0; i + 1 < runs.size(); i += 2) {
                std::vector<Event> m;
                m.reserve(runs[i].size() + runs[i + 1].size());
                std::merge(runs[i].begin(), runs[i].end(), runs[i + 1].begin(), runs[i + 1].end(),
                           std::back_inserter(m), [](const Event &a, const Event &b) { return a.t < b.t; });
                std::vector<Event>().swap(runs[i]);
                std::vector<Event>().swap(runs[i + 1]);
                next.push_back(std::move(m));
            }
            if (runs.size() % 2)
                next.push_back(std::move(runs.back()));
            runs.swap(next);
        }
        if (!runs.empty())
            wl.events = std::move(runs.front());
        return wl;
    }

  private:
    const proofs::JsonDocument &doc_;
    std::size_t count_ = 0;

    std::uint32_t cpu(const json &obj, const Where &w, const Workload &wl) const {
        std::uint64_t c = uint(obj, "cpu", w, ~0ULL);
        if (c >= wl.cpus.size())
            fail(w.field("cpu"), "CPU " + std::to_string(c) + " is not in \"cpus\" (" +
                                     std::to_string(wl.cpus.size()) + " CPU(s))");
        return std::uint32_t(c);
    }

    void push(std::vector<Event> &out, const Event &e, const Where &w) {
        reserve(1, w);
        out.push_back(e);
    }
    // Fails unless `n` more events fit under max_events.
    void need_room(std::uint64_t n, const Where &w) const {
        if (n > max_events || count_ + n > max_events)
            fail(w, "the workload expands to more than " + std::to_string(max_events) + " events");
    }
    // `n` more events are coming: counted now, before they are made.
    void reserve(std::uint64_t n, const Where &w) {
        need_room(n, w);
        count_ += n;
    }

    // rt-app style: each phase repeats "run, then sleep" every period for
    // its duration.  A cycle cut by the end of the phase stops there; the
    // next phase starts where this one ended, in whatever state the task is
    // (a run that continues is not a new wakeup).  After the last phase the
    // task sleeps.
    void phases(const json &ps, const Where &wp, std::size_t ti, const Task &t, std::uint64_t start,
                const Workload &wl, std::vector<Event> &out) {
        if (!ps.is_array() || ps.empty())
            fail(wp, "expected a non-empty array of phases, got " + shown(ps, wp));
        std::uint32_t task = std::uint32_t(ti), cur_cpu = t.cpu, cur_w = t.weight;
        bool running = false;
        std::uint64_t at = start;
        for (std::size_t k = 0; k < ps.size(); ++k) {
            const json &p = ps[k];
            Where w = wp.element(k);
            only(p, w, {"duration", "period", "duty", "run", "sleep", "cpu", "weight", "nice"});
            if (!p.contains("duration"))
                fail(w, "missing field \"duration\"");
            std::uint64_t dur = uint(p, "duration", w, max_time);
            if (dur == 0)
                fail(w.field("duration"), "must be positive");
            std::uint64_t run, period;
            bool has_duty = p.contains("duty") || p.contains("period");
            bool has_rs = p.contains("run") || p.contains("sleep");
            if (has_duty == has_rs)
                fail(w, "give \"period\" and \"duty\", or \"run\" and \"sleep\"");
            if (has_duty) {
                if (!p.contains("period") || !p.contains("duty"))
                    fail(w, "\"period\" and \"duty\" go together");
                period = uint(p, "period", w, max_time);
                if (period == 0)
                    fail(w.field("period"), "must be positive");
                const json &d = p.at("duty");
                if (!d.is_number() || d.get<double>() < 0 || d.get<double>() > 1 || std::isnan(d.get<double>()))
                    fail(w.field("duty"), "expected a number 0..1, got " + shown(d, w.field("duty")));
                run = std::uint64_t(std::llround(double(period) * d.get<double>()));
                run = std::min(run, period);
            } else {
                if (!p.contains("run") || !p.contains("sleep"))
                    fail(w, "\"run\" and \"sleep\" go together");
                run = uint(p, "run", w, max_time);
                std::uint64_t sl = uint(p, "sleep", w, max_time);
                period = run + sl;
                if (period == 0)
                    fail(w, "run + sleep must be positive");
            }
            if (at > max_time - dur)
                fail(w.field("duration"), "the phase ends after 2^62 ns");
            std::uint64_t end = at + dur;
            if (p.contains("cpu")) {
                std::uint32_t c = cpu(p, w, wl);
                if (c != cur_cpu)
                    push(out, {at, task, ev::migrate, c}, w);
                cur_cpu = c;
            }
            std::uint32_t nw = weight(p, w, cur_w);
            if (nw != cur_w)
                push(out, {at, task, ev::set_weight, nw}, w);
            cur_w = nw;
            // Every cycle but the last ends in a sleep: at least
            // ceil(dur / period) - 1 events, counted before they are made.
            if (run != 0 && run < period) {
                std::uint64_t cycles = dur / period + (dur % period != 0);
                need_room(cycles - 1, w);
            }
            for (std::uint64_t c = at; c < end; c += period) {
                if (run == 0) {
                    if (running)
                        push(out, {c, task, ev::sleep, 0}, w);
                    running = false;
                    break; // asleep for the rest of the phase
                }
                if (!running)
                    push(out, {c, task, ev::wakeup, 0}, w);
                running = true;
                if (run < period && c + run < end) {
                    push(out, {c + run, task, ev::sleep, 0}, w);
                    running = false;
                }
                if (run == period)
                    break; // always running: no event until the phase ends
            }
            at = end;
        }
        if (running)
            push(out, {at, task, ev::sleep, 0}, wp);
    }

    void events(const json &es, const Where &we, std::size_t ti, const Task &t, const Workload &wl,
                std::vector<Event> &out) {
        if (!es.is_array() || es.empty())
            fail(we, "expected a non-empty array of events, got " + shown(es, we));
        enum { asleep, queued, on_cpu } st = asleep;
        std::uint64_t last = 0;
        for (std::size_t k = 0; k < es.size(); ++k) {
            const json &e = es[k];
            Where w = we.element(k);
            only(e, w, {"t", "event", "cpu", "weight", "nice"});
            if (!e.contains("t") || !e.contains("event"))
                fail(w, "an event needs \"t\" and \"event\"");
            std::uint64_t at = uint(e, "t", w, max_time);
            if (at < last)
                fail(w.field("t"), "time goes backwards: " + std::to_string(at) + " after " + std::to_string(last));
            last = at;
            std::string name = str(e, "event", w);
            Event x{at, std::uint32_t(ti), ev::tick, 0};
            auto no_args = [&] {
                if (e.contains("cpu") || e.contains("weight") || e.contains("nice"))
                    fail(w, "event \"" + name + "\" takes no cpu, weight or nice");
            };
            auto state_error = [&](const char *need) {
                static const char *names[] = {"asleep", "runnable", "running"};
                fail(w.field("event"), "\"" + name + "\" needs the task " + need + ", but it is " + names[st]);
            };
            if (name == "wakeup") {
                no_args();
                if (st != asleep)
                    state_error("asleep");
                x.kind = ev::wakeup;
                st = on_cpu;
            } else if (name == "wakeup_queued") {
                no_args();
                if (st != asleep)
                    state_error("asleep");
                x.kind = ev::wakeup_queued;
                st = queued;
            } else if (name == "run") {
                no_args();
                if (st != queued)
                    state_error("runnable (preempted)");
                x.kind = ev::run;
                st = on_cpu;
            } else if (name == "preempt") {
                no_args();
                if (st != on_cpu)
                    state_error("running");
                x.kind = ev::preempt;
                st = queued;
            } else if (name == "sleep") {
                no_args();
                if (st == asleep)
                    state_error("runnable or running");
                x.kind = ev::sleep;
                st = asleep;
            } else if (name == "migrate") {
                if (!e.contains("cpu") || e.contains("weight") || e.contains("nice"))
                    fail(w, "\"migrate\" takes \"cpu\" only");
                x.kind = ev::migrate;
                x.arg = cpu(e, w, wl);
            } else if (name == "set_weight") {
                if (e.contains("cpu") || (!e.contains("weight") && !e.contains("nice")))
                    fail(w, "\"set_weight\" takes \"weight\" or \"nice\"");
                x.kind = ev::set_weight;
                x.arg = weight(e, w, t.weight);
            } else {
                fail(w.field("event"), "unknown event \"" + proofs::excerpt(name, 40) +
                                           "\" (wakeup, wakeup_queued, run, preempt, sleep, migrate, set_weight)");
            }
            push(out, x, w);
        }
    }

    // The scheduler tick updates the running task (entity_tick()): one
    // tick at every multiple of tick_ns strictly inside each running
    // interval, up to `end` for a task still running at the end.
    void add_ticks(std::vector<Event> &evs, std::uint64_t tick_ns, std::uint64_t end, const Where &w) {
        if (evs.empty())
            return;
        std::vector<Event> out;
        out.reserve(evs.size());
        bool running = false;
        std::uint64_t since = 0;
        auto ticks_until = [&](std::uint64_t to) {
            // Ticks at k * tick_ns for since < k * tick_ns < to, counted first.
            if (to == 0)
                return;
            std::uint64_t k0 = since / tick_ns + 1, k1 = (to - 1) / tick_ns;
            if (k1 < k0)
                return;
            reserve(k1 - k0 + 1, w);
            for (std::uint64_t k = k0; k <= k1; ++k)
                out.push_back({k * tick_ns, evs.front().task, ev::tick, 0});
        };
        for (const Event &e : evs) {
            if (running)
                ticks_until(e.t);
            out.push_back(e);
            since = e.t;
            if (e.kind == ev::wakeup || e.kind == ev::run)
                running = true;
            else if (e.kind == ev::preempt || e.kind == ev::sleep)
                running = false;
        }
        if (running)
            ticks_until(end + 1);
        evs.swap(out);
    }
};

} // namespace

Workload parse_workload(const std::string &text, const std::string &origin) {
    proofs::JsonDocument d = proofs::parse_json_document(text, origin);
    try {
        return Parser(d).parse(origin);
    } catch (const input_error &e) {
        throw input_error(origin + ": " + e.what());
    }
}

Workload load_workload(const std::string &path) {
    return parse_workload(proofs::read_input_file(path, workload_max_bytes), path);
}

} // namespace sc::sim
