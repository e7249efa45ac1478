// The fork-safety record of loom/accel/cuda.h: built with and without CUDA, so that the check and its
// error are the same (and testable) in every build.
#include <pthread.h>
#include <unistd.h>

#include <atomic>
#include <string>

#include "loom/accel/cuda.h"
#include "loom/codec/error.h"

namespace loom::accel {
namespace {

std::atomic<bool> initialized{false};        // this process called into CUDA
std::atomic<bool> forked_after_init{false};  // this process is a fork of one that had
std::atomic<pid_t> initialized_in{0};        // the process that initialised it (for the message)

// Runs in the child after fork(): async-signal-safe (atomics only).
void in_child() {
  if (initialized.load(std::memory_order_relaxed)) forked_after_init.store(true, std::memory_order_relaxed);
}

}  // namespace

void note_cuda_initialized() {
  static const int installed = pthread_atfork(nullptr, nullptr, in_child);
  (void)installed;
  if (!initialized.exchange(true)) initialized_in.store(getpid());
}

bool forked_after_cuda_init() noexcept {
  return forked_after_init.load();
}

void check_cuda_fork_safety(const char* what) {
  if (!forked_after_init.load()) return;
  throw Error(ErrorCode::kUnsupported, what,
              "CUDA cannot be used in a process forked after CUDA was initialised (in process " +
                  std::to_string(initialized_in.load()) +
                  "); start workers with the 'spawn' or 'forkserver' multiprocessing method, or use CUDA "
                  "only after forking");
}

}  // namespace loom::accel
