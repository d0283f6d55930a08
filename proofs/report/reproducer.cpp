#include "proofs/report/reproducer.h"

#include <algorithm>
#include <bit>
#include <cstdio>
#include <filesystem>
#include <map>

#include "proofs/kernel/kernel_invariants.h"
#include "ref/checked.h"

namespace sc::proofs {

using nlohmann::json;

namespace {

using NumberText = std::map<std::string, std::string>;

// Where a value sits, for messages ("steps[3].load") and for finding the
// text of a number as written ("/steps/3/load").
struct Where {
    std::string name; // empty: the top level, shown as "reproducer"
    std::string pointer;
    const NumberText *numbers = nullptr;

    Where field(const std::string &key) const { return {name.empty() ? key : name + "." + key, pointer + "/" + key, numbers}; }
    Where element(std::size_t i) const {
        return {(name.empty() ? "reproducer" : name) + "[" + std::to_string(i) + "]",
                pointer + "/" + std::to_string(i), numbers};
    }
    std::string shown() const { return name.empty() ? "reproducer" : name; }
    std::string value(const json &v) const { return describe_json_value(v, pointer, numbers); }
};

const json &member(const json &obj, const std::string &key, const Where &w) {
    if (!obj.is_object() || !obj.contains(key))
        throw input_error(w.shown() + ": missing field \"" + key + "\"");
    return obj.at(key);
}

// A non-negative integer in lo..hi.  `range` says why when the field is
// not a plain n-bit width.
std::uint64_t as_uint(const json &v, const Where &w, std::uint64_t hi, const std::string &range = "",
                      std::uint64_t lo = 0) {
    if (!v.is_number_integer() || (!v.is_number_unsigned() && v.get<std::int64_t>() < 0))
        throw input_error(w.shown() + ": expected a non-negative integer, got " + w.value(v));
    std::uint64_t x = v.get<std::uint64_t>();
    if (x < lo || x > hi) {
        if (range.empty())
            throw input_error(w.shown() + ": value " + std::to_string(x) + " is wider than its " +
                              std::to_string(std::bit_width(hi)) + "-bit field");
        throw input_error(w.shown() + ": " + range + ", got " + std::to_string(x));
    }
    return x;
}

std::uint64_t bits_max(unsigned bits) { return bits >= 64 ? ~0ULL : (1ULL << bits) - 1; }

std::uint64_t get_uint(const json &obj, const std::string &key, unsigned bits, const Where &w) {
    return as_uint(member(obj, key, w), w.field(key), bits_max(bits));
}

bool get_bool(const json &obj, const std::string &key, const Where &w) {
    const json &v = member(obj, key, w);
    if (!v.is_boolean())
        throw input_error(w.field(key).shown() + ": expected true or false, got " + w.field(key).value(v));
    return v.get<bool>();
}

const json &get_obj(const json &obj, const std::string &key, const Where &w) {
    const json &v = member(obj, key, w);
    if (!v.is_object())
        throw input_error(w.field(key).shown() + ": expected an object, got " + w.field(key).value(v));
    return v;
}

std::string get_str(const json &obj, const std::string &key, const Where &w) {
    const json &v = member(obj, key, w);
    if (!v.is_string())
        throw input_error(w.field(key).shown() + ": expected a string, got " + w.field(key).value(v));
    return v.get<std::string>();
}

// The kernel's int, for imbalance_pct: what a non-negative int holds.
constexpr std::uint64_t int_max = 2147483647;

template <class A> cpuload::scenario<A> read_scenario(const json &doc, unsigned lb, const NumberText *numbers) {
    const Where top{"", "", numbers};
    cpuload::scenario<A> s;
    const json &kn = get_obj(doc, "knobs", top);
    const Where wk = top.field("knobs");
    s.kn.lb_bias = get_bool(kn, "lb_bias", wk);
    // target_load(int cpu, int imbalance_pct): sd->imbalance_pct arrives as
    // an int, so a value above INT_MAX would be negative in the kernel.
    s.kn.imbalance_pct = as_uint(member(kn, "imbalance_pct", wk), wk.field("imbalance_pct"), int_max,
                                 "must be 0..2147483647 (the kernel passes imbalance_pct as an int)");
    const json &init = get_obj(doc, "initial", top);
    const Where wi = top.field("initial");
    const json &cl = member(init, "cpu_load", wi);
    if (!cl.is_array() || cl.size() != cpuload::CPU_LOAD_IDX_MAX)
        throw input_error("initial.cpu_load: expected an array of 5 integers, got " + wi.field("cpu_load").value(cl));
    for (std::size_t i = 0; i < cpuload::CPU_LOAD_IDX_MAX; i++) {
        s.init.cpu_load[i] = as_uint(cl[i], wi.field("cpu_load").element(i), bits_max(lb));
    }
    s.init.last_load_update_tick = get_uint(init, "last_load_update_tick", lb, wi);
    s.init.cfs.runnable_load_avg = get_uint(init, "runnable_load_avg", lb, wi);
    s.init.cfs.h_nr_running = get_uint(init, "h_nr_running", 32, wi);
    const json &steps = member(doc, "steps", top);
    if (!steps.is_array())
        throw input_error("steps: expected an array, got " + top.field("steps").value(steps));
    if (steps.size() > 1000000)
        throw input_error("steps: " + std::to_string(steps.size()) + " steps, more than the 1000000 allowed");
    s.steps.reserve(steps.size());
    for (std::size_t k = 0; k < steps.size(); ++k) {
        const json &j = steps[k];
        const Where w = top.field("steps").element(k);
        if (!j.is_object())
            throw input_error(w.shown() + ": expected an object, got " + w.value(j));
        std::string name = get_str(j, "op", w);
        cpuload::step<A> st{cpuload::op::tick};
        bool known = false;
        for (int o = 0; o < cpuload::op_count; ++o)
            if (cpuload::op_name(static_cast<cpuload::op>(o)) == name) {
                st.kind = static_cast<cpuload::op>(o);
                known = true;
            }
        if (!known)
            throw input_error(w.shown() + ".op: unknown operation \"" + excerpt(name) +
                              "\" (tick, idle_update, nohz_exit, set_load, update, decay, balance)");
        // The load index of decay and balance: checked against its range
        // before it becomes an int, so 2^32 - 1 is not taken for -1.
        auto load_index = [&](const char *field, const char *what) {
            int lo = cpuload::step_idx_min(st.kind), hi = cpuload::step_idx_max(st.kind);
            std::uint64_t x = as_uint(member(j, field, w), w.field(field), static_cast<std::uint64_t>(hi),
                                      std::string(what) + " must be " + std::to_string(lo) + ".." + std::to_string(hi),
                                      static_cast<std::uint64_t>(lo));
            return static_cast<int>(x);
        };
        switch (st.kind) {
        case cpuload::op::tick:
            st.a = get_uint(j, "load", lb, w);
            st.b = get_uint(j, "jiffies", lb, w);
            break;
        case cpuload::op::idle_update:
        case cpuload::op::nohz_exit: st.a = get_uint(j, "jiffies", lb, w); break;
        case cpuload::op::set_load:
            st.a = get_uint(j, "runnable_load_avg", lb, w);
            st.n = get_uint(j, "h_nr_running", 32, w);
            break;
        case cpuload::op::update:
            st.a = get_uint(j, "this_load", lb, w);
            st.b = get_uint(j, "pending_updates", lb, w);
            break;
        case cpuload::op::decay:
            st.a = get_uint(j, "load", lb, w);
            st.b = get_uint(j, "missed_updates", lb, w);
            st.idx = load_index("idx", "load index");
            break;
        case cpuload::op::balance: st.idx = load_index("type", "load type"); break;
        }
        s.steps.push_back(st);
    }
    return s;
}

// "inputs", when present: the counterexample's input values by name, shown
// in the report.  Names are short printable words; values integers.
void check_inputs(const json &doc, const NumberText *numbers) {
    if (!doc.contains("inputs"))
        return;
    const Where w = Where{"", "", numbers}.field("inputs");
    const json &in = doc.at("inputs");
    if (!in.is_object())
        throw input_error("inputs: expected an object, got " + w.value(in));
    for (auto it = in.begin(); it != in.end(); ++it) {
        const std::string &k = it.key();
        bool plain = !k.empty() && k.size() <= 64 &&
                     std::all_of(k.begin(), k.end(), [](char c) { return c > ' ' && c < 0x7f; });
        if (!plain)
            throw input_error("inputs: \"" + excerpt(k) + "\" is not an input name (1 to 64 printable characters)");
        std::string esc; // RFC 6901: '~' and '/' in a key
        for (char c : k)
            esc += c == '~' ? "~0" : c == '/' ? "~1" : std::string(1, c);
        as_uint(it.value(), Where{"inputs." + k, w.pointer + "/" + esc, numbers}, ~0ULL);
    }
}

} // namespace

template <class A> json scenario_to_json(const cpuload::scenario<A> &s) {
    auto u = [](const auto &x) -> std::uint64_t {
        if constexpr (std::is_integral_v<std::decay_t<decltype(x)>>)
            return x;
        else
            return x.value();
    };
    json init;
    init["cpu_load"] = json::array();
    for (const auto &c : s.init.cpu_load)
        init["cpu_load"].push_back(u(c));
    init["last_load_update_tick"] = u(s.init.last_load_update_tick);
    init["runnable_load_avg"] = u(s.init.cfs.runnable_load_avg);
    init["h_nr_running"] = u(s.init.cfs.h_nr_running);
    json steps = json::array();
    for (const auto &st : s.steps) {
        json j;
        j["op"] = std::string(cpuload::op_name(st.kind));
        switch (st.kind) {
        case cpuload::op::tick: j["load"] = u(st.a); j["jiffies"] = u(st.b); break;
        case cpuload::op::idle_update:
        case cpuload::op::nohz_exit: j["jiffies"] = u(st.a); break;
        case cpuload::op::set_load: j["runnable_load_avg"] = u(st.a); j["h_nr_running"] = u(st.n); break;
        case cpuload::op::update: j["this_load"] = u(st.a); j["pending_updates"] = u(st.b); break;
        case cpuload::op::decay:
            j["load"] = u(st.a); j["missed_updates"] = u(st.b); j["idx"] = st.idx; break;
        case cpuload::op::balance: j["type"] = st.idx; break;
        }
        steps.push_back(j);
    }
    return json{{"knobs", {{"lb_bias", s.kn.lb_bias}, {"imbalance_pct", u(s.kn.imbalance_pct)}}},
                {"initial", init},
                {"steps", steps}};
}

template <class A> cpuload::scenario<A> scenario_from_json(const json &doc, unsigned lb) {
    return read_scenario<A>(doc, lb, nullptr);
}

template json scenario_to_json<checked_ilp32>(const cpuload::scenario<checked_ilp32> &);
template json scenario_to_json<checked_lp64>(const cpuload::scenario<checked_lp64> &);
template json scenario_to_json<ilp32>(const cpuload::scenario<ilp32> &);
template json scenario_to_json<lp64>(const cpuload::scenario<lp64> &);
template cpuload::scenario<checked_ilp32> scenario_from_json<checked_ilp32>(const json &, unsigned);
template cpuload::scenario<checked_lp64> scenario_from_json<checked_lp64>(const json &, unsigned);
template cpuload::scenario<ilp32> scenario_from_json<ilp32>(const json &, unsigned);
template cpuload::scenario<lp64> scenario_from_json<lp64>(const json &, unsigned);

Reproducer parse_reproducer(const std::string &text, const std::string &origin) {
    JsonDocument parsed = parse_json_document(text, origin);
    json &doc = parsed.value;
    const NumberText *numbers = &parsed.number_text;
    if (!doc.is_object())
        throw input_error(origin + ": expected a JSON object, got " + describe_json_value(doc, "", numbers));
    const Where top{"", "", numbers};
    try {
        std::string fmt_name = get_str(doc, "format", top);
        if (fmt_name != reproducer_format)
            throw input_error("format: expected \"" + std::string(reproducer_format) + "\", got \"" +
                              excerpt(fmt_name) + "\"");
        std::uint64_t ver = get_uint(doc, "version", 32, top);
        if (ver != reproducer_version)
            throw input_error("version: this schedcheck reads version " + std::to_string(reproducer_version) +
                              ", the file is version " + std::to_string(ver));
        std::string vid = get_str(doc, "variant", top);
        const Variant *v = find_subject(vid); // a reference variant or a kernel subject
        if (!v)
            throw input_error("variant: unknown variant \"" + excerpt(vid) + "\" (see `schedcheck variants`)");
        std::string an = get_str(doc, "arch", top);
        if (an != "ilp32" && an != "lp64")
            throw input_error("arch: expected \"ilp32\" or \"lp64\", got \"" + excerpt(an) + "\"");
        std::string iid = get_str(doc, "invariant", top);
        const InvariantInfo *inv = find_invariant(iid);
        if (!inv)
            throw input_error("invariant: unknown invariant \"" + excerpt(iid) + "\" (see `schedcheck invariants`)");
        if (!inv->applies(*v))
            throw input_error("invariant " + iid + " does not apply to " + vid);
        check_inputs(doc, numbers);
        // A cpuload reproducer's scenario, for this arch, now: here the
        // numbers' text is at hand for the messages, and a file that loads
        // then also replays.  (The pelt and utilest families replay a named
        // case on the inputs alone.)
        Arch arch = an == "ilp32" ? Arch::ilp32 : Arch::lp64;
        if (inv->family == "cpuload") {
            if (doc.contains("claim") && doc.at("claim").is_object() && doc.at("claim").contains("bound_ticks"))
                as_uint(doc.at("claim").at("bound_ticks"), top.field("claim").field("bound_ticks"), ~0ULL);
            if (arch == Arch::ilp32)
                read_scenario<checked_ilp32>(doc, 32, numbers);
            else
                read_scenario<checked_lp64>(doc, 64, numbers);
        } else if (doc.contains("case") && !doc.at("case").is_string()) {
            throw input_error("case: expected a string, got " + top.field("case").value(doc.at("case")));
        }
        return Reproducer{v, arch, inv, std::move(doc)};
    } catch (const input_error &e) {
        throw input_error(origin + ": " + e.what());
    }
}

Reproducer load_reproducer(const std::string &path) {
    return parse_reproducer(read_input_file(path, InputKind::reproducer), path);
}

json make_reproducer(const Variant &v, Arch a, const std::string &invariant,
                     const std::vector<std::pair<std::string, std::uint64_t>> &inputs,
                     const json &scenario, const json &claim) {
    json in = json::object();
    for (const auto &[k, x] : inputs)
        in[k] = x;
    json doc = {{"format", reproducer_format},
                {"version", reproducer_version},
                {"variant", v.id},
                {"arch", std::string(arch_name(a))},
                {"invariant", invariant},
                {"inputs", in},
                {"claim", claim}};
    for (auto it = scenario.begin(); it != scenario.end(); ++it)
        doc[it.key()] = it.value();
    return doc;
}

std::string store_reproducer(const std::string &dir, const json &doc) {
    std::string text = doc.dump(2) + "\n";
    std::uint64_t h = 1469598103934665603ULL; // FNV-1a over the content
    for (unsigned char ch : text)
        h = (h ^ ch) * 1099511628211ULL;
    std::string name = doc.at("variant").get<std::string>() + "_" + doc.at("invariant").get<std::string>() +
                       "_" + doc.at("arch").get<std::string>();
    for (char &ch : name)
        if (ch == '/')
            ch = '_';
    char hex[17];
    std::snprintf(hex, sizeof hex, "%016llx", static_cast<unsigned long long>(h));
    std::string path = dir + "/" + name + "_" + std::string(hex, 8) + ".json";
    std::error_code ec;
    if (std::filesystem::exists(path, ec))
        return path; // same name means same content: nothing to add
    write_file_atomic(path, text);
    return path;
}

} // namespace sc::proofs
