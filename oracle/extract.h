// Top-level definitions found in a piece of C source.
//
// The piece may be a whole file or a fragment rebuilt from diff hunks (see
// patch.h), which can begin in the middle of a comment or of a function and
// end anywhere.  Only definitions that lie wholly inside it are returned:
// - functions: return type, name, parameter list, balanced body;
// - tables and objects: file-scope definitions with an initialiser, e.g.
//   `static const unsigned char t[N][M] = { ... };` (kind table when the
//   initialiser is braced, object otherwise);
// - macros: every complete #define, wherever it appears (a macro is
//   file-scope even when written inside a struct).
// The work is done on tokens (tokens.h), so comments, strings and
// preprocessor lines cannot confuse it.
#pragma once
#include <optional>
#include <string>
#include <vector>

#include "oracle/patch.h"

namespace sc::oracle {

enum class DefKind { function, table, object, macro };

const char *kind_name(DefKind k);

struct Definition {
    DefKind kind;
    std::string name;
    std::string text;   // the exact source, from its first token to its last, ending with '\n'
    int first_line = 0;
    int last_line = 0;
};

std::vector<Definition> definitions(const std::string &source, int first_line = 1);
std::vector<Definition> definitions(const Fragment &f);

// The first definition with that name (and kind, when given), or null.
const Definition *find(const std::vector<Definition> &defs, const std::string &name,
                       std::optional<DefKind> kind = std::nullopt);

// Searches every fragment of one file of an image.
std::optional<Definition> find_definition(const Image &img, const std::string &path, const std::string &name,
                                          std::optional<DefKind> kind = std::nullopt);

} // namespace sc::oracle
