#include "sim/trace.h"

#include <algorithm>
#include <climits>
#include <map>
#include <set>
#include <string_view>

#include <fmt/format.h>

#include "proofs/report/input_file.h"
#include "proofs/invariant.h"

namespace sc::sim {

using proofs::input_error;

namespace {

// "123.456789" (seconds) -> ns; false when it is not a timestamp.
bool parse_ts(std::string_view s, std::uint64_t &ns) {
    std::size_t dot = s.find('.');
    if (dot == std::string_view::npos || dot == 0 || dot + 1 >= s.size() || s.size() - dot - 1 > 9 || dot > 10)
        return false;
    std::uint64_t sec = 0, frac = 0;
    for (std::size_t i = 0; i < dot; ++i) {
        if (s[i] < '0' || s[i] > '9')
            return false;
        sec = sec * 10 + unsigned(s[i] - '0');
    }
    std::size_t digits = 0;
    for (std::size_t i = dot + 1; i < s.size(); ++i, ++digits) {
        if (s[i] < '0' || s[i] > '9')
            return false;
        frac = frac * 10 + unsigned(s[i] - '0');
    }
    for (; digits < 9; ++digits)
        frac *= 10;
    ns = sec * 1000000000ULL + frac;
    return true;
}

struct Fields {
    std::vector<std::pair<std::string_view, std::string_view>> kv;
    std::string_view get(std::string_view k) const {
        for (const auto &[a, b] : kv)
            if (a == k)
                return b;
        return {};
    }
};

std::vector<std::string_view> split(std::string_view s) {
    std::vector<std::string_view> out;
    std::size_t i = 0;
    while (i < s.size()) {
        while (i < s.size() && (s[i] == ' ' || s[i] == '\t' || s[i] == '\r'))
            ++i;
        std::size_t j = i;
        while (j < s.size() && s[j] != ' ' && s[j] != '\t' && s[j] != '\r')
            ++j;
        if (j > i)
            out.push_back(s.substr(i, j - i));
        i = j;
    }
    return out;
}

class TraceReader {
  public:
    TraceReader(const std::string &path, const std::vector<std::int64_t> &pids, const std::vector<std::string> &comms)
        : path_(path), pids_(pids), comms_(comms) {}

    Input read(std::string_view text) {
        Input in;
        in.trace = true;
        Workload &wl = in.workload;
        wl.origin = path_;
        std::size_t pos = 0, line = 0;
        bool seen_event = false;
        while (pos < text.size()) {
            std::size_t eol = text.find('\n', pos);
            std::string_view l = text.substr(pos, eol == std::string_view::npos ? text.size() - pos : eol - pos);
            bool last_unterminated = eol == std::string_view::npos;
            pos = last_unterminated ? text.size() : eol + 1;
            ++line;
            line_ = line;
            if (parse_line(l, in, seen_event))
                seen_event = true;
            else if (last_unterminated && seen_event && !l.empty())
                fail("truncated line (no newline, not an event)");
        }
        if (!seen_event)
            throw input_error(path_ + ": no trace-cmd event line found (expected `trace-cmd report` text with "
                                      "sched_switch, sched_wakeup, sched_wakeup_new, sched_migrate_task lines)");
        for (std::int64_t p : pids_)
            if (!known_.count(p))
                throw input_error(path_ + ": --pid " + std::to_string(p) + ": no such pid in the trace");
        for (const auto &c : comms_) {
            bool any = false;
            for (const auto &[pid, comm] : comm_of_)
                any |= comm == c;
            if (!any)
                throw input_error(path_ + ": --comm " + proofs::excerpt(c) + ": no task with that comm in the trace");
        }
        wl.cpus.assign(std::size_t(max_cpu_) + 1, Cpu{});
        for (auto &t : tasks_) {
            wl.tasks.push_back(t.task);
        }
        wl.events = std::move(events_);
        sort_events(wl.events);
        wl.end = wl.events.empty() ? 0 : wl.events.back().t;
        if (wl.tasks.empty())
            throw input_error(path_ + ": no task to simulate (the trace has no chosen task with scheduler events)");
        return in;
    }

  private:
    enum class St { asleep, queued, on_cpu };
    struct T {
        Task task;
        St st = St::asleep;
        std::uint32_t index;
    };
    std::string path_;
    std::vector<std::int64_t> pids_;
    std::vector<std::string> comms_;
    std::size_t line_ = 0;
    std::int64_t max_cpu_ = 0;
    std::vector<T> tasks_;
    std::map<std::int64_t, std::size_t> index_;
    std::set<std::int64_t> known_;
    std::map<std::int64_t, std::string> comm_of_;
    std::vector<std::uint64_t> last_t_;
    std::vector<Event> events_;

    [[noreturn]] void fail(const std::string &what) const {
        throw input_error(path_ + ":" + std::to_string(line_) + ": " + what);
    }

    std::int64_t number(const Fields &f, std::string_view ev, std::string_view key, std::int64_t hi) const {
        std::string_view v = f.get(key);
        if (v.empty())
            fail(std::string(ev) + ": missing field " + std::string(key) + " (truncated line?)");
        std::int64_t x = 0;
        for (char c : v) {
            if (c < '0' || c > '9' || x > hi)
                fail(std::string(ev) + ": " + std::string(key) + ": expected a number 0.." + std::to_string(hi) +
                     ", got " + proofs::excerpt(v, 40));
            x = x * 10 + (c - '0');
        }
        if (x > hi)
            fail(std::string(ev) + ": " + std::string(key) + ": expected a number 0.." + std::to_string(hi));
        return x;
    }

    bool chosen(std::int64_t pid, std::string_view comm) const {
        if (pids_.empty() && comms_.empty())
            return true;
        for (auto p : pids_)
            if (p == pid)
                return true;
        for (const auto &c : comms_)
            if (c == comm)
                return true;
        return false;
    }

    // The task of pid, created on first sight when chosen; nullptr if not.
    T *task(std::int64_t pid, std::string_view comm, std::uint32_t cpu) {
        if (pid <= 0)
            return nullptr; // the idle task
        known_.insert(pid);
        if (!comm_of_.count(pid))
            comm_of_[pid] = std::string(comm);
        auto it = index_.find(pid);
        if (it != index_.end())
            return &tasks_[it->second];
        if (!chosen(pid, comm))
            return nullptr;
        T t;
        t.task.name = std::string(comm.substr(0, 40)) + "-" + std::to_string(pid);
        for (char &c : t.task.name)
            if (c <= ' ' || c == ',' || c >= 0x7f)
                c = '_';
        t.task.pid = pid;
        t.task.cpu = cpu;
        t.index = std::uint32_t(tasks_.size());
        index_[pid] = tasks_.size();
        tasks_.push_back(t);
        return &tasks_.back();
    }

    void emit(T &t, std::uint64_t ts, ev kind, std::uint32_t arg = 0) {
        if (events_.size() >= max_events)
            fail("more than " + std::to_string(max_events) + " events for the chosen tasks");
        events_.push_back({ts, t.index, kind, arg});
    }
    // Move the task to cpu (a migrate event) when it is elsewhere.
    void place(T &t, std::uint64_t ts, std::uint32_t cpu) {
        if (current_cpu(t) != cpu)
            emit(t, ts, ev::migrate, cpu), cpu_[t.index] = cpu;
    }
    std::map<std::uint32_t, std::uint32_t> cpu_;
    std::uint32_t current_cpu(const T &t) {
        auto it = cpu_.find(t.index);
        return it == cpu_.end() ? (cpu_[t.index] = t.task.cpu) : it->second;
    }

    bool parse_line(std::string_view l, Input &in, bool seen_event) {
        std::size_t lb = l.find('[');
        std::size_t rb = lb == std::string_view::npos ? lb : l.find(']', lb);
        if (rb == std::string_view::npos) {
            std::vector<std::string_view> tok = split(l);
            if (tok.empty() || !seen_event || tok[0].rfind("CPU", 0) == 0 || tok[0].rfind("cpus=", 0) == 0)
                return false;
            fail("not a trace-cmd event line (truncated?)");
        }
        std::string_view cpu_s = l.substr(lb + 1, rb - lb - 1);
        std::int64_t cpu = 0;
        if (cpu_s.empty() || cpu_s.size() > 5)
            return seen_event ? (fail("CPU field: expected [NNN]"), false) : false;
        for (char c : cpu_s) {
            if (c < '0' || c > '9')
                return seen_event ? (fail("CPU field: expected [NNN], got [" + proofs::excerpt(cpu_s, 10) + "]"), false)
                                  : false;
            cpu = cpu * 10 + (c - '0');
        }
        std::vector<std::string_view> tok = split(l.substr(rb + 1));
        std::size_t k = 0;
        std::uint64_t ts = 0;
        bool have_ts = false;
        for (; k < tok.size() && k < 3; ++k)
            if (tok[k].size() > 1 && tok[k].back() == ':' && parse_ts(tok[k].substr(0, tok[k].size() - 1), ts)) {
                have_ts = true;
                break;
            }
        if (!have_ts)
            fail("timestamp: expected SECONDS.FRACTION: after the CPU field");
        if (k + 1 >= tok.size() || tok[k + 1].back() != ':')
            fail("event name: missing after the timestamp (truncated line?)");
        std::string_view name = tok[k + 1].substr(0, tok[k + 1].size() - 1);
        if (std::size_t(cpu) >= last_t_.size())
            last_t_.resize(std::size_t(cpu) + 1, 0);
        if (ts < last_t_[std::size_t(cpu)])
            fail("timestamp: time goes backwards on CPU " + std::to_string(cpu));
        last_t_[std::size_t(cpu)] = ts;
        max_cpu_ = std::max(max_cpu_, cpu);
        Fields f;
        for (std::size_t i = k + 2; i < tok.size(); ++i) {
            std::size_t eq = tok[i].find('=');
            if (eq != std::string_view::npos)
                f.kv.push_back({tok[i].substr(0, eq), tok[i].substr(eq + 1)});
        }
        const std::int64_t pid_max = 4194304, cpu_max = 65535;
        if (name == "sched_switch") {
            std::int64_t prev = number(f, name, "prev_pid", pid_max), next = number(f, name, "next_pid", pid_max);
            std::string_view state = f.get("prev_state");
            if (state.empty())
                fail("sched_switch: missing field prev_state (truncated line?)");
            if (f.get("next_comm").empty())
                fail("sched_switch: missing field next_comm (truncated line?)");
            if (T *t = task(prev, f.get("prev_comm"), std::uint32_t(cpu)); t && t->st == St::on_cpu) {
                place(*t, ts, std::uint32_t(cpu));
                bool still = state[0] == 'R';
                emit(*t, ts, still ? ev::preempt : ev::sleep);
                t->st = still ? St::queued : St::asleep;
            }
            if (T *t = task(next, f.get("next_comm"), std::uint32_t(cpu))) {
                place(*t, ts, std::uint32_t(cpu));
                if (t->st == St::queued)
                    emit(*t, ts, ev::run);
                else if (t->st == St::asleep)
                    emit(*t, ts, ev::wakeup); // its wakeup was not traced
                t->st = St::on_cpu;
            }
        } else if (name == "sched_wakeup" || name == "sched_wakeup_new") {
            std::int64_t pid = number(f, name, "pid", pid_max);
            std::int64_t target = number(f, name, "target_cpu", cpu_max);
            max_cpu_ = std::max(max_cpu_, target);
            if (T *t = task(pid, f.get("comm"), std::uint32_t(target)); t && t->st == St::asleep) {
                place(*t, ts, std::uint32_t(target));
                emit(*t, ts, ev::wakeup_queued);
                t->st = St::queued;
            }
        } else if (name == "sched_migrate_task") {
            std::int64_t pid = number(f, name, "pid", pid_max);
            number(f, name, "orig_cpu", cpu_max);
            std::int64_t dest = number(f, name, "dest_cpu", cpu_max);
            max_cpu_ = std::max(max_cpu_, dest);
            if (T *t = task(pid, f.get("comm"), std::uint32_t(dest)))
                place(*t, ts, std::uint32_t(dest));
        } else if (name == "sched_pelt_se") {
            std::int64_t pid = number(f, name, "pid", pid_max);
            PeltEvent pe{line_, 0, ts, std::uint64_t(number(f, name, "load", INT64_MAX / 10)),
                         std::uint64_t(number(f, name, "runnable", INT64_MAX / 10)),
                         std::uint64_t(number(f, name, "util", INT64_MAX / 10)),
                         std::uint64_t(number(f, name, "update_time", INT64_MAX / 10))};
            if (T *t = task(pid, f.get("comm"), std::uint32_t(cpu))) {
                pe.task = t->index;
                in.pelt_events.push_back(pe);
            }
        }
        return true;
    }
};

} // namespace

Input load_input(const std::string &path, const std::vector<std::int64_t> &pids,
                 const std::vector<std::string> &comms) {
    return parse_input(proofs::read_input_file(path, trace_max_bytes), path, pids, comms);
}

Input parse_input(const std::string &text, const std::string &path, const std::vector<std::int64_t> &pids,
                  const std::vector<std::string> &comms) {
    std::size_t i = text.find_first_not_of(" \t\r\n");
    Input in;
    if (i != std::string::npos && text[i] == '{') {
        if (!pids.empty() || !comms.empty())
            throw input_error("--pid and --comm choose tasks of a trace; " + path + " is a JSON workload");
        if (text.size() > workload_max_bytes)
            throw input_error(path + " is larger than " + std::to_string(workload_max_bytes >> 20) + " MB");
        in.workload = parse_workload(text, path);
        return in;
    }
    if (text.find('\0') != std::string::npos)
        throw input_error(path + ": a NUL byte: not trace-cmd report text");
    return TraceReader(path, pids, comms).read(text);
}

CheckReport check_against_trace(const Input &in, const Impl &impl, Arch arch) {
    CheckReport c;
    c.impl = impl.spec;
    const Workload &wl = in.workload;
    Result lo = simulate(wl, impl, arch, true, Start::zero);
    Result hi = simulate(wl, impl, arch, true, Start::saturated);
    // Each task's rows, in time order (the same positions in both runs).
    std::vector<std::vector<std::size_t>> rows(wl.tasks.size());
    for (std::size_t i = 0; i < lo.rows.size(); ++i)
        rows[lo.rows[i].task].push_back(i);
    for (const PeltEvent &e : in.pelt_events) {
        const auto &rs = rows[e.task];
        auto it = std::upper_bound(rs.begin(), rs.end(), e.t,
                                   [&](std::uint64_t t, std::size_t i) { return t < lo.rows[i].t; });
        if (it == rs.begin())
            continue; // before the task's first simulated update: nothing to compare
        ++c.events;
        const Row &a = lo.rows[*(it - 1)], &b = hi.rows[*(it - 1)];
        std::uint64_t gap = e.update_time > a.last_update_time ? e.update_time - a.last_update_time
                                                               : a.last_update_time - e.update_time;
        std::uint64_t gu = (gap >> 10) + 1;
        std::uint64_t w = wl.tasks[e.task].weight;
        struct Sig {
            const char *name;
            std::uint64_t traced, lo, hi, scale;
        } sigs[] = {{"load", e.load, a.load_avg, b.load_avg, w},
                    {"runnable", e.runnable, a.runnable_avg, b.runnable_avg, 1024},
                    {"util", e.util, a.util_avg, b.util_avg, 1024}};
        bool bad = false;
        std::string what;
        for (const Sig &s : sigs) {
            std::uint64_t slack = s.scale * gu / 46718 + 2;
            std::uint64_t l = std::min(s.lo, s.hi), h = std::max(s.lo, s.hi);
            l = l > slack ? l - slack : 0;
            h += slack;
            if (s.traced < l || s.traced > h) {
                bad = true;
                what += fmt::format(" {}={} outside [{}, {}]", s.name, s.traced, l, h);
            }
        }
        if (bad) {
            ++c.outside;
            if (c.first_outside.size() < 20)
                c.first_outside.push_back(fmt::format("{}:{}: t={} ns {}:{}", wl.origin, e.line, e.t,
                                                      wl.tasks[e.task].name, what));
        }
    }
    return c;
}

nlohmann::json check_json(const CheckReport &c) {
    return {{"implementation", c.impl}, {"events", c.events}, {"outside", c.outside}, {"first_outside", c.first_outside}};
}

std::string check_text(const CheckReport &c) {
    std::string o = fmt::format("check {}: {} sched_pelt_se event(s), {} outside the simulated interval\n", c.impl,
                                c.events, c.outside);
    for (const auto &s : c.first_outside)
        o += "  " + s + "\n";
    return o;
}

} // namespace sc::sim
