#include "oracle/tokens.h"

#include <array>
#include <cctype>

namespace sc::oracle {

namespace {

bool ident_start(char c) { return std::isalpha(static_cast<unsigned char>(c)) || c == '_' || c == '$'; }
bool ident_char(char c) { return std::isalnum(static_cast<unsigned char>(c)) || c == '_' || c == '$'; }
bool digit(char c) { return std::isdigit(static_cast<unsigned char>(c)) != 0; }

// Longest first, so that the first match is the longest one.
constexpr std::array<std::string_view, 24> multi_puncts = {
    "<<=", ">>=", "...", "->", "++", "--", "<<", ">>", "<=", ">=", "==", "!=",
    "&&",  "||",  "+=",  "-=", "*=", "/=", "%=", "&=", "^=", "|=", "##", "::"};
constexpr std::string_view single_puncts = "[](){}.&*+-~!/%<>^|?:;=,#";

class Lexer {
public:
    Lexer(std::string_view s, const TokenizeOptions &o) : src(s), line(o.first_line) {
        if (o.starts_in_comment)
            skip_block_comment_body();
    }

    std::vector<Token> run() {
        std::vector<Token> out;
        for (;;) {
            skip_gap();
            if (pos >= src.size())
                break;
            Token t;
            t.offset = pos;
            t.line = line;
            t.space_before = gap_space;
            t.newline_before = gap_newline;
            lex_one(t);
            t.end = pos;
            t.text.assign(src.substr(t.offset, t.end - t.offset));
            out.push_back(std::move(t));
            line_start = false;
            gap_space = gap_newline = false;
        }
        return out;
    }

private:
    std::string_view src;
    std::size_t pos = 0;
    int line;
    bool line_start = true; // only whitespace/comments since the last real newline
    bool gap_space = false;
    bool gap_newline = false;

    char at(std::size_t i) const { return i < src.size() ? src[i] : '\0'; }

    void newline() {
        ++line;
        gap_newline = true;
        line_start = true;
    }

    // Inside a block comment, up to and including its "*/" (or the end).
    void skip_block_comment_body() {
        while (pos < src.size()) {
            if (src[pos] == '*' && at(pos + 1) == '/') {
                pos += 2;
                break;
            }
            if (src[pos] == '\n')
                newline();
            ++pos;
        }
        gap_space = true;
    }

    void skip_gap() {
        while (pos < src.size()) {
            char c = src[pos];
            if (c == '\n') {
                newline();
                gap_space = true;
                ++pos;
            } else if (c == ' ' || c == '\t' || c == '\r' || c == '\f' || c == '\v') {
                gap_space = true;
                ++pos;
            } else if (c == '\\' && (at(pos + 1) == '\n' || (at(pos + 1) == '\r' && at(pos + 2) == '\n'))) {
                // A line splice: not a new logical line.
                pos += at(pos + 1) == '\n' ? 2 : 3;
                ++line;
                gap_space = true;
            } else if (c == '/' && at(pos + 1) == '*') {
                pos += 2;
                skip_block_comment_body();
            } else if (c == '/' && at(pos + 1) == '/') {
                while (pos < src.size() && src[pos] != '\n')
                    ++pos;
                gap_space = true;
            } else {
                break;
            }
        }
    }

    // A quoted literal; an unterminated one stops at the end of the line.
    // Returns false when the closing quote was not found.
    bool quoted(char q) {
        ++pos;
        while (pos < src.size()) {
            char c = src[pos];
            if (c == '\\' && pos + 1 < src.size()) {
                if (src[pos + 1] == '\n')
                    ++line;
                pos += 2;
                continue;
            }
            if (c == '\n')
                return false;
            ++pos;
            if (c == q)
                return true;
        }
        return false;
    }

    void directive(Token &t) {
        t.kind = TokKind::directive;
        // To the end of the logical line; comments inside may span lines.
        while (pos < src.size()) {
            char c = src[pos];
            if (c == '\n')
                break;
            if (c == '\\' && (at(pos + 1) == '\n' || (at(pos + 1) == '\r' && at(pos + 2) == '\n'))) {
                pos += at(pos + 1) == '\n' ? 2 : 3;
                ++line;
            } else if (c == '/' && at(pos + 1) == '*') {
                pos += 2;
                while (pos < src.size() && !(src[pos] == '*' && at(pos + 1) == '/')) {
                    if (src[pos] == '\n')
                        ++line;
                    ++pos;
                }
                if (pos < src.size())
                    pos += 2;
            } else if (c == '/' && at(pos + 1) == '/') {
                while (pos < src.size() && src[pos] != '\n')
                    ++pos;
            } else if (c == '"' || c == '\'') {
                std::size_t save = pos;
                if (!quoted(c))
                    pos = save + 1; // a lone quote (e.g. in #error text)
            } else {
                ++pos;
            }
        }
        // Trailing blanks are not part of the spelling.
        while (pos > t.offset && (src[pos - 1] == ' ' || src[pos - 1] == '\t' || src[pos - 1] == '\r'))
            --pos;
    }

    void lex_one(Token &t) {
        char c = src[pos];
        if (c == '#' && line_start) {
            directive(t);
            return;
        }
        if (ident_start(c)) {
            std::size_t b = pos;
            while (pos < src.size() && ident_char(src[pos]))
                ++pos;
            std::string_view id = src.substr(b, pos - b);
            char q = at(pos);
            if ((q == '"' || q == '\'') && (id == "L" || id == "u" || id == "U" || id == "u8")) {
                t.kind = q == '"' ? TokKind::string : TokKind::character;
                if (!quoted(q))
                    t.kind = TokKind::other;
                return;
            }
            t.kind = TokKind::identifier;
            return;
        }
        if (digit(c) || (c == '.' && digit(at(pos + 1)))) {
            t.kind = TokKind::number;
            ++pos;
            while (pos < src.size()) {
                char d = src[pos];
                if ((d == '+' || d == '-') &&
                    (src[pos - 1] == 'e' || src[pos - 1] == 'E' || src[pos - 1] == 'p' || src[pos - 1] == 'P')) {
                    ++pos;
                } else if (ident_char(d) || d == '.') {
                    ++pos;
                } else {
                    break;
                }
            }
            return;
        }
        if (c == '"' || c == '\'') {
            std::size_t save = pos;
            if (quoted(c)) {
                t.kind = c == '"' ? TokKind::string : TokKind::character;
            } else if (c == '"') {
                t.kind = TokKind::other; // unterminated string: up to the end of the line
            } else {
                pos = save + 1; // a lone apostrophe, as in prose
                t.kind = TokKind::other;
            }
            return;
        }
        for (std::string_view p : multi_puncts) {
            if (src.substr(pos, p.size()) == p) {
                pos += p.size();
                t.kind = TokKind::punct;
                return;
            }
        }
        ++pos;
        t.kind = single_puncts.find(c) != std::string_view::npos ? TokKind::punct : TokKind::other;
    }
};

} // namespace

std::vector<Token> tokenize(std::string_view text, const TokenizeOptions &opt) {
    return Lexer(text, opt).run();
}

std::string emit(const std::vector<Token> &toks, std::size_t begin, std::size_t end) {
    std::string out;
    for (std::size_t i = begin; i < end && i < toks.size(); ++i) {
        const Token &t = toks[i];
        if (i > begin) {
            if (t.newline_before || toks[i - 1].kind == TokKind::directive)
                out += '\n';
            else if (t.space_before)
                out += ' ';
        }
        out += t.text;
    }
    return out;
}

DirectiveParts split_directive(const std::string &d) {
    // Join continuation lines first; the result keeps one space for each.
    std::string joined;
    for (std::size_t i = 0; i < d.size(); ++i) {
        if (d[i] == '\\' && i + 1 < d.size() && (d[i + 1] == '\n' || d[i + 1] == '\r')) {
            i += d[i + 1] == '\r' ? 2 : 1;
            joined += ' ';
            continue;
        }
        joined += d[i];
    }
    DirectiveParts p;
    std::size_t i = 0;
    if (i < joined.size() && joined[i] == '#')
        ++i;
    while (i < joined.size() && (joined[i] == ' ' || joined[i] == '\t'))
        ++i;
    std::size_t b = i;
    while (i < joined.size() && ident_char(joined[i]))
        ++i;
    p.name = joined.substr(b, i - b);
    p.body = joined.substr(i);
    return p;
}

bool begins_inside_comment(std::string_view text) {
    std::size_t close = text.find("*/");
    if (close == std::string_view::npos)
        return false;
    std::size_t open = text.find("/*");
    return open == std::string_view::npos || close < open;
}

} // namespace sc::oracle
