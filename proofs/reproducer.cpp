#include "proofs/reproducer.h"

#include <cstdio>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <unistd.h>

#include "ref/checked.h"

namespace sc::proofs {

using nlohmann::json;

namespace {

std::uint64_t get_uint(const json &obj, const std::string &key, unsigned bits, const std::string &where) {
    if (!obj.is_object() || !obj.contains(key))
        throw input_error(where + ": missing field \"" + key + "\"");
    const json &v = obj.at(key);
    if (!v.is_number_integer() || (v.is_number_integer() && !v.is_number_unsigned() && v.get<std::int64_t>() < 0))
        throw input_error(where + "." + key + ": expected a non-negative integer, got " + v.dump());
    std::uint64_t x = v.get<std::uint64_t>();
    if (bits < 64 && x >> bits)
        throw input_error(where + "." + key + ": value " + std::to_string(x) + " is wider than its " +
                          std::to_string(bits) + "-bit field");
    return x;
}

bool get_bool(const json &obj, const std::string &key, const std::string &where) {
    if (!obj.contains(key))
        throw input_error(where + ": missing field \"" + key + "\"");
    if (!obj.at(key).is_boolean())
        throw input_error(where + "." + key + ": expected true or false, got " + obj.at(key).dump());
    return obj.at(key).get<bool>();
}

const json &get_obj(const json &obj, const std::string &key, const std::string &where) {
    if (!obj.is_object() || !obj.contains(key) || !obj.at(key).is_object())
        throw input_error(where + ": missing or non-object field \"" + key + "\"");
    return obj.at(key);
}

std::string get_str(const json &obj, const std::string &key, const std::string &where) {
    if (!obj.contains(key) || !obj.at(key).is_string())
        throw input_error(where + ": missing or non-string field \"" + key + "\"");
    return obj.at(key).get<std::string>();
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
    cpuload::scenario<A> s;
    const json &kn = get_obj(doc, "knobs", "reproducer");
    s.kn.lb_bias = get_bool(kn, "lb_bias", "knobs");
    s.kn.imbalance_pct = get_uint(kn, "imbalance_pct", 32, "knobs");
    const json &init = get_obj(doc, "initial", "reproducer");
    if (!init.contains("cpu_load") || !init.at("cpu_load").is_array() ||
        init.at("cpu_load").size() != cpuload::CPU_LOAD_IDX_MAX)
        throw input_error("initial.cpu_load: expected an array of 5 integers");
    for (int i = 0; i < cpuload::CPU_LOAD_IDX_MAX; i++) {
        json wrap{{"cpu_load[" + std::to_string(i) + "]", init.at("cpu_load")[i]}};
        s.init.cpu_load[i] = get_uint(wrap, "cpu_load[" + std::to_string(i) + "]", lb, "initial");
    }
    s.init.last_load_update_tick = get_uint(init, "last_load_update_tick", lb, "initial");
    s.init.cfs.runnable_load_avg = get_uint(init, "runnable_load_avg", lb, "initial");
    s.init.cfs.h_nr_running = get_uint(init, "h_nr_running", 32, "initial");
    if (!doc.contains("steps") || !doc.at("steps").is_array())
        throw input_error("reproducer: missing or non-array field \"steps\"");
    const json &steps = doc.at("steps");
    if (steps.size() > 1000000)
        throw input_error("steps: more than 1000000 steps");
    for (std::size_t k = 0; k < steps.size(); ++k) {
        const json &j = steps[k];
        std::string where = "steps[" + std::to_string(k) + "]";
        if (!j.is_object())
            throw input_error(where + ": expected an object");
        std::string name = get_str(j, "op", where);
        cpuload::step<A> st{cpuload::op::tick};
        bool known = false;
        for (int o = 0; o < cpuload::op_count; ++o)
            if (cpuload::op_name(static_cast<cpuload::op>(o)) == name) {
                st.kind = static_cast<cpuload::op>(o);
                known = true;
            }
        if (!known)
            throw input_error(where + ".op: unknown operation \"" + name +
                              "\" (tick, idle_update, nohz_exit, set_load, update, decay, balance)");
        switch (st.kind) {
        case cpuload::op::tick:
            st.a = get_uint(j, "load", lb, where);
            st.b = get_uint(j, "jiffies", lb, where);
            break;
        case cpuload::op::idle_update:
        case cpuload::op::nohz_exit: st.a = get_uint(j, "jiffies", lb, where); break;
        case cpuload::op::set_load:
            st.a = get_uint(j, "runnable_load_avg", lb, where);
            st.n = get_uint(j, "h_nr_running", 32, where);
            break;
        case cpuload::op::update:
            st.a = get_uint(j, "this_load", lb, where);
            st.b = get_uint(j, "pending_updates", lb, where);
            break;
        case cpuload::op::decay:
            st.a = get_uint(j, "load", lb, where);
            st.b = get_uint(j, "missed_updates", lb, where);
            st.idx = static_cast<int>(get_uint(j, "idx", 32, where));
            if (st.idx < 1 || st.idx >= cpuload::CPU_LOAD_IDX_MAX)
                throw input_error(where + ".idx: load index must be 1..4, got " + std::to_string(st.idx));
            break;
        case cpuload::op::balance:
            st.idx = static_cast<int>(get_uint(j, "type", 32, where));
            if (st.idx >= cpuload::CPU_LOAD_IDX_MAX)
                throw input_error(where + ".type: load type must be 0..4, got " + std::to_string(st.idx));
            break;
        }
        s.steps.push_back(st);
    }
    return s;
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
    json doc;
    try {
        doc = json::parse(text);
    } catch (const json::exception &e) { // parse errors, and numbers no double can hold
        throw input_error(origin + ": not valid JSON: " + e.what());
    }
    if (!doc.is_object())
        throw input_error(origin + ": expected a JSON object");
    try {
        if (get_str(doc, "format", "reproducer") != reproducer_format)
            throw input_error("reproducer.format: expected \"" + std::string(reproducer_format) + "\"");
        std::uint64_t ver = get_uint(doc, "version", 32, "reproducer");
        if (ver != reproducer_version)
            throw input_error("reproducer.version: this schedcheck reads version " +
                              std::to_string(reproducer_version) + ", the file is version " +
                              std::to_string(ver));
        std::string vid = get_str(doc, "variant", "reproducer");
        const Variant *v = find_variant(vid);
        if (!v)
            throw input_error("reproducer.variant: unknown variant \"" + vid + "\" (see `schedcheck variants`)");
        std::string an = get_str(doc, "arch", "reproducer");
        if (an != "ilp32" && an != "lp64")
            throw input_error("reproducer.arch: expected \"ilp32\" or \"lp64\", got \"" + an + "\"");
        std::string iid = get_str(doc, "invariant", "reproducer");
        const InvariantInfo *inv = find_invariant(iid);
        if (!inv)
            throw input_error("reproducer.invariant: unknown invariant \"" + iid +
                              "\" (see `schedcheck invariants`)");
        if (!inv->applies(*v))
            throw input_error("reproducer: invariant " + iid + " does not apply to " + vid);
        return Reproducer{v, an == "ilp32" ? Arch::ilp32 : Arch::lp64, inv, std::move(doc)};
    } catch (const input_error &e) {
        throw input_error(origin + ": " + e.what());
    }
}

Reproducer load_reproducer(const std::string &path) {
    std::ifstream in(path, std::ios::binary);
    if (!in)
        throw input_error(path + ": cannot open file");
    std::stringstream ss;
    ss << in.rdbuf();
    return parse_reproducer(ss.str(), path);
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

void write_file_atomic(const std::string &path, const std::string &text) {
    std::filesystem::path p(path);
    std::error_code ec;
    if (p.has_parent_path())
        std::filesystem::create_directories(p.parent_path(), ec);
    std::string tmp = path + ".tmp." + std::to_string(::getpid());
    {
        std::ofstream out(tmp, std::ios::binary | std::ios::trunc);
        out << text;
        out.flush();
        if (!out) {
            out.close();
            std::remove(tmp.c_str());
            throw input_error(path + ": cannot write file");
        }
    }
    if (std::rename(tmp.c_str(), path.c_str()) != 0) {
        std::remove(tmp.c_str());
        throw input_error(path + ": cannot rename temporary file into place");
    }
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
    if (std::filesystem::exists(path))
        return path; // same name means same content: nothing to add
    write_file_atomic(path, text);
    return path;
}

} // namespace sc::proofs
