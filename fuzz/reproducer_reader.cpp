// libFuzzer harness: the reproducer reader, as `schedcheck replay` and
// `explain` use it, on arbitrary bytes.
//
//   parse_reproducer (proofs/report/reproducer.h, proofs/report/input_file.h): JSON with
//   the depth, NUL-byte and duplicate-key checks, the header, the inputs,
//   and the cpuload scenario with every field's range;
//   then, for what it accepts, the replay on the concrete reference and the
//   reviewer report.
//
// What counts as a bug (the harness aborts):
//   - any exception other than input_error (the command would exit 3, or
//     die, on user input);
//   - an input_error message longer than max_message bytes (user text must
//     be echoed cut short, so a message stays readable whatever the input);
//   - a cpuload reproducer parse_reproducer accepts whose replay then
//     reports an input error about a field (parsing is meant to check the
//     scenario up front); the one exception is a step the variant's patch
//     level lacks (decay after 2/4), which only the variant can tell.
// Crashes, sanitizer reports and timeouts are found by libFuzzer itself.
//
// Seeds: corpora/reproducer_reader/; dictionary corpora/reproducer_reader.dict.
#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <optional>
#include <string>

#include "proofs/invariant.h"
#include "proofs/report/report.h"
#include "proofs/report/reproducer.h"

namespace {

constexpr std::size_t max_message = 1024;

[[noreturn]] void bug(const char *what, const std::string &detail) {
    std::fprintf(stderr, "reproducer_reader: %s: %s\n", what, detail.c_str());
    std::abort();
}

void check_message(const sc::proofs::input_error &e) {
    std::string m = e.what();
    if (m.size() > max_message)
        bug("an error message longer than max_message", m.substr(0, 300) + "...");
}

} // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t *data, std::size_t size) {
    const std::string text(reinterpret_cast<const char *>(data), size);
    std::optional<sc::proofs::Reproducer> parsed;
    try {
        parsed = sc::proofs::parse_reproducer(text, "fuzz-input.json");
    } catch (const sc::proofs::input_error &e) {
        check_message(e);
        return 0;
    }
    const sc::proofs::Reproducer &rep = *parsed;
    try {
        sc::proofs::ReplayResult rr = rep.invariant->replay(*rep.variant, rep.arch, rep.doc);
        std::string report = sc::proofs::reviewer_report(rep, rr, "fuzz-input.json");
        (void)report;
    } catch (const sc::proofs::input_error &e) {
        check_message(e);
        std::string m = e.what();
        bool patch_level = m.find("does not exist at this patch level") != std::string::npos;
        // Only the cpuload scenario is checked whole at parse time; the pelt
        // and utilest families check their named case when they replay.
        if (!patch_level && rep.invariant->family == "cpuload")
            bug("parse_reproducer accepted a file that replay rejects", m);
    }
    return 0;
}
