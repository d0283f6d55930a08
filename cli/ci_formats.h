// The reports CI dashboards read: JUnit XML and SARIF 2.1.0.
#pragma once
#include <map>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "proofs/report/expected.h"
#include "proofs/invariant.h"

namespace sc::cli {

// The expected verdict of a result in `expected`, or null.
const proofs::ExpectedEntry *find_expected(const std::vector<proofs::ExpectedEntry> &expected,
                                           const proofs::ProofResult &r);

// JUnit XML: one <testcase> per proof (classname = variant, name =
// "invariant arch"), failed when the verdict differs from the expected
// file; the failure text is the reviewer report (or the verdict's reason
// when there is no counterexample).  `reports` maps job_key() to a report.
std::string junit_xml(const std::vector<proofs::ProofResult> &results,
                      const std::vector<proofs::ExpectedEntry> &expected,
                      const std::map<std::string, std::string> &reports);

// Where a reviewer looks for the code an invariant is about.
struct SourceLocation {
    std::string uri;        // relative path: "ref/cpuload.h", "kernel/sched/pelt.c"
    std::string uri_base;   // "SRCROOT" (this project) or "KERNEL_SRCROOT" (the kernel tree)
    std::string function;   // the kernel function's name
    int line = 0;           // 0: not known
};
// For a reference variant: the reference header and the line of the
// function's definition in it (read from this source tree when present).
// For a kernel subject: the kernel file the extractor takes the function
// from, and its line when the linux-source tarball is on this machine.
SourceLocation violation_location(const std::string &subject, const std::string &invariant);

// SARIF 2.1.0: one result per COUNTEREXAMPLE the expected file does not
// list as such, located at violation_location(), with the report as the
// message; one rule per invariant of the run.
nlohmann::json sarif_log(const std::vector<proofs::ProofResult> &results,
                         const std::vector<proofs::ExpectedEntry> &expected,
                         const std::map<std::string, std::string> &reports);

} // namespace sc::cli
