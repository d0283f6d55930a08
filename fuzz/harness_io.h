// What the differential harnesses share: reading their little-endian
// input, printing the two sides of a mismatch, and keeping the failing
// input as a reproducer.  Header-only: the plug-in build of the
// differential fuzzer compiles it from the installed headers.
#pragma once
#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <string>
#include <unistd.h>

namespace sc::fuzz {

// Fixed-size little-endian fields; bytes past the end read as 0, so every
// prefix of an input is an input.
struct Bytes {
    const std::uint8_t *p;
    std::size_t n, i = 0;

    bool more() const { return i < n; }
    std::uint64_t le(int k) {
        std::uint64_t v = 0;
        for (int j = 0; j < k; ++j, ++i)
            if (i < n)
                v |= std::uint64_t(p[i]) << (8 * j);
        return v;
    }
};

// One compared value, on both sides.
struct Field {
    const char *name;
    std::uint64_t ref, ora;
};

// The table of a mismatch report: a line per field, the differing ones marked.
inline void print_fields(const Field *fs, int n) {
    std::fprintf(stderr, "%-26s %22s %22s\n", "field", "reference", "oracle");
    for (int k = 0; k < n; ++k)
        std::fprintf(stderr, "%-26s %22llu %22llu%s\n", fs[k].name, (unsigned long long)fs[k].ref,
                     (unsigned long long)fs[k].ora, fs[k].ref != fs[k].ora ? "   <-- differs" : "");
}

// The failing input, kept: the raw bytes in $SCHEDCHECK_REPRO_DIR (or the
// current directory) as PREFIX-<FNV-1a hash>.bin, written to a temporary
// file first so that a reader never sees half of one.  Returns the path,
// or "" (with a message) when it could not be written.
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
