// The built-in kernel oracles (linux-6.1, linux-6.12) seen as images: an
// image that `oracle build` generates with the same code as a built-in one
// computes the same things, so a review can use the built-in oracle for it
// instead of compiling a plug-in; and one task life run on any kernel
// subject, built in or plug-in, for `review --fuzz-seconds`.
#pragma once
#include <functional>
#include <string>
#include <vector>

#include "proofs/task_trace.h"

namespace sc::proofs {

// The id of the built-in oracle whose code, with its names taken out
// (oracle::neutral_code()), is exactly `code`; empty when none is.  The
// comparison is of the whole text, not of a checksum: a patch cannot be
// made to pass for the unpatched kernel.
std::string builtin_with_code(const std::string &code);

using TaskRunner = std::function<std::vector<TaskSnapshot>(const TaskRun &)>;
// Runs task lives on oracle: a built-in kernel oracle's id, or the name of
// a plug-in in oracle_dir (loaded once, checked against its manifest).
// Throws input_error when there is no such plug-in.
TaskRunner task_runner(const std::string &oracle, const std::string &oracle_dir);

} // namespace sc::proofs
