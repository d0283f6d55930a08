#include "oracle/kernel_source.h"
#include "oracle/process.h"

#include <unistd.h>

#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <sstream>

namespace fs = std::filesystem;

namespace sc::oracle {

const std::vector<std::string> &oracle_files() {
    static const std::vector<std::string> f = {
        "Makefile",
        "kernel/sched/pelt.c",
        "kernel/sched/pelt.h",
        "kernel/sched/sched-pelt.h",
        "kernel/sched/fair.c",
        "kernel/sched/sched.h",
        "include/linux/sched.h",
    };
    return f;
}

namespace {

// A kernel source file, read whole: a regular file of at most 64 MB (the
// largest sched file is well under 1 MB).
std::string slurp(const fs::path &p) {
    constexpr std::uintmax_t max_bytes = std::uintmax_t(64) << 20;
    std::error_code ec;
    if (!fs::is_regular_file(p, ec))
        throw extract_error(p.string() + " is not a regular file");
    if (fs::file_size(p, ec) > max_bytes)
        throw extract_error(p.string() + " is larger than 64 MB");
    std::ifstream in(p, std::ios::binary);
    std::stringstream ss;
    ss << in.rdbuf();
    return ss.str();
}

Fragment whole(const std::string &text) {
    Fragment f{1, {}};
    std::istringstream in(text);
    std::string line;
    while (std::getline(in, line))
        f.lines.push_back(line);
    return f;
}

// VERSION, PATCHLEVEL and SUBLEVEL of a top-level kernel Makefile.
std::string makefile_version(const std::string &text) {
    std::string v[3];
    const char *keys[3] = {"VERSION", "PATCHLEVEL", "SUBLEVEL"};
    std::istringstream in(text);
    std::string line;
    for (int n = 0; n < 40 && std::getline(in, line); ++n)
        for (int k = 0; k < 3; ++k) {
            std::string key = std::string(keys[k]) + " = ";
            if (line.rfind(key, 0) == 0)
                v[k] = line.substr(key.size());
        }
    if (v[0].empty() || v[1].empty())
        return "";
    return v[0] + "." + v[1] + (v[2].empty() ? "" : "." + v[2]);
}

// A private directory for the tarball's files
// (oracle/process.h: removed when it goes out of scope, and by the next run
// should this process be killed outright).
sys::TempDir private_dir() {
    try {
        return sys::TempDir(fs::temp_directory_path(), "schedcheck-kernel");
    } catch (const std::runtime_error &e) {
        throw extract_error(e.what());
    }
}

KernelSource from_tree(const std::string &origin, const fs::path &top, const std::vector<std::string> &files) {
    KernelSource src;
    src.origin = origin;
    for (const auto &f : files) {
        fs::path p = top / f;
        std::error_code ec;
        if (!fs::is_regular_file(p, ec))
            continue;
        std::string text = slurp(p);
        if (f == "Makefile")
            src.version = makefile_version(text);
        else {
            src.image.files[f] = {whole(text)};
            src.image.whole.insert(f); // a hunk may not reach past its end
        }
    }
    return src;
}

} // namespace

KernelSource read_kernel(const std::string &path, const std::vector<std::string> &files) {
    std::error_code ec;
    if (fs::is_directory(path, ec)) {
        if (!fs::is_directory(fs::path(path) / "kernel/sched", ec))
            throw extract_error(path + ": not a kernel tree (no kernel/sched directory)");
        return from_tree(path, path, files);
    }
    if (!fs::is_regular_file(path, ec))
        throw extract_error(path + ": no such directory or tarball");

    // A tarball: unpack only the wanted files, wherever the top directory
    // is called.  "Not found in archive" is not an error here (a file may
    // be missing); anything else tar or the decompressor says is.
    const sys::TempDir tmp = private_dir();
    std::vector<std::string> argv = {"tar", "-x", "-f", fs::absolute(path).string(), "-C", tmp.path.string(),
                                     "--wildcards", "--no-wildcards-match-slash"};
    for (const auto &f : files)
        argv.push_back("*/" + f);
    fs::path err = tmp.path / ".tar-stderr";
    sys::RunOptions ro;
    ro.err_file = err;
    ro.quiet = true;
    sys::RunResult rr = sys::run(argv, ro);
    if (!rr.spawned)
        throw extract_error(path + ": cannot run tar to unpack it (is tar installed?)");
    if (rr.signal)
        throw extract_error(path + ": tar was " + rr.describe() + " while unpacking it");
    int rc = rr.exit_code;
    std::string msg;
    {
        std::istringstream in(slurp(err));
        std::string line;
        while (std::getline(in, line))
            if (line.find("Not found in archive") == std::string::npos &&
                line.find("Exiting with failure status due to previous errors") == std::string::npos)
                msg += (msg.empty() ? "" : "; ") + line;
    }
    if (rc != 0 && !msg.empty())
        throw extract_error(path + ": not a readable kernel tarball (tar: " + msg + ")");
    fs::path top;
    for (const auto &e : fs::directory_iterator(tmp.path))
        if (e.is_directory() && fs::is_directory(e.path() / "kernel/sched", ec))
            top = e.path();
    if (top.empty())
        throw extract_error(path + ": the tarball holds no kernel tree (no */kernel/sched/" +
                            (files.size() > 1 ? files[1].substr(files[1].rfind('/') + 1) : "") + ")");
    return from_tree(path, top, files);
}

Image apply_patch_file(const KernelSource &src, const std::string &patch_file) {
    std::error_code ec;
    if (!fs::is_regular_file(patch_file, ec))
        throw extract_error(patch_file + ": no such file");
    Series s = parse_series(slurp(patch_file), patch_file);
    return apply_series(src.image, s, s.patches.size());
}

std::string major_minor(const std::string &version) {
    std::size_t a = version.find('.');
    if (a == std::string::npos)
        return version;
    std::size_t b = version.find('.', a + 1);
    return b == std::string::npos ? version : version.substr(0, b);
}

} // namespace sc::oracle
