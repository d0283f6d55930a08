// Named inputs of a proof case.  An invariant's scenario builder asks for
// each hole by name, with its range; the same builder runs twice:
//  - on SymInputs, each hole is a fresh solver constant and its range a
//    domain constraint;
//  - on ConcreteInputs, each hole takes the value a solver model gave it,
//    so the counterexample is rebuilt by the very code that stated it.
#pragma once
#include <cstdint>
#include <map>
#include <stdexcept>
#include <string>
#include <vector>

#include "model/explorer.h"
#include "ref/checked.h"

namespace sc::proofs {

// The constant v in the sort of the input term x: an integer in the
// integer encoding, a bit-vector of x's width otherwise.
inline z3::expr value_like(const z3::expr &x, std::uint64_t v) {
    return x.is_int() ? x.ctx().int_val(v) : x.ctx().bv_val(v, x.get_sort().bv_size());
}

struct InputDecl {
    std::string name;
    unsigned bits;
    std::uint64_t lo, hi;
    bool is_load; // bounded by the largest runqueue load (see domain.h)
    bool fixed;   // a concrete case split: lo == hi
};

template <class W> struct word_bits;
template <unsigned N, bool S> struct word_bits<model::Word<N, S>> { static constexpr unsigned value = N; };
template <unsigned N> struct word_bits<Checked<N>> { static constexpr unsigned value = N; };

class SymInputs {
  public:
    explicit SymInputs(model::Explorer &ex) : ex_(ex), load_vars_(ex.ctx()) {}

    template <class W> W var(const std::string &name, std::uint64_t lo, std::uint64_t hi, bool is_load = false) {
        constexpr unsigned N = word_bits<W>::value;
        decls_.push_back({name, N, lo, hi, is_load, false});
        z3::context &c = ex_.ctx();
        z3::expr x = ex_.encoding() == model::Encoding::integer ? c.int_const(name.c_str())
                                                                 : c.bv_const(name.c_str(), N);
        consts_.emplace(name, x);
        W w(x);
        // Built from raw terms: Sym's comparisons assume the range holds.
        if (ex_.encoding() == model::Encoding::integer)
            ex_.assume(c.int_val(lo) <= x && x <= c.int_val(hi));
        else
            ex_.assume(z3::ule(c.bv_val(lo, N), x) && z3::ule(x, c.bv_val(hi, N)));
        if (is_load)
            load_vars_.push_back(x);
        return w;
    }
    template <class W> W fixed(const std::string &name, std::uint64_t value) {
        decls_.push_back({name, word_bits<W>::value, value, value, false, true});
        return W(value);
    }
    // A relation between inputs that is part of the domain.
    void require(const model::SymBool &c, const std::string &text) {
        ex_.assume(c.e);
        relations_.push_back(text);
    }

    const std::vector<InputDecl> &decls() const { return decls_; }
    const std::map<std::string, z3::expr> &consts() const { return consts_; }
    const z3::expr_vector &load_vars() const { return load_vars_; }
    const std::vector<std::string> &relations() const { return relations_; }

  private:
    model::Explorer &ex_;
    std::vector<InputDecl> decls_;
    std::map<std::string, z3::expr> consts_;
    z3::expr_vector load_vars_;
    std::vector<std::string> relations_;
};

struct domain_violation : std::runtime_error {
    using std::runtime_error::runtime_error;
};

class ConcreteInputs {
  public:
    explicit ConcreteInputs(std::map<std::string, std::uint64_t> values) : values_(std::move(values)) {}

    template <class W> W var(const std::string &name, std::uint64_t lo, std::uint64_t hi, bool = false) {
        auto it = values_.find(name);
        std::uint64_t v = it == values_.end() ? lo : it->second;
        if (v < lo || v > hi)
            throw domain_violation("input " + name + " = " + std::to_string(v) + " is outside [" +
                                   std::to_string(lo) + ", " + std::to_string(hi) + "]");
        values_[name] = v;
        return W(v);
    }
    template <class W> W fixed(const std::string &name, std::uint64_t value) {
        values_[name] = value;
        return W(value);
    }
    void require(bool c, const std::string &text) {
        if (!c)
            throw domain_violation("inputs violate the domain relation " + text);
    }
    const std::map<std::string, std::uint64_t> &values() const { return values_; }

  private:
    std::map<std::string, std::uint64_t> values_;
};

// The inputs a case declares, with their ranges, without running anything:
// every hole reads its lower bound and every relation is taken as it comes
// (not checked), so that all of them are reached.  What a sampler of
// in-domain points needs (proofs/engine/case_points.h).
class DeclRecorder {
  public:
    template <class W> W var(const std::string &name, std::uint64_t lo, std::uint64_t hi, bool is_load = false) {
        decls_.push_back({name, unsigned(8 * sizeof(W)), lo, hi, is_load, false});
        return W(lo);
    }
    template <class W> W fixed(const std::string &name, std::uint64_t value) {
        decls_.push_back({name, unsigned(8 * sizeof(W)), value, value, false, true});
        return W(value);
    }
    void require(bool, const std::string &) {}
    const std::vector<InputDecl> &decls() const { return decls_; }

  private:
    std::vector<InputDecl> decls_;
};

} // namespace sc::proofs
