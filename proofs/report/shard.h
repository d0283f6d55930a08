// Splitting the proof matrix across CI jobs, and putting it back together.
//
// `prove --shard I/N` runs one of N parts of the selected (variant,
// invariant, arch) proofs.  The parts are balanced by the cost of each
// proof recorded in proofs/expected/timings.txt (compiled in, refreshed by
// `make timings`): longest proof first, each to the part with the least
// cost so far (ties: the lowest part).  The same selection and the same
// timing file give the same parts on every machine, and every proof lands
// in exactly one part.
#pragma once
#include <map>
#include <string>
#include <vector>

#include "proofs/engine/matrix.h"

namespace sc::proofs {

// "variant invariant arch": how a proof is named in the timing file, in
// shard results and in merge's messages.
std::string job_key(const std::string &variant, const std::string &invariant, Arch a);
std::string job_key(const Job &j);

// Timing file: one line per proof, "<variant> <invariant> <arch> <seconds>",
// '#' comments.  Throws input_error naming origin and line.
std::map<std::string, double> parse_timings(const std::string &text, const std::string &origin);
const std::map<std::string, double> &builtin_timings();

// The cost assumed for a proof the timing file does not list (a new
// invariant or variant): the mean of the listed ones, or 1 s.
double default_cost(const std::map<std::string, double> &timings);

struct ShardSpec {
    unsigned index = 1; // 1-based
    unsigned count = 1;
};
// "I/N" with 1 <= I <= N <= 4096.  Throws input_error.
ShardSpec parse_shard(const std::string &text);

// The part (0-based) each job goes to, parallel to jobs.  A job that
// run_matrix() would carry over from another goes with it.
std::vector<unsigned> assign_shards(const std::vector<Job> &jobs, unsigned count,
                                    const std::map<std::string, double> &timings);

// The timing file's text for a set of results (one line each, the order kept).
std::string timings_text(const std::vector<ProofResult> &results, const std::string &header);

} // namespace sc::proofs
