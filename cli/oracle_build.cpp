// `schedcheck oracle build`: a PELT and util_est oracle from kernel text
// named at run time.
//
//   --kernel K            a tree or a linux-source tarball: one oracle,
//                         named linux-<full version> unless --name says
//   --kernel K --patch P  the patch applied to the tree: NAME-pre, NAME-post
//   --patch P             no tree: the pre- and post-image rebuilt from the
//                         hunks; only definitions wholly inside them count
//
// For each oracle it writes, into --out:
//   NAME.h                     the generated class template (namespace
//                              sc::oracle_gen::<NAME as an identifier>)
//   libschedcheck-oracle-NAME.a  its ilp32 and lp64 instantiations, every
//                              symbol prefixed by that namespace, so that
//                              libraries of several versions link together
//   NAME.so                    a plug-in `schedcheck equiv --oracle NAME`
//                              loads (proofs/kernel/oracle_plugin.h)
//   NAME-differential          the differential fuzzer (fuzz/differential.cpp)
//                              against this oracle, when clang++ is there
//   NAME.json                  what was extracted, from where
// Everything is made in a private directory first and renamed into place
// only when all of it compiled: a failure leaves nothing behind.
#include <unistd.h>

#include <cerrno>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <iostream>
#include <optional>
#include <regex>
#include <semaphore>
#include <thread>
#include <sstream>

#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include "cli/commands.h"
#include "oracle/header_stamp.h"
#include "oracle/kernel_source.h"
#include "oracle/pelt_codegen.h"
#include "oracle/process.h"
#include "proofs/kernel/builtin_images.h"
#include "proofs/equiv/equiv.h"
#include "proofs/report/input_file.h"
#include "proofs/invariant.h"
#include "proofs/kernel/oracle_plugin.h"

namespace fs = std::filesystem;

namespace sc::cli {

namespace {

std::string identifier(const std::string &name) {
    std::string id;
    for (char c : name)
        id += std::isalnum(static_cast<unsigned char>(c)) ? c : '_';
    if (id.empty() || std::isdigit(static_cast<unsigned char>(id[0])))
        id = "o_" + id;
    return id;
}

void write_text(const fs::path &p, const std::string &text) {
    std::ofstream out(p, std::ios::binary | std::ios::trunc);
    out << text;
    if (!out)
        throw proofs::input_error("cannot write " + p.string());
}

using Built = BuiltOracle;

// Where the build finds what it compiles against, found once per run.
struct Toolchain {
    fs::path inc;       // the project's headers (and fuzz/differential.cpp)
    std::string stamp;  // their stamp (oracle/header_stamp.h): this binary's
    bool clang = false; // clang++ for the libFuzzer harness
    std::vector<std::string> z3_cflags, z3_libs; // pkg-config --cflags z3, --libs z3, split into words
};

Toolchain find_toolchain() {
    // The headers: $SCHEDCHECK_SOURCE_DIR, else the tree this binary was
    // built from, else those `make install` put beside it.
    Toolchain t;
    const char *src_dir = std::getenv("SCHEDCHECK_SOURCE_DIR");
    t.inc = src_dir ? src_dir : SCHEDCHECK_SOURCE_DIR;
    if (!src_dir && !fs::exists(t.inc / "ref/kernel.h")) {
        std::error_code ec;
        fs::path installed = fs::read_symlink("/proc/self/exe", ec).parent_path().parent_path() / "share/schedcheck/include";
        if (!ec && fs::exists(installed / "ref/kernel.h"))
            t.inc = installed;
    }
    if (!fs::exists(t.inc / "ref/kernel.h"))
        throw proofs::input_error("oracle build: the project's headers (ref/kernel.h) are not in " + t.inc.string() +
                                  "; set SCHEDCHECK_SOURCE_DIR to the schedcheck source tree");
    t.inc = fs::absolute(t.inc);
    // A plug-in compiled from headers other than this binary's would read
    // the structs it shares with it at other offsets.
    try {
        t.stamp = oracle::header_stamp(t.inc);
    } catch (const std::runtime_error &e) {
        throw proofs::input_error("oracle build: cannot read the project's headers in " + t.inc.string() + ": " +
                                  e.what());
    }
    if (t.stamp != oracle::built_header_stamp())
        throw proofs::input_error(fmt::format(
            "oracle build: the headers in {} (stamp {}) are not the ones this schedcheck was built from (stamp {}): "
            "rebuild schedcheck from them (make), or set SCHEDCHECK_SOURCE_DIR to the tree it was built from",
            t.inc.string(), t.stamp, oracle::built_header_stamp()));
    t.clang = sys::on_path("clang++");
    try {
        std::istringstream cflags(sys::capture({"pkg-config", "--cflags", "z3"}));
        for (std::string w; cflags >> w;)
            t.z3_cflags.push_back(w);
        std::istringstream libs(sys::capture({"pkg-config", "--libs", "z3"}));
        for (std::string w; libs >> w;)
            t.z3_libs.push_back(w);
    } catch (const std::runtime_error &e) {
        throw proofs::input_error(std::string("oracle build: cannot find Z3's compiler flags (") + e.what() +
                                  "); install libz3-dev and pkg-config (make deps does)");
    }
    return t;
}

// At most this many compilers at once, over every image of a build: each
// takes a core and up to 1 GB.
std::counting_semaphore<64> &compile_slots() {
    static std::counting_semaphore<64> slots(
        static_cast<std::ptrdiff_t>(std::clamp(std::thread::hardware_concurrency(), 1u, 64u)));
    return slots;
}

// Runs a compiler (an argument vector, never a shell line) in dir, once a
// compile slot is free.  Empty on success; otherwise the compiler's output,
// and `first` its first error line.  A compiler killed by a signal is a
// failure too.  `log` names the file its output goes to, one per job, as
// several run in dir at once.
std::string compile(const fs::path &dir, const std::vector<std::string> &argv, std::string &first,
                    const std::string &log_name) {
    fs::path log = dir / (log_name + ".log");
    sys::RunOptions ro;
    ro.cwd = dir;
    ro.err_file = log;
    ro.quiet = true;
    compile_slots().acquire();
    sys::RunResult r;
    try {
        r = sys::run(argv, ro);
    } catch (...) {
        compile_slots().release();
        throw;
    }
    compile_slots().release();
    std::ifstream in(log);
    std::stringstream ss;
    ss << in.rdbuf();
    in.close();
    fs::remove(log);
    if (r.ok())
        return "";
    std::string text = ss.str();
    std::istringstream lines(text);
    first.clear();
    for (std::string l; std::getline(lines, l);)
        if (auto at = l.find("error:"); at != std::string::npos) {
            first = l.substr(at);
            break;
        }
    if (first.empty())
        first = argv[0] + " " + r.describe();
    return text.empty() ? argv[0] + " " + r.describe() : text;
}

// One compiler run of a build, its output and first error line.
struct Job {
    std::vector<std::string> argv;
    std::string log, out, first;
};

// Runs f(0) ... f(n-1) on threads of their own, then rethrows the first
// exception any of them threw.
template <class F> void side_by_side(std::size_t n, F &&f) {
    std::vector<std::thread> ts;
    std::vector<std::exception_ptr> errs(n);
    for (std::size_t k = 0; k < n; ++k)
        ts.emplace_back([&, k] {
            try {
                f(k);
            } catch (...) {
                errs[k] = std::current_exception();
            }
        });
    for (auto &t : ts)
        t.join();
    for (auto &e : errs)
        if (e)
            std::rethrow_exception(e);
}

// Runs the jobs side by side (each still waits for a compile slot).
void compile_all(const fs::path &dir, std::vector<Job> &jobs) {
    side_by_side(jobs.size(), [&](std::size_t k) { jobs[k].out = compile(dir, jobs[k].argv, jobs[k].first, jobs[k].log); });
}

// The plug-in's entry points (proofs/kernel/oracle_plugin.h): the pelt,
// utilest, idlebal and wakeaffine invariants (plugin_prove.h), the
// equivalence cases and the simulation.  compile_one() puts the parts in
// one translation unit.  The solver glue comes from the schedcheck binary
// that loads the plug-in.
std::vector<std::pair<std::string, std::string>> plugin_parts(const std::string &name, const std::string &ns,
                                                              const std::string &stamp) {
    const std::string head = "#include \"" + name + ".h\"\n#include \"proofs/kernel/oracle_plugin.h\"\n";
    return {
        {"prove", head + "#include \"proofs/kernel/plugin_prove.h\"\n"
                  "using Impl = sc::proofs::PluginImpl<" + ns + "::kernel, " + ns + "::split_util_est>;\n"
                  "extern \"C\" unsigned schedcheck_oracle_abi_v1() { return sc::proofs::plugin_abi(); }\n"
                  "extern \"C\" const char *schedcheck_oracle_headers_v1() { return \"" + stamp + "\"; }\n"
                  "extern \"C\" int schedcheck_oracle_applies_v1(const char *i) { return Impl::applies(i); }\n"
                  "extern \"C\" int schedcheck_oracle_prove_v1(sc::proofs::ProofResult *r, const sc::Variant *v,\n"
                  "    const char *i, sc::Arch a, const sc::proofs::ProveOptions *o, std::string *e) {\n"
                  "    return Impl::prove(r, v, i, a, o, e);\n}\n"
                  "extern \"C\" int schedcheck_oracle_replay_v1(sc::proofs::ReplayResult *r, const char *i, sc::Arch a,\n"
                  "    const nlohmann::json *d, std::string *e) {\n"
                  "    return Impl::replay(r, i, a, d, e);\n}\n"
                  "extern \"C\" int schedcheck_oracle_run_v1(const sc::proofs::TaskRun *r,\n"
                  "    std::vector<sc::proofs::TaskSnapshot> *o, std::string *e) {\n"
                  "    return Impl::run(r, o, e);\n}\n"},
        {"equiv", head + "#include \"proofs/equiv/equiv_kernel_cases.h\"\n"
                  "extern \"C\" int schedcheck_oracle_equiv_v1(sc::proofs::EquivResult *r, const sc::Variant *v,\n"
                  "                                          unsigned t, std::string *e) {\n"
                  "    return sc::proofs::plugin_equiv<" + ns + "::kernel, " + ns + "::split_util_est>(r, v, t, e);\n}\n"},
        {"simulate", head + "#include \"sim/plugin_simulate.h\"\n"
                     "extern \"C\" int schedcheck_oracle_simulate_v1(const sc::sim::Workload *w, const sc::sim::Impl *m,\n"
                     "    sc::Arch a, bool rec, int st, sc::sim::Result *o, std::string *e) {\n"
                     "    return sc::sim::plugin_simulate<" + ns + "::kernel>(w, m, a, rec, st, o, e);\n}\n"},
    };
}

// Generate one oracle's code: what it found, what invariants read, and
// (with BuildOptions::reuse_builtin) the built-in oracle it is, if any.
// The generated code itself goes to *body.
Built prepare_one(const std::string &name, oracle::KernelOracleSpec spec, bool partial, const std::string &origin,
                  const BuildOptions &opt, std::string *body) {
    spec.name = identifier(name);
    spec.id = name;
    Built b;
    b.name = name;
    try {
        oracle::PeltOracle g = oracle::generate_pelt_oracle(spec, partial, partial ? origin : "");
        *body = std::move(g.code);
        b.found = std::move(g.found);
        b.note = std::move(g.note);
        b.reads = std::move(g.reads);
        // The code with this oracle's names taken out, to tell whether two
        // images differ in anything modelled.
        b.code = oracle::neutral_code(spec, partial, partial ? origin : "");
    } catch (const oracle::extract_error &e) {
        throw proofs::input_error(std::string("oracle build: ") + e.what());
    }
    if (!b.note.empty()) // said now, so that it shows even if a later step fails
        std::cerr << "oracle build: note: " << b.note << "\n";
    // The same code as a built-in oracle's, text for text: that oracle is
    // this image, compiled already.
    if (opt.reuse_builtin)
        b.builtin = proofs::builtin_with_code(b.code);
    return b;
}

// Compile and archive one prepared oracle in `tmp`.  A compiler error is
// traced back to the extracted function it occurred in.
void compile_one(const fs::path &tmp, Built &b, const std::string &body, const std::string &version,
                 const std::string &origin, const Toolchain &tc, const BuildOptions &opt) {
    const std::string &name = b.name;
    const std::string ident = identifier(name);
    std::string header = "// Generated by `schedcheck oracle build` from " + origin +
                         "; do not edit, do not commit.\n#pragma once\n#include <cstdint>\n#include \"ref/kernel.h\"\n"
                         "namespace sc::oracle_gen {\n" + body + "}\n";
    write_text(tmp / (name + ".h"), header);
    const std::string inc = tc.inc.string(), ns = "sc::oracle_gen::" + ident;

    // The plug-in's parts, the library (both data models' instantiations)
    // and the differential fuzzer, side by side.
    // The plug-in's parts go into one translation unit: compiled apart, the
    // wake_affine equivalence cases timed out (an inline function of the
    // shims kept from another unit is the suspect, not yet confirmed).
    std::string unit;
    for (const auto &[part, text] : plugin_parts(name, ns, tc.stamp))
        unit += text;
    write_text(tmp / (name + "-plugin.cpp"), unit);
    std::vector<std::string> argv = {"c++", "-std=c++20", opt.quick_plugin ? "-O0" : "-O1", "-fPIC", "-fwrapv", "-I" + inc, "-c",
                                     name + "-plugin.cpp", "-o", name + "-plugin.o"};
    argv.insert(argv.end(), tc.z3_cflags.begin(), tc.z3_cflags.end());
    std::vector<Job> jobs = {{argv, name + "-plugin", {}, {}}};
    const std::size_t n_parts = jobs.size();
    if (opt.with_library) {
        write_text(tmp / (name + ".cpp"), "#include \"" + name + ".h\"\ntemplate struct " + ns +
                                              "::kernel<sc::ilp32>;\ntemplate struct " + ns + "::kernel<sc::lp64>;\n");
        jobs.push_back({{"c++", "-std=c++20", "-O2", "-fwrapv", "-I" + inc, "-c", name + ".cpp", "-o", name + ".o"},
                        name + "-library", {}, {}});
    }
    std::string fuzzer = name + "-differential";
    if (!opt.with_fuzzer) {
        b.fuzzer_note = "the differential fuzzer was not asked for";
    } else if (!tc.clang) {
        b.fuzzer_note = "no clang++: the differential fuzzer was not built";
    } else if (!fs::exists(tc.inc / "fuzz/differential.cpp")) {
        b.fuzzer_note = "no fuzz/differential.cpp under " + inc + ": the differential fuzzer was not built";
    } else {
        jobs.push_back({{"clang++", "-std=c++20", "-O2", "-g", "-fwrapv", "-fsanitize=fuzzer", "-I" + inc, "-I.",
                         "-DSC_DIFF_ORACLE_HEADER=\"" + name + ".h\"", "-DSC_DIFF_ORACLE_NS=" + ident,
                         (tc.inc / "fuzz/differential.cpp").string(), "-o", fuzzer},
                        name + "-fuzzer", {}, {}});
        b.fuzzer = fuzzer;
    }
    compile_all(tmp, jobs);

    // The library's errors first: they name the extracted function that no
    // longer fits the shims, the plainest account of what went wrong.
    if (opt.with_library) {
        const Job &lib = jobs[n_parts];
        if (!lib.out.empty()) {
            std::smatch m;
            std::string fn = std::regex_search(lib.out, m, std::regex("kernel<[^>]*>::([A-Za-z_0-9]+)\\("))
                                 ? m[1].str()
                                 : "?";
            throw proofs::input_error(fmt::format("oracle build: {} ({}): function {} no longer compiles against the "
                                                  "shims; its shape changed: {}",
                                                  name, version.empty() ? "unknown version" : version, fn,
                                                  lib.first.empty() ? "see the compiler output" : lib.first));
        }
        std::string first;
        if (!compile(tmp, {"ar", "rcs", "libschedcheck-oracle-" + name + ".a", name + ".o"}, first, name + "-ar")
                 .empty())
            throw proofs::input_error("oracle build: ar failed for " + name);
        fs::remove(tmp / (name + ".cpp"));
        fs::remove(tmp / (name + ".o"));
    }
    for (std::size_t k = 0; k < n_parts; ++k)
        if (!jobs[k].out.empty())
            throw proofs::input_error("oracle build: " + name + ": the equivalence plug-in does not compile: " +
                                      jobs[k].first);
    if (b.fuzzer.size() && !jobs.back().out.empty())
        throw proofs::input_error("oracle build: " + name + ": the differential fuzzer does not compile: " +
                                  jobs.back().first);

    std::vector<std::string> link = {"c++", "-shared", "-fPIC"};
    link.push_back(name + "-plugin.o");
    link.insert(link.end(), {"-o", name + ".so"});
    link.insert(link.end(), tc.z3_libs.begin(), tc.z3_libs.end());
    link.push_back("-lfmt");
    std::string first;
    if (!compile(tmp, link, first, name + "-link").empty())
        throw proofs::input_error("oracle build: " + name + ": the equivalence plug-in does not link: " + first);
    fs::remove(tmp / (name + "-plugin.cpp"));
    fs::remove(tmp / (name + "-plugin.o"));

    nlohmann::json manifest = {{"id", name},           {"namespace", ns},
                               {"version", version}, {"source", origin},
                               {"definitions", b.found}, {"library", opt.with_library ? nlohmann::json("libschedcheck-oracle-" + name + ".a") : nlohmann::json(nullptr)},
                               {"plugin", name + ".so"},
                               {"plugin_size", static_cast<std::uint64_t>(fs::file_size(tmp / (name + ".so")))},
                               {"plugin_fnv1a64", proofs::file_fnv1a64((tmp / (name + ".so")).string())},
                               {"differential_fuzzer", b.fuzzer.empty() ? nlohmann::json(nullptr) : nlohmann::json(b.fuzzer)}};
    write_text(tmp / (name + ".json"), manifest.dump(2) + "\n");
}

} // namespace

OracleBuild build_oracles(const std::string &kernel_arg, const std::string &patch, const std::string &name_arg,
                          const std::string &out_dir, const BuildOptions &opt) {
    std::string kernel = kernel_arg;
    if (kernel.empty() && patch.empty())
        kernel = "/usr/src/linux-source-6.12.tar.xz";
    std::vector<std::pair<std::string, oracle::KernelOracleSpec>> specs; // name -> spec
    OracleBuild ob;
    bool partial = false;
    std::string origin;
    try {
        if (!kernel.empty()) {
            oracle::KernelSource src = oracle::read_kernel(kernel);
            // The full version, so as not to shadow the built-in linux-6.1 / 6.12.
            std::string base = !name_arg.empty()       ? name_arg
                               : !src.version.empty() ? "linux-" + src.version
                                                      : fs::path(kernel).filename().string();
            origin = kernel;
            if (patch.empty()) {
                specs.push_back({base, {"", "", src.version, "extracted from " + kernel, src.image}});
            } else {
                origin += " + " + patch;
                oracle::Image post = oracle::apply_patch_file(src, patch);
                specs.push_back({base + "-pre", {"", "", src.version, "extracted from " + kernel, src.image}});
                specs.push_back(
                    {base + "-post", {"", "", src.version, "extracted from " + kernel + " with " + patch, post}});
            }
        } else {
            // Regular files only, at most patch_max_bytes (proofs/report/input_file.h).
            oracle::Series s = oracle::parse_series(proofs::read_input_file(patch, proofs::InputKind::patch), patch);
            std::string base = name_arg.empty() ? fs::path(patch).stem().string() : name_arg;
            origin = patch;
            partial = true;
            specs.push_back({base + "-pre", {"", "", "", "pre-image of " + patch, oracle::pre_image(s)}});
            specs.push_back({base + "-post", {"", "", "", "post-image of " + patch,
                                              oracle::post_image(s, s.patches.size())}});
        }
        ob.version = specs.front().second.version;
    } catch (const oracle::extract_error &e) {
        throw proofs::input_error(std::string("oracle build: ") + e.what());
    }

    for (const auto &[name, spec] : specs) {
        proofs::check_oracle_name(name, !name_arg.empty()     ? "from --name"
                                        : !patch.empty() && kernel.empty() ? "taken from the patch file's name; choose one with --name"
                                                                        : "taken from the kernel version; choose one with --name");
    }
    for (const auto &[name, spec] : specs)
        for (const auto &o : proofs::oracles())
            if (o.id == name)
                throw proofs::input_error("oracle build: " + name + " is the name of a built-in oracle, which `equiv` "
                                          "would take instead; choose another with --name");
    const Toolchain tc = find_toolchain();
    // The directories this run creates are removed again when it fails,
    // so that a failed build leaves nothing behind, not even an empty --out.
    std::error_code ec;
    if (fs::exists(out_dir, ec) && !fs::is_directory(out_dir, ec))
        throw proofs::input_error("oracle build: --out " + out_dir + " exists and is not a directory");
    fs::path target = fs::absolute(out_dir).lexically_normal();
    if (target.filename().empty())
        target = target.parent_path(); // "out/" is "out"
    fs::path created; // the outermost directory this run made, if any
    for (fs::path p = target; !p.empty() && !fs::exists(p, ec); p = p.parent_path()) {
        created = p;
        if (p == p.parent_path())
            break;
    }
    fs::create_directories(out_dir, ec);
    if (ec)
        throw proofs::input_error("oracle build: cannot create --out " + out_dir + ": " + ec.message());
    // .build-<pid>-XXXXXX; those of builds killed outright are removed first.
    sys::remove_stale(fs::absolute(out_dir), ".build");
    std::string tmpl = (fs::absolute(out_dir) / (".build-" + std::to_string(getpid()) + "-XXXXXX")).string();
    if (!mkdtemp(tmpl.data())) {
        if (!created.empty())
            fs::remove(created, ec);
        throw proofs::input_error("oracle build: cannot create a directory in " + out_dir + ": " + std::strerror(errno));
    }
    fs::path tmp = tmpl;
    // Removes the directories this run made, innermost first, each only if
    // it is empty (another build may be writing into the same --out).
    auto remove_created = [&] {
        if (created.empty())
            return;
        for (fs::path p = target; p.string().size() >= created.string().size();
             p = p.parent_path())
            if (!fs::remove(p, ec) || p == created)
                break;
    };
    std::vector<Built> &built = ob.built;
    try {
        // Each image's code first (quick), then the compiles, the images
        // side by side (each is a few compiler runs, where the time goes).
        std::vector<std::string> bodies(specs.size());
        std::vector<std::optional<Built>> slots(specs.size());
        side_by_side(specs.size(), [&](std::size_t k) {
            slots[k] = prepare_one(specs[k].first, specs[k].second, partial, origin, opt, &bodies[k]);
        });
        for (auto &b : slots)
            built.push_back(std::move(*b));
        if (opt.prepared)
            opt.prepared(built);
        side_by_side(specs.size(), [&](std::size_t k) {
            if (built[k].builtin.empty())
                compile_one(tmp, built[k], bodies[k], specs[k].second.version, origin, tc, opt);
        });
    } catch (...) {
        fs::remove_all(tmp, ec);
        remove_created();
        throw;
    }
    for (const auto &e : fs::directory_iterator(tmp))
        fs::rename(e.path(), fs::path(out_dir) / e.path().filename());
    fs::remove_all(tmp);
    return ob;
}

int cmd_oracle_build(const std::string &kernel_arg, const std::string &patch, const std::string &name_arg,
                     const std::string &out_dir) {
    const OracleBuild ob = build_oracles(kernel_arg, patch, name_arg, out_dir, {});
    for (const auto &b : ob.built) {
        std::string d;
        for (const auto &x : b.found)
            d += (d.empty() ? "" : ", ") + x;
        std::cout << fmt::format("{}: {}/libschedcheck-oracle-{}.a, {}/{}.h, {}/{}.so\n  definitions: {}\n"
                                 "  compare: schedcheck equiv --oracle {} --oracle-dir {} --variant ...\n",
                                 b.name, out_dir, b.name, out_dir, b.name, out_dir, b.name, d, b.name, out_dir);
        if (!b.note.empty())
            std::cout << "  note: " << b.note << "\n";
        if (!b.fuzzer.empty())
            std::cout << fmt::format("  fuzz:    {}/{} -max_total_time=60   (reference against this oracle)\n",
                                     out_dir, b.fuzzer);
        else
            std::cout << "  " << b.fuzzer_note << "\n";
    }
    return 0;
}

} // namespace sc::cli
