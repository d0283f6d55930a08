#include "proofs/report/expected.h"

#include <map>
#include <sstream>

#include <fmt/format.h>

#include "proofs/report/input_file.h"
#include "proofs/kernel/kernel_invariants.h"

namespace sc::proofs {

extern const char *const expected_verdicts_text;

std::vector<ExpectedEntry> parse_expected(const std::string &text, const std::string &origin) {
    std::vector<ExpectedEntry> out;
    std::vector<int> out_line; // the line each entry came from
    std::map<std::string, std::size_t> seen; // "variant invariant arch" -> its entry
    std::istringstream in(text);
    std::string line;
    for (int lineno = 1; std::getline(in, line); ++lineno) {
        auto fail = [&](const std::string &why) {
            return input_error(origin + ":" + std::to_string(lineno) + ": " + why);
        };
        if (auto h = line.find('#'); h != std::string::npos)
            line.erase(h);
        std::istringstream ls(line);
        std::string v, i, a, verdict, extra;
        if (!(ls >> v))
            continue;
        if (!(ls >> i >> a >> verdict) || (ls >> extra))
            throw fail("expected \"<variant> <invariant> <arch> <verdict>\", got \"" + excerpt(line) + "\"");
        // Names are checked, not whether the invariant applies: that can
        // depend on the build (a kernel subject without its oracle).
        if (!find_subject(v))
            throw fail("unknown variant \"" + excerpt(v) + "\" (see `schedcheck variants`)");
        if (!find_invariant(i))
            throw fail("unknown invariant \"" + excerpt(i) + "\" (see `schedcheck invariants`)");
        ExpectedEntry e{v, i, Arch::lp64, Verdict::UNKNOWN};
        if (a == "ilp32")
            e.arch = Arch::ilp32;
        else if (a != "lp64")
            throw fail("unknown arch \"" + excerpt(a) + "\" (ilp32 or lp64)");
        if (verdict == "PROVED")
            e.verdict = Verdict::PROVED;
        else if (verdict == "COUNTEREXAMPLE")
            e.verdict = Verdict::COUNTEREXAMPLE;
        else if (verdict != "UNKNOWN")
            throw fail("unknown verdict \"" + excerpt(verdict) + "\" (PROVED, COUNTEREXAMPLE or UNKNOWN)");
        // The same proof twice: harmless when the lines agree, a mistake
        // when they do not (which one was meant?).
        auto [at, fresh] = seen.emplace(v + ' ' + i + ' ' + a, out.size());
        if (fresh) {
            out.push_back(e);
            out_line.push_back(lineno);
        } else if (out[at->second].verdict != e.verdict) {
            throw fail(fmt::format("{} {} {} is {} here but {} on line {}", v, i, a, verdict_name(e.verdict),
                                   verdict_name(out[at->second].verdict), out_line[at->second]));
        }
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
