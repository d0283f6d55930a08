#include "cli/commands.h"

#include <algorithm>
#include <cstdio>
#include <csignal>
#include <atomic>
#include <filesystem>
#include <iostream>
#include <map>
#include <optional>
#include <thread>

#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include "oracle/extract.h"
#include "oracle/process.h"
#include "proofs/domain.h"
#include "proofs/equiv/equiv.h"
#include "proofs/report/expected.h"
#include "proofs/report/input_file.h"
#include "proofs/engine/query_cache.h"
#include "proofs/kernel/kernel_invariants.h"
#include "proofs/engine/matrix.h"
#include "proofs/kernel/oracle_manifest.h"
#include "proofs/kernel/oracle_plugin.h"
#include "proofs/report/report.h"
#include "proofs/report/reproducer.h"
#include "proofs/report/shard.h"
#include "cli/ci_formats.h"
#include "ref/variants.h"
#include "sim/svg.h"

namespace sc::cli {

using nlohmann::json;
using namespace sc::proofs;

int cmd_variants(bool as_json) {
    if (as_json) {
        json a = json::array();
        for (const Variant &v : variants())
            a.push_back({{"id", v.id}, {"family", v.family}, {"description", v.description}});
        std::cout << json{{"variants", a}}.dump(2) << "\n";
        return 0;
    }
    std::size_t w = 0;
    for (const Variant &v : variants())
        w = std::max(w, v.id.size());
    for (const Variant &v : variants())
        std::cout << fmt::format("{:<{}} {}\n", v.id, w, v.description);
    return 0;
}

int cmd_invariants(bool as_json) {
    if (as_json) {
        json a = json::array();
        for (const InvariantInfo &i : invariants()) {
            json applies = json::array();
            for (const Variant &v : variants())
                if (i.applies(v))
                    applies.push_back(v.id);
            a.push_back({{"id", i.id}, {"family", i.family}, {"statement", i.statement}, {"variants", applies}});
        }
        std::cout << json{{"invariants", a}}.dump(2) << "\n";
        return 0;
    }
    for (const InvariantInfo &i : invariants())
        std::cout << fmt::format("{:<34} {}\n", i.id, i.statement);
    return 0;
}

namespace {
// Every file a user names is read through proofs/report/input_file.h: regular
// files only, each kind with its size cap.
std::string read_file(const std::string &path, InputKind kind) { return read_input_file(path, kind); }
} // namespace

// --out and --corpus are checked before any proof runs, so that a directory
// that cannot be written is reported at once (exit 2), not after the whole
// matrix.  The directory need not exist yet: then the nearest existing
// ancestor, where it will be created, must be a writable directory.
void check_output_dir(const std::string &opt, const std::string &dir,
                      const std::vector<std::pair<std::string, bool>> &entries) {
    namespace fs = std::filesystem;
    std::error_code ec;
    fs::path p(dir);
    fs::path existing = p;
    while (!existing.empty() && !fs::exists(existing, ec))
        existing = existing.parent_path();
    if (existing.empty())
        existing = ".";
    std::string shown = excerpt(dir, 4096);
    if (!fs::is_directory(existing, ec))
        throw input_error(opt + " " + shown + ": " +
                          (existing == p ? std::string("exists and is not a directory")
                                         : excerpt(existing.string(), 4096) + " is not a directory"));
    if (std::string why = directory_write_problem(existing.string()); !why.empty())
        throw input_error(opt + " " + shown + ": cannot write in " + excerpt(existing.string(), 4096) + ": " + why);
    // Half-written files (NAME.tmp.<pid>) of a run that was killed outright.
    sys::remove_stale_tmp_files(p);
    // What will be written inside it: directories (true) and files (false).
    for (const auto &[name, is_dir] : entries) {
        fs::path e = p / name;
        if (fs::exists(e, ec) && fs::is_directory(e, ec) != is_dir)
            throw input_error(opt + " " + shown + ": " + excerpt(e.string(), 4096) +
                              (is_dir ? " is not a directory" : " is a directory"));
    }
}

namespace {

std::string join_ids(const std::vector<std::string> &ids) {
    std::string s;
    for (const auto &i : ids)
        s += (s.empty() ? "" : ", ") + i;
    return s;
}

// The data models an --arch value names.
std::vector<Arch> parse_arches(const std::string &arch) {
    if (arch == "all")
        return {Arch::ilp32, Arch::lp64};
    if (arch == "ilp32")
        return {Arch::ilp32};
    if (arch == "lp64")
        return {Arch::lp64};
    throw input_error("--arch: expected ilp32, lp64 or all, got \"" + excerpt(arch) + "\"");
}

std::vector<Job> select_jobs(const ProveArgs &a) {
    std::vector<std::string> vids, iids;
    for (const Variant &v : variants())
        vids.push_back(v.id);
    for (const InvariantInfo &i : invariants())
        iids.push_back(i.id);
    auto fams = families();
    for (const auto &f : a.families)
        if (std::find(fams.begin(), fams.end(), f) == fams.end())
            throw input_error("unknown family \"" + excerpt(f) + "\" (built in: " + join_ids(fams) + ")");
    for (const auto &v : a.variants)
        if (!find_variant(v))
            throw input_error("unknown variant \"" + excerpt(v) + "\" (built in: " + join_ids(vids) + ")");
    for (const auto &i : a.invariants)
        if (!find_invariant(i))
            throw input_error("unknown invariant \"" + excerpt(i) + "\" (see `schedcheck invariants`)");
    std::vector<Arch> arches = parse_arches(a.arch);

    auto picked = [](const std::vector<std::string> &sel, const std::string &x) {
        return sel.empty() || std::find(sel.begin(), sel.end(), x) != sel.end();
    };
    // Oracles that are not built in are plug-ins `oracle build` made.
    std::vector<const Variant *> plugin_subjects;
    for (const auto &o : a.oracles) {
        const Variant *k = find_subject(o);
        if (k && k->family == "kernel")
            continue;
        if (k)
            throw input_error("--oracle \"" + excerpt(o) + "\" is a reference variant; name it with --variant");
        plugin_subjects.push_back(&add_plugin_subject(o, a.oracle_dir));
    }
    std::vector<Job> jobs;
    const bool unfiltered = a.families.empty() && a.variants.empty() && a.oracles.empty();
    // --oracle names the subjects: then --family picks the invariants run on
    // them, and no variant comes along unless --variant names it.
    const bool oracles_named = !a.oracles.empty();
    for (const Variant &v : variants()) {
        bool by_family = std::find(a.families.begin(), a.families.end(), v.family) != a.families.end();
        bool by_variant = std::find(a.variants.begin(), a.variants.end(), v.id) != a.variants.end();
        if (!unfiltered && !(by_family && !oracles_named) && !by_variant)
            continue;
        for (const InvariantInfo &i : invariants())
            if (picked(a.invariants, i.id) && i.applies(v))
                for (Arch ar : arches)
                    jobs.push_back({&v, &i, ar});
    }
    // The kernel's own code: named by --oracle (then --family, if given,
    // picks its invariants), or, when no oracle is named, taken along with
    // the families whose invariants run on it (then only those invariants).
    auto of_family = [&](const InvariantInfo &i) {
        return std::find(a.families.begin(), a.families.end(), i.family) != a.families.end();
    };
    for (const Variant &k : kernel_subjects()) {
        bool named = std::find(a.oracles.begin(), a.oracles.end(), k.id) != a.oracles.end();
        for (const InvariantInfo &i : invariants()) {
            bool take = unfiltered || (named ? a.families.empty() || of_family(i) : !oracles_named && of_family(i));
            if (take && picked(a.invariants, i.id) && i.applies(k))
                for (Arch ar : arches)
                    jobs.push_back({&k, &i, ar});
        }
    }
    for (const Variant *k : plugin_subjects)
        for (const InvariantInfo &i : invariants())
            if ((a.families.empty() || of_family(i)) && picked(a.invariants, i.id) && i.applies(*k))
                for (Arch ar : arches)
                    jobs.push_back({k, &i, ar});
    if (jobs.empty()) {
        // Say when the families asked for have no invariants yet at all.
        std::vector<std::string> bare;
        for (const Variant &v : variants()) {
            bool asked = std::find(a.families.begin(), a.families.end(), v.family) != a.families.end() ||
                         std::find(a.variants.begin(), a.variants.end(), v.id) != a.variants.end();
            bool any = false;
            for (const InvariantInfo &i : invariants())
                any |= i.family == v.family;
            if (asked && !any && std::find(bare.begin(), bare.end(), v.family) == bare.end())
                bare.push_back(v.family);
        }
        if (!bare.empty())
            throw input_error("the " + bare.front() + " family has no invariants in the catalogue yet; its variants "
                              "are tested against hand-computed values (`make test`) and listed by "
                              "`schedcheck variants`");
        throw input_error("the selection matches no (variant, invariant) pair that applies");
    }
    return jobs;
}

std::string file_stem(const ProofResult &r) {
    std::string s = r.variant + "_" + r.invariant + "_" + std::string(arch_name(r.arch));
    std::replace(s.begin(), s.end(), '/', '_');
    return s;
}

// How a run came about: what results.json records so that `merge` can
// check that shards fit together.
struct RunInfo {
    double seconds = 0; // wall time
    unsigned threads = 1;
    ShardSpec shard;
    std::vector<std::string> selection; // job_key of every proof selected, in job order (all shards)
    std::size_t shards_merged = 0;      // merge: how many files
    double slowest_shard = 0;           // merge: the longest shard's wall time
};

struct Outputs {
    std::string out, corpus, junit, sarif;
    bool json = false;
};

json run_json(const RunInfo &info) {
    return {{"shard", {{"index", info.shard.index}, {"count", info.shard.count}}},
            {"selection", info.selection},
            {"seconds", info.seconds},
            {"threads", info.threads}};
}

// A result as results.json holds it, with the reproducer's whole document,
// so that `merge` can rebuild reports from shards run elsewhere.
json full_result_json(const ProofResult &r) {
    json j = result_json(r);
    if (r.cex)
        j["counterexample"]["document"] = r.cex->reproducer;
    return j;
}

// A report file: not a directory, and its directory writable (or, when it
// does not exist yet, creatable: write_file_atomic makes it).
void check_report_file(const std::string &opt, const std::string &path) {
    if (path.empty())
        return;
    namespace fs = std::filesystem;
    std::error_code ec;
    if (fs::is_directory(path, ec))
        throw input_error(opt + " " + excerpt(path, 4096) + " is a directory");
    fs::path parent = fs::path(path).parent_path();
    check_output_dir(opt, parent.empty() ? "." : parent.string());
}

void check_outputs(const Outputs &o) {
    if (!o.out.empty())
        check_output_dir("--out", o.out,
                         {{"reproducers", true}, {"reports", true}, {"results.json", false}, {"verdicts.txt", false}});
    if (!o.corpus.empty())
        check_output_dir("--corpus", o.corpus);
    check_report_file("--junit", o.junit);
    check_report_file("--sarif", o.sarif);
}

// `expected` with an entry for each result of an `oracle build` plug-in
// that has none: what `expected` gives the built-in kernel of the
// plug-in's release (linux-6.1 for a 6.1.x tree), else PROVED.  So the
// plug-in of an unchanged Debian tree expects what its built-in kernel
// has (the two avg_idle_capped counterexamples of 6.1), and a patch that
// changes a verdict shows as a difference.
std::vector<ExpectedEntry> with_plugin_expectations(std::vector<ExpectedEntry> expected,
                                                    const std::vector<ProofResult> &results) {
    std::vector<ExpectedEntry> added;
    for (const ProofResult &r : results) {
        const Variant *v = find_subject(r.variant);
        if (!v || !is_plugin_subject(*v) || find_expected(expected, r))
            continue;
        const std::string rel = plugin_release(*v);
        auto it = std::find_if(expected.begin(), expected.end(), [&](const ExpectedEntry &e) {
            return !rel.empty() && e.variant == rel && e.invariant == r.invariant && e.arch == r.arch;
        });
        const ExpectedEntry *e = it == expected.end() ? nullptr : &*it;
        added.push_back({r.variant, r.invariant, r.arch, e ? e->verdict : Verdict::PROVED,
                         e ? "as " + rel + ", its tree's release" : "as for any oracle made by `oracle build`"});
    }
    expected.insert(expected.end(), added.begin(), added.end());
    return expected;
}

// Everything after the proofs, shared by `prove` and `merge`: reproducers,
// reports, results.json, verdicts.txt, JUnit and SARIF files, the table,
// and the exit code against the expected verdicts.
int report_results(std::vector<ProofResult> &results, const std::vector<ExpectedEntry> &file_expected,
                   const RunInfo &info, const Outputs &a) {
    const std::vector<ExpectedEntry> expected = with_plugin_expectations(file_expected, results);
    // Reports and reproducers.  A failure here (a full disk, a reproducer
    // that does not replay) is reported after the verdicts are printed, so
    // the work done is not lost; it decides the exit code (2 or 3).
    std::string write_error;
    int write_code = 0;
    json all = json::array();
    std::map<std::string, std::string> reports; // job_key -> reviewer report
    try {
        for (ProofResult &r : results) {
            if (!r.cex)
                continue;
            if (!a.corpus.empty())
                r.cex->reproducer_path = store_reproducer(a.corpus, r.cex->reproducer);
            if (!a.out.empty()) {
                std::string path = a.out + "/reproducers/" + file_stem(r) + ".json";
                write_file_atomic(path, r.cex->reproducer.dump(2) + "\n");
                r.cex->reproducer_path = path;
                Reproducer rep = parse_reproducer(r.cex->reproducer.dump(), path);
                ReplayResult rr = rep.invariant->replay(*rep.variant, rep.arch, rep.doc);
                if (!rr.violated)
                    throw internal_error("written reproducer " + path + " does not replay");
                std::string report = reviewer_report(rep, rr, path);
                write_file_atomic(a.out + "/reports/" + file_stem(r) + ".txt", report);
                reports[job_key(r.variant, r.invariant, r.arch)] = std::move(report);
            } else if (!a.junit.empty() || !a.sarif.empty()) {
                // No file to name: the report of the replayed counterexample as it is.
                Reproducer rep = parse_reproducer(r.cex->reproducer.dump(), "reproducer");
                ReplayResult rr = rep.invariant->replay(*rep.variant, rep.arch, rep.doc);
                if (!rr.violated)
                    throw internal_error("the counterexample to " + job_key(r.variant, r.invariant, r.arch) +
                                         " does not replay");
                reports[job_key(r.variant, r.invariant, r.arch)] = reviewer_report(rep, rr, r.cex->reproducer_path);
            }
        }
        for (const auto &r : results)
            all.push_back(full_result_json(r));
        if (!a.out.empty()) {
            write_file_atomic(a.out + "/results.json", json{{"run", run_json(info)}, {"results", all}}.dump(2) + "\n");
            write_file_atomic(a.out + "/verdicts.txt", verdict_table(results));
        }
        if (!a.junit.empty())
            write_file_atomic(a.junit, junit_xml(results, expected, reports));
        if (!a.sarif.empty())
            write_file_atomic(a.sarif, sarif_log(results, expected, reports).dump(2) + "\n");
    } catch (const sys::interrupted &) {
        throw; // main() reports it
    } catch (const input_error &e) {
        write_error = std::string("error: ") + e.what();
        write_code = 2;
    } catch (const std::exception &e) {
        write_error = std::string("INTERNAL ERROR: ") + e.what();
        write_code = 3;
    }
    if (write_code) { // the results as far as they got
        all = json::array();
        for (const auto &r : results)
            all.push_back(full_result_json(r));
    }

    int differ = 0;
    std::vector<std::string> diffs;
    for (const ProofResult &r : results) {
        const ExpectedEntry *e = find_expected(expected, r);
        if (!e || e->verdict != r.verdict) {
            ++differ;
            diffs.push_back(fmt::format("{} {} {}: {} (expected {}{})", r.variant, r.invariant, arch_name(r.arch),
                                        verdict_name(r.verdict), e ? verdict_name(e->verdict) : "no entry",
                                        e && !e->basis.empty() ? ", " + e->basis : ""));
        }
    }

    if (a.json) {
        std::cout << json{{"run", run_json(info)}, {"results", all}}.dump(2) << "\n";
    } else {
        std::cout << verdict_table(results);
        std::size_t np = 0, nc = 0, nu = 0;
        for (const auto &r : results)
            (r.verdict == Verdict::PROVED ? np : r.verdict == Verdict::COUNTEREXAMPLE ? nc : nu)++;
        if (info.shards_merged)
            std::cout << fmt::format("\n{} proofs merged from {} shards (the slowest took {:.2f} s): {} PROVED, {} "
                                     "COUNTEREXAMPLE, {} UNKNOWN\n",
                                     results.size(), info.shards_merged, info.slowest_shard, np, nc, nu);
        else
            std::cout << fmt::format("\n{} proofs{} in {:.2f} s on {} threads: {} PROVED, {} COUNTEREXAMPLE, {} "
                                     "UNKNOWN\n",
                                     results.size(),
                                     info.shard.count > 1 ? fmt::format(" (shard {}/{} of {})", info.shard.index,
                                                                        info.shard.count, info.selection.size())
                                                          : "",
                                     info.seconds, info.threads, np, nc, nu);
        if (auto qc = query_cache::stats(); qc.hits)
            std::cout << fmt::format("{} of {} solver queries were answered by an identical query already "
                                     "proved unsatisfiable in this run\n",
                                     qc.hits, qc.hits + qc.misses);
        // The domain each verdict holds over: the cpuload one, shared by
        // its invariants, and that of each other invariant proved.
        std::vector<std::string> shown;
        for (const auto &r : results) {
            const InvariantInfo *inv = find_invariant(r.invariant);
            std::string key = inv && inv->family == "cpuload" ? "cpuload" : r.invariant;
            if (std::find(shown.begin(), shown.end(), key) != shown.end())
                continue;
            shown.push_back(key);
            if (key == "cpuload")
                std::cout << "domain (cpuload): " << load_domain(Arch::ilp32).summary << "\n                  "
                          << load_domain(Arch::lp64).summary << "\n";
            else
                std::cout << "domain (" << key << "): " << r.domain << "\n";
        }
        if (!a.out.empty() && !write_code)
            std::cout << "reports and reproducers: " << a.out << "/reports, " << a.out << "/reproducers\n";
        if (differ) {
            std::cout << differ << " verdict(s) differ from the expected file:\n";
            for (const auto &d : diffs)
                std::cout << "  " << d << "\n";
        } else {
            std::cout << "all verdicts match the expected file\n";
        }
    }
    if (write_code) {
        std::cout.flush();
        std::cerr << "schedcheck: " << write_error << "\n";
        return write_code;
    }
    return differ ? 1 : 0;
}

} // namespace

int cmd_prove(const ProveArgs &a) {
    std::vector<Job> all_jobs = select_jobs(a);
    ShardSpec shard;
    if (!a.shard.empty())
        shard = parse_shard(a.shard);
    // This shard's part of the selection, in the selection's order.
    std::vector<Job> jobs;
    {
        std::vector<unsigned> part = assign_shards(all_jobs, shard.count, builtin_timings());
        for (std::size_t k = 0; k < all_jobs.size(); ++k)
            if (part[k] + 1 == shard.index)
                jobs.push_back(all_jobs[k]);
    }
    std::vector<ExpectedEntry> expected;
    if (!a.expected.empty())
        expected = parse_expected(read_file(a.expected, InputKind::expected), a.expected);
    else
        expected = builtin_expected();
    check_outputs({a.out, a.corpus, a.junit, a.sarif, a.json});
    if (!a.write_timings.empty())
        check_report_file("--write-timings", a.write_timings);

    ProveOptions opt;
    opt.timeout_ms = a.timeout_ms;
    opt.carry_over = !a.direct;
    unsigned threads = a.jobs ? a.jobs : std::max(1u, std::thread::hardware_concurrency());
    // SIGINT/SIGTERM while proving: no verdict is made up and nothing is
    // written.  Proofs write nothing until the matrix is done, so the
    // process ends at once, 128 + the signal (130, 143); once the writing
    // has begun it is finished first (each file is renamed into place whole).
    sys::install_signal_handlers();
    std::atomic<bool> proving{true}, writing{false};
    std::thread watcher([&] {
        while (proving || writing) {
            if (int sig = sys::pending_signal(); sig && !writing) {
                std::fprintf(stderr, "schedcheck: interrupted by %s while proving; no result written\n",
                             sig == SIGINT ? "SIGINT" : "SIGTERM");
                std::_Exit(128 + sig);
            }
            std::this_thread::sleep_for(std::chrono::milliseconds(20));
        }
    });
    struct Join {
        std::thread &t;
        std::atomic<bool> &p, &w;
        ~Join() {
            p = false;
            w = false;
            t.join();
        }
    } join{watcher, proving, writing};
    auto t0 = std::chrono::steady_clock::now();
    std::vector<ProofResult> results = run_matrix(jobs, opt, threads);
    double total = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
    if (int sig = sys::pending_signal()) {
        std::fprintf(stderr, "schedcheck: interrupted by %s while proving; no result written\n",
                     sig == SIGINT ? "SIGINT" : "SIGTERM");
        std::_Exit(128 + sig);
    }
    writing = true;
    proving = false;

    RunInfo info;
    info.seconds = total;
    info.threads = threads;
    info.shard = shard;
    for (const Job &j : all_jobs)
        info.selection.push_back(job_key(j));
    Outputs o{a.out, a.corpus, a.junit, a.sarif, a.json};
    int code = report_results(results, expected, info, o);
    if (!a.write_timings.empty() && code != 2 && code != 3) {
        write_file_atomic(a.write_timings,
                          timings_text(results, "# Seconds per proof, measured by `make timings` (schedcheck prove "
                                                "--jobs 1 --write-timings): what `prove --shard I/N` balances.\n"
                                                "# <variant> <invariant> <arch> <seconds>\n"));
        std::cout << "timings: " << a.write_timings << "\n";
    }
    return code;
}


namespace {

// A shard's results.json, read back.  Every field is checked; a message
// names the file and the JSON pointer of what is wrong.
struct ShardFile {
    std::string path;
    ShardSpec shard;
    std::vector<std::string> selection;
    double seconds = 0;
    std::vector<ProofResult> results;
};

ShardFile read_shard_file(const std::string &path) {
    constexpr std::size_t results_max_bytes = 256 * input_mib;
    JsonDocument doc = parse_json_document(read_input_file(path, results_max_bytes), path);
    const json &d = doc.value;
    auto bad = [&](const std::string &ptr, const std::string &what) {
        return input_error(path + ": " + ptr + ": " + what);
    };
    auto field = [&](const json &obj, const std::string &ptr, const char *key) -> const json & {
        if (!obj.is_object() || !obj.contains(key))
            throw bad(ptr + "/" + key, "missing");
        return obj.at(key);
    };
    auto str = [&](const json &obj, const std::string &ptr, const char *key) {
        const json &v = field(obj, ptr, key);
        if (!v.is_string())
            throw bad(ptr + "/" + key, "is " + describe_json_value(v) + ", not a string");
        return v.get<std::string>();
    };
    auto uint = [&](const json &obj, const std::string &ptr, const char *key) {
        const json &v = field(obj, ptr, key);
        if (!v.is_number_unsigned())
            throw bad(ptr + "/" + key, "is " + describe_json_value(v, ptr + "/" + key, &doc.number_text) +
                                           ", not an unsigned integer");
        return v.get<std::uint64_t>();
    };
    auto num = [&](const json &obj, const std::string &ptr, const char *key) {
        const json &v = field(obj, ptr, key);
        if (!v.is_number() || v.get<double>() < 0)
            throw bad(ptr + "/" + key, "is " + describe_json_value(v, ptr + "/" + key, &doc.number_text) +
                                           ", not a number of seconds");
        return v.get<double>();
    };
    if (!d.is_object())
        throw input_error(path + ": not a schedcheck results file (expected an object with \"run\" and \"results\")");
    ShardFile f;
    f.path = path;
    const json &run = field(d, "", "run");
    const json &sh = field(run, "/run", "shard");
    std::uint64_t idx = uint(sh, "/run/shard", "index"), cnt = uint(sh, "/run/shard", "count");
    if (cnt < 1 || cnt > 4096 || idx < 1 || idx > cnt)
        throw bad("/run/shard", fmt::format("{}/{} is not a shard (1 <= index <= count <= 4096)", idx, cnt));
    f.shard = {unsigned(idx), unsigned(cnt)};
    f.seconds = num(run, "/run", "seconds");
    const json &sel = field(run, "/run", "selection");
    if (!sel.is_array())
        throw bad("/run/selection", "is " + describe_json_value(sel) + ", not an array");
    for (std::size_t k = 0; k < sel.size(); ++k) {
        if (!sel[k].is_string())
            throw bad("/run/selection/" + std::to_string(k), "is " + describe_json_value(sel[k]) + ", not a string");
        f.selection.push_back(sel[k].get<std::string>());
    }
    const json &rs = field(d, "", "results");
    if (!rs.is_array())
        throw bad("/results", "is " + describe_json_value(rs) + ", not an array");
    for (std::size_t k = 0; k < rs.size(); ++k) {
        std::string ptr = "/results/" + std::to_string(k);
        const json &j = rs[k];
        ProofResult r;
        r.variant = str(j, ptr, "variant");
        r.invariant = str(j, ptr, "invariant");
        if (!find_subject(r.variant))
            throw bad(ptr + "/variant", "unknown variant \"" + excerpt(r.variant) + "\"");
        if (!find_invariant(r.invariant))
            throw bad(ptr + "/invariant", "unknown invariant \"" + excerpt(r.invariant) + "\"");
        std::string arch = str(j, ptr, "arch");
        if (arch == "ilp32")
            r.arch = Arch::ilp32;
        else if (arch == "lp64")
            r.arch = Arch::lp64;
        else
            throw bad(ptr + "/arch", "\"" + excerpt(arch) + "\" is not ilp32 or lp64");
        std::string verdict = str(j, ptr, "verdict");
        if (verdict == "PROVED")
            r.verdict = Verdict::PROVED;
        else if (verdict == "COUNTEREXAMPLE")
            r.verdict = Verdict::COUNTEREXAMPLE;
        else if (verdict == "UNKNOWN")
            r.verdict = Verdict::UNKNOWN;
        else
            throw bad(ptr + "/verdict", "\"" + excerpt(verdict) + "\" is not PROVED, COUNTEREXAMPLE or UNKNOWN");
        r.seconds = num(j, ptr, "seconds");
        r.paths = uint(j, ptr, "paths");
        r.queries = uint(j, ptr, "queries");
        r.domain = str(j, ptr, "domain");
        r.reason = str(j, ptr, "reason");
        if (j.contains("bound_ticks")) {
            r.bound = uint(j, ptr, "bound_ticks");
            r.bound_kind = "ticks";
        } else if (j.contains("largest_safe_load")) {
            r.bound = uint(j, ptr, "largest_safe_load");
            r.bound_kind = "largest safe load";
        }
        const json &c = field(j, ptr, "counterexample");
        if (r.verdict == Verdict::COUNTEREXAMPLE) {
            if (!c.is_object())
                throw bad(ptr + "/counterexample", "is " + describe_json_value(c) + ", not an object");
            Counterexample cx;
            const json &in = field(c, ptr + "/counterexample", "inputs");
            if (!in.is_object())
                throw bad(ptr + "/counterexample/inputs", "is " + describe_json_value(in) + ", not an object");
            for (auto it = in.begin(); it != in.end(); ++it)
                cx.inputs.emplace_back(it.key(), uint(in, ptr + "/counterexample/inputs", it.key().c_str()));
            cx.reproducer = field(c, ptr + "/counterexample", "document");
            // The document must be a reproducer of this very proof.
            Reproducer rep = parse_reproducer(cx.reproducer.dump(), path + " " + ptr + "/counterexample/document");
            if (rep.variant->id != r.variant || rep.invariant->id != r.invariant || rep.arch != r.arch)
                throw bad(ptr + "/counterexample/document", "is a reproducer of another proof (" +
                                                                job_key(rep.variant->id, rep.invariant->id, rep.arch) +
                                                                ")");
            r.cex = std::move(cx);
        } else if (!c.is_null()) {
            throw bad(ptr + "/counterexample", "must be null for a " + verdict + " verdict");
        }
        f.results.push_back(std::move(r));
    }
    return f;
}

} // namespace

int cmd_merge(const MergeArgs &a) {
    if (a.files.empty())
        throw input_error("merge: no results file given");
    std::vector<ShardFile> shards;
    for (const auto &p : a.files)
        shards.push_back(read_shard_file(p));
    std::vector<ExpectedEntry> expected;
    if (!a.expected.empty())
        expected = parse_expected(read_file(a.expected, InputKind::expected), a.expected);
    else
        expected = builtin_expected();
    Outputs o{a.out, "", a.junit, a.sarif, a.json};
    check_outputs(o);

    // The shards must come from one split of one selection: the same count
    // and selection, each index once, none missing.
    const ShardFile &first = shards.front();
    std::map<unsigned, std::string> by_index;
    for (const ShardFile &f : shards) {
        if (f.shard.count != first.shard.count)
            throw input_error(fmt::format("merge: {} is shard {}/{} but {} is shard {}/{}: not one split", f.path,
                                          f.shard.index, f.shard.count, first.path, first.shard.index,
                                          first.shard.count));
        if (f.selection != first.selection)
            throw input_error("merge: " + f.path + " and " + first.path +
                              " were run on different selections (other --family/--variant/--invariant/--arch/"
                              "--oracle options, or another schedcheck)");
        auto [it, fresh] = by_index.emplace(f.shard.index, f.path);
        if (!fresh)
            throw input_error(fmt::format("merge: overlapping shards: {} and {} are both shard {}/{}", it->second,
                                          f.path, f.shard.index, f.shard.count));
    }
    std::vector<std::string> missing;
    for (unsigned i = 1; i <= first.shard.count; ++i)
        if (!by_index.count(i))
            missing.push_back(fmt::format("{}/{}", i, first.shard.count));
    if (!missing.empty())
        throw input_error("merge: missing shard" + std::string(missing.size() > 1 ? "s " : " ") + join_ids(missing));

    // Every selected proof exactly once: shards split with other timing
    // files would overlap or leave gaps even with all indices present.
    std::map<std::string, std::size_t> pos;
    for (std::size_t k = 0; k < first.selection.size(); ++k)
        pos.emplace(first.selection[k], k);
    std::vector<std::optional<ProofResult>> merged(first.selection.size());
    std::vector<std::string> owner(first.selection.size());
    RunInfo info;
    info.selection = first.selection;
    info.shards_merged = shards.size();
    for (ShardFile &f : shards) {
        info.slowest_shard = std::max(info.slowest_shard, f.seconds);
        info.seconds += f.seconds;
        for (ProofResult &r : f.results) {
            std::string key = job_key(r.variant, r.invariant, r.arch);
            auto it = pos.find(key);
            if (it == pos.end())
                throw input_error("merge: " + f.path + " holds " + key + ", which its selection does not list");
            if (merged[it->second])
                throw input_error("merge: overlapping shards: " + key + " is in both " + owner[it->second] + " and " +
                                  f.path + " (split with different timing files?)");
            merged[it->second] = std::move(r);
            owner[it->second] = f.path;
        }
    }
    std::vector<std::string> absent;
    for (std::size_t k = 0; k < merged.size(); ++k)
        if (!merged[k])
            absent.push_back(first.selection[k]);
    if (!absent.empty())
        throw input_error(fmt::format("merge: {} selected proof(s) are in no shard (split with different timing "
                                      "files?): {}",
                                      absent.size(), join_ids(absent)));
    std::vector<ProofResult> results;
    for (auto &r : merged)
        results.push_back(std::move(*r));
    return report_results(results, expected, info, o);
}

namespace {
// A counterexample's trace as a plot: each traced value in the order the
// trace gives them (one point per value, steps one after the other), and
// the two sides of the failed comparison, marked.
std::string explain_svg(const Reproducer &r, const ReplayResult &rr, const std::string &file) {
    sim::Plot p;
    p.title = fmt::format("schedcheck explain {}: {} on {} {}", file, r.invariant->id, r.variant->id,
                          arch_name(r.arch));
    p.x_label = "position in the trace (see the legend of the report)";
    sim::Panel values;
    values.title = "traced values, in trace order";
    sim::Series s;
    s.label = "value";
    s.markers_only = true;
    double x = 0;
    for (const auto &st : rr.steps)
        for (const auto &nv : st.values) {
            s.points.push_back({x, double(nv.second)});
            s.labels.push_back(nv.first + " = " + std::to_string(nv.second));
            x += 1;
        }
    values.series.push_back(s);
    p.panels.push_back(values);
    if (!rr.op.empty()) {
        sim::Panel cmp;
        cmp.title = fmt::format("failed: {} {} {} (expected, but false)", rr.lhs_name, rr.op, rr.rhs_name);
        // The two sides as two dots, left and right, the relation between.
        sim::Series l, rh;
        l.label = "left: " + rr.lhs_name;
        rh.label = "right: " + rr.rhs_name;
        l.markers_only = rh.markers_only = true;
        l.points = {{0, double(rr.lhs)}};
        l.labels = {rr.lhs_name + " = " + std::to_string(rr.lhs)};
        rh.points = {{x > 1 ? x - 1 : 1, double(rr.rhs)}};
        rh.labels = {rr.rhs_name + " = " + std::to_string(rr.rhs)};
        cmp.series = {l, rh};
        cmp.marker_x = (x > 1 ? x - 1 : 1) / 2;
        cmp.marker_label = rr.op + (rr.violated ? ": violated" : ": holds");
        p.panels.push_back(cmp);
    }
    return sim::render_svg(p);
}

// Replay a loaded reproducer; scenario errors are reported against the file.
ReplayResult replay_file(const Reproducer &r, const std::string &file) {
    try {
        return r.invariant->replay(*r.variant, r.arch, r.doc);
    } catch (const input_error &e) {
        throw input_error(file + ": " + e.what());
    }
}
} // namespace

namespace {
// What the reproducer recorded: claim.violated (prove writes it for pelt
// and utilest counterexamples); none when absent.
std::optional<bool> recorded_violated(const Reproducer &r, const std::string &file) {
    if (r.doc.contains("claim") && r.doc.at("claim").is_object() && r.doc.at("claim").contains("violated")) {
        const json &v = r.doc.at("claim").at("violated");
        if (!v.is_boolean())
            throw input_error(file + ": claim.violated: expected true or false");
        return v.get<bool>();
    }
    return std::nullopt;
}
} // namespace

int cmd_replay(const std::string &file, bool as_json) {
    Reproducer r = load_reproducer(file);
    std::optional<bool> recorded = recorded_violated(r, file);
    ReplayResult rr = replay_file(r, file);
    bool as_recorded = !recorded || rr.violated == *recorded;
    if (as_json) {
        json j = replay_json(r, rr);
        j["recorded_violated"] = recorded ? json(*recorded) : json(nullptr);
        j["as_recorded"] = as_recorded;
        std::cout << j.dump(2) << "\n";
        return as_recorded ? 0 : 1;
    }
    std::cout << fmt::format("replay {}: {} {} on {} {}\n", file, r.invariant->id,
                             rr.violated ? "VIOLATED" : "holds", r.variant->id, arch_name(r.arch));
    std::cout << rr.trace;
    if (rr.violated) {
        std::cout << "failed: " << rr.failed << "\n";
        if (!rr.op.empty())
            std::cout << fmt::format("  {} = {}\n  {} (expected, but false)\n  {} = {}\n", rr.lhs_name,
                                     with_hex(rr.lhs), rr.op, rr.rhs_name, with_hex(rr.rhs));
    }
    for (const auto &w : rr.wraps)
        std::cout << "wrap: " << w << "\n";
    if (!recorded)
        std::cout << "no recorded outcome (claim.violated) to compare with\n";
    else if (!as_recorded)
        std::cout << fmt::format("NOT AS RECORDED: the reproducer recorded the invariant {}, it now {}\n",
                                 *recorded ? "violated" : "holding", rr.violated ? "is violated" : "holds");
    else
        std::cout << "as recorded\n";
    return as_recorded ? 0 : 1;
}

int cmd_explain(const std::string &file, const std::string &svg) {
    Reproducer r = load_reproducer(file);
    ReplayResult rr = replay_file(r, file);
    std::string plot;
    if (!svg.empty()) {
        if (rr.steps.empty())
            throw input_error("explain --svg: the " + r.invariant->family +
                              " family gives no structured trace to plot yet (pelt and utilest do)");
        plot = explain_svg(r, rr, file);
    }
    std::cout << reviewer_report(r, rr, file);
    if (!svg.empty()) {
        write_file_atomic(svg, plot);
        std::cout << "wrote " << svg << "\n";
    }
    return 0;
}

int cmd_equiv(const EquivArgs &a) {
    const Variant *v = find_variant(a.variant);
    if (!v)
        throw input_error("unknown variant \"" + excerpt(a.variant) + "\" (see `schedcheck variants`)");
    std::vector<Arch> arches = parse_arches(a.arch);
    std::vector<EquivResult> rs;
    for (Arch ar : arches)
        rs.push_back(prove_equivalence(*v, a.oracle, ar, a.timeout_ms, a.oracle_dir));
    bool all_equal = true;
    for (const auto &r : rs)
        all_equal &= r.verdict == EquivVerdict::EQUIVALENT;
    if (a.json) {
        json arr = json::array();
        for (const auto &r : rs)
            arr.push_back(equiv_json(r));
        std::cout << json{{"results", arr}}.dump(2) << "\n";
    } else {
        for (const auto &r : rs)
            std::cout << equiv_text(r);
    }
    return all_equal ? 0 : 1;
}

int cmd_oracle_list(bool as_json, const std::string &oracle_dir) {
    std::vector<OracleInfo> os = oracles();
    // Oracles `oracle build` made: their manifests in oracle_dir.  A
    // manifest that does not parse is skipped with a warning, not fatal.
    std::vector<json> built;
    std::error_code ec;
    if (std::filesystem::exists(oracle_dir, ec) && !std::filesystem::is_directory(oracle_dir, ec))
        throw input_error("--oracle-dir " + excerpt(oracle_dir, 4096) + " is not a directory");
    // Each manifest is at most manifest_max_bytes; all of them together at
    // most 64 times that, however many files the directory holds.
    std::size_t budget = 64 * max_input_bytes(InputKind::manifest);
    if (std::filesystem::is_directory(oracle_dir, ec))
        for (const auto &e : std::filesystem::directory_iterator(oracle_dir, ec))
            if (e.path().extension() == ".json") {
                // A manifest (proofs/kernel/oracle_manifest.h) as `oracle build`
                // writes it; other JSON files are skipped.
                std::string path = e.path().string();
                try {
                    std::string text = read_file(path, InputKind::manifest);
                    if (text.size() > budget) {
                        std::cerr << "schedcheck: warning: " << excerpt(oracle_dir, 4096) << " holds more than "
                                  << 64 * max_input_bytes(InputKind::manifest) / input_mib
                                  << " MB of JSON files; the rest are not read\n";
                        break;
                    }
                    budget -= text.size();
                    std::optional<OracleManifest> m = parse_oracle_manifest(text, path);
                    if (!m)
                        continue; // some other JSON file
                    // The whole manifest is listed (version, definitions, ...).
                    built.push_back(parse_json_document(text, path).value);
                } catch (const input_error &x) {
                    std::cerr << "schedcheck: warning: skipping " << excerpt(path, 4096) << ": not an oracle manifest ("
                              << x.what() << ")\n";
                }
            }
    if (as_json) {
        json arr = json::array();
        for (const auto &o : os)
            arr.push_back({{"id", o.id},
                           {"description", o.description},
                           {"available", o.available},
                           {"reason", o.reason},
                           {"definitions", o.definitions},
                           {"same_as", o.same_as},
                           {"self_check", o.self_checked ? json(o.self_check) : json(nullptr)}});
        std::cout << json{{"oracles", arr}, {"built", built}}.dump(2) << "\n";
        return 0;
    }
    for (const auto &o : os) {
        std::cout << fmt::format("{:<15} {}\n", o.id, o.available ? o.description : "unavailable: " + o.reason);
        if (o.available) {
            std::string d;
            for (const auto &x : o.definitions)
                d += (d.empty() ? "" : ", ") + x;
            std::cout << fmt::format("{:<15} definitions: {}\n{:<15} meant to equal: {}\n", "", d, "", o.same_as);
            if (o.self_checked) {
                std::string sc = o.self_check.empty() ? "runnable_avg_yN_inv[0..31] and LOAD_AVG_MAX match their "
                                                        "regeneration from y^32 = 1/2"
                                                      : "DIFFERS from the regeneration:";
                std::cout << fmt::format("{:<15} self-check: {}\n", "", sc);
                for (const auto &x : o.self_check)
                    std::cout << fmt::format("{:<15}   {}\n", "", x);
            }
        }
    }
    for (const auto &m : built)
        std::cout << fmt::format("{:<15} built by `oracle build` from {} (plug-in {}/{})\n",
                                 m["id"].get<std::string>(), excerpt(m.value("source", std::string("?")), 200),
                                 oracle_dir, m["plugin"].get<std::string>());
    return 0;
}

// What a patch series holds, without a kernel tree: its patches, the
// definitions that lie wholly inside the pre-image's known text, and for
// each patch those wholly inside the text it wrote (the ones an oracle
// could be built from).
int cmd_oracle_extract(const std::string &patch, bool as_json) {
    std::string text = read_file(patch, InputKind::patch);
    oracle::Series series;
    std::vector<std::pair<std::string, oracle::Image>> images;
    try {
        series = oracle::parse_series(text, patch);
        // One walk through the series (linear in its size): the pre-image,
        // then for each patch the text it wrote, so that every definition a
        // patch touches is listed once, under that patch.
        oracle::Replay rp(series);
        images.push_back({"pre-image", rp.image()});
        while (!rp.done()) {
            rp.step();
            images.push_back({"after patch " + std::to_string(rp.applied()), rp.changed()});
        }
    } catch (const oracle::extract_error &e) {
        throw input_error(e.what());
    }
    json out = {{"patch", patch}, {"patches", json::array()}, {"images", json::array()}};
    for (const auto &p : series.patches)
        out["patches"].push_back({{"title", p.title}, {"line", p.first_line}});
    for (const auto &[label, img] : images) {
        json files = json::array();
        for (const auto &[path, frags] : img.files) {
            json defs = json::array();
            for (const auto &f : frags)
                for (const auto &d : oracle::definitions(f))
                    defs.push_back({{"kind", oracle::kind_name(d.kind)},
                                    {"name", d.name},
                                    {"first_line", d.first_line},
                                    {"last_line", d.last_line}});
            files.push_back({{"path", path}, {"definitions", defs}});
        }
        out["images"].push_back({{"image", label}, {"files", files}});
    }
    if (as_json) {
        std::cout << out.dump(2) << "\n";
        return 0;
    }
    std::cout << fmt::format("{}: {} patch(es)\n", patch, series.patches.size());
    for (std::size_t k = 0; k < series.patches.size(); ++k)
        std::cout << fmt::format("  {}. {} (line {})\n", k + 1, series.patches[k].title, series.patches[k].first_line);
    for (const auto &img : out["images"]) {
        std::cout << img["image"].get<std::string>() << ":\n";
        for (const auto &f : img["files"]) {
            std::string names;
            for (const auto &d : f["definitions"])
                names += (names.empty() ? "" : ", ") + d["name"].get<std::string>() + " (" +
                         d["kind"].get<std::string>() + ", lines " + std::to_string(d["first_line"].get<int>()) + "-" +
                         std::to_string(d["last_line"].get<int>()) + ")";
            std::cout << fmt::format("  {}: {}\n", f["path"].get<std::string>(), names.empty() ? "no whole definition" : names);
        }
    }
    return 0;
}

} // namespace sc::cli
