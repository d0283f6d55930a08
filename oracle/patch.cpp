#include "oracle/patch.h"

#include <algorithm>
#include <cctype>
#include <cstdint>
#include <cstdlib>
#include <functional>
#include <optional>
#include <string_view>
#include <unordered_map>

namespace sc::oracle {

// ---------------------------------------------------------------- hunks

std::vector<std::string> Hunk::old_side() const {
    std::vector<std::string> out;
    for (const auto &l : lines)
        if (l[0] == ' ' || l[0] == '-')
            out.push_back(l.substr(1));
    return out;
}

std::vector<std::string> Hunk::new_side() const {
    std::vector<std::string> out;
    for (const auto &l : lines)
        if (l[0] == ' ' || l[0] == '+')
            out.push_back(l.substr(1));
    return out;
}

std::string Fragment::text() const {
    std::string s;
    for (const auto &l : lines) {
        s += l;
        s += '\n';
    }
    return s;
}

const std::vector<Fragment> *Image::file(const std::string &path) const {
    auto it = files.find(path);
    return it == files.end() ? nullptr : &it->second;
}

// ---------------------------------------------------------------- parsing

namespace {

bool starts_with(const std::string &s, std::string_view p) { return s.compare(0, p.size(), p) == 0; }

std::string trim(std::string s) {
    std::size_t b = s.find_first_not_of(" \t");
    if (b == std::string::npos)
        return {};
    std::size_t e = s.find_last_not_of(" \t");
    return s.substr(b, e - b + 1);
}

std::vector<std::string> split_lines(const std::string &text) {
    std::vector<std::string> out;
    std::size_t b = 0;
    while (b < text.size()) {
        std::size_t e = text.find('\n', b);
        if (e == std::string::npos)
            e = text.size();
        std::string l = text.substr(b, e - b);
        if (!l.empty() && l.back() == '\r')
            l.pop_back();
        out.push_back(std::move(l));
        b = e + 1;
    }
    return out;
}

// "[RFC PATCH 1/4] sched: ..." or "Subject: [PATCH] ...": the title without
// "Subject:", else nothing.  Replies ("Re: ...") are not patch titles.
std::optional<std::string> title_of(const std::string &line) {
    if (line.empty() || (line[0] != '[' && line[0] != 'S'))
        return std::nullopt;
    std::string s = line;
    if (starts_with(s, "Subject:"))
        s = trim(s.substr(8));
    if (s.empty() || s[0] != '[')
        return std::nullopt;
    std::size_t close = s.find(']');
    if (close == std::string::npos)
        return std::nullopt;
    std::string tag = s.substr(1, close - 1);
    std::transform(tag.begin(), tag.end(), tag.begin(), [](unsigned char c) { return std::toupper(c); });
    if (tag.find("PATCH") == std::string::npos)
        return std::nullopt;
    return trim(s);
}

// A path from a "--- " / "+++ " line or a "diff --git" operand: cut any
// timestamp and strip the first component (as `patch -p1` does).
std::string clean_path(std::string p) {
    std::size_t tab = p.find('\t');
    if (tab != std::string::npos)
        p = p.substr(0, tab);
    p = trim(p);
    if (p == "/dev/null")
        return p;
    std::size_t slash = p.find('/');
    if (slash != std::string::npos && slash + 1 < p.size())
        p = p.substr(slash + 1);
    return p;
}

// "@@ -a,b +c,d @@": false when the numbers cannot be read.
bool parse_hunk_header(const std::string &l, Hunk &h) {
    auto number = [&](std::size_t &i, int &out) {
        std::size_t b = i;
        while (i < l.size() && std::isdigit(static_cast<unsigned char>(l[i])))
            ++i;
        if (i == b || i - b > 9)
            return false;
        out = std::atoi(l.c_str() + b);
        return true;
    };
    auto range = [&](std::size_t &i, char sign, int &start, int &count) {
        if (i >= l.size() || l[i] != sign)
            return false;
        ++i;
        if (!number(i, start))
            return false;
        count = 1;
        if (i < l.size() && l[i] == ',') {
            ++i;
            if (!number(i, count))
                return false;
        }
        return true;
    };
    std::size_t i = 3; // after "@@ "
    if (!range(i, '-', h.old_start, h.old_count))
        return false;
    if (i >= l.size() || l[i] != ' ')
        return false;
    ++i;
    if (!range(i, '+', h.new_start, h.new_count))
        return false;
    return l.compare(i, 3, " @@") == 0;
}

bool git_extended_header(const std::string &l) {
    static const char *const keys[] = {"index ",       "old mode ",         "new mode ",           "deleted file mode ",
                                       "new file mode ", "similarity index ", "dissimilarity index ", "rename from ",
                                       "rename to ",   "copy from ",        "copy to ",            "Binary files "};
    for (const char *k : keys)
        if (starts_with(l, k))
            return true;
    return false;
}

class Parser {
public:
    Parser(const std::string &text, const std::string &origin) : L(split_lines(text)), origin(origin) {}

    Series run() {
        Series s;
        s.origin = origin;
        std::string pending_title; // the latest title seen since the previous patch ended
        std::unordered_multimap<std::size_t, std::size_t> seen; // hash of a patch's diff -> its index
        std::size_t i = 0;
        while (i < L.size()) {
            const std::string &l = L[i];
            if (!l.empty() && l[0] == '>') {
                ++i;
                continue;
            }
            if (auto t = title_of(l)) {
                pending_title = *t;
                // A folded Subject: header continues on indented lines.
                if (starts_with(l, "Subject:"))
                    while (i + 1 < L.size() && !L[i + 1].empty() && (L[i + 1][0] == ' ' || L[i + 1][0] == '\t'))
                        pending_title += " " + trim(L[++i]);
                ++i;
                continue;
            }
            if (diff_starts(i)) {
                Patch p;
                p.first_line = static_cast<int>(i) + 1;
                p.title = pending_title.empty()
                              ? "patch " + std::to_string(s.patches.size() + 1) + " of " + origin
                              : pending_title;
                pending_title.clear();
                i = parse_patch(i, p);
                if (p.files.empty())
                    continue;
                // A resend is found by a hash of the diff, then compared.
                const std::size_t h = hash_of(p);
                auto [b, e] = seen.equal_range(h);
                bool dup = std::any_of(b, e, [&](const auto &kv) { return s.patches[kv.second].files == p.files; });
                if (!dup) {
                    seen.emplace(h, s.patches.size());
                    s.patches.push_back(std::move(p));
                }
                continue;
            }
            ++i;
        }
        if (s.patches.empty())
            throw extract_error("no diff found in " + origin);
        return s;
    }

private:
    std::vector<std::string> L;
    std::string origin;

    static std::size_t hash_of(const Patch &p) {
        std::size_t h = 0;
        auto mix = [&h](std::size_t v) { h ^= v + 0x9e3779b97f4a7c15ull + (h << 6) + (h >> 2); };
        std::hash<std::string> hs;
        for (const auto &f : p.files) {
            mix(hs(f.old_path));
            mix(hs(f.new_path));
            for (const auto &hk : f.hunks) {
                mix(static_cast<std::size_t>(hk.old_start) * 31 + static_cast<std::size_t>(hk.new_start));
                for (const auto &l : hk.lines)
                    mix(hs(l));
            }
        }
        return h;
    }

    const std::string &line(std::size_t i) const {
        static const std::string none;
        return i < L.size() ? L[i] : none;
    }

    bool minus_plus_at(std::size_t i) const {
        return starts_with(line(i), "--- ") && starts_with(line(i + 1), "+++ ");
    }

    // A file diff starts here: a git header, or "---"/"+++" then a hunk.
    bool diff_starts(std::size_t i) const {
        if (starts_with(line(i), "diff --git "))
            return true;
        return minus_plus_at(i) && starts_with(line(i + 2), "@@ -");
    }

    [[noreturn]] void fail(std::size_t i, const Patch &p, const std::string &file, const std::string &what) const {
        std::string msg = origin + ":" + std::to_string(i + 1) + ": " + what + " (patch '" + p.title + "'";
        if (!file.empty())
            msg += ", file " + file;
        msg += ")";
        throw extract_error(msg);
    }

    // Returns the index of the first line after the patch.
    std::size_t parse_patch(std::size_t i, Patch &p) {
        while (diff_starts(i)) {
            FileDiff f;
            if (starts_with(line(i), "diff --git ")) {
                // Operands "a/X b/Y": the fallback paths for a diff without hunks.
                std::string ops = line(i).substr(11);
                std::size_t sp = ops.find(" b/");
                if (sp != std::string::npos) {
                    f.old_path = clean_path(ops.substr(0, sp));
                    f.new_path = clean_path(ops.substr(sp + 1));
                }
                ++i;
                while (i < L.size() && git_extended_header(L[i]))
                    ++i;
                if (!minus_plus_at(i)) {
                    // Mode change, rename or binary file: nothing for us.
                    continue;
                }
            }
            f.old_path = clean_path(line(i).substr(4));
            f.new_path = clean_path(line(i + 1).substr(4));
            i += 2;
            if (!starts_with(line(i), "@@ "))
                fail(i, p, f.path(), "expected a \"@@ -a,b +c,d @@\" hunk header after the +++ line");
            while (starts_with(line(i), "@@ "))
                i = parse_hunk(i, p, f);
            p.files.push_back(std::move(f));
        }
        return i;
    }

    std::size_t parse_hunk(std::size_t i, const Patch &p, FileDiff &f) {
        Hunk h;
        h.header = line(i);
        h.source_line = static_cast<int>(i) + 1;
        if (!parse_hunk_header(h.header, h))
            fail(i, p, f.path(), "malformed hunk header '" + h.header + "'");
        int old_left = h.old_count, new_left = h.new_count;
        ++i;
        while (old_left > 0 || new_left > 0) {
            if (i >= L.size())
                fail(i, p, f.path(),
                     "hunk '" + h.header + "' is cut short: the text ends with " + std::to_string(old_left) +
                         " old and " + std::to_string(new_left) + " new lines missing");
            std::string l = L[i];
            if (l.empty())
                l = " "; // a context line whose blank was stripped in transit
            char c = l[0];
            if (c == '\\') { // "\ No newline at end of file"
                ++i;
                continue;
            }
            bool ok = (c == ' ' && old_left > 0 && new_left > 0) || (c == '-' && old_left > 0) ||
                      (c == '+' && new_left > 0);
            if (!ok)
                fail(i, p, f.path(),
                     "hunk '" + h.header + "' does not match its line counts: still expecting " +
                         std::to_string(old_left) + " old and " + std::to_string(new_left) +
                         " new lines, found '" + L[i].substr(0, 60) + "'");
            if (c != '+')
                --old_left;
            if (c != '-')
                --new_left;
            h.lines.push_back(std::move(l));
            ++i;
        }
        if (starts_with(line(i), "\\"))
            ++i;
        f.hunks.push_back(std::move(h));
        return i;
    }
};

} // namespace

Series parse_series(const std::string &text, const std::string &origin) { return Parser(text, origin).run(); }

// ---------------------------------------------------------------- images

namespace {

// The state of one file as the replay goes: the file as a sequence of
// pieces, each a known line, a run of lines whose text is unknown
// (untouched base-tree text), or the end of a file known whole (no line
// exists past it).  The pieces are kept in an implicit treap, a balanced
// tree ordered by position in which every subtree knows how many lines it
// covers; so finding line n, cutting the file at a line and joining pieces
// again take a logarithmic time, and applying a hunk costs its own size.
// Line numbers are never stored: a hunk that adds lines moves everything
// after it without visiting it.
enum class PieceKind : std::uint8_t { line, gap, end };

struct Node {
    int left = -1, right = -1;
    std::uint32_t prio = 0;
    PieceKind kind = PieceKind::line;
    std::int64_t count = 1;    // lines the piece covers: 1 for a known line
    std::int64_t size = 1;     // lines the subtree covers
    int orig = -1;             // base-tree line of its first line; -1 when a patch wrote it
    std::size_t stamp = 0;     // the replay step that wrote it (0: the base)
    std::size_t max_stamp = 0; // the largest stamp in the subtree
    std::string text;          // a known line's text
};

// "The rest of the file": more lines than any file has.
constexpr std::int64_t unbounded = std::int64_t(1) << 40;

// One line of a window: the piece it lies in and its offset there.
struct At {
    int node;
    std::int64_t off;
};

class FileState {
public:
    // A file nothing is known of yet, or (whole) an empty file.
    explicit FileState(bool whole = false) : whole_(whole) {
        root_ = make(whole ? PieceKind::end : PieceKind::gap, unbounded, 1, 0, {});
    }

    // Starts from an image's fragments (sorted, disjoint).
    FileState(const std::vector<Fragment> &frs, bool whole) : whole_(whole) {
        std::int64_t next = 1; // the first line not yet placed
        root_ = -1;
        for (const Fragment &f : frs) {
            if (f.lines.empty())
                continue;
            if (f.first_line > next)
                root_ = merge(root_, make(PieceKind::gap, f.first_line - next, static_cast<int>(next), 0, {}));
            for (std::size_t j = 0; j < f.lines.size(); ++j)
                root_ = merge(root_, make(PieceKind::line, 1, f.first_line + static_cast<int>(j), 0, f.lines[j]));
            next = f.end_line();
        }
        root_ = merge(root_, make(whole ? PieceKind::end : PieceKind::gap, unbounded, static_cast<int>(next), 0, {}));
    }

    bool whole() const { return whole_; }

    struct Fit {
        bool ok;
        int overlap;         // known lines the old side agrees with
        bool telling = false; // one of them has a letter or a digit (not just "}" or a blank)
    };

    // Does the old side agree with the known text when put at line `pos`?
    Fit fits(const std::vector<std::string> &old, std::int64_t pos) const {
        if (pos < 1)
            return {false, 0};
        // Nothing goes after the end of a whole file, not even an addition.
        if (pos >= 2 && piece(pos - 2).kind == PieceKind::end)
            return {false, 0};
        std::vector<At> w;
        window(root_, 0, pos - 1, pos - 1 + static_cast<std::int64_t>(old.size()), w);
        Fit fit{true, 0};
        for (std::size_t k = 0; k < w.size(); ++k) {
            const Node &n = nodes_[w[k].node];
            if (n.kind == PieceKind::end)
                return {false, fit.overlap};
            if (n.kind == PieceKind::line) {
                if (n.text != old[k])
                    return {false, fit.overlap};
                ++fit.overlap;
                fit.telling = fit.telling || std::any_of(n.text.begin(), n.text.end(), [](unsigned char c) {
                                  return std::isalnum(c) != 0;
                              });
            }
        }
        return fit;
    }

    // Every position where the old side conflicts with no known line and
    // agrees with enough of them to tell: all of its lines, or at least one
    // that is more than a brace or a blank (in a sparse image, a lone "}"
    // agrees almost anywhere).  With its overlap.  Visits the whole file.
    std::vector<std::pair<std::int64_t, int>> matches(const std::vector<std::string> &old) const {
        std::unordered_map<std::string_view, std::vector<std::int64_t>> where; // old line -> its indexes
        for (std::size_t k = 0; k < old.size(); ++k)
            where[old[k]].push_back(static_cast<std::int64_t>(k));
        std::vector<std::int64_t> cand;
        each_line(root_, 0, [&](std::int64_t idx, const Node &n) {
            auto it = where.find(n.text);
            if (it != where.end())
                for (std::int64_t k : it->second)
                    if (idx - k >= 0)
                        cand.push_back(idx - k + 1);
        });
        std::sort(cand.begin(), cand.end());
        cand.erase(std::unique(cand.begin(), cand.end()), cand.end());
        std::vector<std::pair<std::int64_t, int>> out;
        for (std::int64_t p : cand) {
            Fit f = fits(old, p);
            if (f.ok && f.overlap > 0 && (f.telling || f.overlap == static_cast<int>(old.size())))
                out.push_back({p, f.overlap});
        }
        return out;
    }

    // Replaces the hunk's old side at `pos` (where it fits) by its new side.
    // The lines written are stamped `stamp`.  Old lines that come from the
    // base tree are reported to `base` (line -> text).
    void apply(const Hunk &h, const std::vector<std::string> &old, std::int64_t pos, std::map<int, std::string> *base,
               const std::string &where, std::size_t stamp) {
        const std::int64_t n = static_cast<std::int64_t>(old.size());
        int a, rest, mid, c;
        split(root_, pos - 1, a, rest);
        split(rest, n, mid, c);
        std::vector<At> w;
        window(mid, 0, 0, n, w);
        // The old side as the file has it: known text, or the hunk's own
        // text for lines that were unknown, with their base-tree numbers.
        std::vector<std::pair<std::string, int>> oldk;
        oldk.reserve(w.size());
        for (std::size_t k = 0; k < w.size(); ++k) {
            const Node &x = nodes_[w[k].node];
            if (x.kind == PieceKind::line)
                oldk.push_back({x.text, x.orig});
            else
                oldk.push_back({old[k], x.orig < 0 ? -1 : x.orig + static_cast<int>(w[k].off)});
        }
        if (base)
            for (const auto &[text, orig] : oldk) {
                if (orig < 0)
                    continue;
                auto [it, fresh] = base->emplace(orig, text);
                if (!fresh && it->second != text)
                    throw extract_error(where + ": base-tree line " + std::to_string(orig) +
                                        " is seen with two different texts");
            }
        int fresh = -1;
        std::size_t k = 0;
        for (const auto &l : h.lines) {
            if (l[0] == ' ') {
                fresh = merge(fresh, make(PieceKind::line, 1, oldk[k].second, stamp, std::move(oldk[k].first)));
                ++k;
            } else if (l[0] == '-') {
                ++k;
            } else {
                fresh = merge(fresh, make(PieceKind::line, 1, -1, stamp, l.substr(1)));
            }
        }
        // The old side's nodes are dropped; they stay in the pool until the
        // file's state goes (a replay keeps every node it ever made).
        root_ = merge(merge(a, fresh), c);
    }

    // The known text as sorted, disjoint, non-adjacent fragments.
    std::vector<Fragment> fragments() const {
        std::vector<Fragment> out;
        std::int64_t next = -1;
        each_line(root_, 0, [&](std::int64_t idx, const Node &n) {
            if (idx != next)
                out.push_back(Fragment{static_cast<int>(idx + 1), {}});
            out.back().lines.push_back(n.text);
            next = idx + 1;
        });
        return out;
    }

    // The fragments holding a line stamped `stamp`.
    std::vector<Fragment> fragments_stamped(std::size_t stamp) const {
        std::vector<std::int64_t> at;
        stamped(root_, 0, stamp, at);
        std::vector<Fragment> out;
        std::int64_t covered = -1; // one past the last line of the last fragment
        for (std::int64_t idx : at) {
            if (idx < covered)
                continue;
            std::int64_t b = idx, e = idx + 1;
            while (b > 0 && piece(b - 1).kind == PieceKind::line)
                --b;
            while (piece(e).kind == PieceKind::line)
                ++e;
            std::vector<At> w;
            window(root_, 0, b, e, w);
            Fragment f{static_cast<int>(b + 1), {}};
            for (const At &x : w)
                f.lines.push_back(nodes_[x.node].text);
            out.push_back(std::move(f));
            covered = e;
        }
        return out;
    }

private:
    std::vector<Node> nodes_;
    int root_ = -1;
    bool whole_ = false;
    std::uint64_t rng_ = 0x9e3779b97f4a7c15ull;

    std::int64_t size(int t) const { return t < 0 ? 0 : nodes_[t].size; }
    std::size_t max_stamp(int t) const { return t < 0 ? 0 : nodes_[t].max_stamp; }

    void pull(int t) {
        Node &n = nodes_[t];
        n.size = n.count + size(n.left) + size(n.right);
        n.max_stamp = std::max({n.stamp, max_stamp(n.left), max_stamp(n.right)});
    }

    int make(PieceKind kind, std::int64_t count, int orig, std::size_t stamp, std::string text) {
        rng_ ^= rng_ << 13;
        rng_ ^= rng_ >> 7;
        rng_ ^= rng_ << 17;
        Node n;
        n.prio = static_cast<std::uint32_t>(rng_ >> 32);
        n.kind = kind;
        n.count = n.size = count;
        n.orig = orig;
        n.stamp = n.max_stamp = stamp;
        n.text = std::move(text);
        nodes_.push_back(std::move(n));
        return static_cast<int>(nodes_.size() - 1);
    }

    int merge(int a, int b) {
        if (a < 0)
            return b;
        if (b < 0)
            return a;
        if (nodes_[a].prio > nodes_[b].prio) {
            int r = merge(nodes_[a].right, b);
            nodes_[a].right = r;
            pull(a);
            return a;
        }
        int l = merge(a, nodes_[b].left);
        nodes_[b].left = l;
        pull(b);
        return b;
    }

    // Cuts t into its first k lines (a) and the rest (b).  A run of
    // unknown lines cut in the middle becomes two runs.
    void split(int t, std::int64_t k, int &a, int &b) {
        if (t < 0) {
            a = b = -1;
            return;
        }
        const std::int64_t ls = size(nodes_[t].left), cnt = nodes_[t].count;
        if (k <= ls) {
            int l1, l2;
            split(nodes_[t].left, k, l1, l2);
            nodes_[t].left = l2;
            pull(t);
            a = l1;
            b = t;
        } else if (k >= ls + cnt) {
            int r1, r2;
            split(nodes_[t].right, k - ls - cnt, r1, r2);
            nodes_[t].right = r1;
            pull(t);
            a = t;
            b = r2;
        } else {
            // Inside a run: t keeps its first part and its left subtree;
            // a new piece, with t's priority, takes the rest and the right
            // subtree, so the heap order holds on both sides.
            const std::int64_t off = k - ls;
            const Node copy = nodes_[t];
            int u = make(copy.kind, cnt - off, copy.orig < 0 ? -1 : copy.orig + static_cast<int>(off), copy.stamp, {});
            nodes_[u].prio = copy.prio;
            nodes_[u].right = copy.right;
            pull(u);
            nodes_[t].count = off;
            nodes_[t].right = -1;
            pull(t);
            a = t;
            b = u;
        }
    }

    // The lines [lo, hi) of subtree t, whose first line is `first`.
    void window(int t, std::int64_t first, std::int64_t lo, std::int64_t hi, std::vector<At> &out) const {
        if (t < 0 || hi <= first || lo >= first + nodes_[t].size)
            return;
        const Node &n = nodes_[t];
        window(n.left, first, lo, hi, out);
        const std::int64_t b = first + size(n.left), e = b + n.count;
        for (std::int64_t i = std::max(lo, b); i < std::min(hi, e); ++i)
            out.push_back({t, i - b});
        window(n.right, e, lo, hi, out);
    }

    // The piece line `idx` lies in.
    const Node &piece(std::int64_t idx) const {
        int t = root_;
        for (;;) {
            const Node &n = nodes_[t];
            const std::int64_t ls = size(n.left);
            if (idx < ls) {
                t = n.left;
            } else if (idx < ls + n.count || n.right < 0) {
                return n;
            } else {
                idx -= ls + n.count;
                t = n.right;
            }
        }
    }

    template <class F> void each_line(int t, std::int64_t first, F &&f) const {
        if (t < 0)
            return;
        const Node &n = nodes_[t];
        each_line(n.left, first, f);
        const std::int64_t b = first + size(n.left);
        if (n.kind == PieceKind::line)
            f(b, n);
        each_line(n.right, b + n.count, f);
    }

    void stamped(int t, std::int64_t first, std::size_t stamp, std::vector<std::int64_t> &out) const {
        if (t < 0 || max_stamp(t) < stamp)
            return;
        const Node &n = nodes_[t];
        stamped(n.left, first, stamp, out);
        const std::int64_t b = first + size(n.left);
        if (n.kind == PieceKind::line && n.stamp == stamp)
            out.push_back(b);
        stamped(n.right, b + n.count, stamp, out);
    }
};

using State = std::map<std::string, FileState>;

// Where the hunk goes, given the line its header names (already shifted by
// the earlier hunks of the file): there when it fits; otherwise wherever
// its old side agrees with the known text, anywhere in the file, as
// `patch` and `git apply` do.  When several places agree, take the one
// that agrees with the most known lines (in a whole file every candidate
// agrees with all of them), then the one closest to the named line, and of
// two equally close the later one, as GNU patch tries +d before -d.  When
// none does, the hunk cannot be applied.
std::int64_t place(const FileState &fs, const std::vector<std::string> &old, std::int64_t nominal, const Patch &p,
                   const FileDiff &f, const Hunk &h) {
    if (fs.fits(old, nominal).ok)
        return nominal;
    // Most displaced hunks sit a few lines away: a place nearby where every
    // line of the old side is known and agrees cannot be beaten (the most
    // overlap, and nothing closer agrees), so look there before reading the
    // whole file.
    const int n = static_cast<int>(old.size());
    for (std::int64_t d = 1; d <= 64 && n > 0; ++d)
        for (std::int64_t pos : {nominal + d, nominal - d})
            if (FileState::Fit f = fs.fits(old, pos); f.ok && f.overlap == n)
                return pos;
    std::int64_t best = -1;
    int best_overlap = 0;
    for (const auto &[pos, overlap] : fs.matches(old)) {
        const std::int64_t d = std::llabs(pos - nominal), bd = std::llabs(best - nominal);
        if (best < 0 || overlap > best_overlap || (overlap == best_overlap && (d < bd || (d == bd && pos > best)))) {
            best = pos;
            best_overlap = overlap;
        }
    }
    if (best < 0)
        throw extract_error("patch '" + p.title + "', file " + f.path() + ", hunk '" + h.header +
                            "': its old side conflicts with the text " +
                            (fs.whole() ? "of the file" : "known from earlier hunks") + " at line " +
                            std::to_string(nominal) + " and matches nowhere else in it");
    return best;
}

// Apply one patch to the known text; its lines are stamped `stamp`, the
// files it touches are added to `touched`.
void apply_patch(State &st, const Patch &p, std::map<std::string, std::map<int, std::string>> *base,
                 std::size_t stamp, std::set<std::string> *touched) {
    for (const auto &f : p.files) {
        auto it = st.find(f.path());
        if (it == st.end()) // a file the patch creates is known whole: it is empty
            it = st.emplace(f.path(), FileState(f.old_path == "/dev/null")).first;
        FileState &fs = it->second;
        if (touched)
            touched->insert(f.path());
        std::int64_t offset = 0; // earlier hunks' growth plus any displacement found
        for (const auto &h : f.hunks) {
            std::vector<std::string> old = h.old_side();
            const std::int64_t nominal = (h.old_count == 0 ? h.old_start + 1 : h.old_start) + offset;
            const std::int64_t pos = place(fs, old, nominal, p, f, h);
            std::string where = "patch '" + p.title + "', file " + f.path() + ", hunk '" + h.header + "'";
            fs.apply(h, old, pos, base ? &(*base)[f.path()] : nullptr, where, stamp);
            const auto added = std::count_if(h.lines.begin(), h.lines.end(), [](const std::string &l) { return l[0] == '+'; });
            const auto removed = std::count_if(h.lines.begin(), h.lines.end(), [](const std::string &l) { return l[0] == '-'; });
            offset += (pos - nominal) + added - removed;
        }
    }
}

std::vector<Fragment> runs_of(const std::map<int, std::string> &lines) {
    std::vector<Fragment> out;
    for (const auto &[n, text] : lines) {
        if (out.empty() || out.back().end_line() != n)
            out.push_back(Fragment{n, {}});
        out.back().lines.push_back(text);
    }
    return out;
}

State state_of(const Image &base) {
    State st;
    for (const auto &[path, frs] : base.files)
        st.emplace(path, FileState(frs, base.whole.count(path) != 0));
    for (const auto &path : base.whole)
        if (!base.files.count(path))
            st.emplace(path, FileState(true));
    return st;
}

} // namespace

Image pre_image(const Series &s) {
    State st;
    std::map<std::string, std::map<int, std::string>> base;
    for (std::size_t k = 0; k < s.patches.size(); ++k)
        apply_patch(st, s.patches[k], &base, k + 1, nullptr);
    Image img;
    for (const auto &[path, lines] : base)
        if (!lines.empty())
            img.files[path] = runs_of(lines);
    return img;
}

struct Replay::Impl {
    const Series *series;
    State state;
    std::size_t applied = 0;
    std::set<std::string> touched; // by the last step
};

Replay::Replay(const Series &s) : Replay(pre_image(s), s) {}

Replay::Replay(const Image &base, const Series &s) : impl_(std::make_unique<Impl>()) {
    impl_->series = &s;
    impl_->state = state_of(base);
}

Replay::Replay(Replay &&) noexcept = default;
Replay &Replay::operator=(Replay &&) noexcept = default;
Replay::~Replay() = default;

std::size_t Replay::applied() const { return impl_->applied; }
bool Replay::done() const { return impl_->applied == impl_->series->patches.size(); }

void Replay::step() {
    if (done())
        throw extract_error("replay: " + impl_->series->origin + " holds " +
                            std::to_string(impl_->series->patches.size()) + " patches, all applied");
    impl_->touched.clear();
    const std::size_t k = impl_->applied;
    apply_patch(impl_->state, impl_->series->patches[k], nullptr, k + 1, &impl_->touched);
    impl_->applied = k + 1;
}

Image Replay::image() const {
    Image img;
    for (const auto &[path, fs] : impl_->state) {
        std::vector<Fragment> frs = fs.fragments();
        if (!frs.empty())
            img.files[path] = std::move(frs);
        if (fs.whole())
            img.whole.insert(path);
    }
    return img;
}

Image Replay::changed() const {
    Image img;
    if (impl_->applied == 0)
        return img;
    for (const auto &path : impl_->touched) {
        const FileState &fs = impl_->state.at(path);
        std::vector<Fragment> frs = fs.fragments_stamped(impl_->applied);
        if (!frs.empty())
            img.files[path] = std::move(frs);
        if (fs.whole())
            img.whole.insert(path);
    }
    return img;
}

Image post_image(const Series &s, std::size_t upto) {
    // Start from everything the series shows of the base tree, so that text
    // only a later patch mentions is carried along to the new line numbers.
    return apply_series(pre_image(s), s, upto);
}

Image apply_series(const Image &base, const Series &s, std::size_t upto) {
    if (upto > s.patches.size())
        throw extract_error("post_image: " + s.origin + " holds " + std::to_string(s.patches.size()) +
                            " patches, not " + std::to_string(upto));
    Replay r(base, s);
    while (r.applied() < upto)
        r.step();
    return r.image();
}

} // namespace sc::oracle
