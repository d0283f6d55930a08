// A process-wide record of the solver queries already shown unsatisfiable.
//
// Many proofs ask the very same query: decay_load() has one shape from
// v4.12 to 6.12, so pelt.decay_monotone poses identical formulas on five
// subjects, and the pre- and post-image of a patch share every query of
// the functions it did not touch.  A query is identified by its full
// SMT-LIB text (declarations and assertions), never by a hash of it, so a
// hit is exactly the same formula and the same answer: unsat.  Only unsat
// is kept: a sat answer needs its model, and unknown may change with time.
#pragma once
#include <cstddef>
#include <string>
#include <vector>

namespace sc::proofs::query_cache {

// The query text with Z3's names of shared subterms renumbered in order of
// first appearance (they follow AST ids, which differ between contexts).
std::string canonical(const std::string &smt2);
// True when this exact (canonical) query text was recorded unsatisfiable.
bool known_unsat(const std::string &smt2);
// Records it (the cache stops growing at its byte budget).
void record_unsat(const std::string &smt2);
// Drops these entries: the answers of a solver found to be in a wrong
// state are not kept for other proofs to reuse.
void forget(const std::vector<std::string> &smt2s);

struct Stats {
    std::size_t hits = 0, misses = 0, entries = 0, bytes = 0;
};
Stats stats();
// SCHEDCHECK_QUERY_CACHE=0 turns the cache off (to measure what it saves).
bool enabled();

} // namespace sc::proofs::query_cache
