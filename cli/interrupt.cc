#include "interrupt.h"

#include <signal.h>
#include <unistd.h>

#include <atomic>
#include <cerrno>
#include <mutex>

#include "loom/codec/atomic_file.h"
#include "progress.h"

namespace loom::cli {
namespace {

// Catchable signals whose default action ends the process.
constexpr int kFatalSignals[] = {SIGHUP, SIGINT, SIGQUIT, SIGTERM, SIGPIPE, SIGALRM, SIGXCPU, SIGVTALRM, SIGPROF};

std::atomic<bool> ending{false};  // a handler is ending the process
static_assert(std::atomic<int64_t>::is_always_lock_free && std::atomic<const char*>::is_always_lock_free,
              "the handler reads RunCounts");

// Appends for the handler's line: no allocation, no stdio, no locale (async-signal-safe).
struct Line {
  char text[256];
  size_t size = 0;

  Line& operator<<(const char* s) {
    while (*s != '\0' && size < sizeof(text)) text[size++] = *s++;
    return *this;
  }
  Line& operator<<(int64_t n) {
    char digits[24];
    int k = 0;
    uint64_t u = n < 0 ? 0 : static_cast<uint64_t>(n);
    do digits[k++] = static_cast<char>('0' + u % 10);
    while ((u /= 10) != 0);
    while (k > 0 && size < sizeof(text)) text[size++] = digits[--k];
    return *this;
  }
};

const char* signal_name(int sig) {
  switch (sig) {
    case SIGHUP: return "SIGHUP";
    case SIGINT: return "SIGINT";
    case SIGQUIT: return "SIGQUIT";
    case SIGTERM: return "SIGTERM";
    case SIGPIPE: return "SIGPIPE";
    case SIGALRM: return "SIGALRM";
    case SIGXCPU: return "SIGXCPU";
    case SIGVTALRM: return "SIGVTALRM";
    case SIGPROF: return "SIGPROF";
    default: return "a signal";
  }
}

// The run's counts as the signal found them.
struct Snapshot {
  int64_t total, ok, skipped, failed;
  const char* noun;
};

Snapshot snapshot() {
  const RunCounts& run = run_counts();
  return {run.total.load(), run.ok.load(), run.skipped.load(), run.failed.load(), run.noun.load()};
}

void report(int sig, const Snapshot& run) {
  Line line;
  line << "\nloom: interrupted by " << signal_name(sig);
  if (run.total >= 0) {  // the summary's words (progress.h): "N ok, M skipped, K failed"
    line << " after " << run.ok + run.skipped + run.failed << " of " << run.total << " " << run.noun << ": " << run.ok
         << " ok, ";
    if (run.skipped > 0) line << run.skipped << " skipped, ";
    line << run.failed << " failed; " << run.total - run.ok - run.skipped - run.failed << " not tried";
  }
  line << "; no partial output left\n";
  // Starts on a line of its own (after a progress bar or ^C). Nothing to do if stderr is gone.
  for (size_t done = 0; done < line.size;) {
    const ssize_t n = ::write(STDERR_FILENO, line.text + done, line.size - done);
    if (n <= 0) break;
    done += static_cast<size_t>(n);
  }
}

// Runs with every fatal signal blocked in this thread (sa_mask). Another thread may take a signal
// meanwhile (in a batch, each worker that creates a temporary could): every taker removes the
// temporaries, the first one reports and ends the process, the others wait for that.
void on_fatal_signal(int sig) {
  const int saved_errno = errno;
  // Counted before the temporaries go: a worker whose temporary is removed below then fails to commit
  // it, and that failure is the signal's doing, not the file's.
  const Snapshot counts = snapshot();
  remove_pending_files();
  if (ending.exchange(true)) {
    for (;;) ::pause();
  }
  report(sig, counts);
  struct sigaction default_action {};
  default_action.sa_handler = SIG_DFL;
  ::sigaction(sig, &default_action, nullptr);
  ::raise(sig);  // blocked here until the handler returns, then delivered with the default action
  errno = saved_errno;
}

}  // namespace

void install_interrupt_cleanup() {
  static std::once_flag once;
  std::call_once(once, [] {
    struct sigaction action {};
    action.sa_handler = on_fatal_signal;
    sigemptyset(&action.sa_mask);
    for (const int sig : kFatalSignals) sigaddset(&action.sa_mask, sig);
    for (const int sig : kFatalSignals) {
      struct sigaction old {};
      if (::sigaction(sig, nullptr, &old) == 0 && old.sa_handler == SIG_IGN) continue;  // nohup, trap '' ...
      ::sigaction(sig, &action, nullptr);
    }
    ::signal(SIGXFSZ, SIG_IGN);
  });
}

}  // namespace loom::cli
