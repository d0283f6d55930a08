// Running other programs (the compiler, ar, tar, pkg-config, the fuzzer)
// and stopping cleanly on SIGINT/SIGTERM.
//
// Every external program is started with posix_spawn and an argument
// vector: no shell ever sees a file name, an oracle name or a patch name,
// so quotes, semicolons and spaces in them are just bytes.  The program is
// looked up on PATH by the C library (posix_spawnp).
//
// A signal sets a flag and nothing more.  A wait on a child notices it,
// ends the child (SIGTERM, then SIGKILL) and throws `interrupted`; so does
// any long loop that calls check_interrupt().  The exception unwinds the
// stack, so the temporary files and directories held by RAII objects are
// removed, and main() exits 128 + the signal number without writing a
// result.
#pragma once
#include <filesystem>
#include <stdexcept>
#include <string>
#include <vector>

namespace sc::sys {

struct RunResult {
    int exit_code = -1; // the program's exit status when it exited
    int signal = 0;     // the signal that killed it, or 0
    bool spawned = true;
    bool ok() const { return spawned && signal == 0 && exit_code == 0; }
    std::string describe() const; // "exit 1", "killed by signal 9", "could not be started"
};

struct RunOptions {
    std::filesystem::path cwd;      // empty: this process's directory
    std::filesystem::path out_file; // stdout goes here (truncated); empty: inherited
    std::filesystem::path err_file; // stderr goes here (truncated); empty: inherited
    bool quiet = false;             // stdout and stderr to /dev/null unless a file is named
    bool err_to_out = false;        // stderr goes where stdout goes
};

// Runs argv[0] with argv and waits for it.  stdin is /dev/null.
RunResult run(const std::vector<std::string> &argv, const RunOptions &opt = {});

// Runs argv and returns its standard output; throws std::runtime_error
// naming the program when it does not exit 0.
std::string capture(const std::vector<std::string> &argv);

// Whether `name` is an executable file in a PATH directory.
bool on_path(const std::string &name);

// Signal handling: install once, at the start of main().
void install_signal_handlers();
int pending_signal();                       // 0, SIGINT or SIGTERM
struct interrupted : std::runtime_error {
    int sig;
    explicit interrupted(int s);
};
void check_interrupt(); // throws `interrupted` once a signal has arrived

// Temporaries carry the pid of the process that made them, so that what a
// process killed outright (SIGKILL, a crash) left behind can be told from
// what a running one is using:
//   TempDir(parent, "schedcheck-kernel") makes parent/schedcheck-kernel-<pid>-XXXXXX
// and removes it again when it goes out of scope; before that it removes
// every parent/schedcheck-kernel-<pid>-* whose process no longer exists.
bool process_alive(long pid);
// Removes parent/base-<pid>-* (directories or files) of dead processes.
void remove_stale(const std::filesystem::path &parent, const std::string &base);
// Removes dir/*.tmp.<pid> files (written by proofs::write_file_atomic) of
// dead processes, in dir and in its immediate subdirectories.
void remove_stale_tmp_files(const std::filesystem::path &dir);

struct TempDir {
    std::filesystem::path path;
    // Throws std::runtime_error when the directory cannot be made.
    TempDir(const std::filesystem::path &parent, const std::string &base);
    ~TempDir();
    TempDir(const TempDir &) = delete;
    TempDir &operator=(const TempDir &) = delete;
};

} // namespace sc::sys
