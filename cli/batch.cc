#include "batch.h"

#include <fmt/format.h>
#include <sys/stat.h>

#include <CLI/CLI.hpp>

#include <algorithm>
#include <atomic>
#include <cctype>
#include <cerrno>
#include <cstring>
#include <exception>
#include <iostream>
#include <map>
#include <mutex>
#include <system_error>

#include "interrupt.h"
#include "loom/codec/atomic_file.h"
#include "loom/codec/error.h"
#include "loom/loader/file_list.h"
#include "loom/vision/image.h"
#include "messages.h"
#include "parallel.h"
#include "progress.h"
#include "summary.h"

namespace loom::cli {
namespace fs = std::filesystem;

namespace {

std::string lower(std::string text) {
  for (char& c : text) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  return text;
}

// The part of `folder`'s tree that lies below the output folder: the output folder relative to
// `folder` (both resolved), or empty when it is not inside it (or is `folder` itself).
fs::path output_inside(const fs::path& folder, const fs::path& outdir) {
  std::error_code ec;
  const fs::path in = fs::weakly_canonical(folder, ec);
  if (ec) return {};
  const fs::path out = fs::weakly_canonical(outdir, ec);
  if (ec) return {};
  const fs::path rel = out.lexically_relative(in);
  if (rel.empty() || rel == "." || *rel.begin() == "..") return {};
  return rel;
}

// Whether `relative` is `prefix` or below it, folder by folder.
bool starts_with(const fs::path& relative, const fs::path& prefix) {
  auto r = relative.begin();
  for (const fs::path& part : prefix) {
    if (r == relative.end() || *r != part) return false;
    ++r;
  }
  return true;
}

}  // namespace

std::vector<loader::FileEntry> list_input(const std::string& input, const loader::ScanOptions& scan) {
  std::error_code ec;
  if (!fs::exists(fs::symlink_status(input, ec)) || !fs::exists(fs::status(input, ec))) throw missing_input(input);
  return loader::scan_files(input, scan);
}

std::vector<BatchJob> plan_batch(const BatchPlanRequest& request, std::vector<InputError>& errors) {
  std::vector<BatchJob> jobs;
  std::map<fs::path, fs::path> owner;  // output -> the input that writes it
  loader::ScanOptions scan;
  scan.extensions = request.extensions;
  const fs::path out_file = fs::path(request.output).lexically_normal();
  const fs::path folder = request.output_is_file ? (out_file.has_parent_path() ? out_file.parent_path() : fs::path("."))
                                                 : fs::path(request.output);
  for (const std::string& input : request.inputs) {
    std::vector<loader::FileEntry> files;
    try {
      files = list_input(input, scan);
    } catch (const Error& e) {
      const bool missing = e.code() == ErrorCode::kIo && e.message() == missing_input(input).message();
      errors.push_back({input, e.what(), missing});
      continue;
    }
    std::error_code ec;
    const fs::path excluded = fs::is_directory(input, ec) ? output_inside(input, folder) : fs::path();
    for (loader::FileEntry& f : files) {
      if (!excluded.empty() && starts_with(f.relative, excluded)) continue;  // an earlier run's output
      // The output name may depend on the input's bytes (a sniff), which throws for a special file: the
      // job then fails with that error and writes nothing.
      std::string extension, sniff_error;
      if (!request.output_is_file) {
        try {
          extension = request.output_extension(f.path);
        } catch (const Error& e) {
          sniff_error = e.message();
        }
      }
      BatchJob job{f.path, f.relative,
                   request.output_is_file ? out_file : (folder / f.relative).replace_extension(extension), folder,
                   sniff_error};
      job.output = job.output.lexically_normal();
      if (!sniff_error.empty()) {  // writes nothing: it cannot clash with another input's output
        jobs.push_back(std::move(job));
        continue;
      }
      auto [it, inserted] = owner.emplace(job.output, job.input);
      if (!inserted) {
        job.planning_error =
            fmt::format("its output {} is also the output of {}", job.output.string(), it->second.string());
      }
      jobs.push_back(std::move(job));
    }
  }
  return jobs;
}

bool output_names_file(const std::vector<std::string>& inputs, const std::string& output,
                       const std::vector<std::string>& file_extensions) {
  const std::string ext = lower(fs::path(output).extension().string());
  if (std::find(file_extensions.begin(), file_extensions.end(), ext) == file_extensions.end()) return false;
  std::error_code ec;
  if (inputs.size() != 1 || fs::is_directory(inputs.front(), ec)) {
    throw CLI::ValidationError("--output", fmt::format("'{}' names one output file, so it takes one input file, not {}",
                                                       output, inputs.size() == 1 ? "a folder" : "several inputs"));
  }
  return true;
}

void add_batch_flags(CLI::App& cmd, BatchOptions& options, bool fail_fast_flag) {
  cmd.add_option("-j,--jobs", options.jobs, "Parallel jobs (default: all cores)")->check(CLI::NonNegativeNumber);
  cmd.add_flag("--overwrite", options.overwrite, "Replace existing output files (default: refuse)");
  if (fail_fast_flag) cmd.add_flag("--fail-fast", options.fail_fast, "Stop at the first failed file");
  cmd.add_flag("-q,--quiet", options.quiet, "No progress bar and no summary (errors are still printed)");
}

void add_run_flags(CLI::App& cmd, BatchOptions& options) {
  cmd.add_flag("--skip-existing", options.skip_existing,
               "Keep existing output files and skip their inputs (counted as skipped); not with --overwrite");
  cmd.add_flag("--dry-run", options.dry_run,
               "Print 'INPUT -> OUTPUT' for each file that would be written; write nothing");
  cmd.add_flag("--json", options.json,
               "Print a JSON summary line on stdout at the end: ok, failed, skipped, not_tried, seconds, errors");
}

void check_run_flags(const BatchOptions& options) {
  if (options.skip_existing && options.overwrite) {
    throw CLI::ValidationError("--skip-existing",
                               "--skip-existing keeps existing outputs, --overwrite replaces them: "
                               "give one of them");
  }
}

void add_ext_flag(CLI::App& cmd, std::vector<std::string>& ext) {
  cmd.add_option("--ext", ext, "In folders, read only files with these extensions (comma-separated: jpg,png)")
      ->delimiter(',');
}

std::vector<std::string> scan_extensions(const std::vector<std::string>& ext,
                                         const std::vector<std::string>& defaults) {
  if (ext.empty()) return defaults;
  std::vector<std::string> out;
  for (const std::string& e : ext) {
    if (e.empty() || e == ".") continue;
    out.push_back(lower(e.front() == '.' ? e : "." + e));
  }
  return out;
}

int run_batch(const std::vector<BatchJob>& jobs, const std::vector<InputError>& input_errors,
              const BatchOptions& options, const std::function<uint64_t(const BatchJob&)>& process) {
  install_interrupt_cleanup();
  Progress progress(static_cast<int64_t>(jobs.size() + input_errors.size()), !options.quiet && !options.dry_run,
                    options.noun);
  if (options.skip_existing) progress.show_skipped();
  std::mutex errors_mutex;  // guards errors and stdout
  std::vector<FileError> errors;
  int64_t missing = 0;
  for (const InputError& e : input_errors) {
    progress.print_error(e.line);
    progress.record(false, 0);
    errors.push_back({e.input, e.line});
    missing += e.missing ? 1 : 0;
  }
  std::atomic<bool> stop{false};
  parallel_for(jobs.size(), options.dry_run ? 1 : worker_count(options.jobs), [&](size_t i) {
    if (stop.load(std::memory_order_relaxed)) return;
    const BatchJob& job = jobs[i];
    std::string error;
    uint64_t bytes = 0;
    try {
      if (!job.planning_error.empty()) throw Error(ErrorCode::kInvalidInput, job.input.string(), job.planning_error);
      std::error_code ec;
      if (!options.overwrite && fs::exists(fs::symlink_status(job.output, ec))) {
        if (options.skip_existing) {
          progress.record_skipped();
          return;
        }
        throw existing_output(job.output);
      }
      if (options.dry_run) {
        std::lock_guard lock(errors_mutex);
        std::cout << job.input.string() << " -> " << job.output.string() << '\n';
      } else {
        bytes = process(job);
      }
    } catch (const std::exception& e) {
      error = failure_line(job.input.string(), e);
    }
    if (!error.empty()) {
      progress.print_error(error);
      if (options.fail_fast) stop = true;
      std::lock_guard lock(errors_mutex);
      errors.push_back({job.input.string(), error});
    }
    progress.record(error.empty(), bytes);
  });
  std::string suffix;
  if (options.seed) suffix += fmt::format(", seed {}", *options.seed);
  if (missing > 0) suffix += fmt::format("; {} input{} not found", missing, missing == 1 ? "" : "s");
  if (options.dry_run) suffix += "; dry run: nothing written";
  progress.finish(options.quiet, suffix);
  if (options.json) {
    RunSummary summary = summarize(progress);
    summary.errors = std::move(errors);
    summary.seed = options.seed;
    std::cout << summary_json(summary) << '\n';
  }
  return progress.failed() > 0 ? 1 : 0;
}

std::string failure_line(const std::string& input, const std::exception& e) {
  const auto* error = dynamic_cast<const Error*>(&e);
  return error && error->input() == input ? std::string(e.what()) : fmt::format("{}: {}", input, e.what());
}

std::vector<uint8_t> encode_hwc(const Tensor& image, const EncodeSettings& settings) {
  if (settings.format == "jpg") {
    vision::JpegEncodeOptions jo;
    jo.quality = settings.quality.value_or(jo.quality);
    jo.layout = Layout::kHWC;
    return vision::encode_jpeg(image, jo);
  }
  if (settings.format == "webp") {
    vision::WebpEncodeOptions wo;
    wo.quality = static_cast<float>(settings.quality.value_or(static_cast<int>(wo.quality)));
    wo.lossless = settings.lossless;
    wo.layout = Layout::kHWC;
    return vision::encode_webp(image, wo);
  }
  vision::PngEncodeOptions po;
  po.compression_level = settings.compression;
  po.layout = Layout::kHWC;
  return vision::encode_png(image, po);
}

void create_output_folder(const fs::path& outdir, const fs::path& output) {
  const fs::path root = fs::path(outdir).lexically_normal();
  std::error_code ec;
  fs::create_directories(root, ec);
  if (ec && !fs::is_directory(root))
    throw Error(ErrorCode::kIo, root.string(), "cannot create folder: " + ec.message());
  fs::path folder = root;
  for (const fs::path& part : output.lexically_normal().parent_path().lexically_relative(root)) {
    if (part == "." || part.empty()) continue;
    folder /= part;
    if (::mkdir(folder.c_str(), 0777) == 0) continue;
    const int err = errno;
    struct stat st {};
    if (err != EEXIST || ::lstat(folder.c_str(), &st) != 0) {
      throw Error(ErrorCode::kIo, folder.string(), fmt::format("cannot create folder: {}", std::strerror(err)));
    }
    if (S_ISLNK(st.st_mode)) {
      throw Error(ErrorCode::kIo, folder.string(),
                  "is a symbolic link inside the output folder; loom writes only into real folders below it "
                  "(nothing written)");
    }
    if (!S_ISDIR(st.st_mode)) throw Error(ErrorCode::kIo, folder.string(), "exists and is not a folder");
  }
}

}  // namespace loom::cli
