#include "cli/ci_formats.h"

#include <cctype>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <mutex>
#include <set>
#include <sstream>

#include <fmt/format.h>

#include "oracle/extract.h"
#include "oracle/kernel_source.h"
#include "oracle/pelt_codegen.h"
#include "proofs/kernel/kernel_invariants.h"
#include "proofs/report/shard.h"
#include "ref/variants.h"

namespace sc::cli {

namespace fs = std::filesystem;
using nlohmann::json;
using namespace sc::proofs;

const ExpectedEntry *find_expected(const std::vector<ExpectedEntry> &expected, const ProofResult &r) {
    for (const ExpectedEntry &e : expected)
        if (e.variant == r.variant && e.invariant == r.invariant && e.arch == r.arch)
            return &e;
    return nullptr;
}

namespace {

// XML 1.0 text: the five special characters escaped, and the control
// characters XML cannot hold at all replaced by '?'.
std::string xml_escape(const std::string &s) {
    std::string o;
    o.reserve(s.size());
    for (unsigned char c : s) {
        switch (c) {
        case '&': o += "&amp;"; break;
        case '<': o += "&lt;"; break;
        case '>': o += "&gt;"; break;
        case '"': o += "&quot;"; break;
        case '\'': o += "&apos;"; break;
        default:
            if (c < 0x20 && c != '\n' && c != '\t' && c != '\r')
                o += '?';
            else
                o += char(c);
        }
    }
    return o;
}

std::string report_of(const ProofResult &r, const std::map<std::string, std::string> &reports) {
    auto it = reports.find(job_key(r.variant, r.invariant, r.arch));
    if (it != reports.end())
        return it->second;
    std::string t = fmt::format("{} {} {}: {}", r.variant, r.invariant, arch_name(r.arch), verdict_name(r.verdict));
    if (!r.reason.empty())
        t += "\n" + r.reason;
    if (!r.domain.empty())
        t += "\ndomain: " + r.domain;
    return t + "\n";
}

// The function an invariant's statement is about, in the kernel's names.
// For a kernel subject it is one the extractor takes (the walks around
// them are the reference's, proofs/kernel/idlebal_kernel.h); for a variant
// it is the reference function of that name in the family's header.
std::string function_of(const std::string &subject, const std::string &invariant, bool kernel) {
    const auto is = [&](const char *prefix) { return invariant.rfind(prefix, 0) == 0; };
    if (is("idlebal.")) {
        // The avg_idle step and its arithmetic: update_avg() in a tree,
        // the wake-up's update_rq_avg_idle() in the reference.
        if (invariant == "idlebal.avg_idle_capped" || invariant == "idlebal.avg_idle_no_jump" ||
            invariant == "idlebal.no_overflow")
            return kernel ? "update_avg" : "update_rq_avg_idle";
        if (kernel)
            return "update_newidle_cost"; // the cost, its decay, and what the skip compares
        const bool six = subject == "idlebal/v6.1" || subject == "idlebal/v6.12";
        if (invariant == "idlebal.cost_decay_monotone")
            return six ? "update_newidle_cost" : "rebalance_domains"; // low-1-3 decays in rebalance_domains()
        return "idle_balance"; // recovers, skip_sound: the skip test of a newidle pass
    }
    if (is("wakeaffine.")) {
        if (invariant == "wakeaffine.effective_load_monotone")
            return "effective_load";
        if (invariant == "wakeaffine.hot_not_moved")
            return "wake_affine"; // the NO_HOT_AFFINE test comes first there
        if (kernel || invariant == "wakeaffine.decision_symmetric" || subject == "wakeaffine/v6.1")
            return "wake_affine_weight";
        // no_overflow before 6.1: the unsigned long loads of v2.6.37, the
        // s64 ones from v2.6.38 (pjt-1 on).
        return subject == "wakeaffine/v2.6.37" ? "wake_affine_ulong" : "wake_affine_s64";
    }
    if (invariant == "cpuload.decay_monotone")
        return "decay_load_missed";
    if (invariant == "balance.source_le_target")
        return "target_load";
    if (invariant == "nohz.busy_not_zeroed")
        return "update_cpu_load_nohz";
    if (invariant.rfind("cpuload.", 0) == 0)
        return "__update_cpu_load";
    if (invariant == "pelt.decay_monotone")
        return "decay_load";
    if (invariant.rfind("pelt.", 0) == 0)
        return "___update_load_sum";
    if (invariant == "utilest.no_underflow")
        return "util_est_dequeue";
    if (invariant == "utilest.flag_isolated")
        return "util_est_enqueue";
    if (invariant.rfind("utilest.", 0) == 0) // Bellasi's series updates the EWMA in the dequeue
        return subject.rfind("utilest/bellasi", 0) == 0 ? "util_est_dequeue" : "util_est_update";
    return "";
}

std::string ref_header_of(const std::string &family) {
    if (family == "cpuload")
        return "ref/cpuload.h";
    if (family == "pelt")
        return "ref/pelt.h";
    if (family == "utilest")
        return "ref/util_est.h";
    if (family == "idlebal")
        return "ref/idle_balance.h";
    if (family == "wakeaffine")
        return "ref/wake_affine.h";
    return "ref/variants.h";
}

// The line of `name`'s definition in a reference header: the first line
// where `name(` follows a return type, outside comments, and that is not a
// statement (no ';', '=' or "return" on it).
int definition_line_in_header(const std::string &path, const std::string &name) {
    std::ifstream in(path);
    std::string line;
    for (int n = 1; std::getline(in, line); ++n) {
        auto p = line.find(name + "(");
        if (p == std::string::npos)
            continue;
        if (p > 0 && (std::isalnum(static_cast<unsigned char>(line[p - 1])) || line[p - 1] == '_'))
            continue;
        std::string before = line.substr(0, p);
        auto first = line.find_first_not_of(" \t");
        if (line.compare(first, 2, "//") == 0 || before.find("//") != std::string::npos)
            continue;
        if (line.find(';') != std::string::npos || before.find('=') != std::string::npos ||
            before.find("return") != std::string::npos || before.find('(') != std::string::npos ||
            before.find_first_not_of(" \t") == std::string::npos)
            continue;
        return n;
    }
    return 0;
}

// The kernel file and line of a function, from the Debian linux-source
// tarball of that release (read once per file; several seconds).
int kernel_definition_line(const std::string &version, const std::string &file, const std::string &name) {
    static std::mutex m;
    static std::map<std::string, std::vector<oracle::Definition>> cache;
    std::lock_guard<std::mutex> g(m);
    std::string tarball = "/usr/src/linux-source-" + version + ".tar.xz";
    std::string key = tarball + ":" + file;
    auto it = cache.find(key);
    if (it == cache.end()) {
        std::vector<oracle::Definition> defs;
        std::error_code ec;
        if (std::filesystem::is_regular_file(tarball, ec)) {
            try {
                oracle::KernelSource ks = oracle::read_kernel(tarball, {file});
                for (const auto &[path, frags] : ks.image.files)
                    if (path == file)
                        for (const auto &f : frags)
                            for (auto &d : oracle::definitions(f))
                                defs.push_back(std::move(d));
            } catch (const std::exception &) {
                // No line then; the file is still named.
            }
        }
        it = cache.emplace(key, std::move(defs)).first;
    }
    for (const auto &d : it->second)
        if (d.name == name && d.kind == oracle::DefKind::function)
            return d.first_line;
    return 0;
}

} // namespace

SourceLocation violation_location(const std::string &subject, const std::string &invariant) {
    SourceLocation loc;
    const Variant *v = find_subject(subject);
    loc.function = function_of(subject, invariant, v && v->family == "kernel");
    if (v && v->family == "kernel") {
        // "linux-6.1" -> the 6.1 tree; the file is where the extractor
        // looks for the function first (oracle/pelt_codegen.h).
        std::string version = subject.substr(subject.find('-') + 1);
        loc.uri_base = "KERNEL_SRCROOT";
        loc.uri = "kernel/sched/pelt.c";
        for (const auto &w : oracle::pelt_wanted())
            if (w.name == loc.function && !w.paths.empty())
                loc.uri = w.paths.front();
        loc.line = kernel_definition_line(version, loc.uri, loc.function);
        return loc;
    }
    loc.uri_base = "SRCROOT";
    loc.uri = ref_header_of(v ? v->family : "");
    if (loc.function.empty())
        return loc;
    // The reference headers: this source tree, else those installed next
    // to the binary (share/schedcheck/include), as `oracle build` finds them.
    std::vector<std::string> roots;
    if (const char *e = std::getenv("SCHEDCHECK_SOURCE_DIR"))
        roots.push_back(e);
    roots.push_back(SCHEDCHECK_SOURCE_DIR);
    std::error_code ec;
    fs::path exe = fs::read_symlink("/proc/self/exe", ec);
    if (!ec)
        roots.push_back((exe.parent_path().parent_path() / "share/schedcheck/include").string());
    for (const auto &r : roots)
        if (fs::is_regular_file(r + "/" + loc.uri, ec)) {
            loc.line = definition_line_in_header(r + "/" + loc.uri, loc.function);
            break;
        }
    return loc;
}

std::string junit_xml(const std::vector<ProofResult> &results, const std::vector<ExpectedEntry> &expected,
                      const std::map<std::string, std::string> &reports) {
    std::size_t failures = 0;
    double total = 0;
    std::string cases;
    for (const ProofResult &r : results) {
        total += r.seconds;
        const ExpectedEntry *e = find_expected(expected, r);
        std::string name = r.invariant + " " + std::string(arch_name(r.arch));
        cases += fmt::format("    <testcase classname=\"{}\" name=\"{}\" time=\"{:.3f}\">\n", xml_escape(r.variant),
                             xml_escape(name), r.seconds);
        if (!e || e->verdict != r.verdict) {
            ++failures;
            std::string msg = fmt::format("{} (expected {}{})", verdict_name(r.verdict),
                                          e ? verdict_name(e->verdict) : "no entry in the expected file",
                                          e && !e->basis.empty() ? ", " + e->basis : "");
            cases += fmt::format("      <failure message=\"{}\" type=\"{}\">{}</failure>\n", xml_escape(msg),
                                 verdict_name(r.verdict), xml_escape(report_of(r, reports)));
        }
        cases += fmt::format("      <system-out>{}</system-out>\n", xml_escape(fmt::format(
                                 "{}; {} paths, {} queries; domain: {}{}", verdict_name(r.verdict), r.paths,
                                 r.queries, r.domain, r.reason.empty() ? "" : "; " + r.reason)));
        cases += "    </testcase>\n";
    }
    std::string o = "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n";
    o += fmt::format("<testsuites name=\"schedcheck\" tests=\"{}\" failures=\"{}\" errors=\"0\" time=\"{:.3f}\">\n",
                     results.size(), failures, total);
    o += fmt::format("  <testsuite name=\"schedcheck prove\" tests=\"{}\" failures=\"{}\" errors=\"0\" "
                     "skipped=\"0\" time=\"{:.3f}\">\n",
                     results.size(), failures, total);
    o += cases;
    o += "  </testsuite>\n</testsuites>\n";
    return o;
}

json sarif_log(const std::vector<ProofResult> &results, const std::vector<ExpectedEntry> &expected,
               const std::map<std::string, std::string> &reports) {
    // One rule per invariant of the run, in the order first met.
    json rules = json::array();
    std::map<std::string, std::size_t> rule_index;
    for (const ProofResult &r : results) {
        if (rule_index.count(r.invariant))
            continue;
        const InvariantInfo *inv = find_invariant(r.invariant);
        rule_index[r.invariant] = rules.size();
        rules.push_back({{"id", r.invariant},
                         {"name", r.invariant},
                         {"shortDescription", {{"text", inv ? inv->statement : r.invariant}}},
                         {"defaultConfiguration", {{"level", "error"}}}});
    }
    json out = json::array();
    for (const ProofResult &r : results) {
        if (r.verdict != Verdict::COUNTEREXAMPLE)
            continue;
        const ExpectedEntry *e = find_expected(expected, r);
        if (e && e->verdict == Verdict::COUNTEREXAMPLE)
            continue; // known and explained; not news
        SourceLocation loc = violation_location(r.variant, r.invariant);
        json phys = {{"artifactLocation", {{"uri", loc.uri}, {"uriBaseId", loc.uri_base}}}};
        if (loc.line > 0)
            phys["region"] = {{"startLine", loc.line}};
        json location = {{"physicalLocation", phys}};
        if (!loc.function.empty())
            location["logicalLocations"] = json::array({{{"name", loc.function}, {"kind", "function"}}});
        json props = {{"variant", r.variant},
                      {"arch", std::string(arch_name(r.arch))},
                      {"expected", e ? verdict_name(e->verdict) : "no entry"}};
        if (r.cex && !r.cex->reproducer_path.empty())
            props["reproducer"] = r.cex->reproducer_path;
        out.push_back({{"ruleId", r.invariant},
                       {"ruleIndex", rule_index[r.invariant]},
                       {"level", "error"},
                       {"message", {{"text", report_of(r, reports)}}},
                       {"locations", json::array({location})},
                       {"partialFingerprints", {{"schedcheckProof/v1", job_key(r.variant, r.invariant, r.arch)}}},
                       {"properties", props}});
    }
    return {{"$schema", "https://json.schemastore.org/sarif-2.1.0.json"},
            {"version", "2.1.0"},
            {"runs", json::array({{{"tool", {{"driver", {{"name", "schedcheck"},
                                                         {"rules", rules}}}}},
                                   {"originalUriBaseIds",
                                    {{"SRCROOT", {{"description", {{"text", "the schedcheck source tree"}}}}},
                                     {"KERNEL_SRCROOT", {{"description", {{"text", "the kernel source tree"}}}}}}},
                                   {"results", out}}})}};
}

} // namespace sc::cli
