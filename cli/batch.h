// What the batch commands share: the batch flags and error lines (`convert`, `audio`, `frames`);
// listing the inputs and planning one output per file in a mirrored tree, and running a per-file
// function over the plan on a thread pool with per-file error lines, a progress bar on a terminal, a
// summary line and interrupt cleanup (`convert`, `audio`).
#pragma once

#include <cstdint>
#include <exception>
#include <filesystem>
#include <functional>
#include <optional>
#include <string>
#include <vector>

#include "loom/codec/tensor.h"
#include "loom/loader/file_list.h"

namespace CLI {
class App;
}

namespace loom::cli {

struct BatchJob {
  std::filesystem::path input;
  std::filesystem::path relative;  // below the folder given, or the file name for a file given directly
  std::filesystem::path output;    // OUTDIR / relative with the extension replaced, or the -o file itself
  std::filesystem::path folder;    // the output folder: OUTDIR, or the folder of the -o file (create_output_folder)
  std::string planning_error;      // set when the job cannot run (its output collides with another's, or
                                   // the input is not a regular file)
};

// An input named on the command line that could not be listed: missing (messages.h: missing_input) or
// an unreadable folder.
struct InputError {
  std::string input;
  std::string line;  // the error line, "<input>: <message>"
  bool missing = false;
};

// What plan_batch lists and where the outputs go.
struct BatchPlanRequest {
  std::vector<std::string> inputs;      // files or folders, as given
  std::string output;                   // -o: the output folder, or the output file when output_is_file
  bool output_is_file = false;          // -o names the one output of the one input file (output_names_file)
  std::vector<std::string> extensions;  // what a folder scan keeps (".jpg"; case-insensitive)
  // The output extension of an input in a folder tree (".png"); unused when output_is_file. May read
  // the input's first bytes; a loom::Error it throws becomes that job's planning_error.
  std::function<std::string(const std::filesystem::path&)> output_extension;
};

// Lists every input (a file is kept whatever its name; a folder is scanned recursively for files with
// one of `extensions`, hidden names skipped, and nothing below the output folder: the outputs of an
// earlier run into a folder inside an input folder are never read back as inputs) and gives each file
// its output: `output / relative` with its extension replaced by `output_extension(input)`, or the -o
// file itself. Inputs that cannot be listed go to `errors`. An output that an earlier file already maps
// to gets a planning_error naming that file (inputs in the order given, a folder's files in sorted
// order).
std::vector<BatchJob> plan_batch(const BatchPlanRequest& request, std::vector<InputError>& errors);

// Lists one command-line input (loader::scan_files); a path that does not exist throws missing_input.
std::vector<loader::FileEntry> list_input(const std::string& input, const loader::ScanOptions& scan);

// Whether `-o output` names the output file itself rather than a folder: its extension (any case) is
// one of `file_extensions` (".jpg", ".png"). Then the inputs must be exactly one, and not a folder:
// throws CLI::ValidationError("--output") otherwise, so that `-o out.jpg` never makes a folder of that
// name.
bool output_names_file(const std::vector<std::string>& inputs, const std::string& output,
                       const std::vector<std::string>& file_extensions);

struct BatchOptions {
  int jobs = 0;                  // worker threads; 0: one per core
  bool overwrite = false;        // replace existing outputs (the command's writes; run_batch writes nothing)
  bool skip_existing = false;    // keep existing outputs: such a job is skipped, counted apart, not a failure
  bool fail_fast = false;        // start no new file after the first failure
  bool quiet = false;            // no progress bar, no summary
  bool dry_run = false;          // print "<input> -> <output>" for each file that would be written; write nothing
  bool json = false;             // print the JSON summary (summary.h) on stdout at the end
  const char* noun = "files";    // the summary's rate unit: "N ok, M failed in S s (X <noun>/s, Y MB/s)"
  std::optional<uint64_t> seed;  // the run's noise seed: ", seed N" in the summary, "seed" in the JSON
};

// Adds the flags every batch command takes, into `options`: -j/--jobs, --overwrite, -q/--quiet and,
// with `fail_fast_flag`, --fail-fast (a command that always stops at its first failure goes without).
void add_batch_flags(CLI::App& cmd, BatchOptions& options, bool fail_fast_flag = true);

// Adds the flags of the commands that run_batch runs: --skip-existing, --dry-run and --json.
void add_run_flags(CLI::App& cmd, BatchOptions& options);

// Refuses --skip-existing with --overwrite (CLI::ValidationError), from the command's parse callback.
void check_run_flags(const BatchOptions& options);

// Adds --ext (a comma-separated list of extensions a folder scan keeps, "jpg,png" or ".jpg") into `ext`.
void add_ext_flag(CLI::App& cmd, std::vector<std::string>& ext);

// The folder-scan extensions: those of --ext (lower case, with a dot), else `defaults`.
std::vector<std::string> scan_extensions(const std::vector<std::string>& ext, const std::vector<std::string>& defaults);

// Runs `process` for every job; `process` returns the input bytes it read and throws on failure
// (loom::Error or std::exception): each failure prints "<input>: <message>" on stderr. `input_errors`
// (from plan_batch) are printed first and count as failures. Before `process` runs, a job whose output
// exists (a symbolic link included) is skipped with skip_existing, else fails with existing_output
// unless overwrite: nothing is decoded for it. With dry_run, `process` never runs: each job that would
// run prints "<input> -> <output>" on stdout instead (in order). Installs the interrupt cleanup
// (interrupt.h): a fatal signal removes the temporaries and says how far the run got. Prints the
// summary (progress.h) unless quiet, and the JSON summary with json. Returns 0 when nothing failed,
// else 1.
int run_batch(const std::vector<BatchJob>& jobs, const std::vector<InputError>& input_errors,
              const BatchOptions& options, const std::function<uint64_t(const BatchJob&)>& process);

// The error line of a failure of `input`: "<input>: <message>", the input named once (the what() of a
// loom::Error about `input` already starts with it).
std::string failure_line(const std::string& input, const std::exception& e);

// How a batch command encodes its images.
struct EncodeSettings {
  std::string format;          // "jpg", "png" or "webp"
  std::optional<int> quality;  // JPEG 1-100 (default 75, as Pillow) or lossy WebP 1-100 (default 80, as Pillow)
  int compression = 6;         // PNG zlib level 0-9
  bool lossless = false;       // WebP
};

// Encodes a uint8 (PNG: or uint16) HWC image as `settings` say.
std::vector<uint8_t> encode_hwc(const Tensor& image, const EncodeSettings& settings);

// Creates the folders that will hold `output`, a path below the output folder `outdir` (BatchJob::folder). `outdir`
// itself is taken as the user named it (it may be a symbolic link); below it, loom writes only into real folders: a
// sub-folder that is a symbolic link (planted to send outputs elsewhere) is refused, as a planted link at the output
// path itself is never written through (AtomicFile). Checked for every file when it is written; a link swapped in by
// another process between that check and the write is not defended against. Throws loom::Error(kIo) naming the folder.
void create_output_folder(const std::filesystem::path& outdir, const std::filesystem::path& output);

}  // namespace loom::cli
