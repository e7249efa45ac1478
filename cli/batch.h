// What the batch commands share: the batch flags and error lines (`convert`, `audio`, `frames`);
// listing the inputs and planning one output per file in a mirrored tree, and running a per-file
// function over the plan on a thread pool with per-file error lines, a progress bar on a terminal, a
// summary line and interrupt cleanup (`convert`, `audio`).
#pragma once

#include <cstdint>
#include <exception>
#include <filesystem>
#include <functional>
#include <string>
#include <vector>

#include "loom/codec/tensor.h"

namespace CLI {
class App;
}

namespace loom::cli {

struct BatchJob {
  std::filesystem::path input;
  std::filesystem::path relative;  // below the folder given, or the file name for a file given directly
  std::filesystem::path output;    // OUTDIR / relative, with the extension replaced
  std::string planning_error;      // set when the job cannot run (its output collides with another's, or
                                   // the input is not a regular file)
};

// Lists every input (a file is kept whatever its name; a folder is scanned recursively for files with
// one of `extensions`, hidden names skipped) and gives each file the output
// `outdir / relative` with its extension replaced by `output_extension(input)` (".png"). Inputs that
// cannot be listed (missing, unreadable) go to `errors`. An output that an earlier file already maps to
// gets a planning_error naming that file (inputs in the order given, a folder's files in sorted order).
std::vector<BatchJob> plan_batch(const std::vector<std::string>& inputs, const std::string& outdir,
                                 const std::vector<std::string>& extensions,
                                 const std::function<std::string(const std::filesystem::path&)>& output_extension,
                                 std::vector<std::string>& errors);

struct BatchOptions {
  int jobs = 0;                // worker threads; 0: one per core
  bool overwrite = false;      // replace existing outputs (the command's writes; run_batch writes nothing)
  bool fail_fast = false;      // start no new file after the first failure
  bool quiet = false;          // no progress bar, no summary
  const char* noun = "files";  // the summary's rate unit: "N ok, M failed in S s (X <noun>/s, Y MB/s)"
  std::string summary_suffix;  // appended to the summary line
};

// Adds the flags every batch command takes, into `options`: -j/--jobs, --overwrite, -q/--quiet and,
// with `fail_fast_flag`, --fail-fast (a command that always stops at its first failure goes without).
void add_batch_flags(CLI::App& cmd, BatchOptions& options, bool fail_fast_flag = true);

// Runs `process` for every job (planning errors are failures without calling it); `process` returns
// the input bytes it read and throws on failure (loom::Error or std::exception): each failure prints
// "<input>: <message>" on stderr. `input_errors` (from plan_batch) are printed first. Installs
// the interrupt cleanup (interrupt.h): a fatal signal removes the temporaries and says how far the
// run got. Returns 0 when every job succeeded and there were no input errors, else 1.
int run_batch(const std::vector<BatchJob>& jobs, const std::vector<std::string>& input_errors,
              const BatchOptions& options, const std::function<uint64_t(const BatchJob&)>& process);

// The error line of a failure of `input`: "<input>: <message>", the input named once (the what() of a
// loom::Error about `input` already starts with it).
std::string failure_line(const std::string& input, const std::exception& e);

// Encodes a uint8 HWC image as JPEG (`quality` 1-100) when `jpeg`, else as PNG (zlib `compression` 0-9).
std::vector<uint8_t> encode_hwc(const Tensor& image, bool jpeg, int quality, int compression);

// Creates the folders that will hold `output`, a path below the output folder `outdir`. `outdir` itself
// is taken as the user named it (it may be a symbolic link); below it, loom writes only into real
// folders: a sub-folder that is a symbolic link (planted to send outputs elsewhere) is refused, as a
// planted link at the output path itself is never written through (AtomicFile). Checked for every
// file when it is written; a link swapped in by another process between that check and the write is
// not defended against. Throws loom::Error(kIo) naming the folder.
void create_output_folder(const std::filesystem::path& outdir, const std::filesystem::path& output);

}  // namespace loom::cli
