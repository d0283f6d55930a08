// Which kernel functions a proof reached through the kernel-shaped
// interface (kernel_iface.h), noted on the reference side.  A proof of a
// reference variant that reached only functions proved equivalent to a
// kernel's holds for that kernel too (proofs/equiv/carry_over.h): the
// invariant's own code is the same template on both sides, so with every
// call answered alike it takes the same paths and sees the same values.
//
// The log is per thread: a proof runs wholly on the thread that starts it
// (run_matrix() gives each job one worker; the explorer is thread-local).
#pragma once
#include <set>
#include <string>

namespace sc::proofs::iface {

struct UseLog {
    bool on = false;
    std::set<std::string> names;
};

inline UseLog &use_log() {
    thread_local UseLog log;
    return log;
}

inline bool noting_uses() { return use_log().on; }

inline void note_use(const std::string &name) {
    if (use_log().on)
        use_log().names.insert(name);
}

// Notes the uses of whatever runs in its scope on this thread.
class UseRecording {
  public:
    UseRecording() { use_log() = UseLog{true, {}}; }
    ~UseRecording() { use_log() = UseLog{}; }
    UseRecording(const UseRecording &) = delete;
    UseRecording &operator=(const UseRecording &) = delete;
    std::set<std::string> names() const { return use_log().names; }
};

} // namespace sc::proofs::iface
