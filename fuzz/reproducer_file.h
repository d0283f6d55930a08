// A fuzz harness's failing input, kept as a reproducer: the raw bytes in
// $SCHEDCHECK_REPRO_DIR (or the current directory) as PREFIX-<FNV-1a
// hash>.bin, written to a temporary file first so that a reader never sees
// half of one.  Returns the path, or "" (with a message) when it could not
// be written.  Header-only: the plug-in build of the differential fuzzer
// compiles it from the installed headers.
#pragma once
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <string>
#include <unistd.h>

namespace sc::fuzz {

inline std::string write_reproducer(const char *prefix, const std::uint8_t *data, std::size_t size) {
    std::uint64_t h = 1469598103934665603ULL;
    for (std::size_t k = 0; k < size; ++k)
        h = (h ^ data[k]) * 1099511628211ULL;
    const char *dir = std::getenv("SCHEDCHECK_REPRO_DIR");
    std::string base = (dir && *dir) ? std::string(dir) + "/" : std::string();
    char name[96];
    std::snprintf(name, sizeof name, "%s-%016llx.bin", prefix, (unsigned long long)h);
    std::string path = base + name;
    std::string tmp = path + ".tmp." + std::to_string(getpid());
    std::FILE *f = std::fopen(tmp.c_str(), "wb");
    bool ok = f && std::fwrite(data, 1, size, f) == size;
    if (f)
        ok = std::fclose(f) == 0 && ok;
    if (!ok || std::rename(tmp.c_str(), path.c_str()) != 0) {
        std::fprintf(stderr, "%s: could not write the reproducer %s\n", prefix, path.c_str());
        std::remove(tmp.c_str());
        return "";
    }
    return path;
}

// This very binary, for the replay command a report prints.
inline std::string self_path(const char *fallback) {
    char self[4096];
    ssize_t n = readlink("/proc/self/exe", self, sizeof self - 1);
    if (n <= 0)
        return fallback;
    self[n] = '\0';
    return self;
}

} // namespace sc::fuzz
