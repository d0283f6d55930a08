#include "oracle/header_stamp.h"

#include <algorithm>
#include <cstdio>
#include <fstream>
#include <iterator>
#include <stdexcept>
#include <vector>

namespace sc::oracle {

namespace fs = std::filesystem;

namespace {

// A name with its NUL, as a separator.
void add_text(Fnv1a64 &h, const std::string &s) { h.add(s.data(), s.size() + 1); }

} // namespace

std::string header_stamp(const fs::path &root) {
    std::vector<std::string> files; // relative, '/'-separated: the same on every machine
    for (const char *dir : {"ref", "model", "proofs", "sim"}) {
        if (!fs::is_directory(root / dir))
            throw std::runtime_error("no " + (root / dir).string() + " folder");
        for (const auto &e : fs::recursive_directory_iterator(root / dir))
            if (e.is_regular_file() && e.path().extension() == ".h")
                files.push_back(e.path().lexically_relative(root).generic_string());
    }
    for (const char *f : {"fuzz/differential.cpp", "fuzz/harness_io.h"})
        if (fs::is_regular_file(root / f))
            files.push_back(f);
    std::sort(files.begin(), files.end());
    Fnv1a64 h;
    std::vector<char> buf;
    for (const auto &f : files) {
        std::ifstream in(root / f, std::ios::binary);
        if (!in)
            throw std::runtime_error("cannot read " + (root / f).string());
        buf.assign(std::istreambuf_iterator<char>(in), {});
        add_text(h, f);
        add_text(h, std::to_string(buf.size()));
        h.add(buf.data(), buf.size());
    }
    char hex[17];
    std::snprintf(hex, sizeof hex, "%016llx", static_cast<unsigned long long>(h.h));
    return hex;
}

} // namespace sc::oracle
