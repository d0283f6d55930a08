#include "proofs/report/shard.h"

#include <algorithm>
#include <charconv>
#include <cmath>
#include <optional>
#include <sstream>

#include <fmt/format.h>

#include "proofs/equiv/carry_over.h"
#include "proofs/report/input_file.h"
#include "proofs/kernel/kernel_invariants.h"

namespace sc::proofs {

extern const char *const timings_text_builtin;

std::string job_key(const std::string &variant, const std::string &invariant, Arch a) {
    return variant + ' ' + invariant + ' ' + std::string(arch_name(a));
}
std::string job_key(const Job &j) { return job_key(j.variant->id, j.invariant->id, j.arch); }

std::map<std::string, double> parse_timings(const std::string &text, const std::string &origin) {
    std::map<std::string, double> out;
    std::istringstream in(text);
    std::string line;
    for (int lineno = 1; std::getline(in, line); ++lineno) {
        auto fail = [&](const std::string &why) {
            return input_error(origin + ":" + std::to_string(lineno) + ": " + why);
        };
        if (auto h = line.find('#'); h != std::string::npos)
            line.erase(h);
        std::istringstream ls(line);
        std::string v, i, a, secs, extra;
        if (!(ls >> v))
            continue;
        if (!(ls >> i >> a >> secs) || (ls >> extra))
            throw fail("expected \"<variant> <invariant> <arch> <seconds>\", got \"" + excerpt(line) + "\"");
        if (!find_subject(v))
            throw fail("unknown variant \"" + excerpt(v) + "\" (see `schedcheck variants`)");
        if (!find_invariant(i))
            throw fail("unknown invariant \"" + excerpt(i) + "\" (see `schedcheck invariants`)");
        if (a != "ilp32" && a != "lp64")
            throw fail("unknown arch \"" + excerpt(a) + "\" (ilp32 or lp64)");
        double s = 0;
        auto [p, ec] = std::from_chars(secs.data(), secs.data() + secs.size(), s);
        if (ec != std::errc() || p != secs.data() + secs.size() || !std::isfinite(s) || s < 0 || s > 1e6)
            throw fail("seconds: \"" + excerpt(secs) + "\" is not a number of seconds in [0, 1e6]");
        if (!out.emplace(v + ' ' + i + ' ' + a, s).second)
            throw fail(v + ' ' + i + ' ' + a + " is listed twice");
    }
    return out;
}

const std::map<std::string, double> &builtin_timings() {
    static const std::map<std::string, double> t = parse_timings(timings_text_builtin, "proofs/expected/timings.txt");
    return t;
}

double default_cost(const std::map<std::string, double> &timings) {
    if (timings.empty())
        return 1.0;
    double sum = 0;
    for (const auto &[k, s] : timings)
        sum += s;
    return sum / double(timings.size());
}

ShardSpec parse_shard(const std::string &text) {
    auto fail = [&] {
        return input_error("--shard: expected I/N with 1 <= I <= N <= 4096 (for example 2/3), got \"" +
                           excerpt(text) + "\"");
    };
    auto slash = text.find('/');
    if (slash == std::string::npos)
        throw fail();
    auto num = [&](std::string_view s, unsigned &v) {
        auto [p, ec] = std::from_chars(s.data(), s.data() + s.size(), v);
        return ec == std::errc() && p == s.data() + s.size() && !s.empty();
    };
    ShardSpec sp;
    std::string_view all(text);
    if (!num(all.substr(0, slash), sp.index) || !num(all.substr(slash + 1), sp.count) || sp.count < 1 ||
        sp.count > 4096 || sp.index < 1 || sp.index > sp.count)
        throw fail();
    return sp;
}

std::vector<unsigned> assign_shards(const std::vector<Job> &jobs, unsigned count,
                                    const std::map<std::string, double> &timings) {
    std::vector<unsigned> part(jobs.size(), 0);
    if (count <= 1)
        return part;
    double dflt = default_cost(timings);
    std::vector<double> cost(jobs.size());
    for (std::size_t k = 0; k < jobs.size(); ++k) {
        auto it = timings.find(job_key(jobs[k]));
        cost[k] = it == timings.end() ? dflt : it->second;
    }
    // A job that run_matrix() carries over from another's
    // (proofs/equiv/carry_over.h) goes where that one goes, its cost added
    // to it: apart, it would be proved directly, at the cost of its source's
    // proof and not the one the timing file records for it.  Carried jobs
    // can chain (linux-6.12 from pelt/v6.12 from pelt/v6.1): each goes with
    // the first of its chain.
    std::vector<std::size_t> lead(jobs.size());
    const std::vector<std::optional<std::size_t>> source = carry_sources(jobs);
    for (std::size_t k = 0; k < jobs.size(); ++k)
        lead[k] = source[k].value_or(k);
    auto first = [&](std::size_t k) {
        for (std::size_t steps = 0; lead[k] != k && steps < jobs.size(); ++steps)
            k = lead[k];
        return k;
    };
    // The proofs of one invariant share solver answers through the query
    // cache (the two data models of a variant, neighbouring releases, a
    // kernel and the variant it is proved equal to), and the timing file
    // records each proof's cost in a whole run, after the proofs before it
    // filled that cache.  Apart, each pays the full price: pelt/v4.12's
    // decay_monotone ilp32 took 2.8 s in a whole run and 35.8 s in a shard
    // without v4.3's.  So an invariant's proofs go to one shard together,
    // unless together they cost more than a shard's share; then they go per
    // variant (both data models, and what is carried over from them).
    std::vector<std::string> unit(jobs.size());
    double total = 0;
    std::map<std::string, double> weight;
    for (std::size_t k = 0; k < jobs.size(); ++k) {
        unit[k] = jobs[first(k)].invariant->id;
        weight[unit[k]] += cost[k];
        total += cost[k];
    }
    const double share = total / count;
    std::map<std::string, double> unit_cost;
    for (std::size_t k = 0; k < jobs.size(); ++k) {
        if (weight[unit[k]] > share)
            unit[k] += ' ' + jobs[first(k)].variant->id;
        unit_cost[unit[k]] += cost[k];
    }
    // Longest processing time first: the order depends only on the costs
    // and the names, never on the order the selection was listed in.
    std::vector<std::pair<std::string, double>> order(unit_cost.begin(), unit_cost.end());
    std::stable_sort(order.begin(), order.end(),
                     [](const auto &a, const auto &b) { return a.second > b.second; });
    std::vector<double> load(count, 0.0);
    std::map<std::string, unsigned> unit_part;
    for (const auto &[u, c] : order) {
        unsigned best = 0;
        for (unsigned s = 1; s < count; ++s)
            if (load[s] < load[best])
                best = s;
        unit_part[u] = best;
        load[best] += c;
    }
    for (std::size_t k = 0; k < jobs.size(); ++k)
        part[k] = unit_part[unit[k]];
    return part;
}

std::string timings_text(const std::vector<ProofResult> &results, const std::string &header) {
    std::string o = header;
    std::size_t wv = 0, wi = 0;
    for (const auto &r : results) {
        wv = std::max(wv, r.variant.size());
        wi = std::max(wi, r.invariant.size());
    }
    for (const auto &r : results)
        o += fmt::format("{:<{}} {:<{}} {:<5} {:.3f}\n", r.variant, wv, r.invariant, wi, arch_name(r.arch),
                         r.seconds);
    return o;
}

} // namespace sc::proofs
