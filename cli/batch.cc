#include "batch.h"

#include <fmt/format.h>
#include <sys/stat.h>

#include <CLI/CLI.hpp>

#include <algorithm>
#include <atomic>
#include <cerrno>
#include <cstring>
#include <exception>
#include <map>
#include <system_error>

#include "interrupt.h"
#include "loom/codec/atomic_file.h"
#include "loom/codec/error.h"
#include "loom/loader/file_list.h"
#include "loom/vision/image.h"
#include "parallel.h"
#include "progress.h"

namespace loom::cli {
namespace fs = std::filesystem;

std::vector<BatchJob> plan_batch(const std::vector<std::string>& inputs, const std::string& outdir,
                                 const std::vector<std::string>& extensions,
                                 const std::function<std::string(const fs::path&)>& output_extension,
                                 std::vector<std::string>& errors) {
  std::vector<BatchJob> jobs;
  std::map<fs::path, fs::path> owner;  // output -> the input that writes it
  loader::ScanOptions scan;
  scan.extensions = extensions;
  for (const std::string& input : inputs) {
    std::vector<loader::FileEntry> files;
    try {
      files = loader::scan_files(input, scan);
    } catch (const Error& e) {
      errors.emplace_back(e.what());
      continue;
    }
    for (loader::FileEntry& f : files) {
      // The output name may depend on the input's bytes (a sniff), which throws for a special file: the
      // job then fails with that error and writes nothing.
      std::string extension, sniff_error;
      try {
        extension = output_extension(f.path);
      } catch (const Error& e) {
        sniff_error = e.message();
      }
      BatchJob job{f.path, f.relative, (fs::path(outdir) / f.relative).replace_extension(extension), sniff_error};
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

void add_batch_flags(CLI::App& cmd, BatchOptions& options, bool fail_fast_flag) {
  cmd.add_option("-j,--jobs", options.jobs, "Parallel jobs (default: all cores)")->check(CLI::NonNegativeNumber);
  cmd.add_flag("--overwrite", options.overwrite, "Replace existing output files (default: refuse)");
  if (fail_fast_flag) cmd.add_flag("--fail-fast", options.fail_fast, "Stop at the first failed file");
  cmd.add_flag("-q,--quiet", options.quiet, "No progress bar and no summary (errors are still printed)");
}

int run_batch(const std::vector<BatchJob>& jobs, const std::vector<std::string>& input_errors,
              const BatchOptions& options, const std::function<uint64_t(const BatchJob&)>& process) {
  install_interrupt_cleanup();
  Progress progress(static_cast<int64_t>(jobs.size()), !options.quiet, options.noun);
  for (const std::string& e : input_errors) progress.print_error(e);
  std::atomic<bool> stop{false};
  parallel_for(jobs.size(), worker_count(options.jobs), [&](size_t i) {
    if (stop.load(std::memory_order_relaxed)) return;
    const BatchJob& job = jobs[i];
    std::string error;
    uint64_t bytes = 0;
    try {
      if (!job.planning_error.empty()) throw Error(ErrorCode::kInvalidInput, job.input.string(), job.planning_error);
      bytes = process(job);
    } catch (const std::exception& e) {
      error = failure_line(job.input.string(), e);
    }
    if (!error.empty()) {
      progress.print_error(error);
      if (options.fail_fast) stop = true;
    }
    progress.record(error.empty(), bytes);
  });
  progress.finish(options.quiet, options.summary_suffix);
  return !input_errors.empty() || progress.failed() > 0 ? 1 : 0;
}

std::string failure_line(const std::string& input, const std::exception& e) {
  const auto* error = dynamic_cast<const Error*>(&e);
  return error && error->input() == input ? std::string(e.what()) : fmt::format("{}: {}", input, e.what());
}

std::vector<uint8_t> encode_hwc(const Tensor& image, bool jpeg, int quality, int compression) {
  if (jpeg) {
    vision::JpegEncodeOptions jo;
    jo.quality = quality;
    jo.layout = Layout::kHWC;
    return vision::encode_jpeg(image, jo);
  }
  vision::PngEncodeOptions po;
  po.compression_level = compression;
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
