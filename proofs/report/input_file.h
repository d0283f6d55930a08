// Everything schedcheck reads from a file a user named goes through here:
// reproducers, expected-verdict files, oracle manifests, patches and mail
// threads.  Likewise every result file it writes (reports, reproducers,
// results.json, verdicts.txt).
//
// Reading.  Only regular files are read (not directories, devices, FIFOs or
// sockets), and each kind of file has a size cap, so that /dev/zero, a FIFO
// or a 200 MB file is refused with a message instead of eating memory:
//
//   kind        cap     why this much
//   reproducer  16 MB   a million steps (the most a reproducer may hold) at
//                       about 16 bytes each; real ones are under 2 KB
//   expected     1 MB   one line per proof: ~20000 lines; the built-in one
//                       has 70
//   manifest     1 MB   `oracle build` writes a few hundred bytes
//   patch       64 MB   a long mbox or mail thread; a whole kernel release
//                       diff (v6.0..v6.1) is about 60 MB uncompressed
//
// Failures are input_error (exit 2) and name the file:
//   "cannot open file F: no such file", "F is a directory",
//   "F is not a regular file", "F is larger than N MB".
//
// JSON.  parse_json_document() is the one JSON reader for user files.  On
// top of nlohmann's strict parser it refuses:
//   - nesting deeper than json_max_depth (64) arrays/objects, so nothing
//     later (a dump() in a message, a recursive walk) can run out of stack;
//   - a NUL byte anywhere (nlohmann stops at one and would accept
//     "{...}\0garbage");
//   - a key that occurs twice in one object (which value was meant?);
// and it keeps the text of every number that is not an exact integer, so a
// message can echo 18446744073709551616 as the user wrote it rather than
// as 1.8446744073709552e+19.
//
// Messages.  excerpt() bounds any echo of user text in a message to 80
// characters (then "..."), with control characters escaped.
//
// Writing.  write_file_atomic() writes NAME.tmp.<pid>, syncs it and renames
// it over NAME, so a reader never sees half a file; on any error (a full
// disk, a file size limit, a directory in the way) it removes the
// temporary file and throws input_error naming NAME and the reason.
#pragma once
#include <cstddef>
#include <map>
#include <string>
#include <string_view>

#include <nlohmann/json.hpp>

namespace sc::proofs {

enum class InputKind { reproducer, expected, manifest, patch };

inline constexpr std::size_t input_mib = 1024 * 1024;
inline constexpr std::size_t reproducer_max_bytes = 16 * input_mib;
inline constexpr std::size_t expected_max_bytes = 1 * input_mib;
inline constexpr std::size_t manifest_max_bytes = 1 * input_mib;
inline constexpr std::size_t patch_max_bytes = 64 * input_mib;

std::size_t max_input_bytes(InputKind kind);

// The whole content of the regular file `path`, at most max_input_bytes(kind)
// bytes.  Throws input_error otherwise.
std::string read_input_file(const std::string &path, InputKind kind);
std::string read_input_file(const std::string &path, std::size_t max_bytes);

// At most `max` characters of `text` for an error message, control and
// non-UTF-8-looking bytes escaped as \xNN, "..." appended when cut.
inline constexpr std::size_t echo_max = 80;
std::string excerpt(std::string_view text, std::size_t max = echo_max);

inline constexpr int json_max_depth = 64;

struct JsonDocument {
    nlohmann::json value;
    // JSON pointer (RFC 6901, "/steps/0/load") -> the number's text, for
    // every number that is not held exactly as a 64-bit integer (too big,
    // a fraction, an exponent).
    std::map<std::string, std::string> number_text;
};

// Parses `text` (the content of `origin`).  Throws input_error
// "ORIGIN: not valid JSON: ..." (with line and column), or naming the
// depth, the NUL byte or the duplicate key.
JsonDocument parse_json_document(std::string_view text, const std::string &origin);

// How a message shows a JSON value the user wrote: a number or string as
// written (bounded by excerpt()), "an object", "an array", true/false/null.
// `pointer` is its JSON pointer, looked up in number_text when given.
std::string describe_json_value(const nlohmann::json &v, const std::string &pointer = "",
                                const std::map<std::string, std::string> *number_text = nullptr);

// See above.  Throws input_error.
void write_file_atomic(const std::string &path, const std::string &text);

// The same, for a file made piece by piece (a CSV of millions of rows is
// never held whole): write() appends, commit() syncs and renames.  The
// temporary file is removed when the writer is destroyed uncommitted (an
// exception, an interrupt on the way).
class AtomicWriter {
  public:
    explicit AtomicWriter(const std::string &path); // throws input_error
    ~AtomicWriter();
    AtomicWriter(const AtomicWriter &) = delete;
    AtomicWriter &operator=(const AtomicWriter &) = delete;
    void write(std::string_view text); // buffered; throws input_error
    void commit();                     // throws input_error

  private:
    void flush();
    void put(std::string_view text);
    [[noreturn]] void fail(const std::string &what, int err);
    std::string path_, tmp_, buf_;
    int fd_ = -1;
};

// Whether a file could be created in directory `dir` now (it is checked by
// creating and removing a probe file).  Empty when it could; else why not.
std::string directory_write_problem(const std::string &dir);

} // namespace sc::proofs
