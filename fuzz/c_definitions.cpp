// libFuzzer harness: the oracle's C tokenizer (oracle/tokens.h) and
// definition extractor (oracle/extract.h) on arbitrary text, whole or as a
// fragment that starts inside a comment.
//
// It only calls the oracle's public API.  What counts as a bug (the harness
// aborts), from the promises in those headers:
//   - the tokenizer throws (it "never throws");
//   - a token's byte range is out of order or outside the text, or its
//     text is not the source bytes of that range ("exact spelling");
//   - a definition's line range is backwards or its text does not end in
//     '\n'.
//
// Seeds: corpora/c_definitions/.
#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <string>
#include <string_view>

#include "oracle/extract.h"
#include "oracle/tokens.h"

namespace {

[[noreturn]] void bug(const char *what, const std::string &detail) {
    std::fprintf(stderr, "c_definitions: %s: %s\n", what, detail.c_str());
    std::abort();
}

void check_tokens(std::string_view text, bool in_comment) {
    sc::oracle::TokenizeOptions opt;
    opt.starts_in_comment = in_comment;
    auto toks = sc::oracle::tokenize(text, opt);
    std::size_t prev_end = 0;
    for (const auto &t : toks) {
        if (t.offset < prev_end || t.end < t.offset || t.end > text.size())
            bug("a token's byte range is out of order", t.text.substr(0, 80));
        if (text.substr(t.offset, t.end - t.offset) != t.text)
            bug("a token's text is not its source bytes", t.text.substr(0, 80));
        if (t.kind == sc::oracle::TokKind::directive)
            (void)sc::oracle::split_directive(t.text);
        prev_end = t.end;
    }
    (void)sc::oracle::emit(toks);
}

} // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t *data, std::size_t size) {
    const std::string text(reinterpret_cast<const char *>(data), size);
    check_tokens(text, false);
    check_tokens(text, true);
    (void)sc::oracle::begins_inside_comment(text);
    for (const auto &d : sc::oracle::definitions(text)) {
        if (d.last_line < d.first_line)
            bug("a definition ending before it starts", d.name);
        if (d.text.empty() || d.text.back() != '\n')
            bug("a definition text not ending in a newline", d.name);
    }
    return 0;
}
