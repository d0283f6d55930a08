#include "oracle/rewrite.h"

#include <optional>

#include "oracle/tokens.h"

namespace sc::oracle {

namespace {

bool specifier(const Token &t) {
    return t.kind == TokKind::identifier && (t.text == "unsigned" || t.text == "signed" || t.text == "long" ||
                                             t.text == "int" || t.text == "short" || t.text == "char" ||
                                             t.text == "double" || t.text == "float");
}

// The alias for a run of builtin specifiers, or nothing to keep it as is.
std::optional<std::string> alias_for(const std::vector<Token> &t, std::size_t b, std::size_t e, bool ints) {
    int uns = 0, lng = 0, shrt = 0, chr = 0, flt = 0;
    for (std::size_t k = b; k < e; ++k) {
        flt += t[k].text == "double" || t[k].text == "float";
        uns += t[k].text == "unsigned";
        lng += t[k].text == "long";
        shrt += t[k].text == "short";
        chr += t[k].text == "char";
    }
    if (chr || shrt || flt || lng > 2)
        return std::nullopt;
    if (lng == 2)
        return uns ? "sc_u64" : "sc_s64";
    if (lng == 1)
        return uns ? "sc_ulong" : "sc_slong";
    if (uns)
        return "sc_uint";
    if (ints)
        return "sc_sint";
    return std::nullopt; // int, signed, signed int
}

std::optional<std::string> alias_for_typedef(const std::vector<Token> &t, std::size_t k) {
    // A member access such as `x.u64` names a field, not the type.
    if (k > 0 && t[k - 1].kind == TokKind::punct && (t[k - 1].text == "." || t[k - 1].text == "->"))
        return std::nullopt;
    const std::string &w = t[k].text;
    if (w == "u64")
        return "sc_u64";
    if (w == "s64")
        return "sc_s64";
    if (w == "u32")
        return "sc_u32";
    return std::nullopt;
}

// An integer literal with an L or LL suffix, as a value of the model's
// type; nothing for any other number.
std::optional<std::string> typed_literal(const std::string &n) {
    std::size_t e = n.size();
    while (e > 0 && (n[e - 1] == 'u' || n[e - 1] == 'U' || n[e - 1] == 'l' || n[e - 1] == 'L'))
        --e;
    std::string digits = n.substr(0, e), suffix = n.substr(e);
    if (digits.empty() || n.find('.') != std::string::npos)
        return std::nullopt;
    int l = 0, u = 0;
    for (char c : suffix) {
        l += c == 'l' || c == 'L';
        u += c == 'u' || c == 'U';
    }
    if (l == 0)
        return std::nullopt;
    std::string type = l == 2 ? (u ? "sc_u64" : "sc_s64") : (u ? "sc_ulong" : "sc_slong");
    return type + "(" + digits + ")";
}

std::string rewrite_directive(const std::string &d, const RewriteOptions &opt) {
    DirectiveParts parts = split_directive(d);
    if (parts.name != "define")
        return d;
    // Rewrite the whole text after "define" as C; the '#' and name are kept.
    std::size_t at = d.find("define");
    std::string head = d.substr(0, at + 6);
    return head + rewrite_types(d.substr(at + 6), opt);
}

} // namespace

std::string rewrite_types(const std::string &text, const RewriteOptions &opt) {
    std::vector<Token> t = tokenize(text);
    std::string out;
    std::size_t copied = 0; // text[0, copied) is already in `out`
    auto replace = [&](std::size_t from, std::size_t to, const std::string &with) {
        out.append(text, copied, from - copied);
        out += with;
        copied = to;
    };
    for (std::size_t i = 0; i < t.size();) {
        if (t[i].kind == TokKind::directive) {
            std::string r = rewrite_directive(t[i].text, opt);
            if (r != t[i].text)
                replace(t[i].offset, t[i].end, r);
            ++i;
            continue;
        }
        if (specifier(t[i])) {
            std::size_t e = i;
            while (e < t.size() && specifier(t[e]))
                ++e;
            if (auto a = alias_for(t, i, e, opt.ints))
                replace(t[i].offset, t[e - 1].end, *a);
            i = e;
            continue;
        }
        if (opt.ints && t[i].is_ident("bool")) {
            replace(t[i].offset, t[i].end, "sc_bool");
            ++i;
            continue;
        }
        if (t[i].kind == TokKind::identifier)
            if (auto a = alias_for_typedef(t, i))
                replace(t[i].offset, t[i].end, *a);
        if (opt.literals && t[i].kind == TokKind::number)
            if (auto a = typed_literal(t[i].text))
                replace(t[i].offset, t[i].end, *a);
        ++i;
    }
    out.append(text, copied, std::string::npos);
    return out;
}

} // namespace sc::oracle
