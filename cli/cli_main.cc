// loom_cli_main: the whole `loom` command line, in the commands library (libloom_cli.so) that the
// launcher (launcher.cc) loads on first use.
#include <cerrno>
#include <cstdio>
#include <cstring>
#include <exception>
#include <iostream>
#include <optional>

#include "app.h"
#include "cli_main.h"

namespace {

// Exit status of a bug: an exception that reached main (sysexits.h's EX_SOFTWARE).
constexpr int kInternalError = 70;

// As coreutils' close_stdout: output that could not be written (a full disk, /dev/full, a closed pipe
// when SIGPIPE is ignored) is an error, not a silent success. Flushes and closes stdout; false, after
// printing "loom: write error[: REASON]" on stderr, when any write to it failed.
bool close_stdout() {
  // std::cout writes through stdout's buffer (synced with stdio): flushing it flushes stdout, and the
  // errno of a failure is that of the fflush underneath.
  errno = 0;
  std::cout.flush();
  int err = std::cout.fail() ? errno : 0;
  const bool failed_before = std::cout.fail() || std::ferror(stdout) != 0;
  errno = 0;
  if (std::fflush(stdout) != 0 && err == 0) err = errno;
  if (std::fclose(stdout) != 0 && err == 0) err = errno;
  if (err == 0 && !failed_before) return true;
  if (err != 0) {
    std::fprintf(stderr, "loom: write error: %s\n", std::strerror(err));
  } else {
    std::fputs("loom: write error\n", stderr);
  }
  return false;
}

int run(int argc, char** argv) {
  const auto app = loom::cli::make_app();
  if (const std::optional<int> status = loom::cli::answer_before_parsing(*app, argc, argv)) return *status;
  try {
    app->parser.parse(argc, argv);
  } catch (const CLI::ParseError& e) {
    const int code = app->parser.exit(e);
    return code == 0 ? 0 : 2;  // 2: bad command line, as most Unix tools
  }
  return app->run();
}

}  // namespace

int loom_cli_main(int argc, char** argv) {
  int status = 0;
  try {
    status = run(argc, argv);
  } catch (const std::exception& e) {  // every command reports its inputs' errors itself: this is a bug
    std::fprintf(stderr, "loom: internal error: %s\n", e.what());
    status = kInternalError;
  } catch (...) {
    std::fputs("loom: internal error: unknown exception\n", stderr);
    status = kInternalError;
  }
  if (!close_stdout() && status == 0) status = 1;
  return status;
}
