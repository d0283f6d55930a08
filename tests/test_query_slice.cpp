// The slice of a solver query (proofs/engine/query_slice.h): the conjuncts
// that share an input with the last assertion, through any chain of
// others; and what the engine may conclude from it (only unsat).
#include <catch2/catch.hpp>

#include <set>
#include <string>

#include <z3++.h>

#include "proofs/engine/query_slice.h"
#include "proofs/engine/query_cache.h"
#include "proofs/invariant.h"
#include "proofs/kernel/kernel_invariants.h"

namespace {

std::set<std::string> texts(const z3::expr_vector &v) {
    std::set<std::string> out;
    for (const auto &e : v)
        out.insert(e.to_string());
    return out;
}

// The solver's answer on a query given as its assertions.
z3::check_result answer(z3::context &c, const z3::expr_vector &as) {
    z3::solver s(c);
    for (const auto &e : as)
        s.add(e);
    return s.check();
}

} // namespace

TEST_CASE("query slice: the check's inputs and what links them, nested conjunctions split", "[query-slice]") {
    z3::context c;
    z3::expr x = c.bv_const("x", 64), y = c.bv_const("y", 64), z = c.bv_const("z", 64), w = c.bv_const("w", 64);
    z3::expr_vector as(c);
    as.push_back(z3::ule(x, c.bv_val(10, 64)));     // domain of x
    as.push_back(z3::ule(y, c.bv_val(20, 64)));     // domain of y
    as.push_back(z3::ule(z, c.bv_val(5, 64)));      // domain of z
    as.push_back(z3::ule(w, c.bv_val(3, 64)));      // domain of w
    as.push_back(x + z == c.bv_val(7, 64) && z3::ugt(y, c.bv_val(3, 64))); // a path: two branches
    as.push_back(!z3::ult(x, c.bv_val(8, 64)));     // the check, negated
    auto s = sc::proofs::query_slice(c, as);
    REQUIRE(s.has_value());
    // x is read by the check; z through x + z == 7; y and w by nothing
    // the check reaches.
    std::set<std::string> want = {as[0].to_string(), as[2].to_string(), (x + z == c.bv_val(7, 64)).to_string(),
                                  as[5].to_string()};
    CHECK(texts(*s) == want);

    // Unsat in the slice is unsat of the whole: z > 5 against z's domain.
    z3::expr_vector as2(c);
    for (unsigned i = 0; i + 1 < as.size(); ++i)
        as2.push_back(as[i]);
    as2.push_back(z3::ugt(x, c.bv_val(7, 64)) && z3::ugt(z, c.bv_val(5, 64)));
    auto s2 = sc::proofs::query_slice(c, as2);
    REQUIRE(s2.has_value());
    CHECK(answer(c, *s2) == z3::unsat);
    CHECK(answer(c, as2) == z3::unsat);
}

TEST_CASE("query slice: nothing cut when every conjunct is linked; a constant always stays", "[query-slice]") {
    z3::context c;
    z3::expr x = c.bv_const("x", 32), y = c.bv_const("y", 32);
    z3::expr_vector linked(c);
    linked.push_back(z3::ule(x, c.bv_val(9, 32)));
    linked.push_back(z3::ule(y, x));
    linked.push_back(y == c.bv_val(4, 32));
    CHECK_FALSE(sc::proofs::query_slice(c, linked).has_value());

    // A conjunct that reads no input decides the query on its own.
    z3::expr_vector grounded(c);
    grounded.push_back(c.bool_val(false));
    grounded.push_back(z3::ule(y, c.bv_val(1, 32)));
    grounded.push_back(z3::ule(x, c.bv_val(9, 32)));
    auto s = sc::proofs::query_slice(c, grounded);
    REQUIRE(s.has_value());
    CHECK(texts(*s) == std::set<std::string>{"false", grounded[2].to_string()});
}

TEST_CASE("query slice: a satisfiable slice says nothing about the whole", "[query-slice]") {
    // The whole is unsat because of a group the check does not reach (an
    // infeasible path that was not pruned); its slice is satisfiable.  So
    // the engine takes only a slice's unsat, and asks the whole otherwise.
    z3::context c;
    z3::expr x = c.bv_const("x", 64), y = c.bv_const("y", 64);
    z3::expr_vector as(c);
    as.push_back(z3::ugt(y, c.bv_val(3, 64)) && z3::ult(y, c.bv_val(2, 64)));
    as.push_back(z3::ugt(x, c.bv_val(5, 64)));
    auto s = sc::proofs::query_slice(c, as);
    REQUIRE(s.has_value());
    CHECK(answer(c, *s) == z3::sat);
    CHECK(answer(c, as) == z3::unsat);
}

TEST_CASE("query slice: the data models and releases of one invariant share their answers", "[query-slice]") {
    // The wake-up's arithmetic is the same in idlebal/v6.1 and v6.12
    // (update_avg() with "/ 8", the cap 2 * max_idle_balance_cost), and its
    // queries read 64-bit times only; the whole queries differ (6.1 keeps
    // wake_avg_idle and a stamp; ilp32's jiffies are 32 bits).  So after
    // v6.1 on ilp32, v6.12 on lp64 finds its slow queries' slices in the
    // cache, and its verdict is the one it gets alone.
    const sc::proofs::InvariantInfo *i = sc::proofs::find_invariant("idlebal.avg_idle_no_jump");
    const sc::Variant *a = sc::proofs::find_subject("idlebal/v6.1"), *b = sc::proofs::find_subject("idlebal/v6.12");
    REQUIRE(i != nullptr);
    REQUIRE(a != nullptr);
    REQUIRE(b != nullptr);
    const sc::proofs::ProofResult first = i->prove(*a, sc::Arch::ilp32, sc::proofs::ProveOptions{});
    CHECK(first.verdict == sc::proofs::Verdict::PROVED);
    const auto before = sc::proofs::query_cache::stats();
    const sc::proofs::ProofResult second = i->prove(*b, sc::Arch::lp64, sc::proofs::ProveOptions{});
    const auto after = sc::proofs::query_cache::stats();
    CHECK(second.verdict == sc::proofs::Verdict::PROVED);
    CHECK(after.hits > before.hits);
}
