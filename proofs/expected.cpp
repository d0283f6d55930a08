#include "proofs/expected.h"

#include <sstream>

namespace sc::proofs {

extern const char *const expected_verdicts_text;

std::vector<ExpectedEntry> parse_expected(const std::string &text, const std::string &origin) {
    std::vector<ExpectedEntry> out;
    std::istringstream in(text);
    std::string line;
    for (int lineno = 1; std::getline(in, line); ++lineno) {
        if (auto h = line.find('#'); h != std::string::npos)
            line.erase(h);
        std::istringstream ls(line);
        std::string v, i, a, verdict, extra;
        if (!(ls >> v))
            continue;
        if (!(ls >> i >> a >> verdict) || (ls >> extra))
            throw input_error(origin + ":" + std::to_string(lineno) +
                              ": expected \"<variant> <invariant> <arch> <verdict>\"");
        ExpectedEntry e{v, i, Arch::lp64, Verdict::UNKNOWN};
        if (a == "ilp32")
            e.arch = Arch::ilp32;
        else if (a != "lp64")
            throw input_error(origin + ":" + std::to_string(lineno) + ": unknown arch \"" + a + "\"");
        if (verdict == "PROVED")
            e.verdict = Verdict::PROVED;
        else if (verdict == "COUNTEREXAMPLE")
            e.verdict = Verdict::COUNTEREXAMPLE;
        else if (verdict != "UNKNOWN")
            throw input_error(origin + ":" + std::to_string(lineno) + ": unknown verdict \"" + verdict + "\"");
        out.push_back(e);
    }
    return out;
}

const std::vector<ExpectedEntry> &builtin_expected() {
    static const std::vector<ExpectedEntry> e =
        parse_expected(expected_verdicts_text, "proofs/expected/verdicts.txt");
    return e;
}

std::optional<Verdict> expected_verdict(const std::string &variant, const std::string &invariant, Arch a) {
    for (const ExpectedEntry &e : builtin_expected())
        if (e.variant == variant && e.invariant == invariant && e.arch == a)
            return e.verdict;
    return std::nullopt;
}

} // namespace sc::proofs
