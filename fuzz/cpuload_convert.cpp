// cpuload_convert: the property harness's binary input <-> reproducer JSON.
//
//   cpuload_convert to-bin  IN.json OUT.bin        an exact binary input for a reproducer
//   cpuload_convert to-json IN.bin  OUT.json [INVARIANT]
//                                                  the scenario bytes decode to, as a
//                                                  reproducer (default invariant:
//                                                  cpuload.no_overflow; the harness checks
//                                                  every PROVED one either way)
//   cpuload_convert corpus DIR                     every content-named (40 hex digits)
//                                                  reproducer in DIR replaced by its binary
//                                                  input, named by its SHA-1 as libFuzzer
//                                                  names corpus files; named files are kept
//
// Exit 0 done, 2 bad input (the message names the file and the reason).
#include <cstdio>
#include <filesystem>
#include <iostream>
#include <regex>
#include <string>

#include "fuzz/cpuload_bytes.h"
#include "proofs/domain.h"
#include "proofs/report/input_file.h"
#include "proofs/invariant.h"
#include "proofs/report/reproducer.h"
#include "ref/checked.h"
#include "ref/variants.h"

namespace fs = std::filesystem;
using namespace sc;
using namespace sc::fuzz_cpuload;

namespace {

const std::vector<const Variant *> &cpuload_variants() {
    static const std::vector<const Variant *> vs = [] {
        std::vector<const Variant *> out;
        for (const Variant &v : sc::variants())
            if (v.family == "cpuload")
                out.push_back(&v);
        return out;
    }();
    return vs;
}

// SHA-1 (FIPS 180-4), only to name corpus files the way libFuzzer does.
std::string sha1_hex(const std::string &msg) {
    std::uint32_t h[5] = {0x67452301, 0xEFCDAB89, 0x98BADCFE, 0x10325476, 0xC3D2E1F0};
    std::string m = msg;
    std::uint64_t bits = std::uint64_t(msg.size()) * 8;
    m.push_back(char(0x80));
    while (m.size() % 64 != 56)
        m.push_back(0);
    for (int i = 7; i >= 0; --i)
        m.push_back(char(bits >> (8 * i)));
    auto rol = [](std::uint32_t x, int n) { return (x << n) | (x >> (32 - n)); };
    for (std::size_t off = 0; off < m.size(); off += 64) {
        std::uint32_t w[80];
        for (int i = 0; i < 16; ++i)
            w[i] = std::uint32_t(std::uint8_t(m[off + 4 * i])) << 24 | std::uint32_t(std::uint8_t(m[off + 4 * i + 1])) << 16 |
                   std::uint32_t(std::uint8_t(m[off + 4 * i + 2])) << 8 | std::uint32_t(std::uint8_t(m[off + 4 * i + 3]));
        for (int i = 16; i < 80; ++i)
            w[i] = rol(w[i - 3] ^ w[i - 8] ^ w[i - 14] ^ w[i - 16], 1);
        std::uint32_t a = h[0], b = h[1], c = h[2], d = h[3], e = h[4];
        for (int i = 0; i < 80; ++i) {
            std::uint32_t f, k;
            if (i < 20)
                f = (b & c) | (~b & d), k = 0x5A827999;
            else if (i < 40)
                f = b ^ c ^ d, k = 0x6ED9EBA1;
            else if (i < 60)
                f = (b & c) | (b & d) | (c & d), k = 0x8F1BBCDC;
            else
                f = b ^ c ^ d, k = 0xCA62C1D6;
            std::uint32_t t = rol(a, 5) + f + e + k + w[i];
            e = d, d = c, c = rol(b, 30), b = a, a = t;
        }
        h[0] += a, h[1] += b, h[2] += c, h[3] += d, h[4] += e;
    }
    char buf[41];
    std::snprintf(buf, sizeof buf, "%08x%08x%08x%08x%08x", h[0], h[1], h[2], h[3], h[4]);
    return buf;
}

template <class A> std::string to_bin_arch(const proofs::Reproducer &rep, const std::string &origin) {
    const Limits lim = limits_for(A::arch);
    auto s = proofs::scenario_from_json<A>(rep.doc, A::long_bits);
    unsigned idx = 0;
    while (idx < cpuload_variants().size() && cpuload_variants()[idx] != rep.variant)
        ++idx;
    std::string why;
    auto bytes = encode<A>(idx, rep.variant->level, s, lim, why);
    if (!bytes)
        throw proofs::input_error(origin + ": cannot be a binary input: " + why);
    // The decoder must give the same scenario back, or the encoding is wrong.
    Bytes in{reinterpret_cast<const std::uint8_t *>(bytes->data()), bytes->size()};
    in.u8(), in.u8();
    auto back = decode<A>(in, std::uint8_t((*bytes)[1]), rep.variant->level, lim, 0);
    if (proofs::scenario_to_json(back) != proofs::scenario_to_json(s))
        throw proofs::internal_error(origin + ": the binary input does not decode to the same scenario");
    return *bytes;
}

std::string to_bin(const std::string &text, const std::string &origin) {
    proofs::Reproducer rep = proofs::parse_reproducer(text, origin);
    if (rep.variant->family != "cpuload")
        throw proofs::input_error(origin + ": variant " + rep.variant->id + " is not of the cpuload family");
    return rep.arch == Arch::lp64 ? to_bin_arch<checked_lp64>(rep, origin) : to_bin_arch<checked_ilp32>(rep, origin);
}

template <class A> std::string to_json_arch(Bytes &in, std::uint8_t flags, const Variant &v, const std::string &inv) {
    const Limits lim = limits_for(A::arch);
    std::uint64_t bound = 0;
    if ((flags & 0x1c) == 0x1c)
        throw proofs::input_error("a convergence run (flags bits 2-4) needs the converges bound; replay it with "
                                  "the harness instead");
    auto s = decode<A>(in, flags, v.level, lim, bound);
    std::vector<std::pair<std::string, std::uint64_t>> named;
    return proofs::make_reproducer(v, A::arch, inv, named, proofs::scenario_to_json(s), nlohmann::json::object())
               .dump(2) +
           "\n";
}

std::string to_json(const std::string &bytes, const std::string &inv) {
    if (!proofs::find_invariant(inv) || proofs::find_invariant(inv)->family != "cpuload")
        throw proofs::input_error("\"" + proofs::excerpt(inv) + "\" is not a cpuload invariant");
    Bytes in{reinterpret_cast<const std::uint8_t *>(bytes.data()), bytes.size()};
    const Variant &v = *cpuload_variants()[in.u8() % cpuload_variants().size()];
    std::uint8_t flags = in.u8();
    return (flags & 1) ? to_json_arch<checked_lp64>(in, flags, v, inv) : to_json_arch<checked_ilp32>(in, flags, v, inv);
}

int convert_corpus(const std::string &dir) {
    static const std::regex content_named("^[0-9a-f]{40}$");
    std::size_t converted = 0, kept = 0;
    std::vector<fs::path> files;
    for (const auto &e : fs::directory_iterator(dir))
        if (e.is_regular_file())
            files.push_back(e.path());
    for (const fs::path &p : files) {
        if (!std::regex_match(p.filename().string(), content_named))
            continue;
        std::string text = proofs::read_input_file(p.string(), proofs::InputKind::reproducer);
        auto k = text.find_first_not_of(" \t\r\n");
        if (k == std::string::npos || text[k] != '{')
            continue;
        std::string bin;
        try {
            bin = to_bin(text, p.string());
        } catch (const proofs::input_error &e) {
            ++kept; // not a valid reproducer (a mutated one): it still exercises the JSON reader
            continue;
        }
        proofs::write_file_atomic((p.parent_path() / sha1_hex(bin)).string(), bin);
        fs::remove(p);
        ++converted;
    }
    std::cout << dir << ": " << converted << " reproducer(s) converted to binary inputs, " << kept
              << " other JSON input(s) kept\n";
    return 0;
}

} // namespace

int main(int argc, char **argv) {
    std::vector<std::string> a(argv + 1, argv + argc);
    try {
        if (a.size() == 3 && a[0] == "to-bin") {
            std::string text = proofs::read_input_file(a[1], proofs::InputKind::reproducer);
            proofs::write_file_atomic(a[2], to_bin(text, a[1]));
            return 0;
        }
        if ((a.size() == 3 || a.size() == 4) && a[0] == "to-json") {
            std::string bytes = proofs::read_input_file(a[1], proofs::InputKind::reproducer);
            proofs::write_file_atomic(a[2], to_json(bytes, a.size() == 4 ? a[3] : "cpuload.no_overflow"));
            return 0;
        }
        if (a.size() == 2 && a[0] == "corpus")
            return convert_corpus(a[1]);
    } catch (const proofs::input_error &e) {
        std::cerr << "cpuload_convert: error: " << e.what() << "\n";
        return 2;
    } catch (const std::exception &e) {
        std::cerr << "cpuload_convert: INTERNAL ERROR: " << e.what() << "\n";
        return 3;
    }
    std::cerr << "usage: cpuload_convert to-bin IN.json OUT.bin | to-json IN.bin OUT.json [INVARIANT] | corpus DIR\n";
    return 2;
}
