// No shell ever sees a name that came from a user: oracle names are held
// to a safe alphabet, and every external program runs from an argument
// vector, so quotes and semicolons in file and directory names are bytes.
#include <catch2/catch.hpp>

#include <unistd.h>

#include <filesystem>
#include <fstream>

#include <nlohmann/json.hpp>

#include "oracle/header_stamp.h"
#include "proofs/kernel/oracle_plugin.h"
#include "tests/shell.h"

namespace fs = std::filesystem;

namespace {

fs::path scratch(const std::string &name) {
    fs::path d = fs::temp_directory_path() / ("schedcheck-noshell-" + name + "-" + std::to_string(getpid()));
    fs::remove_all(d);
    fs::create_directories(d);
    return d;
}

const char *tarball = "/usr/src/linux-source-6.1.tar.xz";

} // namespace

TEST_CASE("oracle names: the safe alphabet, checked by hand", "[no-shell]") {
    using sc::proofs::valid_oracle_name;
    CHECK(valid_oracle_name("linux-6.1.192"));
    CHECK(valid_oracle_name("review_v2+fix"));
    CHECK_FALSE(valid_oracle_name(""));
    CHECK_FALSE(valid_oracle_name(".hidden"));
    CHECK_FALSE(valid_oracle_name("../x"));
    CHECK_FALSE(valid_oracle_name("a/b"));
    CHECK_FALSE(valid_oracle_name("p';cd ..;touch X;'"));
    CHECK_FALSE(valid_oracle_name("a b"));
    CHECK_FALSE(valid_oracle_name(std::string("a\0b", 3)));
    CHECK_FALSE(valid_oracle_name(std::string(201, 'a')));
}

TEST_CASE("oracle build: a patch named to inject a command runs nothing and is refused", "[no-shell]") {
    fs::path d = scratch("inject");
    fs::create_directories(d / "work");
    // The attack: a patch attachment whose name closes a quote and runs
    // `touch X` one directory up.
    std::string evil = "p';cd ..;touch X;'.patch";
    std::ofstream(d / "work" / evil) << "--- a/kernel/sched/pelt.c\n+++ b/kernel/sched/pelt.c\n@@ -1,1 +1,1 @@\n-a\n+b\n";
    Run r = run_argv({SCHEDCHECK_BIN, "oracle", "build", "--patch", evil, "--out", "o"}, d / "work");
    INFO(r.out);
    CHECK(r.code == 2);
    CHECK(r.out.find("is not allowed") != std::string::npos);
    CHECK(r.out.find("choose one with --name") != std::string::npos);
    CHECK_FALSE(fs::exists(d / "X"));
    CHECK_FALSE(fs::exists(d / "work" / "X"));
    CHECK_FALSE(fs::exists(d / "work" / "o")); // nothing left behind

    for (std::string bad : {"a;touch X", "../escape", ".dot", "x'y"}) {
        Run n = run_argv({SCHEDCHECK_BIN, "oracle", "build", "--patch", evil, "--name", bad, "--out", "o"}, d / "work");
        INFO(bad << ": " << n.out);
        CHECK(n.code == 2);
        CHECK(n.out.find("is not allowed") != std::string::npos);
    }
    CHECK_FALSE(fs::exists(d / "X"));
    CHECK_FALSE(fs::exists(d / "work" / "X"));
    fs::remove_all(d);
}

TEST_CASE("equiv --oracle: a name that leaves --oracle-dir is refused", "[no-shell]") {
    fs::path d = scratch("escape");
    fs::create_directories(d / "oracles");
    std::ofstream(d / "x.so") << "not a plug-in";
    Run r = run_argv({SCHEDCHECK_BIN, "equiv", "--variant", "pelt/v6.1", "--oracle", "../x", "--oracle-dir", "oracles"}, d);
    INFO(r.out);
    CHECK(r.code == 2);
    CHECK(r.out.find("oracle name \"../x\"") != std::string::npos);
    fs::remove_all(d);
}

TEST_CASE("oracle build: a relative --out with a quote and a space in it", "[no-shell][oracle-build]") {
    if (!fs::exists(tarball)) {
        WARN("no " << tarball << ": skipped");
        return;
    }
    fs::path d = scratch("relout");
    // A kernel tree of the files the oracle reads, unpacked without a shell.
    REQUIRE(run_argv({"tar", "-xf", tarball, "-C", d.string(), "--strip-components=1", "--wildcards", "*/Makefile",
                      "*/kernel/sched/*", "*/include/linux/sched.h"})
                .code == 0);
    std::string out = "rel dir/o'ut";
    Run r = run_argv({SCHEDCHECK_BIN, "oracle", "build", "--kernel", ".", "--name", "rel", "--out", out}, d);
    INFO(r.out);
    REQUIRE(r.code == 0);
    CHECK(fs::exists(d / out / "rel.so"));
    CHECK(fs::exists(d / out / "libschedcheck-oracle-rel.a"));
    // No build directory is left behind.
    for (const auto &e : fs::directory_iterator(d / out))
        CHECK(e.path().filename().string().rfind(".build-", 0) != 0);
    // The plug-in works from the same relative directory.
    Run eq = run_argv({SCHEDCHECK_BIN, "equiv", "--variant", "pelt/v6.1", "--oracle", "rel", "--oracle-dir", out,
                       "--arch", "lp64"},
                      d);
    INFO(eq.out);
    CHECK(eq.code == 0);
    CHECK(eq.out.find("EQUIVALENT") != std::string::npos);
    // The same plug-in with another header stamp in it (a plug-in that
    // another schedcheck built), its manifest made to match, is refused at
    // load time.  The stamp is 16 hex digits in its read-only data.
    {
        const fs::path so = d / out / "rel.so", man = d / out / "rel.json";
        std::ifstream in(so, std::ios::binary);
        std::string bytes((std::istreambuf_iterator<char>(in)), {});
        in.close();
        const std::string stamp = sc::oracle::built_header_stamp();
        std::size_t at = bytes.find(stamp);
        REQUIRE(at != std::string::npos);
        CHECK(bytes.find(stamp, at + 1) == std::string::npos);
        bytes.replace(at, stamp.size(), std::string(stamp.size(), stamp[0] == '0' ? '1' : '0'));
        std::ofstream(so, std::ios::binary | std::ios::trunc) << bytes;
        std::ifstream mi(man);
        nlohmann::json m = nlohmann::json::parse(mi);
        mi.close();
        m["plugin_fnv1a64"] = sc::proofs::file_fnv1a64(so.string());
        std::ofstream(man, std::ios::trunc) << m.dump();
        Run other = run_argv({SCHEDCHECK_BIN, "equiv", "--variant", "pelt/v6.1", "--oracle", "rel", "--oracle-dir",
                              out, "--arch", "lp64"},
                             d);
        INFO(other.out);
        CHECK(other.code == 2);
        CHECK(other.out.find("was built from other schedcheck headers") != std::string::npos);
        CHECK(other.out.find(stamp) != std::string::npos);
    }
    // A truncated copy of the real plug-in is refused before it is loaded
    // (dlopen of a truncated ELF file faults with SIGBUS).
    fs::resize_file(d / out / "rel.so", fs::file_size(d / out / "rel.so") / 2);
    Run cut = run_argv({SCHEDCHECK_BIN, "equiv", "--variant", "pelt/v6.1", "--oracle", "rel", "--oracle-dir", out,
                        "--arch", "lp64"},
                       d);
    INFO(cut.out);
    CHECK(cut.code == 2);
    CHECK(cut.out.find("does not match its manifest") != std::string::npos);
    fs::remove_all(d);
}

// The stamp covers the headers' text, not only their sizes: a change of
// one byte is seen, and `oracle build` refuses headers other than the ones
// this binary was built from before it compiles anything.
TEST_CASE("oracle build: headers other than the binary's are refused by their stamp", "[no-shell]") {
    const fs::path src = SCHEDCHECK_SOURCE_DIR;
    REQUIRE(sc::oracle::header_stamp(src) == sc::oracle::built_header_stamp());
    fs::path d = scratch("stamp");
    const fs::path copy = d / "src";
    fs::create_directories(copy);
    for (const char *dir : {"ref", "model", "proofs", "sim"})
        fs::copy(src / dir, copy / dir, fs::copy_options::recursive);
    fs::create_directories(copy / "fuzz");
    for (const char *f : {"fuzz/differential.cpp", "fuzz/harness_io.h"})
        fs::copy_file(src / f, copy / f);
    CHECK(sc::oracle::header_stamp(copy) == sc::oracle::built_header_stamp());
    // One byte of a comment changed: same size, other text.
    {
        std::fstream f(copy / "ref/kernel.h", std::ios::in | std::ios::out | std::ios::binary);
        char c = 0;
        f.seekg(3);
        f.get(c);
        f.seekp(3);
        f.put(c == 'x' ? 'y' : 'x');
    }
    CHECK(fs::file_size(copy / "ref/kernel.h") == fs::file_size(src / "ref/kernel.h"));
    const std::string changed = sc::oracle::header_stamp(copy);
    CHECK(changed != sc::oracle::built_header_stamp());
    CHECK_THROWS(sc::oracle::header_stamp(d / "nowhere"));

    std::ofstream(d / "p.patch") << "--- a/kernel/sched/pelt.c\n+++ b/kernel/sched/pelt.c\n@@ -1,1 +1,1 @@\n-a\n+b\n";
    REQUIRE(setenv("SCHEDCHECK_SOURCE_DIR", copy.c_str(), 1) == 0);
    Run r = run_argv({SCHEDCHECK_BIN, "oracle", "build", "--patch", "p.patch", "--out", "o"}, d);
    unsetenv("SCHEDCHECK_SOURCE_DIR");
    INFO(r.out);
    CHECK(r.code == 2);
    CHECK(r.out.find("are not the ones this schedcheck was built from") != std::string::npos);
    CHECK(r.out.find(changed) != std::string::npos);
    CHECK_FALSE(fs::exists(d / "o"));
    fs::remove_all(d);
}
