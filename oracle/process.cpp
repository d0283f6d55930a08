#include "oracle/process.h"

#include <fcntl.h>
#include <pthread.h>
#include <spawn.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cctype>
#include <cerrno>
#include <csignal>
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <mutex>
#include <thread>
#include <sstream>

extern char **environ;

namespace fs = std::filesystem;

namespace sc::sys {

namespace {

volatile std::sig_atomic_t g_signal = 0;

// Called by the thread that takes the signals (install_signal_handlers).
void on_signal(int sig) {
    if (g_signal == 0)
        g_signal = sig;
}

// Ends a child's whole process group: the compiler driver's cc1plus and
// tar's xz go with it.
void end_group(pid_t pid) {
    ::kill(-pid, SIGTERM);
    for (int i = 0; i < 200; ++i) { // up to 2 s, then SIGKILL
        int st;
        if (::waitpid(pid, &st, WNOHANG) == pid)
            return;
        ::usleep(10000);
    }
    ::kill(-pid, SIGKILL);
    int st;
    while (::waitpid(pid, &st, 0) < 0 && errno == EINTR) {
    }
}

} // namespace

std::string RunResult::describe() const {
    if (!spawned)
        return "could not be started";
    if (signal)
        return "killed by signal " + std::to_string(signal) + " (" + strsignal(signal) + ")";
    return "exit " + std::to_string(exit_code);
}

interrupted::interrupted(int s)
    : std::runtime_error(std::string("interrupted by ") + (s == SIGINT ? "SIGINT" : s == SIGTERM ? "SIGTERM" : "a signal")),
      sig(s) {}

void install_signal_handlers() {
    // The two signals are blocked in this thread and so in every thread it
    // starts (the proof workers, Z3's), and taken by one thread of their
    // own with sigwait(): no library's handler (Z3 installs one around each
    // check) can swallow them, and no solver call is cut short.
    static std::once_flag once;
    std::call_once(once, [] {
        sigset_t set;
        sigemptyset(&set);
        sigaddset(&set, SIGINT);
        sigaddset(&set, SIGTERM);
        pthread_sigmask(SIG_BLOCK, &set, nullptr);
        std::thread([set] {
            for (;;) {
                int sig = 0;
                if (sigwait(&set, &sig) == 0)
                    on_signal(sig);
            }
        }).detach();
    });
}

int pending_signal() { return g_signal; }

void check_interrupt() {
    if (g_signal)
        throw interrupted(g_signal);
}

RunResult run(const std::vector<std::string> &argv, const RunOptions &opt) {
    check_interrupt();
    if (argv.empty())
        throw std::invalid_argument("sys::run: empty argument vector");
    std::vector<char *> args;
    for (const auto &a : argv)
        args.push_back(const_cast<char *>(a.c_str()));
    args.push_back(nullptr);

    posix_spawn_file_actions_t fa;
    posix_spawn_file_actions_init(&fa);
    posix_spawn_file_actions_addopen(&fa, 0, "/dev/null", O_RDONLY, 0);
    // Paths are taken relative to this process's directory, before the
    // child changes into `cwd`.
    std::string out = opt.out_file.empty() ? "" : fs::absolute(opt.out_file).string();
    std::string err = opt.err_file.empty() ? "" : fs::absolute(opt.err_file).string();
    if (!out.empty())
        posix_spawn_file_actions_addopen(&fa, 1, out.c_str(), O_WRONLY | O_CREAT | O_TRUNC, 0644);
    else if (opt.quiet)
        posix_spawn_file_actions_addopen(&fa, 1, "/dev/null", O_WRONLY, 0);
    if (opt.err_to_out)
        posix_spawn_file_actions_adddup2(&fa, 1, 2);
    else if (!err.empty())
        posix_spawn_file_actions_addopen(&fa, 2, err.c_str(), O_WRONLY | O_CREAT | O_TRUNC, 0644);
    else if (opt.quiet)
        posix_spawn_file_actions_addopen(&fa, 2, "/dev/null", O_WRONLY, 0);
    std::string cwd = opt.cwd.empty() ? "" : fs::absolute(opt.cwd).string();
    if (!cwd.empty())
        posix_spawn_file_actions_addchdir_np(&fa, cwd.c_str());

    posix_spawnattr_t at;
    posix_spawnattr_init(&at);
    // Its own process group, so that ending it ends its helpers too; the
    // child starts with the default dispositions for the two signals.
    sigset_t def;
    sigemptyset(&def);
    sigaddset(&def, SIGINT);
    sigaddset(&def, SIGTERM);
    posix_spawnattr_setsigdefault(&at, &def);
    sigset_t none; // and with no signal blocked (this process blocks two)
    sigemptyset(&none);
    posix_spawnattr_setsigmask(&at, &none);
    posix_spawnattr_setpgroup(&at, 0);
    posix_spawnattr_setflags(&at, POSIX_SPAWN_SETPGROUP | POSIX_SPAWN_SETSIGDEF | POSIX_SPAWN_SETSIGMASK);

    pid_t pid;
    int rc = posix_spawnp(&pid, args[0], &fa, &at, args.data(), environ);
    posix_spawn_file_actions_destroy(&fa);
    posix_spawnattr_destroy(&at);
    RunResult r;
    if (rc != 0) {
        r.spawned = false;
        return r;
    }
    for (;;) {
        int st;
        pid_t w = ::waitpid(pid, &st, WNOHANG);
        if (w == pid) {
            if (WIFEXITED(st))
                r.exit_code = WEXITSTATUS(st);
            else if (WIFSIGNALED(st))
                r.signal = WTERMSIG(st);
            break;
        }
        if (w < 0 && errno != EINTR) {
            r.spawned = false;
            break;
        }
        if (g_signal) {
            end_group(pid);
            throw interrupted(g_signal);
        }
        ::usleep(2000);
    }
    check_interrupt(); // a child killed by our own Ctrl-C is not a failure to report
    return r;
}

std::string capture(const std::vector<std::string> &argv) {
    char tmpl[] = "/tmp/schedcheck-capture-XXXXXX";
    int fd = ::mkstemp(tmpl);
    if (fd < 0)
        throw std::runtime_error("cannot create a temporary file in /tmp");
    ::close(fd);
    struct Remove {
        const char *p;
        ~Remove() { ::unlink(p); }
    } rm{tmpl};
    RunOptions o;
    o.out_file = tmpl;
    o.quiet = true;
    RunResult r = run(argv, o);
    if (!r.ok())
        throw std::runtime_error(argv[0] + ": " + r.describe());
    std::ifstream in(tmpl, std::ios::binary);
    std::stringstream ss;
    ss << in.rdbuf();
    return ss.str();
}

bool on_path(const std::string &name) {
    const char *path = std::getenv("PATH");
    std::istringstream in(path ? path : "/usr/local/bin:/usr/bin:/bin");
    for (std::string dir; std::getline(in, dir, ':');) {
        if (dir.empty())
            dir = ".";
        fs::path p = fs::path(dir) / name;
        if (::access(p.c_str(), X_OK) == 0 && fs::is_regular_file(p))
            return true;
    }
    return false;
}

bool process_alive(long pid) {
    if (pid <= 0)
        return false;
    return ::kill(static_cast<pid_t>(pid), 0) == 0 || errno == EPERM;
}

namespace {
// The pid in "<digits>" followed by `tail_ok` (e.g. "-XXXXXX" or end), or -1.
long leading_pid(const std::string &s, bool whole) {
    std::size_t k = 0;
    while (k < s.size() && std::isdigit(static_cast<unsigned char>(s[k])))
        ++k;
    if (k == 0 || k > 9 || (whole ? k != s.size() : (k >= s.size() || s[k] != '-')))
        return -1;
    return std::stol(s.substr(0, k));
}
} // namespace

void remove_stale(const std::filesystem::path &parent, const std::string &base) {
    std::error_code ec;
    const std::string prefix = base + "-";
    for (std::filesystem::directory_iterator it(parent, ec), end; !ec && it != end; it.increment(ec)) {
        const std::string name = it->path().filename().string();
        if (name.rfind(prefix, 0) != 0)
            continue;
        long pid = leading_pid(name.substr(prefix.size()), false);
        if (pid > 0 && !process_alive(pid)) {
            std::error_code rm;
            std::filesystem::remove_all(it->path(), rm);
        }
    }
}

void remove_stale_tmp_files(const std::filesystem::path &dir) {
    std::error_code ec;
    auto sweep = [](const std::filesystem::path &d) {
        std::error_code e;
        for (std::filesystem::directory_iterator it(d, e), end; !e && it != end; it.increment(e)) {
            const std::string name = it->path().filename().string();
            std::size_t at = name.rfind(".tmp.");
            if (at == std::string::npos || !it->is_regular_file(e))
                continue;
            long pid = leading_pid(name.substr(at + 5), true);
            if (pid > 0 && !process_alive(pid)) {
                std::error_code rm;
                std::filesystem::remove(it->path(), rm);
            }
        }
    };
    if (!std::filesystem::is_directory(dir, ec))
        return;
    sweep(dir);
    for (std::filesystem::directory_iterator it(dir, ec), end; !ec && it != end; it.increment(ec))
        if (it->is_directory(ec) && !it->is_symlink(ec))
            sweep(it->path());
}

TempDir::TempDir(const std::filesystem::path &parent, const std::string &base) {
    remove_stale(parent, base);
    std::string tmpl = (parent / (base + "-" + std::to_string(::getpid()) + "-XXXXXX")).string();
    if (!::mkdtemp(tmpl.data()))
        throw std::runtime_error("cannot create a temporary directory in " + parent.string() + ": " +
                                 std::strerror(errno));
    path = tmpl;
}

TempDir::~TempDir() {
    std::error_code ec;
    std::filesystem::remove_all(path, ec);
}

} // namespace sc::sys
