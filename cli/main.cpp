// schedcheck: proofs, replays and reviewer reports for the scheduler's
// load-tracking arithmetic.  See README.md.
#include <iostream>

#include <CLI/CLI.hpp>

#include "cli/commands.h"
#include "cli/simulate.h"
#include "oracle/process.h"
#include "proofs/invariant.h"
#include "proofs/kernel/kernel_invariants.h"

int main(int argc, char **argv) {
    using namespace sc::cli;
    CLI::App app{"schedcheck: formally checked model of the Linux scheduler's load tracking"};
    app.require_subcommand(1);

    bool json = false;
    auto *variants = app.add_subcommand("variants", "list the built-in variants");
    variants->add_flag("--json", json, "print JSON");
    auto *invariants = app.add_subcommand("invariants", "list the invariant catalogue");
    invariants->add_flag("--json", json, "print JSON");

    ProveArgs pa;
    auto *prove = app.add_subcommand("prove", "prove invariants over variants and data models");
    prove->add_option("--family", pa.families, "a family (repeatable)");
    prove->add_option("--variant", pa.variants, "a variant id (repeatable)");
    prove->add_option("--invariant", pa.invariants, "an invariant id (repeatable)");
    prove->add_option("--oracle", pa.oracles,
                      "prove on a kernel oracle's own code: linux-6.1, linux-6.12, or one `oracle build` made "
                      "(repeatable)");
    prove->add_option("--oracle-dir", pa.oracle_dir, "where `oracle build` put its oracles (default: oracles)");
    prove->add_option("--arch", pa.arch, "ilp32, lp64 or all (default all)");
    prove->add_option("--timeout-ms", pa.timeout_ms, "per solver query (default 10000)")->check(CLI::Range(1u, 3600000u));
    prove->add_option("--jobs", pa.jobs, "parallel proofs (default: one per core)")->check(CLI::Range(1u, 4096u));
    prove->add_flag("--json", pa.json, "print JSON");
    prove->add_flag("--direct", pa.direct,
                    "prove a built-in kernel's pelt invariants on its own code even when its release's variant "
                    "is proved in the same run (by default they are carried over from it through `equiv`)");
    prove->add_option("--out", pa.out, "write reports, reproducers, results.json here");
    prove->add_option("--corpus", pa.corpus, "also store reproducers in this corpus directory");
    prove->add_option("--expected", pa.expected, "expected-verdict file (default: the built-in one)");
    prove->add_option("--shard", pa.shard,
                      "run part I of N of the selection (I/N), balanced by proofs/expected/timings.txt; "
                      "put the parts together with `schedcheck merge`");
    prove->add_option("--junit", pa.junit, "write a JUnit XML report here (one test case per proof)");
    prove->add_option("--sarif", pa.sarif, "write a SARIF 2.1.0 log here (one result per unexpected counterexample)");
    prove->add_option("--write-timings", pa.write_timings,
                      "write each proof's seconds here, in the timing file's format (`make timings`)");

    MergeArgs ma;
    auto *merge = app.add_subcommand("merge", "put the results of `prove --shard` back together: the table, reports "
                                              "and exit code of one whole run");
    merge->add_option("files", ma.files, "results.json of each shard (prove --out DIR, or prove --json)")->required();
    merge->add_option("--out", ma.out, "write reports, reproducers, results.json and verdicts.txt here");
    merge->add_option("--junit", ma.junit, "write a JUnit XML report here");
    merge->add_option("--sarif", ma.sarif, "write a SARIF 2.1.0 log here");
    merge->add_option("--expected", ma.expected, "expected-verdict file (default: the built-in one)");
    merge->add_flag("--json", ma.json, "print JSON");

    std::string file;
    auto *replay = app.add_subcommand("replay", "re-run a reproducer on the concrete reference");
    replay->add_option("file", file, "reproducer JSON")->required();
    replay->add_flag("--json", json, "print JSON");
    std::string replay_dir = "oracles";
    replay->add_option("--oracle-dir", replay_dir, "where the oracle a reproducer names was built (default: oracles)");
    auto *explain = app.add_subcommand("explain", "print the reviewer report of a reproducer");
    explain->add_option("file", file, "reproducer JSON")->required();
    explain->add_option("--oracle-dir", replay_dir, "where the oracle a reproducer names was built (default: oracles)");
    std::string explain_svg;
    explain->add_option("--svg", explain_svg, "also plot the trace, with the failed comparison marked, as SVG here");

    SimulateArgs sa;
    auto *simulate = app.add_subcommand("simulate", "PELT and util_est signals of a workload, bit-exact, on variants "
                                                    "or kernel oracles");
    simulate->add_option("input", sa.input, "workload JSON (see README) or trace-cmd report text")->required();
    simulate->add_option("--variant", sa.variants,
                         "pelt/... (with its release's util_est), utilest/..., or PELT+UTILEST (repeatable)");
    simulate->add_option("--oracle", sa.oracles,
                         "a kernel oracle: linux-6.1, linux-6.12, or one `oracle build` made (repeatable)");
    simulate->add_option("--oracle-dir", sa.oracle_dir, "where `oracle build` put its oracles (default: oracles)");
    simulate->add_option("--arch", sa.arch, "ilp32 or lp64 (default lp64)");
    simulate->add_option("--csv", sa.csv, "write the rows as CSV here");
    simulate->add_option("--svg", sa.svg, "plot the signals as SVG here");
    simulate->add_flag("--json", sa.json, "print JSON");
    simulate->add_option("--every", sa.every_ms, "resample: one row per task every MS milliseconds");
    simulate->add_option("--pid", sa.pids, "trace input: simulate this pid (repeatable)");
    simulate->add_option("--comm", sa.comms, "trace input: simulate tasks with this comm (repeatable)");
    simulate->add_flag("--check", sa.check, "trace input: compare with its sched_pelt_se events");

    EquivArgs ea;
    auto *equiv = app.add_subcommand("equiv", "prove a variant equivalent to a kernel-extracted oracle");
    equiv->add_option("--variant", ea.variant, "a variant id")->required();
    equiv->add_option("--oracle", ea.oracle, "an oracle id (see `schedcheck oracle list`)")->required();
    equiv->add_option("--arch", ea.arch, "ilp32, lp64 or all (default all)");
    equiv->add_option("--oracle-dir", ea.oracle_dir,
                      "where `oracle build` put oracles that are not built in (default: oracles)");
    equiv->add_option("--timeout-ms", ea.timeout_ms, "per solver query (default 10000)")->check(CLI::Range(1u, 3600000u));
    equiv->add_flag("--json", ea.json, "print JSON");

    auto *oracle = app.add_subcommand("oracle", "kernel-extracted oracles");
    oracle->require_subcommand(1);
    std::string olist_dir = "oracles";
    auto *olist = oracle->add_subcommand("list", "the oracles built into this binary, and those `oracle build` made");
    olist->add_flag("--json", json, "print JSON");
    olist->add_option("--oracle-dir", olist_dir, "where `oracle build` put its oracles (default: oracles)");
    std::string okernel, opatch, oname, xpatch;
    auto *oextract = oracle->add_subcommand("extract", "what a patch series holds: patches, images, whole definitions");
    oextract->add_option("--patch", xpatch, "unified diff, git format-patch mbox or mail thread")->required();
    oextract->add_flag("--json", json, "print JSON");
    std::string oout = "oracles";
    auto *obuild = oracle->add_subcommand("build", "build a PELT/util_est oracle library from a kernel tree, tarball or patch");
    obuild->add_option("--kernel", okernel, "kernel tree or linux-source tarball (default: Debian's 6.12 tarball, "
                                            "or none when only --patch is given)");
    obuild->add_option("--patch", opatch, "unified diff or mbox: build the oracle of each of its two images");
    obuild->add_option("--name", oname, "oracle name (default: linux-<version>, or the patch file's stem)");
    obuild->add_option("--out", oout, "directory for the generated header and library (default: oracles)");

    ReviewArgs ra;
    auto *review = app.add_subcommand("review", "what a patch does to the invariants: regressions, fixes, "
                                                "changed functions; a plain-text review and JSON");
    review->add_option("--patch", ra.patch, "the patch under review (unified diff or mbox)")->required();
    review->add_option("--kernel", ra.kernel, "the tree or linux-source tarball it applies to (default: none, "
                                              "the images are rebuilt from the hunks)");
    review->add_option("--fuzz-seconds", ra.fuzz_seconds,
                       "also run the post-image against the pre-image on random task lives for N seconds");
    review->add_option("--fuzz-seed", ra.fuzz_seed, "the fuzzing's seed (default 1; the review prints it)");
    review->add_option("--out", ra.out, "write review.txt, review.json, reproducers/ and oracles/ here");
    review->add_option("--reply-to", ra.reply_to,
                       "the patch's mail (mbox): print the review as a threaded reply to it (and write "
                       "OUT/reply.mbox), ready for git send-email");
    review->add_option("--timeout-ms", ra.timeout_ms, "per solver query (default 10000)")->check(CLI::Range(1u, 3600000u));
    review->add_option("--jobs", ra.jobs, "parallel proofs (default: one per core)")->check(CLI::Range(1u, 4096u));
    review->add_flag("--json", ra.json, "print JSON");
    review->add_flag("--all-invariants", ra.all_invariants,
                     "also prove the invariants left out for speed (pelt.load_bounded: minutes per image)");

    auto known = [&](const std::string &name) {
        for (const CLI::App *sub : app.get_subcommands({}))
            if (sub->get_name() == name)
                return true;
        return false;
    };
    if (argc > 1 && argv[1][0] != '-' && !known(argv[1])) {
        std::cerr << "schedcheck: error: unknown command \"" << argv[1]
                  << "\" (commands: variants, invariants, prove, merge, replay, explain, simulate, equiv, oracle, review)\n";
        return 2;
    }
    try {
        app.parse(argc, argv);
    } catch (const CLI::CallForHelp &e) {
        return app.exit(e);
    } catch (const CLI::CallForAllHelp &e) {
        return app.exit(e);
    } catch (const CLI::ParseError &e) {
        std::cerr << "schedcheck: error: " << e.what() << "\n(run `schedcheck --help` for usage)\n";
        return 2;
    }

    try {
        if (*variants)
            return cmd_variants(json);
        if (*invariants)
            return cmd_invariants(json);
        if (*prove)
            return cmd_prove(pa);
        if (*replay || *explain)
            sc::proofs::set_plugin_dir(replay_dir);
        if (*merge)
            return cmd_merge(ma);
        if (*replay)
            return cmd_replay(file, json);
        if (*explain)
            return cmd_explain(file, explain_svg);
        if (*simulate) {
            // A signal ends the run between simulations or output rows,
            // removing a half-written --csv (exit 130/143).
            sc::sys::install_signal_handlers();
            return cmd_simulate(sa);
        }
        if (*equiv)
            return cmd_equiv(ea);
        if (*olist)
            return cmd_oracle_list(json, olist_dir);
        if (*oextract)
            return cmd_oracle_extract(xpatch, json);
        if (*review)
            return cmd_review(ra);
        if (*obuild) {
            sc::sys::install_signal_handlers();
            return cmd_oracle_build(okernel, opatch, oname, oout);
        }
    } catch (const sc::sys::interrupted &e) {
        // Temporaries were removed on the way out; no result was written.
        std::cerr << "schedcheck: " << e.what() << "; nothing written\n";
        return 128 + e.sig;
    } catch (const sc::proofs::input_error &e) {
        std::cerr << "schedcheck: error: " << e.what() << "\n";
        return 2;
    } catch (const sc::proofs::internal_error &e) {
        std::cerr << "schedcheck: INTERNAL ERROR: " << e.what() << "\n";
        return 3;
    } catch (const std::exception &e) {
        std::cerr << "schedcheck: INTERNAL ERROR: " << e.what() << "\n";
        return 3;
    }
    return 2;
}
