#include "proofs/report/report.h"

#include <algorithm>
#include <fmt/format.h>

#include "proofs/report/expected.h"

namespace sc::proofs {

std::string with_hex(std::uint64_t v) {
    return v < 10 ? std::to_string(v) : fmt::format("{} ({:#x})", v, v);
}

std::string reviewer_report(const Reproducer &r, const ReplayResult &rr, const std::string &path) {
    std::string o;
    o += fmt::format("schedcheck: {} {} for {} on {}\n\n", r.invariant->id,
                     rr.violated ? "FAILS" : "holds on this scenario", r.variant->id, arch_name(r.arch));
    o += fmt::format("  invariant  {}\n", r.invariant->statement);
    o += fmt::format("  variant    {}: {}\n", r.variant->id, r.variant->description);
    o += fmt::format("  arch       {}\n", arch_name(r.arch));
    if (r.doc.contains("claim") && r.doc["claim"].contains("bound_ticks"))
        o += fmt::format("  claim      bound of {} ticks\n", r.doc["claim"]["bound_ticks"].get<std::uint64_t>());
    if (r.doc.contains("inputs") && r.doc["inputs"].is_object() && !r.doc["inputs"].empty()) {
        o += "\nInputs:\n";
        std::size_t w = 0;
        for (auto it = r.doc["inputs"].begin(); it != r.doc["inputs"].end(); ++it)
            w = std::max(w, it.key().size());
        for (auto it = r.doc["inputs"].begin(); it != r.doc["inputs"].end(); ++it)
            if (it.value().is_number_unsigned())
                o += fmt::format("  {:<{}} = {}\n", it.key(), w, with_hex(it.value().get<std::uint64_t>()));
    }
    o += "\nTrace on the concrete reference:\n" + rr.trace;
    if (rr.violated) {
        o += fmt::format("\nFailed: {}\n", rr.failed);
        if (!rr.op.empty()) {
            o += fmt::format("  {} = {}\n", rr.lhs_name, with_hex(rr.lhs));
            o += fmt::format("      {}   (expected, but false)\n", rr.op);
            o += fmt::format("  {} = {}\n", rr.rhs_name, with_hex(rr.rhs));
        }
    }
    if (!rr.wraps.empty()) {
        o += "\nWrap-around during the trace:\n";
        for (const auto &w : rr.wraps)
            o += "  " + w + "\n";
    }
    if (!path.empty())
        o += fmt::format("\nReproducer: {}\nReplay:     schedcheck replay {}\n", path, path);
    return o;
}

std::string verdict_table(const std::vector<ProofResult> &results) {
    std::size_t wv = 7, wi = 9;
    for (const auto &r : results) {
        wv = std::max(wv, r.variant.size());
        wi = std::max(wi, r.invariant.size());
    }
    std::string o = fmt::format("{:<{}}  {:<{}}  {:<5}  {:<14}  {:>7}  {:>6}  {}\n", "variant", wv, "invariant", wi,
                                "arch", "verdict", "seconds", "paths", "detail");
    for (const auto &r : results) {
        std::string detail;
        if (r.bound)
            detail = r.bound_kind == "ticks" ? fmt::format("bound {} ticks", *r.bound)
                     : r.bound_kind == "ms"  ? fmt::format("bound {} ms", *r.bound)
                                             : fmt::format("largest safe load {}", *r.bound);
        if (!r.reason.empty())
            detail += (detail.empty() ? "" : "; ") + r.reason;
        if (r.cex && !r.cex->reproducer_path.empty())
            detail += "; " + r.cex->reproducer_path;
        auto exp = expected_verdict(r.variant, r.invariant, r.arch);
        std::string v = verdict_name(r.verdict);
        if (!exp)
            v += " (new)";
        else if (*exp != r.verdict)
            v += fmt::format(" (expected {})", verdict_name(*exp));
        o += fmt::format("{:<{}}  {:<{}}  {:<5}  {:<14}  {:>7.3f}  {:>6}  {}\n", r.variant, wv, r.invariant, wi,
                         arch_name(r.arch), v, r.seconds, r.paths, detail);
    }
    return o;
}

nlohmann::json result_json(const ProofResult &r) {
    nlohmann::json j = {{"variant", r.variant},
                        {"invariant", r.invariant},
                        {"arch", std::string(arch_name(r.arch))},
                        {"verdict", verdict_name(r.verdict)},
                        {"seconds", r.seconds},
                        {"paths", r.paths},
                        {"queries", r.queries},
                        {"domain", r.domain},
                        {"reason", r.reason},
                        {"counterexample", nullptr}};
    if (r.bound) {
        if (r.bound_kind == "ticks")
            j["bound_ticks"] = *r.bound;
        else if (r.bound_kind == "ms")
            j["bound_ms"] = *r.bound;
        else
            j["largest_safe_load"] = *r.bound;
    }
    if (r.cex) {
        nlohmann::json in = nlohmann::json::object();
        for (const auto &[k, v] : r.cex->inputs)
            in[k] = v;
        j["counterexample"] = {{"inputs", in},
                               {"reproducer", r.cex->reproducer_path.empty() ? nlohmann::json(nullptr)
                                                                             : nlohmann::json(r.cex->reproducer_path)}};
    }
    return j;
}

nlohmann::json replay_json(const Reproducer &r, const ReplayResult &rr) {
    nlohmann::json j = {{"variant", r.variant->id},
                        {"invariant", r.invariant->id},
                        {"arch", std::string(arch_name(r.arch))},
                        {"violated", rr.violated},
                        {"failed", rr.failed},
                        {"wraps", rr.wraps},
                        {"trace", rr.trace}};
    nlohmann::json steps = nlohmann::json::array();
    for (const ReplayStep &st : rr.steps) {
        nlohmann::json vals = nlohmann::json::array();
        for (const auto &[name, v] : st.values)
            vals.push_back({{"name", name}, {"value", v}});
        steps.push_back({{"step", st.label}, {"values", vals}});
    }
    j["steps"] = steps;
    if (!rr.op.empty())
        j["comparison"] = {{"lhs", {{"name", rr.lhs_name}, {"value", rr.lhs}}},
                           {"op", rr.op},
                           {"rhs", {{"name", rr.rhs_name}, {"value", rr.rhs}}}};
    return j;
}

} // namespace sc::proofs
