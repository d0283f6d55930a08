// The part of a solver query that can decide it: the conjuncts that share
// an input, directly or through other conjuncts, with the last assertion
// (the check asked on top of the case's domain and the path).
//
// A query is a conjunction.  Split into groups that share no input, it is
// unsatisfiable exactly when one of the groups is; so when the group of
// the check alone is unsatisfiable, the whole query is, whatever the
// others say.  The converse does not hold (a path the explorer did not
// prune may be infeasible in a group of its own), so only an unsat answer
// of the slice is taken: anything else sends the whole query to the
// solver.
//
// What this buys is the query cache's reach (proofs/engine/query_cache.h).
// The inputs a check does not read (the other domain levels, the jiffies
// of a data model, a release's extra fields) are in every query's text,
// and make two subjects that ask the same question about the same
// arithmetic ask it in different words; their slices are the same text.
#pragma once
#include <optional>
#include <unordered_map>
#include <unordered_set>
#include <vector>

#include <z3++.h>

namespace sc::proofs {

// The slice of `as`, in the order of the conjuncts, or nothing when it
// leaves no conjunct out.
inline std::optional<z3::expr_vector> query_slice(z3::context &ctx, const z3::expr_vector &as) {
    // The conjuncts, nested "and"s flattened: a path condition is one
    // assertion, and its branches read different inputs.  The last
    // assertion's conjuncts are the last ones.
    std::vector<z3::expr> conj;
    auto flatten = [&](const z3::expr &a) {
        std::vector<z3::expr> todo{a};
        while (!todo.empty()) {
            z3::expr e = todo.back();
            todo.pop_back();
            if (e.is_app() && e.decl().decl_kind() == Z3_OP_AND)
                for (unsigned k = e.num_args(); k-- > 0;)
                    todo.push_back(e.arg(k));
            else
                conj.push_back(e);
        }
    };
    std::size_t seed_from = 0;
    for (unsigned i = 0; i < as.size(); ++i) {
        seed_from = conj.size();
        flatten(as[i]);
    }

    // The inputs each conjunct reads: uninterpreted constants, found by a
    // walk that visits each shared subterm once.
    std::vector<std::vector<unsigned>> reads(conj.size());
    std::unordered_map<unsigned, unsigned> input_no; // constant's AST id -> dense number
    for (std::size_t c = 0; c < conj.size(); ++c) {
        std::unordered_set<unsigned> seen;
        std::vector<z3::expr> w{conj[c]};
        while (!w.empty()) {
            z3::expr e = w.back();
            w.pop_back();
            if (!seen.insert(e.id()).second)
                continue;
            if (e.is_const() && e.decl().decl_kind() == Z3_OP_UNINTERPRETED) {
                reads[c].push_back(input_no.try_emplace(e.id(), unsigned(input_no.size())).first->second);
            } else if (e.is_app()) {
                for (unsigned k = 0; k < e.num_args(); ++k)
                    w.push_back(e.arg(k));
            }
        }
    }

    // Union-find over the inputs, joined by the conjuncts that read them.
    std::vector<unsigned> parent(input_no.size());
    for (unsigned i = 0; i < parent.size(); ++i)
        parent[i] = i;
    auto find = [&](unsigned x) {
        while (parent[x] != x)
            x = parent[x] = parent[parent[x]];
        return x;
    };
    for (const auto &r : reads)
        for (std::size_t k = 1; k < r.size(); ++k)
            parent[find(r[k])] = find(r[0]);

    // The groups the last assertion's conjuncts reach.
    std::vector<bool> wanted(parent.size(), false);
    for (std::size_t c = seed_from; c < conj.size(); ++c)
        for (unsigned x : reads[c])
            wanted[find(x)] = true;
    z3::expr_vector out(ctx);
    bool left_out = false;
    for (std::size_t c = 0; c < conj.size(); ++c) {
        // A conjunct that reads no input (a constant) stays: "false" alone
        // decides a query.
        bool keep = c >= seed_from || reads[c].empty();
        for (unsigned x : reads[c])
            keep = keep || wanted[find(x)];
        if (keep)
            out.push_back(conj[c]);
        else
            left_out = true;
    }
    if (!left_out)
        return std::nullopt;
    return out;
}

} // namespace sc::proofs
