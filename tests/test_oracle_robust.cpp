// The oracle's extractor on inputs that are large, displaced or incomplete:
//   - a long generated mail series (thousands of patches) parses and
//     replays in one pass;
//   - a hunk whose context moved is applied wherever its old side agrees;
//   - a definition is found in whichever candidate file the tree keeps it;
//   - what a tree lacks is reported all at once, and a tree without
//     util_est still gives a PELT oracle;
//   - a patch alone that holds no whole definition says so in one line.
//
// Every text here is either written by these tests (the toy C below is
// ours) or, for the kernel cases, read from Debian's linux-source-6.1
// tarball at run time and mutated in memory; no kernel text is kept here.
// Expected values come from how the inputs were built: line numbers from
// the generator's layout, images from the mutated files themselves.
#include <catch2/catch.hpp>

#include <unistd.h>

#include <algorithm>
#include <cctype>
#include <chrono>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <sstream>

#include "oracle/extract.h"
#include "oracle/kernel_source.h"
#include "oracle/patch.h"
#include "oracle/pelt_codegen.h"
#include "oracle/tokens.h"
#include "proofs/kernel/builtin_images.h"
#include "tests/shell.h"

using namespace sc::oracle;
using Catch::Matchers::Contains;
namespace fs = std::filesystem;

namespace {

const char *tarball_6_1 = "/usr/src/linux-source-6.1.tar.xz";

std::string slurp(const fs::path &p) {
    std::ifstream in(p, std::ios::binary);
    std::stringstream ss;
    ss << in.rdbuf();
    return ss.str();
}

void spit(const fs::path &p, const std::string &text) {
    fs::create_directories(p.parent_path());
    std::ofstream(p, std::ios::binary) << text;
}

std::vector<std::string> lines_of(const std::string &text) {
    std::vector<std::string> out;
    std::istringstream in(text);
    for (std::string l; std::getline(in, l);)
        out.push_back(l);
    return out;
}

// A private directory, removed at the end of the test.
struct TempDir {
    fs::path path;
    explicit TempDir(const std::string &what) {
        std::string t = (fs::temp_directory_path() / ("schedcheck-robust-" + what + "-XXXXXX")).string();
        REQUIRE(mkdtemp(t.data()) != nullptr);
        path = t;
    }
    ~TempDir() {
        std::error_code ec;
        fs::remove_all(path, ec);
    }
};

// ---- a generated series
//
// synth/big.c holds `fns` toy functions, function k on lines 10k+1 to
// 10k+6 (then a blank line, a comment and two blank lines):
//     static int fK(int a)
//     {
//     	int b = a * K;
//     	int c = b + 0;
//     	return c;
//     }
// Patch k+1 (k < fns) changes fK's "+ 0" to "+ 1", with three lines of
// context on each side, at the header's own line numbers.
//
// Then `grow` more patches each add one line to synth/log.c, every one
// right after the line the one before added, so that all of them build a
// single fragment: log.c starts with "log start", "log end", and patch j
// (1-based) adds "entry j" before "log end", with the previous entry (or
// "log start") as context.
std::string fn_line(int k, int line, int c) {
    switch (line) {
    case 0: return "static int f" + std::to_string(k) + "(int a)";
    case 1: return "{";
    case 2: return "\tint b = a * " + std::to_string(k) + ";";
    case 3: return "\tint c = b + " + std::to_string(c) + ";";
    case 4: return "\treturn c;";
    case 5: return "}";
    case 6: return "";
    default: return "/* filler " + std::to_string(k) + " */";
    }
}

std::string generated_series(int fns, int grow) {
    std::string o;
    int n = fns + grow;
    for (int k = 0; k < fns; ++k) {
        const int start = 10 * k + 1;
        o += "From 0000000000000000000000000000000000000000 Mon Sep 17 00:00:00 2001\n"
             "From: A Tester <tester@example.org>\n"
             "Subject: [PATCH " + std::to_string(k + 1) + "/" + std::to_string(n) + "] synth: bump f" +
             std::to_string(k) + "\n\nMake f" + std::to_string(k) + " add one.\n---\n"
             "diff --git a/synth/big.c b/synth/big.c\nindex 1111111..2222222 100644\n"
             "--- a/synth/big.c\n+++ b/synth/big.c\n"
             "@@ -" + std::to_string(start) + ",7 +" + std::to_string(start) + ",7 @@\n";
        for (int i = 0; i < 7; ++i)
            o += i == 3 ? "-" + fn_line(k, 3, 0) + "\n+" + fn_line(k, 3, 1) + "\n" : " " + fn_line(k, i, 0) + "\n";
        o += "-- \n2.39.2\n\n";
    }
    for (int j = 1; j <= grow; ++j) {
        const std::string prev = j == 1 ? "log start" : "entry " + std::to_string(j - 1);
        o += "Subject: [PATCH " + std::to_string(fns + j) + "/" + std::to_string(n) + "] synth: log " +
             std::to_string(j) + "\n\n"
             "--- a/synth/log.c\n+++ b/synth/log.c\n"
             "@@ -" + std::to_string(j) + ",2 +" + std::to_string(j) + ",3 @@\n"
             " " + prev + "\n+entry " + std::to_string(j) + "\n log end\n\n";
    }
    return o;
}

const Fragment *fragment_at(const Image &img, const std::string &path, int first_line) {
    const auto *frs = img.file(path);
    if (!frs)
        return nullptr;
    for (const auto &f : *frs)
        if (f.first_line == first_line)
            return &f;
    return nullptr;
}

// ---- the 6.1 tree, read once per test process

const KernelSource &linux_6_1() {
    static const KernelSource src = read_kernel(tarball_6_1);
    return src;
}

// The tree's files written out under `dir` (a tree read_kernel accepts),
// with a Makefile of our own naming the version.
void write_tree(const fs::path &dir, const Image &img) {
    for (const auto &[path, frs] : img.files) {
        REQUIRE(frs.size() == 1);
        spit(dir / path, frs[0].text());
    }
    spit(dir / "Makefile", "VERSION = 6\nPATCHLEVEL = 1\nSUBLEVEL = 99\n");
}

std::vector<std::string> &file_lines(Image &img, const std::string &path) {
    auto &frs = img.files.at(path);
    REQUIRE(frs.size() == 1);
    return frs[0].lines;
}

// Where the top-level function `name` is in `lines`, found by its layout
// alone, independently of the extractor: its name either on a line that
// starts with "static", or at the start of a line after its return type;
// it ends at the first line that is just "}".
struct FnAt {
    std::size_t head, name_line, name_col, end; // [head, end) are its lines
};
FnAt function_at(const std::vector<std::string> &lines, const std::string &name) {
    for (std::size_t i = 0; i < lines.size(); ++i) {
        FnAt f{0, i, 0, 0};
        std::size_t c = lines[i].find(" " + name + "(");
        if (lines[i].rfind("static", 0) == 0 && c != std::string::npos) {
            f.head = i;
            f.name_col = c + 1;
        } else if (lines[i].rfind(name + "(", 0) == 0 && i > 0 && !lines[i - 1].empty() &&
                   std::isalpha(static_cast<unsigned char>(lines[i - 1][0])) && lines[i - 1].back() != ';') {
            f.head = i - 1;
        } else {
            continue;
        }
        for (std::size_t j = i; j < lines.size(); ++j)
            if (lines[j] == "}") {
                f.end = j + 1;
                return f;
            }
    }
    FAIL("no function " << name);
    return {};
}

// Renames the function so that the tree no longer has it.
void rename_away(std::vector<std::string> &lines, const std::string &name) {
    FnAt f = function_at(lines, name);
    lines[f.name_line].insert(f.name_col + name.size(), "_gone");
}

std::size_t index_of(const std::vector<std::string> &v, const std::string &x) {
    for (std::size_t i = 0; i < v.size(); ++i)
        if (v[i] == x)
            return i;
    return v.size();
}

KernelOracleSpec spec_of(const Image &img) {
    return KernelOracleSpec{"robust_6_1", "robust-6.1", "6.1.99", "mutated copy of " + std::string(tarball_6_1), img};
}

// Compiles a generated namespace the way `oracle build` compiles its
// library: both data models' instantiations of the class.  Empty on
// success, else the compiler's output.
std::string compile_oracle(const fs::path &dir, const std::string &code, const std::string &ns) {
    spit(dir / "o.h", "#pragma once\n#include <cstdint>\n#include \"ref/kernel.h\"\nnamespace sc::oracle_gen {\n" +
                          code + "}\n");
    spit(dir / "o.cpp", "#include \"o.h\"\ntemplate struct sc::oracle_gen::" + ns +
                            "::kernel<sc::ilp32>;\ntemplate struct sc::oracle_gen::" + ns + "::kernel<sc::lp64>;\n");
    Run r = run_argv({"c++", "-std=c++20", "-fsyntax-only", "-fwrapv", std::string("-I") + SCHEDCHECK_SOURCE_DIR,
                      "o.cpp"},
                     dir);
    return r.code == 0 ? "" : r.out.empty() ? "failed" : r.out;
}

} // namespace

// ------------------------------------------------------------ 1. long series

TEST_CASE("oracle robust: a generated series of thousands of patches parses and replays", "[oracle][robust]") {
    const int fns = 5000, grow = 1500;
    const std::string text = generated_series(fns, grow);
    REQUIRE(text.size() > 2000000); // a few megabytes
    Series s = parse_series(text, "generated.mbox");
    REQUIRE(s.patches.size() == std::size_t(fns + grow));
    CHECK(s.patches[0].title == "[PATCH 1/6500] synth: bump f0");
    CHECK(s.patches[fns + grow - 1].title == "[PATCH 6500/6500] synth: log 1500");
    // A resend of every patch adds nothing.
    CHECK(parse_series(text + text, "twice.mbox").patches.size() == s.patches.size());

    // Pre-image: each function at 10k+1, as a 7-line fragment; log.c as
    // "log start", "log end" (every grow patch's old side is made of them).
    Image pre = pre_image(s);
    REQUIRE(pre.file("synth/big.c"));
    CHECK(pre.file("synth/big.c")->size() == std::size_t(fns));
    const int k = 1234;
    const Fragment *fk = fragment_at(pre, "synth/big.c", 10 * k + 1);
    REQUIRE(fk);
    auto before = find_definition(pre, "synth/big.c", "f" + std::to_string(k), DefKind::function);
    REQUIRE(before);
    CHECK(before->first_line == 10 * k + 1);
    CHECK(before->last_line == 10 * k + 6);
    CHECK(before->text == fn_line(k, 0, 0) + "\n{\n" + fn_line(k, 2, 0) + "\n" + fn_line(k, 3, 0) + "\n\treturn c;\n}\n");
    REQUIRE(pre.file("synth/log.c"));
    CHECK(pre.file("synth/log.c")->front().lines == std::vector<std::string>{"log start", "log end"});

    // Walk every image once.  Each step writes into exactly the fragment
    // its patch names.
    Replay r(s);
    CHECK(r.changed().files.empty());
    std::size_t checked = 0;
    while (!r.done()) {
        r.step();
        const std::size_t p = r.applied();
        Image c = r.changed();
        REQUIRE(c.files.size() == 1);
        if (p <= std::size_t(fns)) {
            const int j = static_cast<int>(p) - 1;
            const auto &frs = c.files.at("synth/big.c");
            REQUIRE(frs.size() == 1);
            CHECK(frs[0].first_line == 10 * j + 1);
            CHECK(frs[0].lines[3] == fn_line(j, 3, 1));
            ++checked;
        } else {
            const int j = static_cast<int>(p) - fns;
            const auto &frs = c.files.at("synth/log.c");
            REQUIRE(frs.size() == 1);
            // The one log fragment, grown to j entries between its ends.
            CHECK(frs[0].first_line == 1);
            REQUIRE(frs[0].lines.size() == std::size_t(j + 2));
            CHECK(frs[0].lines[std::size_t(j)] == "entry " + std::to_string(j));
            CHECK(frs[0].lines.back() == "log end");
            ++checked;
        }
    }
    CHECK(checked == s.patches.size());

    // The last image, from the walk and from post_image(), is the same.
    Image post = r.image();
    Image again = post_image(s, s.patches.size());
    CHECK(post.files == again.files);
    auto after = find_definition(post, "synth/big.c", "f" + std::to_string(k), DefKind::function);
    REQUIRE(after);
    CHECK(after->first_line == 10 * k + 1);
    CHECK(after->text.find(fn_line(k, 3, 1)) != std::string::npos);
    const auto &log = post.files.at("synth/log.c");
    REQUIRE(log.size() == 1);
    REQUIRE(log[0].lines.size() == std::size_t(grow + 2));
    CHECK(log[0].lines[1] == "entry 1");
    CHECK(log[0].lines[std::size_t(grow)] == "entry " + std::to_string(grow));

    // Part-way images agree with post_image() too.
    Replay r2(s);
    for (int j = 0; j < 3; ++j)
        r2.step();
    CHECK(r2.image().files == post_image(s, 3).files);
}

// Not run by default: `schedcheck_tests "[.robust-bench]"` prints how the
// time grows with the size of the series (linear: the ratio of the times
// follows the ratio of the sizes).
TEST_CASE("oracle robust: time to parse and walk a generated series", "[.robust-bench]") {
    for (int fns : {2000, 20000, 118000}) {
        const std::string text = generated_series(fns, std::min(fns / 10, 1000));
        auto t0 = std::chrono::steady_clock::now();
        Series s = parse_series(text, "bench.mbox");
        auto t1 = std::chrono::steady_clock::now();
        Replay r(s);
        std::size_t defs = 0;
        for (const auto &[path, frs] : r.image().files)
            for (const auto &f : frs)
                defs += definitions(f).size();
        while (!r.done()) {
            r.step();
            for (const auto &[path, frs] : r.changed().files)
                for (const auto &f : frs)
                    defs += definitions(f).size();
        }
        auto t2 = std::chrono::steady_clock::now();
        auto secs = [](auto a, auto b) { return std::chrono::duration<double>(b - a).count(); };
        WARN(s.patches.size() << " patches, " << text.size() / 1e6 << " MB: parse " << secs(t0, t1)
                              << " s, pre-image + every post-image with their changed definitions " << secs(t1, t2)
                              << " s (" << defs << " definitions)");
    }
}

// ------------------------------------------------------------ 2. displaced hunks

TEST_CASE("oracle robust: a hunk goes where its old side agrees, nearest first", "[oracle][robust]") {
    // A whole file of our own: the block "alpha/beta/gamma" three times,
    // at lines 10, 200 and 400, and filler lines elsewhere.
    std::vector<std::string> lines;
    for (int i = 1; i <= 500; ++i)
        lines.push_back("filler " + std::to_string(i));
    for (int at : {10, 200, 400}) {
        lines[at - 1] = "alpha";
        lines[at] = "beta";
        lines[at + 1] = "gamma";
    }
    Image base;
    base.files["t.c"] = {Fragment{1, lines}};
    base.whole.insert("t.c");
    auto hunk_at = [](int line) {
        return "--- a/t.c\n+++ b/t.c\n@@ -" + std::to_string(line) + ",3 +" + std::to_string(line) +
               ",3 @@\n alpha\n-beta\n+BETA\n gamma\n";
    };
    // Where "BETA" ends up: the line number after applying.
    auto applied_at = [&](int stated) {
        Series s = parse_series(hunk_at(stated), "h.diff");
        Image img = apply_series(base, s, 1);
        const auto &f = img.files.at("t.c");
        REQUIRE(f.size() == 1);
        REQUIRE(f[0].lines.size() == lines.size());
        int at = 0;
        for (std::size_t i = 0; i < f[0].lines.size(); ++i)
            if (f[0].lines[i] == "BETA") {
                CHECK(at == 0); // exactly one
                at = static_cast<int>(i) + 1;
            }
        return at - 1; // the hunk's first line
    };
    CHECK(applied_at(10) == 10);   // where it says
    CHECK(applied_at(200) == 200); // also where it says, though line 10 agrees too
    CHECK(applied_at(390) == 400); // nearest: 10 off
    CHECK(applied_at(150) == 200); // 50 off, against 140 off
    CHECK(applied_at(105) == 200); // 95 off either way: the later one, as GNU patch
    CHECK(applied_at(1) == 10);

    // Agrees nowhere: the file and the hunk are named.
    Series bad = parse_series("Subject: [PATCH] toy: none\n\n--- a/t.c\n+++ b/t.c\n@@ -40,2 +40,2 @@\n alpha\n-delta\n+DELTA\n",
                              "none.mbox");
    REQUIRE_THROWS_WITH(apply_series(base, bad, 1), Contains("file t.c") && Contains("hunk '@@ -40,2 +40,2 @@'") &&
                                                        Contains("[PATCH] toy: none") &&
                                                        Contains("matches nowhere else"));

    // A whole file ends: context that would run past its last line does
    // not agree, though nothing is known there.
    Image small;
    small.files["e.c"] = {Fragment{1, {"int x;", "}"}}};
    small.whole.insert("e.c");
    Series past = parse_series("--- a/e.c\n+++ b/e.c\n@@ -7,2 +7,2 @@\n }\n-more\n+MORE\n", "past.diff");
    CHECK_THROWS_WITH(apply_series(small, past, 1), Contains("file e.c"));
    // In a sparse image the same hunk is text we do not know yet: it applies.
    Image sparse = small;
    sparse.whole.clear();
    Image got = apply_series(sparse, past, 1);
    CHECK(got.files.at("e.c").back().lines == std::vector<std::string>{"}", "MORE"});

    // In a sparse image, a hunk that conflicts where it says is not moved to
    // a place where only a lone "}" agrees and the rest is unknown...
    sparse.files["e.c"].push_back(Fragment{100, {"int q;"}});
    Series lone = parse_series("--- a/e.c\n+++ b/e.c\n@@ -100,2 +100,2 @@\n }\n-x\n+y\n", "lone.diff");
    CHECK_THROWS_WITH(apply_series(sparse, lone, 1), Contains("file e.c") && Contains("matches nowhere else"));
    // ... but it is where a line that tells agrees (and the rest is unknown).
    Series telling = parse_series("--- a/e.c\n+++ b/e.c\n@@ -100,3 +100,3 @@\n int x;\n-}\n+};\n tail\n", "telling.diff");
    Image moved = apply_series(sparse, telling, 1);
    CHECK(moved.files.at("e.c").front().first_line == 1);
    CHECK(moved.files.at("e.c").front().lines == std::vector<std::string>{"int x;", "};", "tail"});
}

// ------------------------------------------------------------ 2-4. Linux 6.1, mutated

// Linux 6.1's own text, read once (one process) and mutated in memory.
TEST_CASE("oracle robust: 6.1's text, mutated: a shifted hunk applies, definitions are found where the tree keeps "
          "them, what it lacks is said at once",
          "[oracle][robust][kernel]") {
    if (!fs::exists(tarball_6_1)) {
        WARN("no " << tarball_6_1 << ": skipped");
        return;
    }
    const Image &orig = linux_6_1().image;
    const PeltOracle base = generate_pelt_oracle(spec_of(orig));
    REQUIRE(base.lacking.empty());
    REQUIRE(base.has_util_est);
    CHECK(base.note.empty());
    auto found_in = [](const PeltOracle &o, const std::string &name) {
        std::size_t i = index_of(o.found, name);
        return i < o.found_in.size() ? o.found_in[i] : std::string("(not found)");
    };
    CHECK(found_in(base, "decay_load") == "kernel/sched/pelt.c");
    CHECK(found_in(base, "UTIL_AVG_UNCHANGED") == "include/linux/sched.h");

    SECTION("a real hunk shifted by 300 lines still applies to pelt.c") {
        const KernelSource &src = linux_6_1();
        REQUIRE(src.image.file("kernel/sched/pelt.c"));
        const std::string pelt_c = src.image.file("kernel/sched/pelt.c")->front().text();
        // Mutate a copy: accumulate_sum keeps the remainder of a 1000 µs
        // period (any change will do; this line is unique in the file).
        std::string mutated = pelt_c;
        const std::size_t at = mutated.find("%= 1024;");
        REQUIRE(at != std::string::npos);
        REQUIRE(mutated.find("%= 1024;", at + 1) == std::string::npos);
        mutated.replace(at, 8, "%= 1000;");

        TempDir tmp("shift");
        spit(tmp.path / "a/kernel/sched/pelt.c", pelt_c);
        spit(tmp.path / "b/kernel/sched/pelt.c", mutated);
        sc::sys::RunOptions ro;
        ro.cwd = tmp.path;
        ro.out_file = tmp.path / "fix.diff";
        sc::sys::RunResult rr = sc::sys::run({"diff", "-u", "a/kernel/sched/pelt.c", "b/kernel/sched/pelt.c"}, ro);
        REQUIRE(rr.exit_code == 1); // the files differ
        const std::string diff = slurp(tmp.path / "fix.diff");

        // The same hunk with both line numbers of its header moved 300 down,
        // as in a mail written against a tree where the function sits lower.
        std::string shifted;
        int headers = 0, stated = 0;
        for (const std::string &l : lines_of(diff)) {
            if (l.rfind("@@ -", 0) != 0) {
                shifted += l + "\n";
                continue;
            }
            ++headers;
            int a = 0, b = 0, c = 0, d = 0;
            REQUIRE(std::sscanf(l.c_str(), "@@ -%d,%d +%d,%d @@", &a, &b, &c, &d) == 4);
            stated = a;
            shifted += "@@ -" + std::to_string(a + 300) + "," + std::to_string(b) + " +" + std::to_string(c + 300) + "," +
                       std::to_string(d) + " @@" + l.substr(l.find(" @@") + 3) + "\n";
        }
        REQUIRE(headers == 1);
        REQUIRE(lines_of(pelt_c).size() > std::size_t(stated + 300)); // the stated line is inside the file

        const std::vector<std::string> want = lines_of(mutated);
        for (const std::string &text : {diff, shifted}) {
            Series s = parse_series(text, "fix.diff");
            Image img = apply_series(src.image, s, 1);
            const auto *f = img.file("kernel/sched/pelt.c");
            REQUIRE(f);
            REQUIRE(f->size() == 1);
            CHECK(f->front().first_line == 1);
            CHECK(f->front().lines == want);
            // The other files are untouched.
            CHECK(img.files.at("kernel/sched/fair.c") == src.image.files.at("kernel/sched/fair.c"));
        }

        // The same through a patch file, as `oracle build --kernel --patch` reads it.
        spit(tmp.path / "shifted.diff", shifted);
        Image via = apply_patch_file(src, (tmp.path / "shifted.diff").string());
        CHECK(via.files.at("kernel/sched/pelt.c").front().lines == want);

        // A hunk whose old side is nowhere in the file is refused, naming the
        // file and the hunk.
        std::string stale = shifted;
        const std::size_t minus = stale.find("\n-");
        REQUIRE(minus != std::string::npos);
        stale.insert(minus + 2, "no such text ");
        Series bad = parse_series(stale, "stale.diff");
        CHECK_THROWS_WITH(apply_series(src.image, bad, 1),
                          Contains("file kernel/sched/pelt.c") && Contains("hunk '@@ -" + std::to_string(stated + 300)));
    }

    SECTION("moved between candidate files: the same oracle") {
        // UTIL_AVG_UNCHANGED's #define from include/linux/sched.h to the
        // end of kernel/sched/pelt.h; decay_load from pelt.c to fair.c.
        Image img = orig;
        auto &sched_h = file_lines(img, "include/linux/sched.h");
        std::size_t def = sched_h.size();
        for (std::size_t i = 0; i < sched_h.size(); ++i)
            if (sched_h[i].rfind("#define UTIL_AVG_UNCHANGED", 0) == 0)
                def = i;
        REQUIRE(def < sched_h.size());
        file_lines(img, "kernel/sched/pelt.h").push_back(sched_h[def]);
        sched_h.erase(sched_h.begin() + static_cast<std::ptrdiff_t>(def));

        auto &pelt_c = file_lines(img, "kernel/sched/pelt.c");
        const FnAt at = function_at(pelt_c, "decay_load");
        const auto b = pelt_c.begin() + static_cast<std::ptrdiff_t>(at.head),
                   e = pelt_c.begin() + static_cast<std::ptrdiff_t>(at.end);
        std::vector<std::string> fn(b, e);
        pelt_c.erase(b, e);
        auto &fair_c = file_lines(img, "kernel/sched/fair.c");
        fair_c.push_back("");
        fair_c.insert(fair_c.end(), fn.begin(), fn.end());

        // Read back as a tree from disk, as `oracle build --kernel` does.
        TempDir tmp("moved");
        write_tree(tmp.path, img);
        KernelSource moved = read_kernel(tmp.path.string());
        CHECK(moved.version == "6.1.99");
        PeltOracle got = generate_pelt_oracle(spec_of(moved.image));
        CHECK(got.lacking.empty());
        CHECK(found_in(got, "UTIL_AVG_UNCHANGED") == "kernel/sched/pelt.h");
        CHECK(found_in(got, "decay_load") == "kernel/sched/fair.c");
        CHECK(got.found == base.found);
        // Only where they were read from changed: the oracle is the same.
        CHECK(got.code == base.code);
    }

    SECTION("what each invariant family reads, and pelt.decay_monotone alone: decay_load() and what it names") {
        // The review proves again only what a patch can change.  A changed
        // line of accumulate_sum() (a period of 1000 units) changes what
        // the pelt invariants read, not what decay_monotone or util_est do.
        Image elsewhere = orig;
        bool mutated = false;
        for (std::string &l : file_lines(elsewhere, "kernel/sched/pelt.c"))
            if (!mutated && l.find("%= 1024;") != std::string::npos) {
                l.replace(l.find("%= 1024;"), 8, "%= 1000;");
                mutated = true;
            }
        REQUIRE(mutated);
        const PeltOracle e = generate_pelt_oracle(spec_of(elsewhere));
        REQUIRE(base.reads.count("pelt.decay_monotone"));
        CHECK(e.reads.at("pelt") != base.reads.at("pelt"));
        CHECK(e.reads.at("utilest") == base.reads.at("utilest"));
        CHECK(e.reads.at("pelt.decay_monotone") == base.reads.at("pelt.decay_monotone"));
        // decay_load() and the table it reads are in decay_monotone's set,
        // accumulate_sum() is not.
        const std::string &dm = base.reads.at("pelt.decay_monotone");
        CHECK_THAT(dm, Contains("decay_load:") && Contains("runnable_avg_yN_inv:"));
        CHECK_THAT(dm, !Contains("accumulate_sum:"));

        // A statement added to decay_load()'s body changes decay_monotone's set.
        Image in_decay = orig;
        auto &lines = file_lines(in_decay, "kernel/sched/pelt.c");
        const FnAt f = function_at(lines, "decay_load");
        std::size_t brace = f.name_line;
        while (brace < f.end && lines[brace] != "{")
            ++brace;
        REQUIRE(brace < f.end);
        lines.insert(lines.begin() + static_cast<std::ptrdiff_t>(brace + 1), "\tval |= 1;");
        const PeltOracle d = generate_pelt_oracle(spec_of(in_decay));
        CHECK(d.reads.at("pelt.decay_monotone") != base.reads.at("pelt.decay_monotone"));
        CHECK(d.reads.at("pelt") != base.reads.at("pelt"));
        CHECK(d.reads.at("utilest") == base.reads.at("utilest"));
    }

    SECTION("no util_est: a PELT oracle, and a note naming what is missing") {
        // util_est_update renamed away in fair.c (its empty !SMP stub
        // stays, and must not stand in for it).
        Image img = orig;
        rename_away(file_lines(img, "kernel/sched/fair.c"), "util_est_update");
        PeltOracle got = generate_pelt_oracle(spec_of(img));
        CHECK_FALSE(got.has_util_est);
        REQUIRE(got.lacking.size() == 1);
        CHECK(got.lacking[0] == "util_est_update not found in kernel/sched/fair.c, kernel/sched/sched.h, "
                                "kernel/sched/pelt.h, kernel/sched/pelt.c");
        CHECK_THAT(got.note, Contains("robust-6.1 (6.1.99)") && Contains("util_est left out") &&
                                 Contains("util_est_update not found in kernel/sched/fair.c"));
        // Every other definition the unmutated tree has is there (it lacks
        // the optional ones of later releases, such as 6.12's
        // cfs_h_nr_delayed); nothing of util_est is.
        for (const KernelWanted &w : pelt_wanted()) {
            INFO(w.name);
            const bool in_base = index_of(base.found, w.name) < base.found.size();
            if (w.required)
                CHECK(in_base);
            CHECK((index_of(got.found, w.name) < got.found.size()) == (in_base && w.part != PeltPart::util_est));
        }
        bool ue_function = false;
        for (const Token &t : tokenize(got.code))
            ue_function = ue_function || t.is_ident("util_est_enqueue") || t.is_ident("_task_util_est");
        CHECK_FALSE(ue_function);
        CHECK_THAT(got.code, Contains("inline constexpr bool has_util_est = false;") &&
                                 Contains("static constexpr bool shim_has_util_est = false;"));
        // The strict form, which the built-in oracles use, refuses it.
        std::vector<std::string> found;
        CHECK_THROWS_WITH(generate_pelt(spec_of(img), found), Contains("util_est_update not found"));
        // The PELT-only class compiles for both data models, as the
        // oracle library is built.
        if (sc::sys::on_path("c++")) {
            TempDir tmp("pelt-only");
            std::string err = compile_oracle(tmp.path, got.code, "robust_6_1");
            INFO(err);
            CHECK(err.empty());
        }
    }

    SECTION("PELT and util_est both incomplete: one error listing all of it") {
        Image img = orig;
        rename_away(file_lines(img, "kernel/sched/pelt.c"), "accumulate_sum");
        img.files.erase("kernel/sched/sched-pelt.h"); // the table and its constants with it
        img.whole.erase("kernel/sched/sched-pelt.h");
        rename_away(file_lines(img, "kernel/sched/fair.c"), "util_est_dequeue");
        try {
            generate_pelt_oracle(spec_of(img));
            FAIL("no error");
        } catch (const extract_error &e) {
            const std::string m = e.what();
            INFO(m);
            CHECK(m.find('\n') == std::string::npos);
            CHECK_THAT(m, Contains("robust-6.1 (6.1.99): the source lacks 5 definitions"));
            CHECK_THAT(m, Contains("accumulate_sum not found in kernel/sched/pelt.c, kernel/sched/fair.c"));
            CHECK_THAT(m, Contains("LOAD_AVG_PERIOD not found in kernel/sched/pelt.c, kernel/sched/fair.c, "
                                   "kernel/sched/sched.h (not in the source: kernel/sched/sched-pelt.h)"));
            CHECK_THAT(m, Contains("LOAD_AVG_MAX not found"));
            CHECK_THAT(m, Contains("runnable_avg_yN_inv not found"));
            CHECK_THAT(m, Contains("util_est_dequeue not found in kernel/sched/fair.c"));
        }
    }
}

// ------------------------------------------------------------ 5. a patch alone

TEST_CASE("oracle robust: a patch alone without whole definitions says so in one line", "[oracle][robust]") {
    // A toy mail against pelt.c whose hunk lies inside a function (ours)
    // and holds none whole.
    const std::string mail = "Subject: [PATCH] toy: tweak a step\n\n"
                             "--- a/kernel/sched/pelt.c\n+++ b/kernel/sched/pelt.c\n"
                             "@@ -120,5 +120,5 @@ static int toy_step(int x)\n"
                             " \tint y = x;\n \n-\ty += 3;\n+\ty += 4;\n \n \treturn y;\n";
    Series s = parse_series(mail, "toy.mbox");
    KernelOracleSpec spec{"toy_pre", "toy-pre", "", "pre-image of toy.mbox", pre_image(s)};
    REQUIRE_THROWS_WITH(generate_pelt_oracle(spec, true, "toy.mbox"),
                        "toy.mbox: the hunks hold no whole definition of any function the oracle needs "
                        "(get_pelt_divider, cfs_se_util_change, decay_load, __accumulate_pelt_segments, "
                        "accumulate_sum, ___update_load_sum, ___update_load_avg, task_util, task_runnable, "
                        "_task_util_est, task_util_est, util_est_enqueue, util_est_dequeue, within_margin, "
                        "util_est_update); give the tree with --kernel");

    // A hunk holding one whole function of that name (a toy body of ours)
    // but not the rest: the rest is named.
    const std::string one = "Subject: [PATCH] toy: one function\n\n"
                            "--- a/kernel/sched/pelt.c\n+++ b/kernel/sched/pelt.c\n"
                            "@@ -10,4 +10,4 @@\n static int decay_load(int v)\n {\n-\treturn v;\n+\treturn v / 2;\n }\n";
    Series s1 = parse_series(one, "one.mbox");
    KernelOracleSpec spec1{"one_pre", "one-pre", "", "pre-image of one.mbox", pre_image(s1)};
    REQUIRE_THROWS_WITH(generate_pelt_oracle(spec1, true, "one.mbox"),
                        Contains("one.mbox: the hunks hold only part of what the oracle needs; not whole in them: "
                                 "SCHED_FIXEDPOINT_SHIFT, ") &&
                            Contains("accumulate_sum") && !Contains("decay_load,") &&
                            Contains("; give the tree with --kernel"));

    // Through the command: exit 2, that line, nothing left behind.
    TempDir tmp("alone");
    spit(tmp.path / "toy.mbox", mail);
    Run r = run_argv({SCHEDCHECK_BIN, "oracle", "build", "--patch", (tmp.path / "toy.mbox").string(), "--out",
                      (tmp.path / "out").string()});
    INFO(r.out);
    CHECK(r.code == 2);
    CHECK_THAT(r.out, Contains((tmp.path / "toy.mbox").string() +
                               ": the hunks hold no whole definition of any function the oracle needs (get_pelt_divider, ") &&
                          Contains("give the tree with --kernel"));
    CHECK(r.out.find("function ?") == std::string::npos);
    CHECK(std::count(r.out.begin(), r.out.end(), '\n') == 1);
    CHECK((!fs::exists(tmp.path / "out") || fs::is_empty(tmp.path / "out")));
}

// `review` runs an image on a built-in oracle only when the image's code,
// its names taken out, is that oracle's text for text: Debian's 6.1 tarball
// is the built-in linux-6.1's source, whatever name and description the
// image carries; one character more and it is no built-in's.
TEST_CASE("oracle robust: the unpatched 6.1 image is the built-in linux-6.1, a changed one is none",
          "[oracle][robust][kernel]") {
    if (!fs::exists(tarball_6_1)) {
        WARN("no " << tarball_6_1 << ": skipped");
        return;
    }
    const KernelSource &src = linux_6_1();
    const KernelOracleSpec spec{"some_name", "some-name", src.version, "a tree of the user's", src.image};
    const std::string code = neutral_code(spec);
    CHECK(sc::proofs::builtin_with_code(code) == "linux-6.1");
    CHECK(sc::proofs::builtin_with_code(code + " ").empty());
    CHECK(sc::proofs::builtin_with_code("").empty());
}
