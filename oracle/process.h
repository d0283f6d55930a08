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

} // namespace sc::sys
