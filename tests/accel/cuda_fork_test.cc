// CUDA's fork record (loom/accel/cuda.h): a child forked after its parent initialised CUDA gets
// Error(kUnsupported) from check_cuda_fork_safety; a process that never did is unaffected. Runs in
// every build, without a GPU (the record, not the driver, is under test).
#include <gtest/gtest.h>
#include <sys/wait.h>
#include <unistd.h>

#include <string>

#include "loom/accel/cuda.h"
#include "loom/codec/error.h"

namespace loom::accel {
namespace {

// Runs `body` in a forked child; its exit code (body's result: 0 for true).
template <typename F>
int in_child(F body) {
  const pid_t pid = fork();
  if (pid == 0) _exit(body() ? 0 : 1);
  int status = 0;
  waitpid(pid, &status, 0);
  return WIFEXITED(status) ? WEXITSTATUS(status) : 100;
}

TEST(CudaFork, AChildForkedAfterCudaInitIsRefused) {
  EXPECT_NO_THROW(check_cuda_fork_safety("cuda"));  // this process never initialised CUDA
  EXPECT_FALSE(forked_after_cuda_init());
  // In a child (so that this test process stays clean): note CUDA, then fork again.
  const int code = in_child([] {
    note_cuda_initialized();
    try {
      check_cuda_fork_safety("cuda");  // the process that initialised it may use it
    } catch (...) {
      return false;
    }
    if (forked_after_cuda_init()) return false;
    return in_child([] {
             if (!forked_after_cuda_init() || cuda_device_count() != 0) return false;
             try {
               check_cuda_fork_safety("to_device");
             } catch (const Error& e) {
               return e.code() == ErrorCode::kUnsupported && e.input() == "to_device" &&
                      std::string(e.what()).find("spawn") != std::string::npos;
             }
             return false;
           }) == 0;
  });
  EXPECT_EQ(code, 0);
}

}  // namespace
}  // namespace loom::accel
