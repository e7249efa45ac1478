// Fatal signals while a command writes files: no temporary left behind, and a last word on stderr.
//
// install_interrupt_cleanup() handles the signals that end a process by default and can be caught:
// SIGHUP (the terminal or ssh session closed), SIGINT, SIGQUIT, SIGTERM, SIGPIPE, SIGALRM, SIGXCPU,
// SIGVTALRM and SIGPROF. The handler removes every temporary file being written
// (loom::remove_pending_files: outputs already in place are complete, none is partial), prints
//   loom: interrupted by SIGINT after 5 of 12 files: 4 ok, 1 failed; 7 not tried; no partial output left
// ("M skipped, " before the failed count when files were skipped; the RunCounts of the Progress alive, progress.h) and
// lets the process die of the signal as it would have (the shell sees 128+N). A signal that was ignored when loom
// started (nohup's SIGHUP) stays ignored. SIGXFSZ is ignored, so that a write past the file-size limit (`ulimit -f`)
// fails with EFBIG: an error of that file alone, and the batch goes on.
#pragma once

namespace loom::cli {

// Installs the handlers (once per process; later calls do nothing). Call before writing any output.
void install_interrupt_cleanup();

}  // namespace loom::cli
