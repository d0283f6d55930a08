#include "proofs/engine/query_cache.h"

#include <cstdlib>
#include <mutex>
#include <cctype>
#include <unordered_map>
#include <unordered_set>

namespace sc::proofs::query_cache {

namespace {
// 1 GiB of query text at most; past it, queries are simply asked again.
constexpr std::size_t budget = std::size_t(1) << 30;

struct Store {
    std::mutex mu;
    std::unordered_set<std::string> unsat;
    Stats st;
};
Store &store() {
    static Store s;
    return s;
}
} // namespace

bool enabled() {
    static const bool on = [] {
        const char *e = std::getenv("SCHEDCHECK_QUERY_CACHE");
        return !(e && std::string(e) == "0");
    }();
    return on;
}

std::string canonical(const std::string &smt2) {
    // Z3 names the shared subterms of its output after their AST ids
    // ($x123, ?x45), which depend on what the context created before.
    // Renaming them in order of first appearance is an alpha-renaming of
    // let-bound names: equal texts after it are the same formula.
    std::string out;
    out.reserve(smt2.size());
    std::unordered_map<std::string, std::string> names;
    for (std::size_t i = 0; i < smt2.size();) {
        char c = smt2[i];
        if ((c == '$' || c == '?') && i + 1 < smt2.size() && std::isalpha(static_cast<unsigned char>(smt2[i + 1]))) {
            std::size_t j = i + 1;
            while (j < smt2.size() && std::isalpha(static_cast<unsigned char>(smt2[j])))
                ++j;
            std::size_t k = j;
            while (k < smt2.size() && std::isdigit(static_cast<unsigned char>(smt2[k])))
                ++k;
            if (k > j) {
                std::string name = smt2.substr(i, k - i);
                auto it = names.find(name);
                if (it == names.end())
                    it = names.emplace(name, std::string(1, c) + "v" + std::to_string(names.size())).first;
                out += it->second;
                i = k;
                continue;
            }
        }
        out += c;
        ++i;
    }
    return out;
}

bool known_unsat(const std::string &smt2) {
    Store &s = store();
    std::lock_guard<std::mutex> g(s.mu);
    bool hit = s.unsat.count(smt2) != 0;
    ++(hit ? s.st.hits : s.st.misses);
    return hit;
}

void record_unsat(const std::string &smt2) {
    Store &s = store();
    std::lock_guard<std::mutex> g(s.mu);
    if (s.st.bytes + smt2.size() > budget)
        return;
    if (s.unsat.insert(smt2).second) {
        s.st.bytes += smt2.size();
        ++s.st.entries;
    }
}

void forget(const std::vector<std::string> &smt2s) {
    Store &s = store();
    std::lock_guard<std::mutex> g(s.mu);
    for (const std::string &q : smt2s)
        if (s.unsat.erase(q))
            s.st.bytes -= q.size();
}

Stats stats() {
    Store &s = store();
    std::lock_guard<std::mutex> g(s.mu);
    Stats out = s.st;
    out.entries = s.unsat.size();
    return out;
}

} // namespace sc::proofs::query_cache
