#include "oracle/patch.h"

#include <algorithm>
#include <cctype>
#include <cstdlib>
#include <optional>

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
                bool dup = std::any_of(s.patches.begin(), s.patches.end(),
                                       [&](const Patch &q) { return q.files == p.files; });
                if (!dup && !p.files.empty())
                    s.patches.push_back(std::move(p));
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

// A known line in the current state of a file, and the line number it had
// in the series' base tree (-1 when a patch wrote it).
struct KLine {
    std::string text;
    int orig;
};

struct KFrag {
    int start;                 // current line number of lines[0]
    std::vector<KLine> lines;
    int orig_end;              // base-tree line number of the line just after this fragment
    int end() const { return start + static_cast<int>(lines.size()); }
};

class FileState {
public:
    std::vector<KFrag> frags; // sorted and disjoint; an empty one marks a deletion

    const KLine *known(int cur) const {
        for (const auto &f : frags)
            if (cur >= f.start && cur < f.end())
                return &f.lines[cur - f.start];
        return nullptr;
    }

    // Base-tree line number of an unknown current line: unknown text is
    // untouched, so it is offset like the nearest fragment above it.
    int orig_of_gap(int cur) const {
        const KFrag *prev = nullptr;
        for (const auto &f : frags)
            if (f.end() <= cur)
                prev = &f;
        return prev ? prev->orig_end + (cur - prev->end()) : cur;
    }

    struct Fit {
        bool ok;
        int overlap;
    };
    Fit fits(const std::vector<std::string> &old, int pos) const {
        if (pos < 1)
            return {false, 0};
        int overlap = 0;
        for (std::size_t k = 0; k < old.size(); ++k) {
            if (const KLine *kl = known(pos + static_cast<int>(k))) {
                ++overlap;
                if (kl->text != old[k])
                    return {false, overlap};
            }
        }
        return {true, overlap};
    }

    // Replace the hunk's old side at `pos` by its new side.  Old lines that
    // come from the base tree are reported to `base` (line -> text).
    void apply(const Hunk &h, int pos, std::map<int, std::string> *base, const std::string &where) {
        std::vector<std::string> old = h.old_side();
        const int n = static_cast<int>(old.size());
        std::vector<KLine> oldk;
        for (int k = 0; k < n; ++k) {
            const KLine *kl = known(pos + k);
            oldk.push_back(kl ? *kl : KLine{old[k], orig_of_gap(pos + k)});
        }
        if (base)
            for (const auto &kl : oldk) {
                if (kl.orig < 0)
                    continue;
                auto [it, fresh] = base->emplace(kl.orig, kl.text);
                if (!fresh && it->second != kl.text)
                    throw extract_error(where + ": base-tree line " + std::to_string(kl.orig) +
                                        " is seen with two different texts");
            }
        // The fragments this hunk overlaps or touches merge into one.
        std::size_t first = 0;
        while (first < frags.size() && frags[first].end() < pos)
            ++first;
        std::size_t last = first; // one past
        while (last < frags.size() && frags[last].start <= pos + n)
            ++last;

        KFrag m;
        m.start = pos;
        if (last > first && frags[first].start < pos) {
            const KFrag &f = frags[first];
            m.start = f.start;
            m.lines.assign(f.lines.begin(), f.lines.begin() + (pos - f.start));
        }
        std::size_t k = 0;
        for (const auto &l : h.lines) {
            if (l[0] == ' ')
                m.lines.push_back(oldk[k++]);
            else if (l[0] == '-')
                ++k;
            else
                m.lines.push_back(KLine{l.substr(1), -1});
        }
        if (last > first && frags[last - 1].end() > pos + n) {
            const KFrag &f = frags[last - 1];
            m.lines.insert(m.lines.end(), f.lines.begin() + (pos + n - f.start), f.lines.end());
            m.orig_end = f.orig_end;
        } else {
            m.orig_end = orig_of_gap(pos + n);
        }
        const int delta = static_cast<int>(h.new_side().size()) - n;
        frags.erase(frags.begin() + static_cast<std::ptrdiff_t>(first),
                    frags.begin() + static_cast<std::ptrdiff_t>(last));
        for (std::size_t j = first; j < frags.size(); ++j)
            frags[j].start += delta;
        // Kept even when empty (a pure deletion in unknown text): it still
        // records how the line numbers after it moved.
        frags.insert(frags.begin() + static_cast<std::ptrdiff_t>(first), std::move(m));
    }
};

using State = std::map<std::string, FileState>;

// Apply one patch to the known text.
void apply_patch(State &st, const Patch &p, std::map<std::string, std::map<int, std::string>> *base) {
    for (const auto &f : p.files) {
        FileState &fs = st[f.path()];
        int offset = 0; // earlier hunks' growth plus any displacement found
        for (const auto &h : f.hunks) {
            std::vector<std::string> old = h.old_side();
            const int nominal = (h.old_count == 0 ? h.old_start + 1 : h.old_start) + offset;
            int pos = nominal;
            if (!fs.fits(old, nominal).ok) {
                bool found = false;
                for (int d = 1; d <= 50 && !found; ++d)
                    for (int s : {nominal - d, nominal + d}) {
                        auto fit = fs.fits(old, s);
                        if (fit.ok && fit.overlap > 0) {
                            pos = s;
                            found = true;
                            break;
                        }
                    }
                if (!found)
                    throw extract_error("patch '" + p.title + "', file " + f.path() + ", hunk '" + h.header +
                                        "': its old side conflicts with the text known from earlier hunks "
                                        "(no exact match within 50 lines of line " +
                                        std::to_string(nominal) + ")");
            }
            std::string where = "patch '" + p.title + "', file " + f.path() + ", hunk '" + h.header + "'";
            fs.apply(h, pos, base ? &(*base)[f.path()] : nullptr, where);
            offset += (pos - nominal) + static_cast<int>(h.new_side().size()) - static_cast<int>(old.size());
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

} // namespace

Image pre_image(const Series &s) {
    State st;
    std::map<std::string, std::map<int, std::string>> base;
    for (const auto &p : s.patches)
        apply_patch(st, p, &base);
    Image img;
    for (const auto &[path, lines] : base)
        if (!lines.empty())
            img.files[path] = runs_of(lines);
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
    State st;
    for (const auto &[path, frs] : base.files) {
        FileState &fs = st[path];
        for (const auto &fr : frs) {
            KFrag k{fr.first_line, {}, fr.end_line()};
            for (std::size_t j = 0; j < fr.lines.size(); ++j)
                k.lines.push_back(KLine{fr.lines[j], fr.first_line + static_cast<int>(j)});
            fs.frags.push_back(std::move(k));
        }
    }
    for (std::size_t k = 0; k < upto; ++k)
        apply_patch(st, s.patches[k], nullptr);
    Image img;
    for (const auto &[path, fs] : st) {
        std::vector<Fragment> out;
        for (const auto &f : fs.frags) {
            if (f.lines.empty())
                continue;
            Fragment fr{f.start, {}};
            for (const auto &l : f.lines)
                fr.lines.push_back(l.text);
            out.push_back(std::move(fr));
        }
        if (!out.empty())
            img.files[path] = std::move(out);
    }
    return img;
}

} // namespace sc::oracle
