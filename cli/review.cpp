// `schedcheck review --patch FILE [--kernel TREE|TARBALL]`: what a patch
// does to the invariants, in a form that can be pasted into a reply.
//
//  1. The pre- and post-image oracles are built (cli/oracle_build.cpp) in a
//     private directory, removed at the end.
//  2. Every pelt, utilest, idlebal and wakeaffine invariant that applies is
//     proved on both, in both data models (the plug-ins run the invariant
//     texts of proofs/kernel/plugin_prove.h on their own code), except a
//     family whose definitions the patch leaves as they were.
//  3. A verdict that changed is a regression (PROVED before, COUNTEREXAMPLE
//     or a broken induction step after) or a fix (the reverse); a regression's
//     counterexample is replayed on both images.
//  4. Each image is compared, function by function, with the reference
//     variant of its kernel version.  A function that is equivalent to the
//     reference before the patch and differs after it was changed by the
//     patch, and the distinguishing input shows the pre-image's output (the
//     reference's, proved equal) next to the post-image's.
//  5. With --fuzz-seconds, the post-image runs against the pre-image on
//     random task lives (cli/review_fuzz.cpp); the first difference is
//     shrunk and shown call by call.
//  6. A plain-text review (at most 80 columns) and JSON.
// Exit: 0 no regression, 1 a regression, 2 bad input, 3 internal error.
#include <unistd.h>

#include <algorithm>
#include <array>
#include <atomic>
#include <chrono>
#include <cerrno>
#include <cstring>
#include <filesystem>
#include <future>
#include <iostream>
#include <map>
#include <optional>
#include <sstream>
#include <string_view>
#include <thread>

#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include "cli/commands.h"
#include "cli/reply_mail.h"
#include "cli/review_fuzz.h"
#include "oracle/process.h"
#include "proofs/kernel/builtin_images.h"
#include "proofs/equiv/equiv.h"
#include "proofs/report/input_file.h"
#include "proofs/kernel/kernel_invariants.h"
#include "proofs/engine/matrix.h"
#include "proofs/kernel/oracle_plugin.h"
#include "proofs/report/report.h"
#include "proofs/report/reproducer.h"
#include "proofs/report/shard.h"

namespace fs = std::filesystem;
using nlohmann::json;

namespace sc::cli {

namespace {

using namespace sc::proofs;

// Words wrapped at `width` columns, every line after the first indented.
std::string wrap(const std::string &text, std::size_t width, const std::string &indent) {
    std::string out, line;
    std::size_t start = text.find_first_not_of(' ');
    if (start == std::string::npos)
        return "\n";
    // The first line keeps the text's own leading spaces; the others get
    // `indent` more than that.
    const std::string lead = text.substr(0, start), more = lead + indent;
    line = lead;
    while (start < text.size()) {
        std::size_t end = text.find(' ', start);
        if (end == std::string::npos)
            end = text.size();
        std::string word = text.substr(start, end - start);
        start = end + 1;
        if (line.size() > more.size() && line.size() + 1 + word.size() > width) {
            out += line + "\n";
            line = more;
        }
        line += (line == lead || line == more ? "" : " ") + word;
    }
    if (!line.empty())
        out += line + "\n";
    return out;
}

// A private directory for the oracles, removed when the review ends
// (oracle/process.h: removed when it goes out of scope, and by the next run
// should this process be killed outright).
sys::TempDir private_dir() {
    try {
        return sys::TempDir(fs::temp_directory_path(), "schedcheck-review");
    } catch (const std::runtime_error &e) {
        throw input_error(std::string("review: ") + e.what());
    }
}

// The reference variants of a kernel version ("6.1.158" -> v6.1), if any.
std::vector<const Variant *> reference_of(const std::string &version) {
    auto starts = [&](const char *p) {
        std::string s = p;
        return version.rfind(s, 0) == 0 && (version.size() == s.size() || !std::isdigit(static_cast<unsigned char>(version[s.size()])));
    };
    if (starts("6.1"))
        return {find_variant("pelt/v6.1"), find_variant("utilest/v6.1"), find_variant("idlebal/v6.1"),
                find_variant("wakeaffine/v6.1")};
    if (starts("6.12"))
        // No reference models 6.12's delayed dequeue in wake_affine_idle():
        // that function differs before and after, and is said so.
        return {find_variant("pelt/v6.12"), find_variant("utilest/v6.12"), find_variant("idlebal/v6.12"),
                find_variant("wakeaffine/v6.1")};
    return {};
}

struct Change {
    std::string kind; // "regression", "fix", "changed"
    const InvariantInfo *inv;
    Arch arch;
    ProofResult pre, post;
    // For a regression (or fix): the counterexample replayed on both images.
    std::optional<ReplayResult> on_pre, on_post;
};

bool broken(const ProofResult &r) {
    return r.verdict == Verdict::COUNTEREXAMPLE ||
           (r.verdict == Verdict::UNKNOWN && r.reason.rfind("not inductive", 0) == 0);
}

std::string verdict_word(const ProofResult &r) {
    if (r.verdict == Verdict::UNKNOWN && r.reason.rfind("not inductive", 0) == 0)
        return "STEP BROKEN";
    return verdict_name(r.verdict);
}

} // namespace

int cmd_review(const ReviewArgs &a) {
    if (a.patch.empty())
        throw input_error("review: --patch is required");
    // The patch must be a readable regular file (named in the message).
    (void)read_input_file(a.patch, InputKind::patch);
    if (!a.kernel.empty() && !fs::exists(a.kernel))
        throw input_error("review: --kernel " + a.kernel + ": no such file or directory");
    if (!a.out.empty())
        check_output_dir("--out", a.out,
                         {{"review.txt", false},
                          {"review.json", false},
                          {"reply.mbox", false},
                          {"reproducers", true},
                          {"oracles", true}});
    // The mail to reply to is read first: a bad one fails before the build.
    std::optional<MailHeaders> mail;
    if (!a.reply_to.empty())
        mail = parse_mail_headers(read_input_file(a.reply_to, InputKind::patch), a.reply_to);
    // The review on stdout (text, its reply mail, or JSON) and in --out.
    auto emit = [&](const std::string &text, const json &doc) {
        const std::string reply = mail ? reply_mail(*mail, text) : std::string();
        if (!a.out.empty()) {
            write_file_atomic(a.out + "/review.txt", text);
            write_file_atomic(a.out + "/review.json", doc.dump(2) + "\n");
            if (mail)
                write_file_atomic(a.out + "/reply.mbox", reply);
        }
        if (a.json)
            std::cout << doc.dump(2) << "\n";
        else
            std::cout << (mail ? reply : text);
    };

    sys::install_signal_handlers();
    auto t0 = std::chrono::steady_clock::now();
    const sys::TempDir tmp = private_dir();
    const std::string odir = (tmp.path / "oracles").string();
    // What a review proves, from the two images' reads alone.  A family
    // whose definitions (and all they use) the patch leaves as they were,
    // token for token, runs the same code on both images under its
    // invariants: no verdict can change and none is proved again.  (A patch
    // to util_est alone proves only the utilest invariants, one to
    // update_newidle_cost() only the idlebal ones, one to wake_affine()
    // only the wakeaffine ones.)  The same holds for one invariant
    // that calls less than its family (pelt.decay_monotone calls
    // decay_load() alone).
    struct Plan {
        std::vector<std::string> unchanged, unchanged_invs;
        std::vector<const InvariantInfo *> candidates; // applicability aside
    };
    auto plan_of = [](const BuiltOracle &x, const BuiltOracle &y) {
        auto same_reads = [&](const std::string &key) {
            auto p = x.reads.find(key), q = y.reads.find(key);
            return p != x.reads.end() && q != y.reads.end() && p->second == q->second;
        };
        // The families whose invariants a plug-in runs on its own code.
        static constexpr std::array<std::string_view, 4> reviewed{"pelt", "utilest", "idlebal", "wakeaffine"};
        Plan pl;
        for (std::string_view fam : reviewed)
            if (same_reads(std::string(fam)))
                pl.unchanged.emplace_back(fam);
        for (const InvariantInfo &i : invariants()) {
            if (std::find(reviewed.begin(), reviewed.end(), i.family) == reviewed.end() || same_reads(i.family))
                continue;
            if (same_reads(i.id))
                pl.unchanged_invs.push_back(i.id);
            else
                pl.candidates.push_back(&i);
        }
        return pl;
    };

    // Whether the review proves invariant i (the slow ones only when asked).
    auto proved_here = [&](const InvariantInfo &i) { return i.in_review || a.all_invariants; };
    // Longest proof first, by the recorded time of the same invariant and
    // width on the built-in kernel `row` (linux-6.1 or linux-6.12), so that
    // the threads end together and the early proofs end with short ones.
    auto longest_first = [](std::vector<Job> &js, const std::string &row) {
        const std::map<std::string, double> &tm = builtin_timings();
        auto cost = [&](const Job &j) {
            auto it = tm.find(job_key(row, j.invariant->id, j.arch));
            return it == tm.end() ? default_cost(tm) : it->second;
        };
        std::stable_sort(js.begin(), js.end(), [&](const Job &x, const Job &y) { return cost(x) > cost(y); });
    };

    ProveOptions opt;
    opt.timeout_ms = a.timeout_ms;
    std::atomic<bool> cancel{false};
    opt.cancel = &cancel;
    // An image with the code of a built-in oracle needs no compile: its
    // proofs start, on one thread, while the other image compiles (one
    // compiler), and the rest of the review waits for them.
    const Variant *early_subject = nullptr;
    std::vector<Job> early_jobs;
    std::future<std::vector<ProofResult>> early;
    struct StopEarly { // on the way out with an error: stop them, and wait
        std::atomic<bool> &cancel;
        std::future<std::vector<ProofResult>> &f;
        ~StopEarly() {
            if (f.valid()) {
                cancel = true;
                f.wait();
            }
        }
    } stop_early{cancel, early};

    // No library or fuzzer binary: the review loads the plug-ins only.  An
    // image with the code of a built-in oracle (an unpatched Debian 6.1 or
    // 6.12 tree) is that oracle, and is not compiled again.
    BuildOptions bo;
    bo.with_library = bo.with_fuzzer = false;
    bo.reuse_builtin = true;
    // Without fuzzing the plug-in serves the proofs alone: compiled at -O0
    // (a one-line PELT patch's review 104 s at -O1, 64 to 98 s in three
    // runs at -O0; its proving took no longer).  The fuzzer runs the
    // plug-in's concrete code, at -O1.
    bo.quick_plugin = a.fuzz_seconds == 0;
    bo.prepared = [&](const std::vector<BuiltOracle> &imgs) {
        if (imgs.size() != 2 || imgs[0].code == imgs[1].code)
            return;
        const BuiltOracle *b = !imgs[0].builtin.empty() ? &imgs[0] : !imgs[1].builtin.empty() ? &imgs[1] : nullptr;
        if (!b)
            return;
        const Variant &v = add_plugin_subject(b->oracle(), odir); // built in: nothing is loaded
        early_subject = &v;
        for (const InvariantInfo *i : plan_of(imgs[0], imgs[1]).candidates)
            if (proved_here(*i) && i->applies(v))
                for (Arch ar : {Arch::ilp32, Arch::lp64})
                    early_jobs.push_back({&v, i, ar});
        longest_first(early_jobs, b->builtin);
        if (!early_jobs.empty())
            early = std::async(std::launch::async, [&] { return run_matrix(early_jobs, opt, 1); });
    };
    OracleBuild ob = build_oracles(a.kernel, a.patch, "review", odir, bo);
    double t_build = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
    if (ob.built.size() != 2)
        throw internal_error("review: expected a pre- and a post-image oracle");
    const BuiltOracle &bpre = ob.built[0], &bpost = ob.built[1];
    const std::string origin = a.kernel.empty() ? a.patch : a.kernel + " + " + a.patch;

    json doc = {{"patch", a.patch}, {"kernel", a.kernel}, {"version", ob.version}};
    std::string text;
    auto line = [&](const std::string &s) { text += wrap(s, 78, "    "); };
    const std::string title = "schedcheck review of " + fs::path(a.patch).filename().string() +
                              (ob.version.empty() ? "" : " against Linux " + ob.version);
    line(title);
    // The rule under the title is as long as its (first) line.
    text += std::string(std::min<std::size_t>(78, title.size()), '=') + "\n";

    if (bpre.code == bpost.code) {
        line("The patch changes nothing that schedcheck models (the PELT, util_est, newidle-cost and wake_affine "
             "functions, tables and macros it extracts are the same before and after it). Nothing to review.");
        doc["modelled_change"] = false;
        doc["regressions"] = json::array();
        doc["fixes"] = json::array();
        emit(text, doc);
        return 0;
    }
    doc["modelled_change"] = true;

    // 2. Prove every applicable invariant on both images.
    const Variant &pre = add_plugin_subject(bpre.oracle(), odir);
    const Variant &post = add_plugin_subject(bpost.oracle(), odir);
    const Plan plan = plan_of(bpre, bpost);
    doc["unchanged_families"] = plan.unchanged;
    std::vector<Job> jobs;
    std::vector<const InvariantInfo *> invs;
    std::vector<std::string> not_run;
    for (const InvariantInfo *ip : plan.candidates) {
        const InvariantInfo &i = *ip;
        bool on_pre = i.applies(pre), on_post = i.applies(post);
        if (!on_pre && !on_post)
            continue;
        // Too slow for a review (InvariantInfo::in_review): left to
        // `prove --oracle` or --all-invariants, and the review says so.
        if (!proved_here(i)) {
            not_run.push_back(i.id);
            continue;
        }
        invs.push_back(&i);
        // The built-in image's jobs, if any, are the early ones: the same
        // invariants (proved here and applying to it), started already.
        for (Arch ar : {Arch::ilp32, Arch::lp64}) {
            if (on_pre && &pre != early_subject)
                jobs.push_back({&pre, &i, ar});
            if (on_post && &post != early_subject)
                jobs.push_back({&post, &i, ar});
        }
    }
    longest_first(jobs, ob.version.rfind("6.1.", 0) == 0 || ob.version == "6.1" ? "linux-6.1" : "linux-6.12");
    unsigned threads = a.jobs ? a.jobs : std::max(1u, std::thread::hardware_concurrency());
    auto t1 = std::chrono::steady_clock::now();
    // The early proofs may still run: with --jobs 1 they finish first, so
    // that one proof runs at a time; otherwise the rest start beside them.
    std::vector<ProofResult> results;
    if (early.valid() && threads == 1)
        results = early.get();
    for (ProofResult &r : run_matrix(jobs, opt, threads))
        results.push_back(std::move(r));
    if (early.valid())
        for (ProofResult &r : early.get())
            results.push_back(std::move(r));
    sys::check_interrupt();
    double t_prove = std::chrono::duration<double>(std::chrono::steady_clock::now() - t1).count();
    std::map<std::pair<std::string, int>, ProofResult> rpre, rpost; // (invariant, arch)
    for (const ProofResult &r : results)
        (r.variant == pre.id ? rpre : rpost)[{r.invariant, static_cast<int>(r.arch)}] = r;

    // 3. What changed.
    std::vector<Change> changes;
    for (const InvariantInfo *i : invs)
        for (Arch ar : {Arch::ilp32, Arch::lp64}) {
            auto kp = rpre.find({i->id, static_cast<int>(ar)}), kq = rpost.find({i->id, static_cast<int>(ar)});
            if (kp == rpre.end() || kq == rpost.end() || kp->second.verdict == kq->second.verdict)
                continue;
            Change c{"changed", i, ar, kp->second, kq->second, {}, {}};
            const ProofResult *with_cex = nullptr;
            if (kp->second.verdict == Verdict::PROVED && broken(kq->second)) {
                c.kind = "regression";
                with_cex = &kq->second;
            } else if (broken(kp->second) && kq->second.verdict == Verdict::PROVED) {
                c.kind = "fix";
                with_cex = &kp->second;
            }
            if (with_cex && with_cex->cex) {
                const json &rep = with_cex->cex->reproducer;
                c.on_pre = i->replay(pre, ar, rep);
                c.on_post = i->replay(post, ar, rep);
                if (!(c.kind == "regression" ? c.on_post : c.on_pre)->violated)
                    throw internal_error("review: the counterexample of " + i->id + " does not replay on the "
                                         "image it came from");
            }
            changes.push_back(std::move(c));
        }

    // 4. Function by function, each image against the reference variant.
    const std::vector<const Variant *> refs = reference_of(ob.version);
    struct FnChange {
        std::string function;
        EquivDifference d;
    };
    std::vector<FnChange> fn_changes;
    std::vector<std::string> fn_notes;
    double t_equiv = 0;
    if (!refs.empty()) {
        auto t2 = std::chrono::steady_clock::now();
        for (const Variant *ref : refs) {
            if (ref->family == "utilest" && (!bpre.note.empty() || !bpost.note.empty())) {
                fn_notes.push_back("util_est functions not compared: an image holds PELT only");
                continue;
            }
            EquivResult ep, eq;
            try {
                ep = prove_equivalence(*ref, bpre.oracle(), Arch::lp64, a.timeout_ms, odir);
                eq = prove_equivalence(*ref, bpost.oracle(), Arch::lp64, a.timeout_ms, odir);
            } catch (const input_error &e) {
                // An optional part (the newidle cost helpers, the wake-up
                // placement) that an image lacks: said, not fatal.
                if (ref->family != "idlebal" && ref->family != "wakeaffine")
                    throw;
                fn_notes.push_back(std::string(ref->family == "idlebal" ? "idle-balance" : "wake_affine") +
                                   " functions not compared: " + e.what());
                continue;
            }
            sys::check_interrupt();
            if (ep.verdict == EquivVerdict::UNKNOWN || eq.verdict == EquivVerdict::UNKNOWN) {
                fn_notes.push_back(ref->family + " functions: the comparison with " + ref->id +
                                   " gave UNKNOWN (" + (ep.verdict == EquivVerdict::UNKNOWN ? ep.reason : eq.reason) +
                                   ")");
                continue;
            }
            for (const EquivDifference &d : eq.differences) {
                bool pre_differs = std::any_of(ep.differences.begin(), ep.differences.end(),
                                               [&](const EquivDifference &x) { return x.function == d.function; });
                if (pre_differs)
                    fn_notes.push_back(d.function + " differs from " + ref->id + " before and after the patch: "
                                       "not compared through the reference");
                else
                    fn_changes.push_back({d.function, d});
            }
            // Differs before, equals the reference after: the post-image
            // answers as the reference does on the pre-image's
            // distinguishing input, so that input shows the change with
            // before = the pre-image's output, after = the reference's.
            for (const EquivDifference &d : ep.differences)
                if (std::none_of(eq.differences.begin(), eq.differences.end(),
                                 [&](const EquivDifference &x) { return x.function == d.function; })) {
                    EquivDifference back = d;
                    for (auto &o : back.outputs)
                        std::swap(o.second.first, o.second.second);
                    fn_changes.push_back({d.function, back});
                }
        }
        t_equiv = std::chrono::duration<double>(std::chrono::steady_clock::now() - t2).count();
    } else {
        fn_notes.push_back("no reference variant for version \"" + ob.version +
                           "\": the function-by-function comparison is left out (it needs a 6.1 or 6.12 tree)");
    }

    // 5. The post-image against the pre-image, concretely.
    std::optional<ReviewFuzz> fz;
    if (a.fuzz_seconds) {
        fz = fuzz_pre_post(task_runner(bpre.oracle(), odir), task_runner(bpost.oracle(), odir), a.fuzz_seconds,
                           a.fuzz_seed);
        sys::check_interrupt();
    }

    // 6. The review.
    std::size_t nreg = 0, nfix = 0;
    for (const Change &c : changes) {
        nreg += c.kind == "regression";
        nfix += c.kind == "fix";
    }
    text += "\n";
    for (const std::string &fam : plan.unchanged)
        line(fmt::format("The {} definitions, and all they use, are the same in both images: no {} invariant can "
                         "change, and none was proved again.",
                         fam == "pelt"      ? "PELT"
                         : fam == "utilest" ? "util_est"
                         : fam == "idlebal" ? "newidle-cost"
                                            : "wake_affine",
                         fam));
    for (const std::string &id : plan.unchanged_invs)
        line(fmt::format("What {} calls is the same in both images: its verdicts cannot change, and it was "
                         "not proved again.",
                         id));
    doc["unchanged_invariants"] = plan.unchanged_invs;
    if (plan.unchanged.size() < 2)
        line(fmt::format("{} invariant proofs on each image ({} invariants x ilp32, lp64): {} regression(s), {} "
                         "fix(es), {} other change(s).",
                         results.size() / 2, invs.size(), nreg, nfix, changes.size() - nreg - nfix));
    for (const std::string &id : not_run)
        line(fmt::format("Not proved here (minutes per image): {}; review again with --all-invariants, or "
                         "run `schedcheck prove --oracle NAME --invariant {}` on each image.",
                         id, id));
    doc["not_proved"] = not_run;
    json jchanges = json::array();
    for (const Change &c : changes) {
        text += "\n";
        std::string head = c.kind == "regression" ? "REGRESSION" : c.kind == "fix" ? "FIX" : "CHANGED";
        line(fmt::format("{}: {} ({}): {} before, {} after.", head, c.inv->id, arch_name(c.arch),
                         verdict_word(c.pre), verdict_word(c.post)));
        line("  " + c.inv->statement);
        const ProofResult &bad = c.kind == "fix" ? c.pre : c.post;
        if (!bad.reason.empty())
            line("  " + bad.reason);
        json jc = {{"kind", c.kind}, {"invariant", c.inv->id}, {"arch", arch_name(c.arch)},
                   {"before", verdict_word(c.pre)}, {"after", verdict_word(c.post)}};
        if (bad.cex) {
            text += "  input:\n";
            json jin = json::object();
            for (const auto &[k, v] : bad.cex->inputs) {
                text += fmt::format("    {:<28} = {}\n", k, v);
                jin[k] = v;
            }
            jc["inputs"] = jin;
            for (const auto &[label, rr] : {std::pair{"before", c.on_pre}, std::pair{"after", c.on_post}}) {
                if (!rr)
                    continue;
                if (rr->violated) {
                    line(fmt::format("  {} the patch: violated: {}", label, rr->failed));
                    line(fmt::format("    {} = {}, not {} {} = {}", rr->lhs_name, rr->lhs, rr->op, rr->rhs_name,
                                     rr->rhs));
                    // A balance decision's few lines (the wake-up's two
                    // states, an idle timeline) say why; a PELT trace is
                    // left to the reproducer.
                    if (c.inv->family == "idlebal" || c.inv->family == "wakeaffine") {
                        std::istringstream tr(rr->trace);
                        for (std::string l; std::getline(tr, l);)
                            if (!l.empty())
                                line("    " + l);
                    }
                } else {
                    text += fmt::format("  {} the patch: holds on this input\n", label);
                }
                jc[std::string("replay_") + label] = {{"violated", rr->violated}, {"failed", rr->failed},
                                                      {"lhs", rr->lhs},          {"rhs", rr->rhs}};
            }
            if (!a.out.empty()) {
                std::string path = a.out + "/reproducers/" + c.inv->id + "_" + std::string(arch_name(c.arch)) + ".json";
                jc["reproducer"] = path;
            }
        }
        jchanges.push_back(jc);
    }
    doc["changes"] = jchanges;
    // Every proof of the review, changed or not: its verdict on each image
    // (null where the invariant does not apply to that image).
    json jproofs = json::array();
    for (const InvariantInfo *i : invs)
        for (Arch ar : {Arch::ilp32, Arch::lp64}) {
            auto side = [&](const std::map<std::pair<std::string, int>, ProofResult> &m) -> json {
                auto it = m.find({i->id, static_cast<int>(ar)});
                if (it == m.end())
                    return nullptr;
                return {{"verdict", verdict_word(it->second)}, {"reason", it->second.reason},
                        {"seconds", it->second.seconds}};
            };
            jproofs.push_back({{"invariant", i->id}, {"arch", arch_name(ar)}, {"pre", side(rpre)},
                               {"post", side(rpost)}});
        }
    doc["proofs"] = jproofs;

    text += "\n";
    line(fn_changes.empty() && !refs.empty() ? "Function by function (lp64): no extracted function behaves differently "
                                          "after the patch."
                                        : "Function by function (lp64), each image proved against the reference "
                                          "variant of its version:");
    json jfn = json::array();
    for (const FnChange &f : fn_changes) {
        text += "\n";
        line(f.function + " changed; a distinguishing input:");
        json jin = json::object(), jout = json::object();
        for (const auto &[k, v] : f.d.inputs) {
            text += fmt::format("    {:<28} = {}\n", k, v);
            jin[k] = v;
        }
        // 4 + 26 + 1 + 20 + 1 + 20 + 2 = 74 columns: a u64 has at most 20
        // digits.  A longer name goes whole on a line of its own, its values
        // under it, rather than cut.
        text += fmt::format("    {:<26} {:>20} {:>20}\n", "output", "before", "after");
        for (const auto &[k, v] : f.d.outputs) {
            const bool own_line = k.size() > 26;
            if (own_line)
                text += "    " + k + "\n";
            text += fmt::format("    {:<26} {:>20} {:>20}{}\n", own_line ? std::string() : k, v.first, v.second,
                                v.first != v.second ? " <" : "");
            jout[k] = {{"before", v.first}, {"after", v.second}};
        }
        jfn.push_back({{"function", f.function}, {"inputs", jin}, {"outputs", jout}});
    }
    for (const auto &n : fn_notes)
        line("  note: " + n);
    doc["functions"] = jfn;
    doc["function_notes"] = fn_notes;
    if (!bpre.note.empty() || !bpost.note.empty())
        line("  note: " + (bpre.note.empty() ? bpost.note : bpre.note));

    if (fz) {
        text += "\n";
        line(fmt::format("Fuzzing the post-image against the pre-image: {} random task {} ({} calls) in "
                         "{:.1f} s, seed {}: {}.",
                         fz->lives, fz->lives == 1 ? "life" : "lives", fz->calls, fz->seconds, fz->seed,
                         fz->found ? "they differ" : "no difference"));
        json jf = {{"seconds", fz->seconds}, {"seed", fz->seed}, {"lives", fz->lives}, {"calls_run", fz->calls}};
        if (fz->found) {
            const auto &d = *fz->found;
            line(fmt::format("  A shortest life found: {}, UTIL_EST={} UTIL_EST_FASTUP={}, capacity {}, the "
                             "task's sched_avg zeroed at {} ns; the images differ after call {}:",
                             d.run.lp64 ? "lp64" : "ilp32", int(d.run.util_est), int(d.run.fastup), d.run.capacity,
                             d.run.start, d.step + 1));
            std::uint64_t now = d.run.start;
            for (std::size_t k = 0; k < d.run.ops.size(); ++k) {
                now += d.run.ops[k].kind == TaskOp::pelt ? d.run.ops[k].delta : 0;
                line(fmt::format("  {:>3}. {}", k + 1, describe(d.run.ops[k], now)));
            }
            text += fmt::format("    {:<26} {:>20} {:>20}\n", "after that call", "before", "after");
            json jdiff = json::object();
            for (std::size_t f = 0; f < task_fields.size(); ++f) {
                std::uint64_t b = d.pre[d.step][f], q = d.post[d.step][f];
                text += fmt::format("    {:<26} {:>20} {:>20}{}\n", task_fields[f], b, q, b != q ? " <" : "");
                jdiff[task_fields[f]] = {{"before", b}, {"after", q}};
            }
            jf["difference"] = {{"life", to_json(d.run)}, {"call", d.step + 1}, {"state", jdiff}};
            if (!a.out.empty())
                jf["reproducer"] = a.out + "/reproducers/fuzz.json";
        }
        doc["fuzz"] = jf;
    }
    double total = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
    text += "\n";
    std::string reused;
    for (const BuiltOracle *b : {&bpre, &bpost})
        if (!b->builtin.empty())
            reused += fmt::format(" The {}-image has the code of the built-in {} oracle, text for text, and ran on "
                                  "it{}.",
                                  b == &bpre ? "pre" : "post", b->builtin,
                                  early_jobs.empty() ? "" : " (its proofs during the other image's compile)");
    line(fmt::format("Built {} in {:.0f} s, proved in {:.0f} s more, compared functions in {:.0f} s{} "
                     "({:.0f} s in all). Source: {}.{}",
                     bpre.builtin.empty() && bpost.builtin.empty() ? "the two oracles" : "one oracle", t_build,
                     t_prove, t_equiv, fz ? fmt::format(", fuzzed {:.0f} s", fz->seconds) : "", total, origin,
                     reused));
    doc["images"] = {{"pre", bpre.oracle()}, {"post", bpost.oracle()}};
    doc["seconds"] = {{"build", t_build}, {"prove", t_prove}, {"equiv", t_equiv},
                      {"fuzz", fz ? fz->seconds : 0.0}, {"total", total}};
    doc["regressions"] = nreg;
    doc["fixes"] = nfix;

    if (!a.out.empty()) {
        for (const Change &c : changes) {
            const ProofResult &bad = c.kind == "fix" ? c.pre : c.post;
            if (c.kind != "changed" && bad.cex)
                write_file_atomic(a.out + "/reproducers/" + c.inv->id + "_" + std::string(arch_name(c.arch)) + ".json",
                                  bad.cex->reproducer.dump(2) + "\n");
        }
        if (fz && fz->found)
            write_file_atomic(a.out + "/reproducers/fuzz.json", doc["fuzz"].dump(2) + "\n");
        // The reproducers name the two oracles: keep them beside, so that
        // `replay --oracle-dir OUT/oracles` finds them.
        std::error_code ec;
        fs::copy(odir, fs::path(a.out) / "oracles",
                 fs::copy_options::recursive | fs::copy_options::overwrite_existing, ec);
        if (ec)
            throw input_error("review: cannot copy the oracles to " + a.out + "/oracles: " + ec.message());
    }
    emit(text, doc);
    return nreg ? 1 : 0;
}

} // namespace sc::cli
