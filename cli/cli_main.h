// The entry point of the commands library (libloom_cli.so), which the `loom` launcher loads with dlopen
// the first time a command runs, so that `loom --version` starts without loading FFmpeg, libjpeg, ...
#pragma once

// Parses argv (argc counts argv[0]), runs the command and returns the process exit status: 0 success, 1
// some input failed, 2 a bad command line, 70 an internal error. Flushes and closes stdout (a failed write
// turns 0 into 1, as coreutils' close_stdout). Call once per process.
extern "C" __attribute__((visibility("default"))) int loom_cli_main(int argc, char** argv);
