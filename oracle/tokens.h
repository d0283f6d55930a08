// A small C tokenizer for the oracle's extractor and type rewriter.
//
// It understands just enough of C to find definitions and type names in
// kernel source without being fooled by comments, string literals or
// preprocessor lines: identifiers, numbers (pp-numbers, so 1UL, 0x3f and
// 1e3 are one token each), string and character literals, punctuators
// (longest match, so "->", "<<=" and "..." are single tokens) and whole
// preprocessor directives (one logical line, backslash continuations
// included, as a single token).
//
// Comments are not tokens.  They count as whitespace: each token records
// whether whitespace (or a comment) came before it and whether that gap held
// a newline, so that a token range can be printed again as valid C.
// Every token also keeps its exact spelling and its byte range in the
// source, so callers can copy original text verbatim.
//
// The tokenizer never throws: text that is not C (the prose tail of a
// comment cut by a diff hunk, a stray quote) comes out as `other` tokens.
#pragma once
#include <cstddef>
#include <string>
#include <string_view>
#include <vector>

namespace sc::oracle {

enum class TokKind { identifier, number, string, character, punct, directive, other };

struct Token {
    TokKind kind;
    std::string text;         // exact source spelling
    int line = 0;             // line of the first character
    std::size_t offset = 0;   // byte offset of the first character
    std::size_t end = 0;      // byte offset one past the last character
    bool space_before = false;   // whitespace or a comment separates it from the previous token
    bool newline_before = false; // ... and that gap held a line break

    bool is(std::string_view s) const { return text == s; }
    bool is_ident(std::string_view s) const { return kind == TokKind::identifier && text == s; }
};

struct TokenizeOptions {
    int first_line = 1;              // line number of the text's first line
    bool starts_in_comment = false;  // the text begins inside a /* ... */ comment
};

std::vector<Token> tokenize(std::string_view text, const TokenizeOptions &opt = {});

// Print tokens [begin, end) again: one space where the source had
// whitespace or a comment, a line break where that gap held one.
std::string emit(const std::vector<Token> &toks, std::size_t begin, std::size_t end);
inline std::string emit(const std::vector<Token> &toks) { return emit(toks, 0, toks.size()); }

// The text of a directive token with its leading '#' and the directive
// name removed and backslash-newlines joined: for "#define X 1" it gives
// name "define" and body " X 1".
struct DirectiveParts {
    std::string name;
    std::string body;
};
DirectiveParts split_directive(const std::string &directive_text);

// A crude but useful guess: does this text begin inside a block comment?
// True when a "*/" occurs before any "/*".
bool begins_inside_comment(std::string_view text);

} // namespace sc::oracle
