// FIFOs for the special-file tests (CATALOG.md 45-45c): one made in a temporary folder, and a
// path-taking call run on it with a timeout, so that a call that blocks in open() fails its test
// instead of hanging the suite.
#pragma once

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <chrono>
#include <filesystem>
#include <future>
#include <stdexcept>
#include <string>
#include <thread>

#include "loom/codec/error.h"

namespace loom::test {

// outcome_on_fifo() of a call that refuses the FIFO as it should.
inline constexpr const char* kRefusedAsSpecial = "io: is not a regular file";

// Makes a FIFO at `path` (in a test's TempDir) and returns `path`. Throws std::runtime_error if it cannot.
inline std::filesystem::path make_fifo(const std::filesystem::path& path) {
  if (::mkfifo(path.c_str(), 0600) != 0) throw std::runtime_error("cannot make a FIFO at " + path.string());
  return path;
}

// What `call` did on the FIFO: "CODE: MESSAGE" of the loom::Error it threw, "returned", "blocked"
// (after 10 s; the FIFO is then opened for writing once, so that the blocked call can end), or
// "other: WHAT" for another exception.
template <typename F>
std::string outcome_on_fifo(const std::filesystem::path& fifo, F&& call) {
  auto result = std::async(std::launch::async, [&]() -> std::string {
    try {
      call();
      return "returned";
    } catch (const Error& e) {
      return std::string(to_string(e.code())) + ": " + e.message();
    } catch (const std::exception& e) {
      return std::string("other: ") + e.what();
    }
  });
  if (result.wait_for(std::chrono::seconds(10)) == std::future_status::ready) return result.get();
  for (int i = 0; i < 1000; ++i) {  // a non-blocking writer may open once a reader waits
    const int fd = ::open(fifo.c_str(), O_WRONLY | O_NONBLOCK);
    if (fd >= 0) {
      ::close(fd);
      break;
    }
    std::this_thread::sleep_for(std::chrono::milliseconds(10));
  }
  result.wait();
  return "blocked";
}

}  // namespace loom::test
