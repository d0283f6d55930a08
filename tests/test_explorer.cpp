// Tests of the symbolic domain (model/sym.h) and the path explorer
// (model/explorer.h): path counts of decay_load_missed in both encodings,
// forced one-sided branches, pruning, and overflow obligations.
//
// Expected path counts (DESIGN.md, from the prototype): decay_load_missed
// with load and n free forks into n == 0, n >= degrade_zero_ticks[idx], and
// one path per value in between, because every bit test and loop exit of
// the table walk (or, at idx 1, the concretized shift count) is a branch:
//   idx 1: 1 + 1 + 7   = 9      idx 2: 1 + 1 + 31  = 33
//   idx 3: 1 + 1 + 63  = 65     idx 4: 1 + 1 + 127 = 129
// In the bit-vector encoding the idx 1 shift is not split (3 paths), so
// only idx 2..4 are compared there.
#include <catch2/catch.hpp>

#include "model/explorer.h"
#include "model/sym.h"
#include "ref/cpuload.h"

#include <cstdint>
#include <functional>
#include <set>
#include <utility>
#include <vector>

namespace {

namespace m = sc::model;
namespace cl = sc::cpuload;

constexpr unsigned kTimeoutMs = 20000;

// 0 <= x <= 2^W - 1, for an integer-encoded W-bit input.
z3::expr full_range(z3::context &ctx, const z3::expr &x, unsigned W) {
    const std::uint64_t max = W == 64 ? ~0ULL : ((1ULL << W) - 1);
    return x >= ctx.int_val(0) && x <= ctx.int_val(max);
}

bool sat_with(z3::context &ctx, const z3::expr_vector &domain, const z3::expr &e) {
    z3::solver s(ctx);
    for (unsigned i = 0; i < domain.size(); ++i)
        s.add(domain[i]);
    s.add(e);
    return s.check() == z3::sat;
}

std::uint64_t as_u64(const z3::expr &e) {
    std::uint64_t v = 0;
    REQUIRE(e.is_numeral_u64(v));
    return v;
}

// Explore decay_load_missed<sym_lp64>(load, n, idx) with load and n free
// over their full 64-bit range.
std::vector<m::Path<m::Sym<64>>> explore_decay(z3::context &ctx, m::Encoding enc, int idx,
                                               z3::expr &load_e, z3::expr &n_e) {
    m::Explorer ex(ctx, enc, kTimeoutMs);
    if (enc == m::Encoding::integer) {
        load_e = ctx.int_const("load");
        n_e = ctx.int_const("n");
        ex.assume(full_range(ctx, load_e, 64));
        ex.assume(full_range(ctx, n_e, 64));
    } else {
        load_e = ctx.bv_const("load", 64);
        n_e = ctx.bv_const("n", 64);
    }
    m::Sym<64> load(load_e), n(n_e);
    auto paths = ex.explore([&] { return cl::decay_load_missed<m::sym_lp64>(load, n, idx); });
    CHECK_FALSE(ex.path_limit_hit());
    CHECK(ex.stats().unknown_checks == 0);
    return paths;
}

// Substitute concrete load and n into every path: exactly one path condition
// must become true, and that path's value must be `expected`.
void check_point(z3::context &ctx, const std::vector<m::Path<m::Sym<64>>> &paths,
                 const z3::expr &load_e, const z3::expr &n_e, m::Encoding enc,
                 std::uint64_t load, std::uint64_t n, std::uint64_t expected) {
    z3::expr_vector from(ctx), to(ctx);
    from.push_back(load_e);
    from.push_back(n_e);
    if (enc == m::Encoding::integer) {
        to.push_back(ctx.int_val(load));
        to.push_back(ctx.int_val(n));
    } else {
        to.push_back(ctx.bv_val(load, 64));
        to.push_back(ctx.bv_val(n, 64));
    }
    int matching = 0;
    for (const auto &p : paths) {
        z3::expr pc = p.pc;
        z3::expr c = pc.substitute(from, to).simplify();
        REQUIRE((c.is_true() || c.is_false()));
        if (c.is_true()) {
            ++matching;
            z3::expr v = p.value.e;
            CHECK(as_u64(v.substitute(from, to).simplify()) == expected);
        }
    }
    CHECK(matching == 1);
}

} // namespace

// ---------------------------------------------------------------------------
// decay_load_missed path counts
// ---------------------------------------------------------------------------

TEST_CASE("explorer: decay_load_missed path counts, integer encoding", "[explorer][paths]") {
    z3::context ctx;
    const std::size_t expected[5] = {0, 9, 33, 65, 129};
    for (int idx = 1; idx <= 4; ++idx) {
        INFO("idx " << idx);
        z3::expr load_e(ctx), n_e(ctx);
        auto paths = explore_decay(ctx, m::Encoding::integer, idx, load_e, n_e);
        CHECK(paths.size() == expected[idx]);
        // n = 0 keeps the load; n at the cut-off gives 0
        check_point(ctx, paths, load_e, n_e, m::Encoding::integer, 1000, 0, 1000);
        check_point(ctx, paths, load_e, n_e, m::Encoding::integer, 1000,
                    cl::degrade_zero_ticks[idx], 0);
    }
}

TEST_CASE("explorer: decay_load_missed path values, integer encoding", "[explorer][paths]") {
    z3::context ctx;
    z3::expr load_e(ctx), n_e(ctx);
    // idx 1, n 3: 1000 >> 3 = 125
    auto p1 = explore_decay(ctx, m::Encoding::integer, 1, load_e, n_e);
    check_point(ctx, p1, load_e, n_e, m::Encoding::integer, 1000, 3, 125);
    // idx 2, n 3: 1000*96>>7 = 750; 750*72>>7 = 421
    auto p2 = explore_decay(ctx, m::Encoding::integer, 2, load_e, n_e);
    check_point(ctx, p2, load_e, n_e, m::Encoding::integer, 1000, 3, 421);
    // idx 2, n 5: 750; 750*40>>7 = 234
    check_point(ctx, p2, load_e, n_e, m::Encoding::integer, 1000, 5, 234);
    // idx 4, n 10: 1000*112>>7 = 875; 875*76>>7 = 519
    auto p4 = explore_decay(ctx, m::Encoding::integer, 4, load_e, n_e);
    check_point(ctx, p4, load_e, n_e, m::Encoding::integer, 1000, 10, 519);
}

TEST_CASE("explorer: decay_load_missed path counts, bit-vector encoding", "[explorer][paths]") {
    z3::context ctx;
    const std::size_t expected[5] = {0, 0, 33, 65, 129};
    for (int idx = 2; idx <= 4; ++idx) {
        INFO("idx " << idx);
        z3::expr load_e(ctx), n_e(ctx);
        auto paths = explore_decay(ctx, m::Encoding::bitvector, idx, load_e, n_e);
        CHECK(paths.size() == expected[idx]);
        check_point(ctx, paths, load_e, n_e, m::Encoding::bitvector, 1000, 0, 1000);
        check_point(ctx, paths, load_e, n_e, m::Encoding::bitvector, 1000,
                    cl::degrade_zero_ticks[idx], 0);
    }
    // idx 3, n 6: 1000*98>>7 = 765; 765*75>>7 = 448
    z3::expr load_e(ctx), n_e(ctx);
    auto p3 = explore_decay(ctx, m::Encoding::bitvector, 3, load_e, n_e);
    check_point(ctx, p3, load_e, n_e, m::Encoding::bitvector, 1000, 6, 448);
    // the bit-vector paths wrap like the machine: idx 2, n 1, load 2^63:
    //   2^63 * 96 = 2^68 * 3 ≡ 0 (mod 2^64), >> 7 = 0
    auto p2 = explore_decay(ctx, m::Encoding::bitvector, 2, load_e, n_e);
    check_point(ctx, p2, load_e, n_e, m::Encoding::bitvector, 1ULL << 63, 1, 0);
}

// ---------------------------------------------------------------------------
// Forced branches, re-runs, pruning
// ---------------------------------------------------------------------------

TEST_CASE("explorer: a one-sided branch does not fork", "[explorer][branches]") {
    z3::context ctx;
    m::Explorer ex(ctx, m::Encoding::integer, kTimeoutMs);
    z3::expr xe = ctx.int_const("x");
    ex.assume(full_range(ctx, xe, 32));
    ex.assume(xe <= 3);
    m::Sym<32> x(xe);
    auto paths = ex.explore([&]() -> int {
        if (x > 5)
            return 1;
        return 0;
    });
    REQUIRE(paths.size() == 1);
    CHECK(paths[0].value == 0);
    CHECK(ex.stats().forced > 0);
    CHECK(ex.stats().forks == 0);
    CHECK(sat_with(ctx, ex.domain(), paths[0].pc));
}

TEST_CASE("explorer: a forced branch before a real fork is replayed consistently",
          "[explorer][branches]") {
    z3::context ctx;
    m::Explorer ex(ctx, m::Encoding::integer, kTimeoutMs);
    z3::expr xe = ctx.int_const("x");
    ex.assume(full_range(ctx, xe, 32));
    ex.assume(xe <= 3);
    m::Sym<32> x(xe);
    auto paths = ex.explore([&]() -> int {
        if (x > 5) // impossible under x <= 3: forced false
            return 100;
        if (x > 1) // a real fork: x in {2,3} or x in {0,1}
            return 1;
        return 0;
    });
    REQUIRE(paths.size() == 2);
    std::multiset<int> values;
    for (const auto &p : paths) {
        values.insert(p.value);
        CHECK(sat_with(ctx, ex.domain(), p.pc)); // every path is feasible
    }
    CHECK(values == std::multiset<int>{0, 1});
    CHECK(ex.stats().forks == 1);
    CHECK(ex.stats().forced >= 1);
    // the two path conditions are disjoint
    CHECK_FALSE(sat_with(ctx, ex.domain(), paths[0].pc && paths[1].pc));

    // a forced "true" side followed by a fork, in the other order of checks
    auto paths2 = ex.explore([&]() -> int {
        if (x <= 5) { // always true under x <= 3: forced true
            if (x == 0)
                return 10;
            return 11;
        }
        return 12;
    });
    REQUIRE(paths2.size() == 2);
    std::multiset<int> values2;
    for (const auto &p : paths2) {
        values2.insert(p.value);
        CHECK(sat_with(ctx, ex.domain(), p.pc));
    }
    CHECK(values2 == std::multiset<int>{10, 11});
}

TEST_CASE("explorer: infeasible branches are pruned", "[explorer][branches]") {
    z3::context ctx;
    m::Explorer ex(ctx, m::Encoding::integer, kTimeoutMs);
    z3::expr xe = ctx.int_const("x");
    ex.assume(full_range(ctx, xe, 32));
    m::Sym<32> x(xe);
    auto paths = ex.explore([&]() -> int {
        if (x > 10) {
            if (x < 5) // contradicts x > 10
                return 2;
            return 1;
        }
        return 0;
    });
    REQUIRE(paths.size() == 2);
    std::multiset<int> values;
    for (const auto &p : paths) {
        values.insert(p.value);
        CHECK(sat_with(ctx, ex.domain(), p.pc));
    }
    CHECK(values == std::multiset<int>{0, 1}); // never 2
    CHECK(ex.stats().forks == 1);
    CHECK(ex.stats().forced >= 1);
}

TEST_CASE("explorer: a condition that folds to a constant is not a branch",
          "[explorer][branches]") {
    z3::context ctx;
    m::Explorer ex(ctx, m::Encoding::bitvector, kTimeoutMs);
    m::Sym<32> x(ctx.bv_const("x", 32));
    auto paths = ex.explore([&]() -> int {
        if (m::Sym<32>(7) > m::Sym<32>(5)) // concrete
            return x == x ? 1 : 2;          // folds to true
        return 3;
    });
    REQUIRE(paths.size() == 1);
    CHECK(paths[0].value == 1);
    CHECK(ex.stats().feasibility_checks == 0);
}

// A crossing case fixes the number of periods, (x >> 10) == 5 here: the
// branches and the shift that read it are decided by substituting 5, with
// no feasibility check, and give what the solver gives for the same
// domain written as a range (5120 <= x <= 6143).
TEST_CASE("explorer: a term the domain fixes settles branches and shift counts without the solver",
          "[explorer][branches]") {
    for (bool fixed : {true, false}) {
        CAPTURE(fixed);
        z3::context ctx;
        m::Explorer ex(ctx, m::Encoding::integer, kTimeoutMs);
        z3::expr xe = ctx.int_const("x");
        z3::expr ye = ctx.int_const("y");
        ex.assume(full_range(ctx, xe, 32));
        ex.assume(full_range(ctx, ye, 32));
        if (fixed)
            ex.assume(xe / 1024 == 5 && ye == 1); // a conjunction: both parts are kept
        else
            ex.assume(xe >= 5120 && xe <= 6143 && ye >= 1 && ye <= 1);
        m::Sym<32> x(xe), y(ye);
        auto paths = ex.explore([&]() -> m::Sym<32> {
            const m::Sym<32> p = x >> 10;
            if (p > 3 && y != 0)
                return m::Sym<32>(1u << 20) >> p; // the shift count is p
            return m::Sym<32>(0);
        });
        REQUIRE(paths.size() == 1);
        CHECK(as_u64(paths[0].value.e.simplify()) == (1u << 20) >> 5);
        CHECK(sat_with(ctx, ex.domain(), paths[0].pc));
        if (fixed) {
            CHECK(ex.stats().feasibility_checks == 0);
            CHECK(ex.stats().settled >= 2); // p > 3 && y != 0, the shift count
        } else {
            CHECK(ex.stats().feasibility_checks > 0);
            CHECK(ex.stats().settled == 0);
        }
        // A branch the fixed term does not settle still goes to the solver
        // and forks: x in 5120..6143 either way.
        const std::size_t f0 = ex.stats().feasibility_checks;
        auto two = ex.explore([&]() -> int { return x > 5500 ? 1 : 0; });
        CHECK(two.size() == 2);
        CHECK(ex.stats().feasibility_checks > f0);
    }
}

// What a path reads decides which of its obligations matter: the engine
// leaves out the obligation of a term that no branch and no check reads.
// A branch must count even where it folds to a constant or the domain
// settles it, or the integer encoding could hide a machine wrap: in
// integers x + 1 > x is true, in 32 bits it is false at x = 2^32 - 1.
TEST_CASE("explorer: a path's uses hold every term its control flow read, folded and settled ones too",
          "[explorer][obligations]") {
    z3::context ctx;
    m::Explorer ex(ctx, m::Encoding::integer, kTimeoutMs);
    z3::expr xe = ctx.int_const("x"), ye = ctx.int_const("y"), ze = ctx.int_const("z");
    ex.assume(full_range(ctx, xe, 32));
    ex.assume(full_range(ctx, ye, 32));
    ex.assume(full_range(ctx, ze, 32));
    ex.assume(ze / 1024 == 3); // a fixed term: settles what reads it
    m::Sym<32> x(xe), y(ye), z(ze);
    auto paths = ex.explore([&]() -> m::Sym<32> {
        const m::Sym<32> unread = y + y; // wraps for y >= 2^31; nothing reads it
        (void)unread;
        const m::Sym<32> shift = (z >> 10) + m::Sym<32>(1); // 4, settled
        if (x + 1 > x)                                       // folds to true
            return m::Sym<32>(1u << 20) >> shift;
        return m::Sym<32>(0);
    });
    REQUIRE(paths.size() == 1);
    CHECK(ex.stats().feasibility_checks == 0);
    CHECK(as_u64(paths[0].value.e.simplify()) == (1u << 20) >> 4);
    const auto ids = m::subterm_ids(paths[0].uses);
    const z3::expr x1 = xe + ctx.int_val(1), yy = ye + ye, shift = ze / ctx.int_val(1024) + ctx.int_val(1);
    CHECK(ids.count(x1.id()) == 1);    // the folded branch
    CHECK(ids.count(shift.id()) == 1); // the settled shift count
    CHECK(ids.count(yy.id()) == 0);
    // One obligation per addition, each naming its term; the read one can
    // fail (x = 2^32 - 1), so leaving out the unread one is the only saving.
    // The symbolic shift count's own obligation (below 32) names no term:
    // it is always asked.
    std::set<unsigned> terms;
    for (const m::Obligation &ob : paths[0].obligations) {
        if (!ob.term) {
            CHECK(ob.what == "32-bit shift count");
            continue;
        }
        terms.insert(ob.term->id());
        if (ob.term->id() == x1.id())
            CHECK(sat_with(ctx, ex.domain(), ob.pc && !ob.holds));
    }
    CHECK(terms == std::set<unsigned>{x1.id(), yy.id(), shift.id()});
    // An obligation about no term (a precondition) has no term to test.
    auto pre = ex.explore([&]() -> int {
        m::record_obligation((x < m::Sym<32>(1024)).e, "a precondition");
        return 0;
    });
    REQUIRE(pre.size() == 1);
    REQUIRE(pre[0].obligations.size() == 1);
    CHECK(!pre[0].obligations[0].term.has_value());
}

// ---------------------------------------------------------------------------
// Obligations and encodings
// ---------------------------------------------------------------------------

TEST_CASE("explorer: integer-encoded addition records a no-wrap obligation",
          "[explorer][obligations]") {
    z3::context ctx;
    m::Explorer ex(ctx, m::Encoding::integer, kTimeoutMs);
    z3::expr ae = ctx.int_const("a"), be = ctx.int_const("b");
    ex.assume(full_range(ctx, ae, 32));
    ex.assume(full_range(ctx, be, 32));
    m::Sym<32> a(ae), b(be);
    auto paths = ex.explore([&] { return a + b; });
    REQUIRE(paths.size() == 1);
    REQUIRE(paths[0].obligations.size() == 1);
    const m::Obligation &ob = paths[0].obligations[0];

    // Can it fail?  With a, b over the full 32-bit range: yes
    // (e.g. a = b = 2^31, a + b = 2^32 > 2^32 - 1).
    {
        z3::solver s(ctx);
        s.add(full_range(ctx, ae, 32));
        s.add(full_range(ctx, be, 32));
        s.add(ob.pc);
        s.add(!ob.holds);
        CHECK(s.check() == z3::sat);
    }
    // With a, b <= 1000: a + b <= 2000 < 2^32 - 1, so no.
    {
        z3::solver s(ctx);
        s.add(ae >= 0 && ae <= 1000);
        s.add(be >= 0 && be <= 1000);
        s.add(ob.pc);
        s.add(!ob.holds);
        CHECK(s.check() == z3::unsat);
    }
    // and the value is the exact sum, no wrap in this encoding:
    // a = b = 2^31 gives 2^32
    z3::expr_vector from(ctx), to(ctx);
    from.push_back(ae);
    from.push_back(be);
    to.push_back(ctx.int_val(2147483648u));
    to.push_back(ctx.int_val(2147483648u));
    z3::expr v = paths[0].value.e;
    CHECK(as_u64(v.substitute(from, to).simplify()) == 4294967296u);
}

TEST_CASE("explorer: integer-encoded multiplication by a constant records one obligation",
          "[explorer][obligations]") {
    z3::context ctx;
    m::Explorer ex(ctx, m::Encoding::integer, kTimeoutMs);
    z3::expr ae = ctx.int_const("a");
    ex.assume(full_range(ctx, ae, 32));
    m::Sym<32> a(ae);
    auto paths = ex.explore([&] { return a * 96; });
    REQUIRE(paths.size() == 1);
    REQUIRE(paths[0].obligations.size() == 1);
    const m::Obligation &ob = paths[0].obligations[0];
    // a*96 <= 2^32-1 holds iff a <= 44739242 (44739242*96 = 4294967232;
    // 44739243*96 = 4294967328 > 4294967295)
    z3::solver s(ctx);
    s.add(ae >= 0 && ae <= 44739242);
    s.add(ob.pc && !ob.holds);
    CHECK(s.check() == z3::unsat);
    z3::solver s2(ctx);
    s2.add(ae == 44739243);
    s2.add(ob.pc && !ob.holds);
    CHECK(s2.check() == z3::sat);
}

TEST_CASE("explorer: narrowing Sym<64> to Sym<32> records one obligation",
          "[explorer][obligations]") {
    z3::context ctx;
    m::Explorer ex(ctx, m::Encoding::integer, kTimeoutMs);
    z3::expr we = ctx.int_const("w");
    ex.assume(full_range(ctx, we, 64));
    m::Sym<64> w(we);
    auto paths = ex.explore([&] {
        m::Sym<32> narrow = w;
        return narrow;
    });
    REQUIRE(paths.size() == 1);
    REQUIRE(paths[0].obligations.size() == 1);
    const m::Obligation &ob = paths[0].obligations[0];
    // w = 2^32 + 5 loses bits; w = 2^32 - 1 does not
    z3::solver s(ctx);
    s.add(we == ctx.int_val(std::uint64_t{4294967301}));
    s.add(ob.pc && !ob.holds);
    CHECK(s.check() == z3::sat);
    z3::solver s2(ctx);
    s2.add(we >= 0 && we <= ctx.int_val(std::uint64_t{4294967295}));
    s2.add(ob.pc && !ob.holds);
    CHECK(s2.check() == z3::unsat);

    // widening Sym<32> -> Sym<64> keeps the value: no obligation
    z3::expr ue = ctx.int_const("u");
    ex.assume(full_range(ctx, ue, 32));
    m::Sym<32> u(ue);
    auto wide = ex.explore([&] {
        m::Sym<64> widened = u;
        return widened;
    });
    REQUIRE(wide.size() == 1);
    CHECK(wide[0].obligations.empty());
}

TEST_CASE("explorer: modular wraps keep unsigned sums, differences, products by a constant and sign changes exact in integers",
          "[explorer][obligations]") {
    // Values worked out by hand from two's complement:
    //   3 - 5 in 32 bits        = 2^32 - 2 = 4294967294, read as int: -2
    //   (2^31 + 1) + (2^31 + 1) = 2^32 + 2, kept mod 2^32: 2
    //   (u64)(int)-7            = 2^64 - 7
    z3::context ctx;
    m::Explorer ex(ctx, m::Encoding::integer, kTimeoutMs);
    ex.set_modular_wraps(true);
    REQUIRE(ex.modular_wraps());
    z3::expr ae = ctx.int_const("a"), be = ctx.int_const("b"), se = ctx.int_const("s");
    ex.assume(full_range(ctx, ae, 32));
    ex.assume(full_range(ctx, be, 32));
    ex.assume(se >= ctx.int_val(std::int64_t{-2147483648LL}) && se <= ctx.int_val(std::int64_t{2147483647}));
    m::Sym<32> a(ae), b(be);
    m::SSym<32> sv(se);
    auto at = [&](z3::expr v, std::int64_t x, std::int64_t y, std::int64_t z) {
        z3::expr_vector from(ctx), to(ctx);
        from.push_back(ae);
        from.push_back(be);
        from.push_back(se);
        to.push_back(ctx.int_val(x));
        to.push_back(ctx.int_val(y));
        to.push_back(ctx.int_val(z));
        return v.substitute(from, to).simplify();
    };
    auto one = [&](auto f) {
        auto paths = ex.explore(f);
        REQUIRE(paths.size() == 1);
        CHECK(paths[0].obligations.empty()); // exact: nothing to discharge
        return paths[0].value.e;
    };
    const z3::expr diff = one([&] { return a - b; });
    CHECK(as_u64(at(diff, 3, 5, 0)) == 4294967294u);
    CHECK(as_u64(at(diff, 5, 3, 0)) == 2u);
    CHECK(as_u64(at(one([&] { return a + b; }), 2147483649LL, 2147483649LL, 0)) == 2u);
    std::int64_t back = 0;
    REQUIRE(at(one([&] { return m::SSym<32>(a - b); }), 3, 5, 0).is_numeral_i64(back));
    CHECK(back == -2);
    CHECK(as_u64(at(one([&] { return m::Sym<64>(sv); }), 0, 0, -7)) == ~std::uint64_t(6));
    CHECK(as_u64(at(one([&] { return m::Sym<32>(sv); }), 0, 0, -7)) == 4294967289u);

    // Where the domain rules the wrap out, the term is the plain sum, with
    // no if-then-else for the solver: c, d <= 1000.
    z3::expr ce = ctx.int_const("c"), de = ctx.int_const("d");
    ex.assume(ce >= 0 && ce <= 1000);
    ex.assume(de >= 0 && de <= 1000);
    const z3::expr small = one([&] { return m::Sym<32>(ce) + m::Sym<32>(de); });
    CHECK(z3::eq(small, ce + de));
    // and where it always wraps, the wrapped term: c - (d + 1001) < 0.
    z3::expr under = one([&] { return m::Sym<32>(ce) - (m::Sym<32>(de) + m::Sym<32>(1001u)); });
    CHECK_FALSE((under.is_app() && under.decl().decl_kind() == Z3_OP_ITE));
    {
        z3::expr_vector from(ctx), to(ctx);
        from.push_back(ce);
        from.push_back(de);
        to.push_back(ctx.int_val(0));
        to.push_back(ctx.int_val(0));
        CHECK(as_u64(under.substitute(from, to).simplify()) == 4294966295u); // 2^32 - 1001
    }

    // A product by a constant is kept mod 2^32, with no obligation:
    //   (2^32 - 3) * 1024 = 2^42 - 3072 = 1023 * 2^32 + (2^32 - 3072),
    //   so 4294964224, the bits of -3072 (s64 * unsigned long scales a
    //   negative difference this way in 6.1's wake_affine_weight());
    //   5 * 1024 = 5120 does not wrap.
    const z3::expr scaled = one([&] { return a * m::Sym<32>(1024u); });
    CHECK(as_u64(at(scaled, 4294967293LL, 0, 0)) == 4294964224u);
    CHECK(as_u64(at(scaled, 5, 0, 0)) == 5120u);
    CHECK(as_u64(at(one([&] { return m::Sym<32>(1024u) * a; }), 4294967293LL, 0, 0)) == 4294964224u);
    // A product of two unknowns and a narrowing still record their
    // obligation.
    CHECK(ex.explore([&] { return a * b; })[0].obligations.size() == 1);
    z3::expr we = ctx.int_const("w");
    ex.assume(full_range(ctx, we, 64));
    m::Sym<64> w(we);
    CHECK(ex.explore([&] { return m::Sym<32>(w); })[0].obligations.size() == 1);

    // Off by default; and the bit-vector encoding wraps anyway.
    m::Explorer plain(ctx, m::Encoding::integer, kTimeoutMs);
    CHECK_FALSE(plain.modular_wraps());
    m::Explorer bits(ctx, m::Encoding::bitvector, kTimeoutMs);
    bits.set_modular_wraps(true);
    CHECK_FALSE(bits.modular_wraps());
}

TEST_CASE("explorer: bit-vector arithmetic wraps like the machine", "[explorer][obligations]") {
    z3::context ctx;
    m::Explorer ex(ctx, m::Encoding::bitvector, kTimeoutMs);
    z3::expr xe = ctx.bv_const("x", 32);
    m::Sym<32> x(xe);
    auto paths = ex.explore([&] { return x + 1; });
    REQUIRE(paths.size() == 1);
    // The wrap is the value's semantics; the recorded obligation is the
    // solver's no-overflow predicate, false exactly when x == 0xffffffff.
    REQUIRE(paths[0].obligations.size() == 1);
    {
        z3::solver s(ctx);
        s.add(!paths[0].obligations[0].holds);
        REQUIRE(s.check() == z3::sat);
        CHECK(as_u64(s.get_model().eval(xe, true)) == 0xffffffffu);
        z3::solver v(ctx);
        v.add(!paths[0].obligations[0].holds && xe != ctx.bv_val(0xffffffffu, 32));
        CHECK(v.check() == z3::unsat);
    }
    // valid: x == 0xffffffff -> x + 1 == 0
    {
        z3::solver s(ctx);
        z3::expr r = paths[0].value.e;
        s.add(!z3::implies(xe == ctx.bv_val(0xffffffffu, 32), r == ctx.bv_val(0u, 32)));
        CHECK(s.check() == z3::unsat);
    }
    // constant-folded: 0xffffffff + 1 == 0 on Sym<32>
    auto konst = ex.explore([&] { return m::Sym<32>(0xffffffffu) + 1; });
    REQUIRE(konst.size() == 1);
    CHECK(as_u64(konst[0].value.e.simplify()) == 0u);
    // 32-bit multiplication wraps too: 65536 * 65536 = 2^32 = 0 (mod 2^32)
    auto mul = ex.explore([&] { return m::Sym<32>(65536u) * m::Sym<32>(65536u); });
    CHECK(as_u64(mul[0].value.e.simplify()) == 0u);
    // unsigned comparison: 0xffffffff > 1 (a signed bvsgt would say no)
    auto cmp = ex.explore([&]() -> int { return m::Sym<32>(0xffffffffu) > m::Sym<32>(1u) ? 1 : 0; });
    REQUIRE(cmp.size() == 1);
    CHECK(cmp[0].value == 1);
}

// Signed words and C's usual arithmetic conversions.  Every expected value
// is what C gives for the same types (worked out by hand in the comments),
// checked on symbolic inputs in both encodings where the encoding allows.
namespace {
template <class W> std::int64_t solve_one(z3::context &ctx, m::Encoding enc, const std::function<W()> &f) {
    m::Explorer ex(ctx, enc, kTimeoutMs);
    auto paths = ex.explore(f);
    REQUIRE(paths.size() == 1);
    z3::expr v = paths[0].value.e.simplify();
    if (v.is_bv()) {
        std::uint64_t u = 0;
        REQUIRE(v.is_numeral_u64(u));
        if (W::is_signed && W::mask != ~0ULL && (u >> 63) == 0 && (u & ((W::mask >> 1) + 1)))
            return static_cast<std::int64_t>(u | ~W::mask); // sign-extend
        return static_cast<std::int64_t>(u);
    }
    if (!W::is_signed) {
        std::uint64_t u = 0;
        REQUIRE(v.is_numeral_u64(u));
        return static_cast<std::int64_t>(u);
    }
    std::int64_t s = 0;
    REQUIRE(v.is_numeral_i64(s));
    return s;
}
} // namespace

TEST_CASE("sym: signed words and mixed operands follow C", "[explorer][sym]") {
    z3::context ctx;
    for (m::Encoding enc : {m::Encoding::bitvector, m::Encoding::integer}) {
        INFO((enc == m::Encoding::integer ? "integer" : "bitvector"));
        // (s64)(2^64 - 1) < 0: the kernel's time-went-backwards test.
        CHECK(solve_one<m::SSym<64>>(ctx, enc, [] { return m::SSym<64>(m::Sym<64>(~0ULL)); }) == -1);
        // int / int truncates toward zero: -7 / 2 == -3, -7 % 2 == -1.
        CHECK(solve_one<m::SSym<32>>(ctx, enc, [] { return m::SSym<32>(-7) / m::SSym<32>(2); }) == -3);
        CHECK(solve_one<m::SSym<32>>(ctx, enc, [] { return m::SSym<32>(-7) % m::SSym<32>(2); }) == -1);
        // -7 >> 1 is arithmetic: -4.
        CHECK(solve_one<m::SSym<32>>(ctx, enc, [] { return m::SSym<32>(-7) >> 1; }) == -4);
        // u32 + s64 on lp64 is s64: 0xffffffff + 10 does not wrap at 2^32.
        CHECK(solve_one<m::SSym<64>>(ctx, enc, [] { return m::Sym<32>(0xffffffffu) + m::SSym<64>(10); }) ==
              0x100000009LL);
        // s32 widened to u64 is sign-extended: (u64)(int)-1 == 2^64 - 1.
        CHECK(static_cast<std::uint64_t>(solve_one<m::Sym<64>>(
                  ctx, enc, [] { return m::Sym<64>(m::SSym<32>(-1)); })) == ~0ULL);
    }
    // Bit-vector only: these wrap, which the integer encoding records as a
    // broken obligation instead of computing.
    // u32 + s32 is u32: 0xffffffff + 1 == 0.
    CHECK(solve_one<m::Sym<32>>(ctx, m::Encoding::bitvector, [] { return m::Sym<32>(0xffffffffu) + m::SSym<32>(1); }) ==
          0);
    // Same width, one unsigned: (unsigned)-1 < 1 is false, so the signed -1 compares as 0xffffffff.
    {
        m::Explorer ex(ctx, m::Encoding::bitvector, kTimeoutMs);
        auto r = ex.explore([]() -> int { return m::SSym<32>(-1) < m::Sym<32>(1u) ? 1 : 0; });
        REQUIRE(r.size() == 1);
        CHECK(r[0].value == 0);
        auto s = ex.explore([]() -> int { return m::SSym<32>(-1) < m::SSym<32>(1) ? 1 : 0; });
        CHECK(s[0].value == 1);
    }
    // ~0x80000000 & 0x80000005 == 5 (util_est's flag mask).
    CHECK(solve_one<m::Sym<32>>(ctx, m::Encoding::bitvector,
                                [] { return m::Sym<32>(0x80000005u) & ~m::Sym<32>(0x80000000u); }) == 5);
    CHECK(solve_one<m::Sym<32>>(ctx, m::Encoding::integer,
                                [] { return m::Sym<32>(0x80000005u) & ~m::Sym<32>(0x80000000u); }) == 5);
}

TEST_CASE("sym: a table read at a symbolic index gives every entry", "[explorer][sym]") {
    z3::context ctx;
    static constexpr sc::ktable<std::uint32_t, 4> t = {{7, 11, 13, 17}};
    for (m::Encoding enc : {m::Encoding::bitvector, m::Encoding::integer}) {
        m::Explorer ex(ctx, enc, kTimeoutMs);
        z3::expr i = enc == m::Encoding::integer ? ctx.int_const("i") : ctx.bv_const("i", 32);
        ex.assume(enc == m::Encoding::integer ? (i >= 0 && i <= 3) : z3::ule(i, ctx.bv_val(3, 32)));
        auto paths = ex.explore([&] { return t[m::Sym<32>(i)]; });
        // bit-vector: one path with an if-then-else chain; integer: one path per index
        CHECK(paths.size() == (enc == m::Encoding::integer ? 4u : 1u));
        for (std::uint32_t k = 0; k < 4; ++k) {
            z3::solver s(ctx);
            for (const auto &p : paths) {
                s.push();
                s.add(p.pc);
                s.add(i == (enc == m::Encoding::integer ? ctx.int_val(k) : ctx.bv_val(k, 32)));
                if (s.check() == z3::sat) {
                    z3::expr v = s.get_model().eval(p.value.e, true);
                    CHECK(as_u64(v) == t.v[k]);
                }
                s.pop();
            }
        }
    }
}

TEST_CASE("explorer: bit-vector division by a constant 2^k truncates like C", "[explorer][obligations]") {
    // The division by a constant power of two is encoded with shifts (a
    // negative dividend gets 2^k - 1 added first): the value must be C's
    // truncating quotient, here the machine's own, for both signs and the
    // extremes.
    z3::context ctx;
    m::Explorer ex(ctx, m::Encoding::bitvector, kTimeoutMs);
    const std::int64_t xs[] = {-15, -9, -8, -7, -1, 0, 1, 7, 8, 15, INT64_MIN, INT64_MAX, INT64_MIN + 7};
    for (std::int64_t v : xs)
        for (std::int64_t d : {std::int64_t(2), std::int64_t(8), std::int64_t(256), std::int64_t(1) << 62}) {
            INFO(v << " / " << d);
            z3::expr xe = ctx.bv_const("x", 64);
            m::SSym<64> x(xe);
            m::Sym<64> ux(xe);
            auto paths = ex.explore([&] { return std::make_pair(x / m::SSym<64>(d), ux / m::Sym<64>(std::uint64_t(d))); });
            REQUIRE(paths.size() == 1);
            z3::solver s(ctx);
            s.add(xe == ctx.bv_val(static_cast<std::uint64_t>(v), 64));
            REQUIRE(s.check() == z3::sat);
            z3::model mdl = s.get_model();
            std::uint64_t q = 0, uq = 0;
            REQUIRE(mdl.eval(paths[0].value.first.e, true).is_numeral_u64(q));
            REQUIRE(mdl.eval(paths[0].value.second.e, true).is_numeral_u64(uq));
            CHECK(static_cast<std::int64_t>(q) == v / d);
            CHECK(uq == static_cast<std::uint64_t>(v) / static_cast<std::uint64_t>(d));
        }
}
