// From extracted kernel definitions to a C++ class template that compiles
// against any arithmetic A (ref/kernel.h, ref/checked.h, model/sym.h).
//
// The class holds the shims the extracted text expects (a struct rq reduced
// to the fields used, cpu_rq(), weighted_cpuload(), sched_feat() as an
// input, min()/max(), statistics counters as no-ops), then the extracted
// macros, tables and functions, with the builtin integer types rewritten to
// A's (oracle/rewrite.h).  Everything is generated at build time from the
// kernel text the user has; nothing of it is kept in the repository.
#pragma once
#include <string>
#include <vector>

#include "oracle/extract.h"
#include "oracle/rewrite.h"

namespace sc::oracle {

struct OracleSpec {
    std::string name;        // C++ identifier of the class template
    std::string id;          // user-facing name, e.g. "seed000-pre"
    std::string description; // where it comes from
    Image image;
};

// A definition's text as a member of a generated class template:
// functions become static member functions, file-scope tables static
// constexpr members; types rewritten as `opt` says.
std::string as_member(const Definition &d, const RewriteOptions &opt);

// The cpuload definitions looked for in an image, by file.
struct Wanted {
    std::string path, name;
};
const std::vector<Wanted> &cpuload_wanted();

// One class template per spec, in namespace sc::oracle_gen.  found[k] lists
// the definitions spec k provides.
std::string generate_cpuload(const std::vector<OracleSpec> &specs, std::vector<std::vector<std::string>> &found);

} // namespace sc::oracle
