// libFuzzer harness: the expected-verdict reader (proofs/report/expected.h), as
// `schedcheck prove --expected FILE` uses it, on arbitrary bytes.
//
// What counts as a bug (the harness aborts):
//   - any exception other than input_error;
//   - an input_error message longer than max_message bytes, or one that
//     does not start with "ORIGIN:LINE: " (it must name file and line);
//   - an accepted file with an entry for an unknown variant or invariant,
//     or two entries for one (variant, invariant, arch).
//
// Seeds: corpora/expected_reader/.
#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <set>
#include <string>
#include <tuple>

#include "proofs/report/expected.h"
#include "proofs/invariant.h"
#include "proofs/kernel/kernel_invariants.h"

namespace {

constexpr std::size_t max_message = 1024;
const std::string origin = "fuzz-expected.txt";

[[noreturn]] void bug(const char *what, const std::string &detail) {
    std::fprintf(stderr, "expected_reader: %s: %s\n", what, detail.c_str());
    std::abort();
}

} // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t *data, std::size_t size) {
    const std::string text(reinterpret_cast<const char *>(data), size);
    try {
        auto entries = sc::proofs::parse_expected(text, origin);
        std::set<std::tuple<std::string, std::string, sc::Arch>> seen;
        for (const auto &e : entries) {
            if (!sc::proofs::find_subject(e.variant) || !sc::proofs::find_invariant(e.invariant))
                bug("accepted an unknown name", e.variant + " " + e.invariant);
            if (!seen.insert({e.variant, e.invariant, e.arch}).second)
                bug("accepted a proof twice", e.variant + " " + e.invariant);
        }
    } catch (const sc::proofs::input_error &e) {
        std::string m = e.what();
        if (m.size() > max_message)
            bug("an error message longer than max_message", m.substr(0, 300) + "...");
        std::size_t colon = origin.size();
        bool names_line = m.compare(0, colon + 1, origin + ":") == 0 && colon + 1 < m.size() &&
                          m[colon + 1] >= '1' && m[colon + 1] <= '9';
        if (!names_line)
            bug("an error message that does not name file and line", m.substr(0, 300));
    }
    return 0;
}
