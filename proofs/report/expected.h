// Expected verdicts: proofs/expected/verdicts.txt, one line per
//   <variant> <invariant> <arch> <PROVED|COUNTEREXAMPLE|UNKNOWN>
// with '#' comments.  `schedcheck prove` exits 1 when a verdict differs, so
// CI notices a change in what is proved.  The file is compiled in.
#pragma once
#include <optional>
#include <string>
#include <vector>

#include "proofs/invariant.h"

namespace sc::proofs {

struct ExpectedEntry {
    std::string variant, invariant;
    Arch arch;
    Verdict verdict;
    // Empty for a line of the file; else where the entry came from (an
    // oracle made by `oracle build`, in cli/commands.cpp).
    std::string basis;
};

std::vector<ExpectedEntry> parse_expected(const std::string &text, const std::string &origin);
const std::vector<ExpectedEntry> &builtin_expected();
std::optional<Verdict> expected_verdict(const std::string &variant, const std::string &invariant, Arch a);

} // namespace sc::proofs
