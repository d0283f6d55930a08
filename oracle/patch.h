// Unified diffs found in arbitrary text, and the source images they imply.
//
// parse_series() reads a plain .diff, a git format-patch / mbox file (as
// `b4 am` writes it) or a whole mailing-list thread, and returns every patch
// in order of appearance.  Quoted text (lines starting with '>') is never
// part of a patch.  A patch that appears twice identically is kept once.
//
// Without a kernel tree, the hunks themselves are the only source text we
// have.  pre_image() gathers, per file, the old side of every hunk of the
// series in the line numbers of the tree the series applies to; a hunk of a
// later patch that only touches text written by an earlier patch adds
// nothing to it.  post_image() replays the first `upto` patches on that
// known text and gives the text as it stands afterwards, in the patched
// tree's line numbers.  Text no hunk mentions stays unknown: an Image is a
// sparse set of fragments.
//
// Where a hunk goes: at the line its header names (shifted by what the
// earlier hunks of the same file added or removed) when its old side agrees
// with the known text there; otherwise wherever in the file it agrees,
// anywhere, as `patch` and `git apply` do.  When it agrees in several
// places, the one closest to the named line wins (in a sparse image, first
// the one that agrees with the most known lines).  A hunk that agrees
// nowhere is an extract_error naming the patch, the file and the hunk.
//
// Cost: parsing is linear in the text.  Replaying a patch costs what its
// hunks hold, times the logarithm of the file's size, never the size of
// the whole image (unless a hunk has to be searched for).  Replay (below)
// walks every image of a series in one pass.
#pragma once
#include <cstddef>
#include <map>
#include <memory>
#include <set>
#include <stdexcept>
#include <string>
#include <vector>

namespace sc::oracle {

// Bad input: a malformed patch, text without any diff, a hunk that does not
// apply.  The message names the origin, the line, the patch and the file.
struct extract_error : std::runtime_error {
    using std::runtime_error::runtime_error;
};

struct Hunk {
    int old_start = 0, old_count = 0; // as written in the "@@ -a,b +c,d @@" header
    int new_start = 0, new_count = 0;
    std::string header;              // the whole "@@ ... @@ ..." line
    std::vector<std::string> lines;  // body lines, each with its ' ', '-' or '+' prefix
    int source_line = 0;             // line of the header in the parsed text

    std::vector<std::string> old_side() const; // context and '-' lines, prefix removed
    std::vector<std::string> new_side() const; // context and '+' lines, prefix removed
    bool operator==(const Hunk &o) const {
        return old_start == o.old_start && old_count == o.old_count && new_start == o.new_start &&
               new_count == o.new_count && lines == o.lines;
    }
};

struct FileDiff {
    std::string old_path; // without the "a/" prefix; "/dev/null" for a new file
    std::string new_path; // without the "b/" prefix; "/dev/null" for a deleted file
    std::vector<Hunk> hunks;

    // The file the diff is about: new_path, or old_path for a deletion.
    const std::string &path() const { return new_path == "/dev/null" ? old_path : new_path; }
    bool operator==(const FileDiff &o) const {
        return old_path == o.old_path && new_path == o.new_path && hunks == o.hunks;
    }
};

struct Patch {
    std::string title;  // "[RFC PATCH 1/4] sched: ..." (no "Subject: "), or "patch N of <origin>"
    int first_line = 0; // line of its first diff header in the parsed text
    std::vector<FileDiff> files;
};

struct Series {
    std::string origin; // file name or other label, used in messages
    std::vector<Patch> patches;
};

// Throws extract_error on a malformed patch, and "no diff found in
// <origin>" when the text holds no diff at all.
Series parse_series(const std::string &text, const std::string &origin);

struct Fragment {
    int first_line = 1; // line number of lines[0]
    std::vector<std::string> lines;

    int end_line() const { return first_line + static_cast<int>(lines.size()); } // one past the last
    std::string text() const; // lines joined, each ending with '\n'
    bool operator==(const Fragment &o) const = default;
};

struct Image {
    std::map<std::string, std::vector<Fragment>> files; // fragments sorted, disjoint, not adjacent
    // Files known from their first line to their last (read from a tree):
    // a hunk may not reach past their end.  Other files are sparse.
    std::set<std::string> whole;

    const std::vector<Fragment> *file(const std::string &path) const;
};

// The series' base tree, as far as its hunks show it.
Image pre_image(const Series &s);
// The tree after the first `upto` patches (0 gives the pre-image).  Throws
// extract_error naming the patch, file and hunk when a hunk conflicts with
// the known text.
Image post_image(const Series &s, std::size_t upto);
// The same replay on a known base, e.g. whole files of a kernel tree.
Image apply_series(const Image &base, const Series &s, std::size_t upto);

// Every image of a series in one pass: the state starts at the series'
// pre-image (or at a base you give) and step() applies the next patch.
// Use it instead of calling post_image() for each k, which replays the
// series from the start every time.  The Series must outlive the Replay.
//
//   Replay r(series);
//   Image pre = r.image();
//   while (!r.done()) {
//       r.step();              // throws extract_error like post_image()
//       Image c = r.changed(); // just the fragments patch r.applied() wrote
//   }
class Replay {
public:
    explicit Replay(const Series &s);               // starts at pre_image(s)
    Replay(const Image &base, const Series &s);      // starts at base
    Replay(Replay &&) noexcept;
    Replay &operator=(Replay &&) noexcept;
    ~Replay();

    std::size_t applied() const; // patches applied so far
    bool done() const;           // all of them
    void step();                 // applies patch applied() + 1
    // The whole image as it stands: costs its size.
    Image image() const;
    // Only the fragments of image() that the last step wrote into (a hunk's
    // new side, merged with the known text it touches), and only the files
    // it touched; empty before the first step.  Costs what it returns.
    Image changed() const;

private:
    struct Impl;
    std::unique_ptr<Impl> impl_;
};

} // namespace sc::oracle
