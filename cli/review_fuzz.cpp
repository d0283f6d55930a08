// `review --fuzz-seconds N`: the post-image of a patch run against its
// pre-image on random task lives (proofs/task_trace.h), both through their
// oracle plug-ins, until a state differs or the time is up.
//
// A life is what the kernel can do to one task: PELT updates whose load,
// runnable and running follow the task being queued or not (load and
// runnable 1 while queued, 0 while not; running only while queued),
// util_est_enqueue when it is queued, and util_est_dequeue followed by
// util_est_update when it leaves.  The clock starts anywhere and moves by
// deltas that favour period boundaries, sub-period steps and long sleeps.
// A difference is shrunk (calls removed, deltas made smaller) while it
// persists, so the review shows a short life.  The seed is reported and can
// be given back (--fuzz-seed), so a run is repeatable.
#include "cli/review_fuzz.h"

#include <chrono>

#include "oracle/process.h"

namespace sc::cli {

namespace {

using proofs::TaskOp;
using proofs::TaskRun;
using proofs::TaskSnapshot;

struct Rng {
    std::uint64_t s;
    std::uint64_t next() {
        s ^= s << 13;
        s ^= s >> 7;
        s ^= s << 17;
        return s;
    }
    std::uint64_t below(std::uint64_t n) { return n ? next() % n : 0; }
    bool one_in(unsigned n) { return below(n) == 0; }
};

// Weights as se_weight() gives them: the nice table's ends, nice 0, any.
std::uint64_t weight(Rng &g) {
    switch (g.below(4)) {
    case 0: return 1024;
    case 1: return 15;
    case 2: return 88761;
    default: return 15 + g.below(88761 - 15 + 1);
    }
}

std::uint64_t delta(Rng &g) {
    switch (g.below(6)) {
    case 0: return g.below(1024);                                // within a period
    case 1: return 1024 * (1 + g.below(4));                      // whole periods
    case 2: return 1024 * g.below(64) + g.below(1024);           // a few periods
    case 3: return g.below(std::uint64_t(1) << 30);              // up to a second
    case 4: return 1024ULL * 32 * (1 + g.below(64)) + g.below(1024); // half-lives
    default: return g.below(std::uint64_t(1) << 44);             // long sleeps
    }
}

TaskRun random_life(Rng &g) {
    TaskRun r;
    r.lp64 = g.below(2);
    r.util_est = !g.one_in(4);
    r.fastup = g.below(2);
    const std::uint64_t caps[] = {1024, 1024, 446, 160};
    r.capacity = g.one_in(4) ? 1 + g.below(1024) : caps[g.below(4)];
    r.start = g.below(3) == 0 ? 0 : g.below(std::uint64_t(1) << (g.below(2) ? 40 : 63));
    bool queued = false;
    std::size_t n = 1 + g.below(48);
    while (r.ops.size() < n) {
        unsigned pick = static_cast<unsigned>(g.below(10));
        if (pick < 6) {
            TaskOp op;
            op.delta = delta(g);
            op.load = op.runnable = queued ? 1 : 0;
            op.running = queued && g.below(3) != 0 ? 1 : 0;
            op.weight = weight(g);
            r.ops.push_back(op);
        } else if (!queued) {
            r.ops.push_back({TaskOp::enqueue});
            queued = true;
        } else {
            bool sleep = !g.one_in(4);
            TaskOp d{TaskOp::dequeue}, u{TaskOp::update};
            d.sleep = u.sleep = sleep;
            r.ops.push_back(d);
            r.ops.push_back(u);
            queued = false;
        }
    }
    return r;
}

// Whether ops is a life as random_life() makes them (what shrinking keeps).
bool is_life(const TaskRun &r) {
    bool queued = false;
    for (std::size_t k = 0; k < r.ops.size(); ++k) {
        const TaskOp &op = r.ops[k];
        switch (op.kind) {
        case TaskOp::pelt:
            if (op.load != (queued ? 1u : 0u) || op.runnable != op.load || (op.running && !queued))
                return false;
            break;
        case TaskOp::enqueue:
            if (queued)
                return false;
            queued = true;
            break;
        case TaskOp::dequeue:
            if (!queued || k + 1 >= r.ops.size() || r.ops[k + 1].kind != TaskOp::update ||
                r.ops[k + 1].sleep != op.sleep)
                return false;
            queued = false;
            break;
        case TaskOp::update:
            if (k == 0 || r.ops[k - 1].kind != TaskOp::dequeue)
                return false;
            break;
        }
    }
    return true;
}

struct Compared {
    std::vector<TaskSnapshot> pre, post;
    std::ptrdiff_t first = -1; // the first call after which they differ
};

Compared compare(const proofs::TaskRunner &pre, const proofs::TaskRunner &post, const TaskRun &r) {
    Compared c{pre(r), post(r), -1};
    for (std::size_t k = 0; k < std::min(c.pre.size(), c.post.size()); ++k)
        if (c.pre[k] != c.post[k]) {
            c.first = static_cast<std::ptrdiff_t>(k);
            break;
        }
    return c;
}

// A smaller life that still differs: calls cut after the first difference,
// then calls removed and deltas lowered while it still differs.
TaskRun shrink(const proofs::TaskRunner &pre, const proofs::TaskRunner &post, TaskRun r, std::size_t first) {
    r.ops.resize(first + 1);
    auto differs = [&](const TaskRun &t) { return is_life(t) && compare(pre, post, t).first >= 0; };
    unsigned budget = 4000;
    for (bool again = true; again && budget;) {
        again = false;
        // Remove one call, a dequeue with its update, or an enqueue with both.
        for (std::size_t k = r.ops.size(); k-- > 0 && budget;) {
            for (std::size_t len : {std::size_t(1), std::size_t(2), std::size_t(3)}) {
                if (k + len > r.ops.size())
                    continue;
                TaskRun t = r;
                t.ops.erase(t.ops.begin() + static_cast<std::ptrdiff_t>(k),
                            t.ops.begin() + static_cast<std::ptrdiff_t>(k + len));
                --budget;
                if (!t.ops.empty() && differs(t)) {
                    r = t;
                    again = true;
                    break;
                }
            }
        }
        // Lower the numbers: deltas, weights, the starting clock.
        auto lower = [&](std::uint64_t &field) {
            for (bool moved = true; moved && budget;) {
                moved = false;
                const std::uint64_t cur = field;
                for (std::uint64_t cand : {std::uint64_t(0), cur / 2, cur - cur % 1024, cur - 1}) {
                    if (cand >= cur)
                        continue;
                    field = cand;
                    --budget;
                    if (differs(r)) {
                        moved = again = true;
                        break;
                    }
                    field = cur;
                }
            }
        };
        lower(r.start);
        for (TaskOp &op : r.ops)
            if (op.kind == TaskOp::pelt) {
                lower(op.delta);
                if (op.weight != 1024) {
                    std::uint64_t w = op.weight;
                    op.weight = 1024;
                    --budget;
                    if (!differs(r))
                        op.weight = w;
                }
            }
    }
    return r;
}

} // namespace

ReviewFuzz fuzz_pre_post(const proofs::TaskRunner &pre, const proofs::TaskRunner &post, unsigned seconds,
                         std::uint64_t seed) {
    ReviewFuzz f;
    f.seed = seed;
    Rng g{seed ? seed : 1};
    auto t0 = std::chrono::steady_clock::now();
    const auto until = t0 + std::chrono::seconds(seconds);
    while (std::chrono::steady_clock::now() < until) {
        sys::check_interrupt();
        for (int k = 0; k < 64; ++k) {
            TaskRun r = random_life(g);
            Compared c = compare(pre, post, r);
            ++f.lives;
            f.calls += r.ops.size();
            if (c.first < 0)
                continue;
            TaskRun small = shrink(pre, post, r, static_cast<std::size_t>(c.first));
            Compared cs = compare(pre, post, small);
            if (cs.first < 0)
                throw proofs::internal_error("review: the shrunk fuzzing difference does not differ");
            f.found = ReviewFuzz::Difference{small, static_cast<std::size_t>(cs.first), cs.pre, cs.post};
            f.seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
            return f;
        }
    }
    f.seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
    return f;
}

nlohmann::json to_json(const TaskRun &r) {
    nlohmann::json ops = nlohmann::json::array();
    for (const TaskOp &op : r.ops) {
        static const char *kinds[] = {"pelt", "util_est_enqueue", "util_est_dequeue", "util_est_update"};
        nlohmann::json j = {{"call", kinds[op.kind]}};
        if (op.kind == TaskOp::pelt)
            j.update({{"delta_ns", op.delta},
                      {"load", op.load},
                      {"runnable", op.runnable},
                      {"running", op.running},
                      {"weight", op.weight}});
        else
            j["task_sleep"] = op.sleep;
        ops.push_back(j);
    }
    return {{"arch", r.lp64 ? "lp64" : "ilp32"}, {"UTIL_EST", r.util_est}, {"UTIL_EST_FASTUP", r.fastup},
            {"capacity", r.capacity},           {"start_ns", r.start},    {"calls", ops}};
}

} // namespace sc::cli
