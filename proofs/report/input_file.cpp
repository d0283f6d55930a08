#include "proofs/report/input_file.h"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <csignal>
#include <cstring>
#include <filesystem>
#include <mutex>
#include <vector>

#include "proofs/invariant.h"

namespace sc::proofs {

using nlohmann::json;

namespace {

// strerror() with a lower-case first letter, to follow a colon.
std::string reason(int err) {
    std::string s = std::strerror(err);
    if (err == ENOENT)
        s = "no such file";
    if (!s.empty() && s[0] >= 'A' && s[0] <= 'Z' && !(s.size() > 1 && s[1] >= 'A' && s[1] <= 'Z'))
        s[0] = static_cast<char>(s[0] - 'A' + 'a');
    return s;
}

// A file name as shown in a message: whole (it came from the command line
// or a directory listing, so it is bounded), control characters escaped.
std::string shown(const std::string &path) { return excerpt(path, 4096); }

struct Fd {
    int fd;
    ~Fd() {
        if (fd >= 0)
            ::close(fd);
    }
};

// Length of the well-formed UTF-8 sequence at s[i], or 0.  C1 controls
// (U+0080..U+009F) count as not printable and give 0 too.
std::size_t utf8_printable_len(std::string_view s, std::size_t i) {
    auto b = [&](std::size_t k) { return static_cast<unsigned char>(s[k]); };
    unsigned char c = b(i);
    std::size_t n = c >= 0xF0 && c <= 0xF4 ? 4 : c >= 0xE0 ? 3 : c >= 0xC2 && c <= 0xDF ? 2 : 0;
    if (n == 0 || (c >= 0xF5) || i + n > s.size())
        return 0;
    std::uint32_t cp = c & (n == 2 ? 0x1F : n == 3 ? 0x0F : 0x07);
    for (std::size_t k = 1; k < n; ++k) {
        if ((b(i + k) & 0xC0) != 0x80)
            return 0;
        cp = (cp << 6) | (b(i + k) & 0x3F);
    }
    bool overlong = (n == 3 && cp < 0x800) || (n == 4 && cp < 0x10000);
    if (overlong || cp > 0x10FFFF || (cp >= 0xD800 && cp <= 0xDFFF) || (cp >= 0x80 && cp <= 0x9F))
        return 0;
    return n;
}

} // namespace

std::string excerpt(std::string_view text, std::size_t max) {
    std::string out;
    std::size_t shown_chars = 0;
    std::size_t i = 0;
    while (i < text.size()) {
        if (shown_chars >= max)
            return out + "...";
        unsigned char c = static_cast<unsigned char>(text[i]);
        if (c >= 0x20 && c < 0x7F) {
            out += static_cast<char>(c);
            ++i;
        } else if (std::size_t n = c >= 0x80 ? utf8_printable_len(text, i) : 0) {
            out.append(text.substr(i, n));
            i += n;
        } else {
            static const char hex[] = "0123456789abcdef";
            out += "\\x";
            out += hex[c >> 4];
            out += hex[c & 15];
            ++i;
        }
        ++shown_chars;
    }
    return out;
}

std::size_t max_input_bytes(InputKind kind) {
    switch (kind) {
    case InputKind::reproducer: return reproducer_max_bytes;
    case InputKind::expected: return expected_max_bytes;
    case InputKind::manifest: return manifest_max_bytes;
    case InputKind::patch: break;
    }
    return patch_max_bytes;
}

std::string read_input_file(const std::string &path, InputKind kind) {
    return read_input_file(path, max_input_bytes(kind));
}

std::string read_input_file(const std::string &path, std::size_t max_bytes) {
    auto too_large = [&] {
        return input_error(shown(path) + " is larger than " +
                           (max_bytes % input_mib == 0 ? std::to_string(max_bytes / input_mib) + " MB"
                                                       : std::to_string(max_bytes) + " bytes") +
                           ", the most schedcheck reads from a file of this kind");
    };
    // O_NONBLOCK: opening a FIFO must not wait for a writer; it is refused
    // below as not a regular file.  It changes nothing for regular files.
    Fd f{::open(path.c_str(), O_RDONLY | O_CLOEXEC | O_NOCTTY | O_NONBLOCK)};
    if (f.fd < 0)
        throw input_error("cannot open file " + shown(path) + ": " + reason(errno));
    struct stat st {};
    if (::fstat(f.fd, &st) != 0)
        throw input_error("cannot open file " + shown(path) + ": " + reason(errno));
    if (S_ISDIR(st.st_mode))
        throw input_error(shown(path) + " is a directory");
    if (!S_ISREG(st.st_mode))
        throw input_error(shown(path) + " is not a regular file");
    if (st.st_size < 0 || static_cast<std::uint64_t>(st.st_size) > max_bytes)
        throw too_large();
    std::string text;
    text.reserve(static_cast<std::size_t>(st.st_size));
    std::vector<char> buf(1 << 16);
    for (;;) {
        ssize_t n = ::read(f.fd, buf.data(), buf.size());
        if (n < 0) {
            if (errno == EINTR)
                continue;
            throw input_error("cannot read file " + shown(path) + ": " + reason(errno));
        }
        if (n == 0)
            break;
        // The file may be growing while we read it: the cap still holds.
        if (text.size() + static_cast<std::size_t>(n) > max_bytes)
            throw too_large();
        text.append(buf.data(), static_cast<std::size_t>(n));
    }
    return text;
}

// ---------------------------------------------------------------------------
// JSON

namespace {

std::string pointer_escape(const std::string &key) {
    std::string o;
    for (char c : key)
        o += c == '~' ? std::string("~0") : c == '/' ? std::string("~1") : std::string(1, c);
    return o;
}

// Builds the document from nlohmann's SAX events, with the checks listed in
// input_file.h.  The stack holds the open containers; a container's parent
// gets no new member while it is open, so pointers to it stay valid.
class Builder {
  public:
    explicit Builder(const std::string &origin) : origin_(origin) {}
    JsonDocument doc;

    bool null() { return place(json(nullptr)); }
    bool boolean(bool b) { return place(json(b)); }
    bool number_integer(json::number_integer_t v) { return place(json(v)); }
    bool number_unsigned(json::number_unsigned_t v) { return place(json(v)); }
    bool number_float(json::number_float_t v, const std::string &text) {
        doc.number_text[pointer_of_next()] = text;
        return place(json(v));
    }
    bool string(std::string &s) { return place(json(std::move(s))); }
    bool binary(json::binary_t &) { return place(json(nullptr)); } // never from JSON text
    bool start_object(std::size_t) { return open(json::object()); }
    bool start_array(std::size_t) { return open(json::array()); }
    bool end_object() { return close(); }
    bool end_array() { return close(); }
    bool key(std::string &k) {
        Frame &f = stack_.back();
        if (f.node->contains(k))
            throw input_error(origin_ + ": duplicate key \"" + excerpt(k) + "\" in " +
                              (stack_.size() == 1 ? std::string("the top-level object") : display_path(stack_.size() - 1)));
        f.key = std::move(k);
        return true;
    }
    bool parse_error(std::size_t, const std::string &last_token, const nlohmann::detail::exception &e) {
        // nlohmann's message, without its "[json.exception...] " tag, and
        // with the offending token (which may be megabytes) cut short.
        std::string msg = e.what();
        if (auto tag = msg.find("] "); msg.rfind("[json.exception.", 0) == 0 && tag != std::string::npos)
            msg.erase(0, tag + 2);
        // One pass, moving forward: the excerpt may equal the token (a
        // multi-byte character makes it longer in bytes than in characters).
        if (std::string cut = excerpt(last_token); cut != last_token && !last_token.empty())
            for (std::size_t at = 0; (at = msg.find(last_token, at)) != std::string::npos; at += cut.size())
                msg.replace(at, last_token.size(), cut);
        if (msg.size() > 400)
            msg = excerpt(msg, 400);
        throw input_error(origin_ + ": not valid JSON: " + msg);
    }

  private:
    struct Frame {
        json *node;
        std::string key; // objects: the key of the member being read
    };
    const std::string &origin_;
    std::vector<Frame> stack_;
    bool have_root_ = false;

    // Where the next value goes, as a JSON pointer.
    std::string pointer_of_next() const {
        std::string p;
        for (std::size_t i = 0; i < stack_.size(); ++i) {
            const Frame &f = stack_[i];
            bool last = i + 1 == stack_.size();
            if (f.node->is_object())
                p += "/" + pointer_escape(f.key);
            else
                p += "/" + std::to_string(f.node->size() - (last ? 0 : 1));
        }
        return p;
    }

    // The first `levels` levels of the path to the open container, as
    // "steps[3].load", for messages.
    std::string display_path(std::size_t levels) const {
        std::string p;
        for (std::size_t i = 0; i < levels && i < stack_.size(); ++i) {
            const Frame &f = stack_[i];
            if (f.node->is_object())
                p += (p.empty() ? "" : ".") + excerpt(f.key, 40);
            else
                p += "[" + std::to_string(f.node->size() - (i + 1 == stack_.size() ? 0 : 1)) + "]";
            if (p.size() > 2 * echo_max)
                return p.substr(0, 2 * echo_max) + "...";
        }
        return p;
    }

    json *insert(json &&v) {
        if (stack_.empty()) {
            if (have_root_) // cannot happen with a strict parse; be safe
                throw input_error(origin_ + ": not valid JSON: more than one value");
            have_root_ = true;
            doc.value = std::move(v);
            return &doc.value;
        }
        Frame &f = stack_.back();
        if (f.node->is_object()) {
            auto &obj = f.node->get_ref<json::object_t &>();
            return &obj.emplace(f.key, std::move(v)).first->second;
        }
        auto &arr = f.node->get_ref<json::array_t &>();
        arr.push_back(std::move(v));
        return &arr.back();
    }
    bool place(json &&v) {
        insert(std::move(v));
        return true;
    }
    bool open(json &&container) {
        if (stack_.size() + 1 > static_cast<std::size_t>(json_max_depth)) {
            std::string where = stack_.size() > 1 ? " (in " + display_path(1) + ")" : std::string();
            throw input_error(origin_ + ": JSON nested more than " + std::to_string(json_max_depth) +
                              " levels deep" + where + "; schedcheck reads at most " +
                              std::to_string(json_max_depth));
        }
        json *node = insert(std::move(container));
        stack_.push_back({node, {}});
        return true;
    }
    bool close() {
        stack_.pop_back();
        return true;
    }
};

} // namespace

JsonDocument parse_json_document(std::string_view text, const std::string &origin) {
    // nlohmann's lexer takes a NUL byte for the end of the input, so
    // "{}\0anything" would parse.  No valid JSON text holds one.
    if (auto nul = text.find('\0'); nul != std::string_view::npos) {
        std::size_t line = 1, col = 1;
        for (std::size_t i = 0; i < nul; ++i)
            if (text[i] == '\n')
                ++line, col = 1;
            else
                ++col;
        throw input_error(origin + ": not valid JSON: a NUL byte at line " + std::to_string(line) + ", column " +
                          std::to_string(col) + " (byte " + std::to_string(nul) + ")");
    }
    Builder b(origin);
    bool ok = json::sax_parse(text.begin(), text.end(), &b, json::input_format_t::json, /*strict=*/true,
                              /*ignore_comments=*/false);
    if (!ok) // parse_error() throws; this is for a handler that returned false
        throw input_error(origin + ": not valid JSON");
    return std::move(b.doc);
}

std::string describe_json_value(const json &v, const std::string &pointer,
                                const std::map<std::string, std::string> *number_text) {
    switch (v.type()) {
    case json::value_t::object: return "an object";
    case json::value_t::array: return "an array";
    case json::value_t::string: return excerpt(v.dump(-1, ' ', false, json::error_handler_t::replace));
    case json::value_t::boolean: return v.get<bool>() ? "true" : "false";
    case json::value_t::null: return "null";
    case json::value_t::number_float:
        if (number_text)
            if (auto it = number_text->find(pointer); it != number_text->end())
                return excerpt(it->second);
        return v.dump();
    default: return v.dump(); // integers are shown exactly
    }
}

// ---------------------------------------------------------------------------
// Writing

namespace {

// A file size limit (ulimit -f) makes write(2) raise SIGXFSZ, which by
// default kills the process (leaving a partial temporary file).  Ignored,
// the write fails with EFBIG and is reported like any other write error.
void ignore_file_size_signal() {
    static std::once_flag once;
    std::call_once(once, [] { std::signal(SIGXFSZ, SIG_IGN); });
}

} // namespace

AtomicWriter::AtomicWriter(const std::string &path) : path_(path) {
    ignore_file_size_signal();
    namespace fs = std::filesystem;
    fs::path p(path);
    if (p.has_parent_path()) {
        std::error_code ec;
        fs::create_directories(p.parent_path(), ec);
        if (ec)
            throw input_error("cannot write " + shown(path) + ": cannot create directory " +
                              shown(p.parent_path().string()) + ": " + ec.message());
    }
    tmp_ = path + ".tmp." + std::to_string(::getpid());
    int flags = O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC | O_NOFOLLOW;
    fd_ = ::open(tmp_.c_str(), flags, 0666);
    if (fd_ < 0 && errno == EEXIST) { // left behind by a process that had our pid
        ::unlink(tmp_.c_str());
        fd_ = ::open(tmp_.c_str(), flags, 0666);
    }
    if (fd_ < 0) {
        int err = errno;
        throw input_error("cannot write " + shown(path) + ": " + reason(err));
    }
}

AtomicWriter::~AtomicWriter() {
    if (fd_ >= 0) {
        ::close(fd_);
        ::unlink(tmp_.c_str());
    }
}

void AtomicWriter::fail(const std::string &what, int err) {
    if (fd_ >= 0)
        ::close(fd_);
    fd_ = -1;
    ::unlink(tmp_.c_str());
    throw input_error("cannot write " + shown(path_) + ": " + what + reason(err) + " (nothing written)");
}

void AtomicWriter::write(std::string_view text) {
    if (buf_.size() + text.size() < (1u << 20)) {
        buf_.append(text);
        return;
    }
    flush();
    put(text);
}

void AtomicWriter::flush() {
    put(buf_);
    buf_.clear();
}

void AtomicWriter::put(std::string_view text) {
    std::size_t done = 0;
    while (done < text.size()) {
        ssize_t n = ::write(fd_, text.data() + done, text.size() - done);
        if (n < 0 && errno == EINTR)
            continue;
        if (n <= 0)
            fail("", n < 0 ? errno : EIO);
        done += static_cast<std::size_t>(n);
    }
}

void AtomicWriter::commit() {
    flush();
    if (::fsync(fd_) != 0 && errno != EINVAL && errno != EROFS)
        fail("", errno);
    int fd = fd_;
    fd_ = -1; // closed here whatever close() says; fail() then only unlinks
    if (::close(fd) != 0)
        fail("", errno);
    if (std::rename(tmp_.c_str(), path_.c_str()) != 0)
        fail("cannot move the temporary file into place: ", errno);
}

void write_file_atomic(const std::string &path, const std::string &text) {
    AtomicWriter w(path);
    w.write(text);
    w.commit();
}

std::string directory_write_problem(const std::string &dir) {
    std::string tmpl = dir + "/.schedcheck-probe-XXXXXX";
    std::vector<char> buf(tmpl.begin(), tmpl.end());
    buf.push_back('\0');
    int fd = ::mkstemp(buf.data());
    if (fd < 0)
        return reason(errno);
    ::close(fd);
    ::unlink(buf.data());
    return "";
}

} // namespace sc::proofs
