#include "oracle/extract.h"

#include <algorithm>
#include <set>

#include "oracle/tokens.h"

namespace sc::oracle {

const char *kind_name(DefKind k) {
    switch (k) {
    case DefKind::function: return "function";
    case DefKind::table: return "table";
    case DefKind::object: return "object";
    case DefKind::macro: return "macro";
    }
    return "?";
}

namespace {

constexpr std::size_t npos = static_cast<std::size_t>(-1);

const std::set<std::string> &statement_words() {
    static const std::set<std::string> s = {"if",     "else",  "while",    "for",        "switch",   "do",
                                            "return", "case",  "default",  "goto",       "break",    "continue",
                                            "sizeof", "typeof", "__typeof__", "_Alignof", "defined"};
    return s;
}

// Annotations written like calls: `__attribute__((x))`, `__acquires(lock)`.
bool attribute_word(const std::string &w) {
    static const std::set<std::string> s = {"__attribute__", "__attribute", "__aligned",  "__section",
                                            "__printf",      "__scanf",     "__acquires", "__releases",
                                            "__must_hold",   "__cond_lock", "__alloc_size"};
    return s.count(w) != 0;
}

const std::set<std::string> &type_words() {
    static const std::set<std::string> s = {"void",   "char",  "short",  "int",    "long",     "float",
                                            "double", "signed", "unsigned", "const", "volatile", "static",
                                            "extern", "inline", "struct", "union",  "enum",     "register"};
    return s;
}

class Scanner {
public:
    Scanner(const std::string &src, int first_line) : src(src) {
        TokenizeOptions o;
        o.first_line = first_line;
        o.starts_in_comment = begins_inside_comment(src);
        t = tokenize(src, o);
    }

    std::vector<Definition> run() {
        macros();
        top_level(start_of_top_level());
        std::sort(out.begin(), out.end(), [](const Definition &a, const Definition &b) {
            return a.first_line < b.first_line;
        });
        return out;
    }

private:
    const std::string &src;
    std::vector<Token> t;
    std::vector<Definition> out;

    bool p(std::size_t i, const char *s) const { return i < t.size() && t[i].kind == TokKind::punct && t[i].text == s; }

    // Kernel style writes file-scope definitions from column 0; a local
    // variable of a function cut open by a hunk is indented.
    bool at_column0(std::size_t i) const { return t[i].offset == 0 || src[t[i].offset - 1] == '\n'; }

    void add(DefKind k, const std::string &name, std::size_t b, std::size_t e) {
        Definition d;
        d.kind = k;
        d.name = name;
        d.text = src.substr(t[b].offset, t[e].end - t[b].offset) + "\n";
        d.first_line = t[b].line;
        d.last_line = t[e].line + static_cast<int>(std::count(t[e].text.begin(), t[e].text.end(), '\n'));
        out.push_back(std::move(d));
    }

    // Index of the token closing the group opened at i, or npos.
    std::size_t match(std::size_t i) const {
        const std::string open = t[i].text;
        const std::string close = open == "(" ? ")" : open == "[" ? "]" : "}";
        int depth = 0;
        for (std::size_t j = i; j < t.size(); ++j) {
            if (t[j].kind != TokKind::punct)
                continue;
            if (t[j].text == open)
                ++depth;
            else if (t[j].text == close && --depth == 0)
                return j;
        }
        return npos;
    }

    void macros() {
        for (std::size_t i = 0; i < t.size(); ++i) {
            if (t[i].kind != TokKind::directive)
                continue;
            const std::string &d = t[i].text;
            if (!d.empty() && d.back() == '\\')
                continue; // continues past the end of the text
            DirectiveParts parts = split_directive(d);
            if (parts.name != "define")
                continue;
            auto dt = tokenize(parts.body);
            if (!dt.empty() && dt[0].kind == TokKind::identifier)
                add(DefKind::macro, dt[0].text, i, i);
        }
    }

    // A piece that begins inside a function or struct shows it by closing
    // braces it never opened.  Everything up to the last such brace is not
    // top level.
    std::size_t start_of_top_level() const {
        int depth = 0, lowest = 0;
        std::size_t after = 0;
        for (std::size_t i = 0; i < t.size(); ++i) {
            if (p(i, "{"))
                ++depth;
            else if (p(i, "}") && --depth < lowest) {
                lowest = depth;
                after = i + 1;
            }
        }
        return after;
    }

    // The next ';' at nesting depth 0 from i, or npos.
    std::size_t statement_end(std::size_t i) const {
        for (; i < t.size(); ++i) {
            if (p(i, ";"))
                return i;
            if (p(i, "(") || p(i, "[") || p(i, "{")) {
                i = match(i);
                if (i == npos)
                    return npos;
            }
        }
        return npos;
    }

    // Tokens that may make up a type in front of a declared name.
    bool type_prefix_ok(std::size_t b, std::size_t e) const {
        int words = 0;
        for (std::size_t k = b; k < e; ++k) {
            if (t[k].kind == TokKind::identifier) {
                if (statement_words().count(t[k].text))
                    return false;
                if (attribute_word(t[k].text) && p(k + 1, "(")) {
                    std::size_t c = match(k + 1);
                    if (c == npos || c >= e)
                        return false;
                    k = c;
                    continue;
                }
                ++words;
            } else if (!p(k, "*")) {
                return false;
            }
        }
        return words > 0;
    }

    // A parameter list (tokens strictly between b and e) as a definition
    // writes it: declarations separated by commas, no expressions.
    bool params_ok(std::size_t b, std::size_t e) const {
        if (b + 1 == e)
            return true; // ()
        std::size_t count = 0;
        bool single_word = false;
        auto finish = [&]() {
            bool ok = count >= 2 || (count == 1 && single_word);
            count = 0;
            single_word = false;
            return ok;
        };
        for (std::size_t k = b + 1; k < e; ++k) {
            const Token &x = t[k];
            if (x.kind == TokKind::punct && x.text == ",") {
                if (!finish())
                    return false;
                continue;
            }
            bool allowed = x.kind == TokKind::identifier || x.kind == TokKind::number ||
                           (x.kind == TokKind::punct && (x.text == "*" || x.text == "(" || x.text == ")" ||
                                                         x.text == "[" || x.text == "]" || x.text == "..." ||
                                                         x.text == "+" || x.text == "-"));
            if (!allowed || (x.kind == TokKind::identifier && statement_words().count(x.text)))
                return false;
            if (count == 0)
                single_word = x.text == "void" || x.text == "...";
            ++count;
        }
        return finish();
    }

    // Is [b, brace) the head of a function definition?  Gives its name.
    std::optional<std::string> function_head(std::size_t b, std::size_t brace) const {
        for (std::size_t k = b; k < brace; ++k) {
            if (!p(k, "("))
                continue;
            std::size_t close = match(k);
            if (close == npos || close >= brace)
                return std::nullopt;
            if (k > b && t[k - 1].kind == TokKind::identifier && !attribute_word(t[k - 1].text)) {
                const std::string &name = t[k - 1].text;
                if (statement_words().count(name) || type_words().count(name))
                    return std::nullopt;
                if (!type_prefix_ok(b, k - 1) || !params_ok(k, close))
                    return std::nullopt;
                for (std::size_t j = close + 1; j < brace; ++j)
                    if (p(j, "=") || p(j, ";"))
                        return std::nullopt;
                return name;
            }
            k = close;
        }
        return std::nullopt;
    }

    // The declared name in front of an initialiser's '='.
    std::optional<std::string> object_name(std::size_t b, std::size_t eq) const {
        std::size_t k = eq;
        // `t[] __maybe_unused = {`: an annotation after the brackets.
        if (k > b + 1 && t[k - 1].kind == TokKind::identifier && t[k - 1].text.rfind("__", 0) == 0 &&
            p(k - 2, "]"))
            --k;
        while (k > b && p(k - 1, "]")) {
            // back to the matching '['
            int depth = 0;
            std::size_t j = k - 1;
            for (;; --j) {
                if (p(j, "]"))
                    ++depth;
                else if (p(j, "[") && --depth == 0)
                    break;
                if (j == b)
                    return std::nullopt;
            }
            k = j;
        }
        if (k == b || t[k - 1].kind != TokKind::identifier)
            return std::nullopt;
        std::size_t name = k - 1;
        // `int foo __read_mostly = 1;`: skip an annotation after the name.
        if (t[name].text.rfind("__", 0) == 0 && name > b && t[name - 1].kind == TokKind::identifier &&
            !type_words().count(t[name - 1].text))
            --name;
        if (statement_words().count(t[name].text) || type_words().count(t[name].text))
            return std::nullopt;
        if (!type_prefix_ok(b, name))
            return std::nullopt;
        return t[name].text;
    }

    void top_level(std::size_t i) {
        std::size_t start = i;
        while (i < t.size()) {
            const Token &x = t[i];
            if (x.kind == TokKind::directive || p(i, ";") || p(i, "}")) {
                start = ++i;
                continue;
            }
            if (p(i, "(") || p(i, "[")) {
                std::size_t c = match(i);
                if (c == npos)
                    return;
                i = c + 1;
                continue;
            }
            if (p(i, "=")) {
                std::size_t end = statement_end(i + 1);
                if (end == npos)
                    return; // the initialiser runs past the end
                auto name = object_name(start, i);
                if (name && at_column0(start))
                    add(p(i + 1, "{") ? DefKind::table : DefKind::object, *name, start, end);
                start = i = end + 1;
                continue;
            }
            if (p(i, "{")) {
                std::size_t close = match(i);
                if (close == npos)
                    return; // a body that is not wholly inside
                auto name = function_head(start, i);
                if (name && at_column0(start)) {
                    add(DefKind::function, *name, start, close);
                    start = i = close + 1;
                } else {
                    i = close + 1; // struct, union, enum: its ';' ends the declaration
                }
                continue;
            }
            ++i;
        }
    }
};

} // namespace

std::vector<Definition> definitions(const std::string &source, int first_line) {
    return Scanner(source, first_line).run();
}

std::vector<Definition> definitions(const Fragment &f) { return definitions(f.text(), f.first_line); }

const Definition *find(const std::vector<Definition> &defs, const std::string &name, std::optional<DefKind> kind) {
    for (const auto &d : defs)
        if (d.name == name && (!kind || d.kind == *kind))
            return &d;
    return nullptr;
}

std::optional<Definition> find_definition(const Image &img, const std::string &path, const std::string &name,
                                          std::optional<DefKind> kind) {
    const auto *frs = img.file(path);
    if (!frs)
        return std::nullopt;
    for (const auto &f : *frs) {
        auto defs = definitions(f);
        if (const Definition *d = find(defs, name, kind))
            return *d;
    }
    return std::nullopt;
}

} // namespace sc::oracle
