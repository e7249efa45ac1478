// Running a path-taking call on a FIFO that nobody writes to, with a timeout, so that a call that
// blocks in open() fails its test instead of hanging the suite.
#pragma once

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <chrono>
#include <filesystem>
#include <future>
#include <string>
#include <thread>

#include "loom/codec/error.h"

namespace loom::test {

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
