// libFuzzer harness: the oracle manifest reader (proofs/kernel/oracle_manifest.h),
// as `oracle list` and every plug-in load use it, on arbitrary bytes.
//
// What counts as a bug (the harness aborts):
//   - any exception other than input_error;
//   - an input_error message longer than max_message bytes, or one that
//     does not start with "ORIGIN: " (it must name the file);
//   - an accepted manifest whose id or plug-in file is not a valid oracle
//     name (it becomes a path and an #include), or whose checksum is not
//     16 lower-case hex digits.
//
// Seeds: corpora/oracle_manifest/.
#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <string>

#include "proofs/invariant.h"
#include "proofs/kernel/oracle_manifest.h"
#include "proofs/kernel/oracle_plugin.h"

namespace {

constexpr std::size_t max_message = 1024;
const std::string origin = "oracles/fuzz.json";

[[noreturn]] void bug(const char *what, const std::string &detail) {
    std::fprintf(stderr, "oracle_manifest: %s: %s\n", what, detail.c_str());
    std::abort();
}

} // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t *data, std::size_t size) {
    const std::string text(reinterpret_cast<const char *>(data), size);
    try {
        auto m = sc::proofs::parse_oracle_manifest(text, origin);
        if (!m)
            return 0;
        if (!sc::proofs::valid_oracle_name(m->id) || !sc::proofs::valid_oracle_name(m->plugin))
            bug("accepted an invalid name", m->id + " / " + m->plugin);
        if (m->plugin_fnv1a64 &&
            (m->plugin_fnv1a64->size() != 16 || m->plugin_fnv1a64->find_first_not_of("0123456789abcdef") != std::string::npos))
            bug("accepted a malformed checksum", *m->plugin_fnv1a64);
    } catch (const sc::proofs::input_error &e) {
        std::string m = e.what();
        if (m.size() > max_message)
            bug("an error message longer than max_message", m.substr(0, 300) + "...");
        if (m.compare(0, origin.size() + 2, origin + ": ") != 0)
            bug("an error message that does not name the file", m.substr(0, 300));
    }
    return 0;
}
