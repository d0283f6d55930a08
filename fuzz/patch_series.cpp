// libFuzzer harness: the diff / mbox / mail-thread reader of the oracle
// (oracle/patch.h) and the definition extractor on the images it rebuilds,
// as `schedcheck oracle extract --patch FILE` runs them, on arbitrary bytes.
//
// It only calls the oracle's public API.  What counts as a bug (the harness
// aborts): any exception other than oracle::extract_error, and a definition
// whose line range is backwards or whose text does not end in '\n' (as
// oracle/extract.h promises).
//
// Seeds: corpora/patch_series/.
#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <string>

#include "oracle/extract.h"
#include "oracle/patch.h"

namespace {

[[noreturn]] void bug(const char *what, const std::string &detail) {
    std::fprintf(stderr, "patch_series: %s: %s\n", what, detail.c_str());
    std::abort();
}

void check_definitions(const sc::oracle::Image &img) {
    for (const auto &[path, frags] : img.files)
        for (const auto &f : frags)
            for (const auto &d : sc::oracle::definitions(f)) {
                if (d.last_line < d.first_line)
                    bug("a definition ending before it starts", path + ": " + d.name);
                if (d.text.empty() || d.text.back() != '\n')
                    bug("a definition text not ending in a newline", path + ": " + d.name);
            }
}

} // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t *data, std::size_t size) {
    const std::string text(reinterpret_cast<const char *>(data), size);
    try {
        sc::oracle::Series s = sc::oracle::parse_series(text, "fuzz.mbox");
        sc::oracle::Replay r(s);
        check_definitions(r.image());
        while (!r.done()) {
            r.step();
            check_definitions(r.changed());
        }
    } catch (const sc::oracle::extract_error &) {
    }
    return 0;
}
