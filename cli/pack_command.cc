// `loom pack INPUT... -o PATTERN --shard-size N`: write the inputs as WebDataset shards, one sample per
// file or manifest row (its file's bytes as they are, or transformed with convert's image flags), a .cls
// label for files in class folders (torchvision ImageFolder's indices) and for labelled rows, a .json
// member with a row's annotations, and the index beside each shard.
#include <fmt/format.h>

#include <CLI/CLI.hpp>

#include <algorithm>
#include <atomic>
#include <cctype>
#include <map>
#include <memory>
#include <optional>
#include <span>
#include <string>
#include <system_error>
#include <vector>

#include "batch.h"
#include "commands.h"
#include "image_args.h"
#include "loom/codec/byte_source.h"
#include "loom/codec/error.h"
#include "loom/loader/dataset.h"
#include "loom/loader/file_list.h"
#include "loom/loader/shard_plan.h"
#include "loom/loader/tar_writer.h"
#include "open_dataset.h"
#include "parallel.h"
#include "progress.h"
#include "shard_args.h"

namespace loom::cli {
namespace fs = std::filesystem;
namespace {

struct PackArgs {
  std::vector<std::string> inputs;
  std::string pattern;  // "out/train-%06d.tar"
  int64_t shard_size = 0;
  std::string shard_bytes;  // "B", "500M", "1G" or empty
  std::vector<std::string> extensions;
  ImageArgs image;  // convert's flags: any of them given means the images are transformed
  bool transform = false;
  BatchOptions batch;  // -j, --overwrite, --fail-fast, -q
  ShardFlags shards;   // --shard-index, --num-shards: split the shards among workers
};

// One sample, planned: an input file, or a manifest row and its file.
struct Entry {
  fs::path path;
  fs::path relative;  // what its key is made of: the path below the folder given, the file name, the row's path
  std::string where;  // names it in messages: its path (and for a row, which record of which manifest)
  std::optional<std::string> cls;  // its class folder, for files in class folders of a folder given
  std::string key;
  std::string name;  // its member: the lower-case extension ("jpg")
  uint64_t size = 0;
  std::optional<int64_t> label;
  std::string annotations;  // a manifest row's, a JSON object; "" for none
};

// The path of shard `n` of `pattern`: its one "%d" or "%0Nd" replaced by n, "%%" by "%". Throws
// CLI::ValidationError("-o") for a pattern without exactly one such conversion.
std::string shard_path(const std::string& pattern, int64_t n) {
  std::string out;
  int conversions = 0;
  for (size_t i = 0; i < pattern.size(); ++i) {
    if (pattern[i] != '%') {
      out += pattern[i];
      continue;
    }
    if (i + 1 < pattern.size() && pattern[i + 1] == '%') {
      out += '%';
      ++i;
      continue;
    }
    size_t k = i + 1;
    const bool zero = k < pattern.size() && pattern[k] == '0';
    if (zero) ++k;
    size_t width = 0;
    while (k < pattern.size() && std::isdigit(static_cast<unsigned char>(pattern[k])) && width < 100)
      width = width * 10 + static_cast<size_t>(pattern[k++] - '0');
    if (k >= pattern.size() || pattern[k] != 'd' || width > 20) {
      throw CLI::ValidationError("-o",
                                 fmt::format("'{}': only %d or %0Nd (N up to 20) and %% may follow a %", pattern));
    }
    std::string digits = std::to_string(n);
    if (digits.size() < width) digits.insert(0, width - digits.size(), zero ? '0' : ' ');
    out += digits;
    ++conversions;
    i = k;
  }
  if (conversions != 1) {
    throw CLI::ValidationError("-o", fmt::format("'{}' needs exactly one %d or %0Nd for the shard number", pattern));
  }
  return out;
}

// --shard-bytes: a byte count, optionally with K, M, G or T (powers of 1024). 0 for an empty text.
uint64_t parse_bytes(const std::string& text) {
  if (text.empty()) return 0;
  size_t used = 0;
  uint64_t value = 0;
  try {
    if (text.front() < '0' || text.front() > '9') throw std::invalid_argument(text);
    value = std::stoull(text, &used);
  } catch (const std::logic_error&) {
    used = 0;
  }
  const std::string suffix = text.substr(used);
  int shift = -1;
  if (used > 0) {
    if (suffix.empty()) shift = 0;
    if (suffix == "K" || suffix == "k") shift = 10;
    if (suffix == "M") shift = 20;
    if (suffix == "G") shift = 30;
    if (suffix == "T") shift = 40;
  }
  if (shift < 0 || value == 0 || value > (UINT64_MAX >> shift)) {
    throw CLI::ValidationError(
        "--shard-bytes", fmt::format("'{}' is not a positive byte count (digits, optionally K, M, G or T)", text));
  }
  return value << shift;
}

// The sample key of `relative`: the path without its extension, dots in the file name replaced by '_'
// (a dot there would end the key when read).
std::string key_of(const fs::path& relative) {
  std::string stem = relative.stem().string();
  std::replace(stem.begin(), stem.end(), '.', '_');
  const fs::path parent = relative.parent_path();
  return parent.empty() ? stem : (parent / stem).generic_string();
}

// Byte order of the generic forms: how inputs are sorted, whatever the order of the command line.
bool path_before(const fs::path& a, const fs::path& b) {
  return a.generic_string() < b.generic_string();
}

// `names` sorted (byte order), each once: classes merged from several folders or manifests.
std::vector<std::string> sorted_unique(std::vector<std::string> names) {
  std::sort(names.begin(), names.end());
  names.erase(std::unique(names.begin(), names.end()), names.end());
  return names;
}

// The files of the file and folder inputs, sorted by path (byte order of the generic form, whatever
// the order of the command line). A file below a class folder of a folder given is labelled with that
// folder's index among the classes of every folder given (loader::find_classes of each, merged and
// sorted): for one folder, torchvision ImageFolder's class index. Problems go to `errors`.
std::vector<Entry> list_files(const PackArgs& args, std::vector<std::string>& errors) {
  std::vector<Entry> entries;
  std::vector<std::string> classes;
  loader::ScanOptions scan;
  scan.extensions = args.extensions;
  scan.follow_symlinks = true;  // as ImageFolder walks class folders (os.walk(followlinks=True))
  for (const std::string& input : args.inputs) {
    std::error_code ec;
    const bool folder = fs::is_directory(input, ec);
    try {
      if (folder) {
        const std::vector<std::string> found = loader::find_classes(input);
        classes.insert(classes.end(), found.begin(), found.end());
      }
      for (loader::FileEntry& f : loader::scan_files(input, scan)) {
        Entry e;
        e.path = std::move(f.path);
        e.relative = std::move(f.relative);
        e.where = e.path.string();
        if (folder && std::distance(e.relative.begin(), e.relative.end()) > 1) e.cls = e.relative.begin()->string();
        entries.push_back(std::move(e));
      }
    } catch (const Error& e) {
      errors.emplace_back(e.what());
    }
  }
  std::stable_sort(entries.begin(), entries.end(),
                   [](const Entry& a, const Entry& b) { return path_before(a.path, b.path); });
  classes = sorted_unique(std::move(classes));
  for (Entry& e : entries) {
    if (!e.cls) continue;
    const auto it = std::lower_bound(classes.begin(), classes.end(), *e.cls);
    if (it == classes.end() || *it != *e.cls) {
      errors.push_back(fmt::format("{}: its class folder '{}' appeared while the inputs were listed", e.where, *e.cls));
    } else {
      e.label = it - classes.begin();
    }
  }
  return entries;
}

// The rows of the manifest inputs (loader::ManifestDataset), the manifests in order of their paths
// (byte order, whatever the order of the command line), each in row order. A row's key is made of its
// path as written, normalized (lexically: "./a/../b.jpg" is "b.jpg"), without a leading '/'. Class-name
// labels index the sorted names of all manifests together (one manifest: ManifestDataset's indices);
// integer labels are kept as written. Problems go to `errors`.
std::vector<Entry> list_rows(const PackArgs& args, std::vector<std::string>& errors) {
  std::vector<std::string> manifests = args.inputs;
  std::stable_sort(manifests.begin(), manifests.end(),
                   [](const std::string& a, const std::string& b) { return path_before(a, b); });
  std::vector<std::shared_ptr<const loader::ManifestDataset>> opened;
  std::vector<std::string> classes;
  for (const std::string& manifest : manifests) {
    try {
      opened.push_back(loader::ManifestDataset::open(manifest));
      classes.insert(classes.end(), opened.back()->classes().begin(), opened.back()->classes().end());
    } catch (const Error& e) {
      errors.emplace_back(e.what());
      opened.push_back(nullptr);
    }
  }
  classes = sorted_unique(std::move(classes));
  std::vector<Entry> entries;
  for (size_t m = 0; m < manifests.size(); ++m) {
    if (!opened[m]) continue;
    try {
      if (opened[m]->classes() != classes) {
        loader::ManifestOptions options;
        options.classes = classes;
        opened[m] = loader::ManifestDataset::open(manifests[m], options);
      }
    } catch (const Error& e) {
      errors.emplace_back(e.what());
      continue;
    }
    for (int64_t i = 0; i < opened[m]->size(); ++i) {
      loader::Record row = opened[m]->describe(i);
      Entry e;
      e.path = row.source;
      e.relative = fs::path(row.key).lexically_normal().relative_path();
      e.where = fmt::format("{} (record {} of {})", row.source, i + 1, manifests[m]);
      e.label = row.label;
      e.annotations = std::move(row.annotations);
      entries.push_back(std::move(e));
    }
  }
  return entries;
}

// Lists and plans every input (list_rows for manifests, else list_files); `errors` gets a line for
// each problem (a missing input, an unnamed member, two samples for one key).
std::vector<Entry> plan_entries(const PackArgs& args, std::vector<std::string>& errors) {
  const bool manifests = !args.inputs.empty() && names_manifest(args.inputs.front());  // never mixed (add_pack_command)
  std::vector<Entry> entries = manifests ? list_rows(args, errors) : list_files(args, errors);
  std::map<std::string, const Entry*> owner;  // key -> the sample that has it
  for (Entry& e : entries) {
    e.key = key_of(e.relative);
    std::string ext = e.relative.extension().string();
    for (char& c : ext) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
    e.name = ext.empty() ? "" : ext.substr(1);
    std::error_code ec;
    e.size = fs::file_size(e.path, ec);
    if (ec) {
      errors.push_back(fmt::format("{}: cannot read its size: {}", e.where, ec.message()));
    } else if (e.name.empty()) {
      errors.push_back(fmt::format("{}: has no extension to name its member", e.where));
    } else if (const std::string why = loader::member_problem(e.key, e.name); !why.empty()) {
      errors.push_back(fmt::format("{}: {}", e.where, why));
    } else if (auto [it, inserted] = owner.emplace(e.key, &e); !inserted) {
      errors.push_back(fmt::format("{}: its key '{}' is also the key of {}", e.where, e.key, it->second->where));
    }
  }
  return entries;
}

// One sample's members, ready to write.
struct Prepared {
  std::string image_name;
  ByteSource image;
  std::vector<uint8_t> transformed;
  std::string label;
  std::string error;
};

Prepared prepare(const PackArgs& args, const ImageSteps& steps, const Entry& e) {
  Prepared p;
  p.image = ByteSource::from_file(e.path);
  p.image_name = e.name;
  if (args.transform) {
    const std::string ext = image_output_extension(args.image, e.path);
    p.transformed = transform_image(args.image, steps, p.image, e.relative, ext == ".jpg");
    p.image_name = ext.substr(1);
  }
  if (e.label) p.label = std::to_string(*e.label);
  return p;
}

std::span<const uint8_t> as_bytes(const std::string& text) {
  return {reinterpret_cast<const uint8_t*>(text.data()), text.size()};
}

// Writes shard `path` from `entries`; false (errors printed) when it could not be written whole.
bool write_shard(const PackArgs& args, const ImageSteps& steps, const std::string& path,
                 const std::vector<Entry>& entries, int threads, Progress& progress) {
  std::optional<loader::TarWriter> writer;
  try {
    create_output_folder(path);
    loader::TarWriterOptions options;
    options.overwrite = args.batch.overwrite;
    writer.emplace(loader::TarWriter::create(path, options));
  } catch (const std::exception& e) {
    progress.print_error(failure_line(path, e));
    for (size_t k = 0; k < entries.size(); ++k) progress.record(false, 0);
    return false;
  }
  // Samples are read and transformed in parallel a window at a time, and written in order.
  const size_t window = static_cast<size_t>(std::max(threads, 1)) * 4;
  for (size_t begin = 0; begin < entries.size(); begin += window) {
    const size_t n = std::min(window, entries.size() - begin);
    std::vector<Prepared> prepared(n);
    parallel_for(n, threads, [&](size_t k) {
      try {
        prepared[k] = prepare(args, steps, entries[begin + k]);
      } catch (const std::exception& e) {
        prepared[k].error = failure_line(entries[begin + k].where, e);
      }
    });
    for (size_t k = 0; k < n; ++k) {
      const Entry& e = entries[begin + k];
      Prepared& p = prepared[k];
      if (p.error.empty()) {
        try {
          const std::span<const uint8_t> image =
              args.transform ? std::span<const uint8_t>(p.transformed) : p.image.bytes();
          std::vector<loader::TarMember> members = {{p.image_name, image}};
          if (e.label) members.push_back({"cls", as_bytes(p.label)});
          if (!e.annotations.empty()) members.push_back({"json", as_bytes(e.annotations)});
          writer->write(e.key, members);
        } catch (const std::exception& ex) {
          p.error = failure_line(e.where, ex);
        }
      }
      if (!p.error.empty()) {
        progress.print_error(fmt::format("{} (shard {} not written)", p.error, path));
        for (size_t rest = begin + k; rest < entries.size(); ++rest) progress.record(false, 0);
        return false;
      }
      progress.record(true, e.size);
    }
  }
  try {
    writer->commit();
  } catch (const std::exception& e) {
    progress.print_error(failure_line(path, e));
    return false;
  }
  return true;
}

int run_pack(const PackArgs& args) {
  const ImageSteps steps = parse_image_steps(args.image);
  const ShardSplit split = shard_split(args.shards);
  std::vector<std::string> errors;
  const std::vector<Entry> entries = plan_entries(args, errors);
  if (!errors.empty()) {
    for (const std::string& e : errors) std::fputs((e + "\n").c_str(), stderr);
    std::fputs("nothing written: the shards depend on the whole input list\n", stderr);
    return 1;
  }
  std::vector<uint64_t> sizes;
  sizes.reserve(entries.size());
  for (const Entry& e : entries) sizes.push_back(e.size);
  const std::vector<loader::IndexRange> shards =
      loader::plan_shards(sizes, args.shard_size, parse_bytes(args.shard_bytes));
  const loader::IndexRange mine = loader::split_range(static_cast<int64_t>(shards.size()), split.index, split.count);
  int64_t samples = 0;
  for (int64_t s = mine.begin; s < mine.end; ++s) samples += shards[static_cast<size_t>(s)].size();

  install_interrupt_cleanup();
  const int threads = worker_count(args.batch.jobs);
  Progress progress(samples, !args.batch.quiet);
  bool failed = false;
  for (int64_t s = mine.begin; s < mine.end && !(failed && args.batch.fail_fast); ++s) {
    const loader::IndexRange r = shards[static_cast<size_t>(s)];
    const std::vector<Entry> part(entries.begin() + r.begin, entries.begin() + r.end);
    if (!write_shard(args, steps, shard_path(args.pattern, s), part, threads, progress)) failed = true;
  }
  std::string suffix = fmt::format(", shards {}..{} of {}", mine.begin, mine.end - 1, shards.size());
  if (mine.size() == 0) suffix = fmt::format(", no shard of {} for this worker", shards.size());
  if (steps.noise_seed) suffix += fmt::format(", seed {}", *steps.noise_seed);
  progress.finish(args.batch.quiet, "samples", suffix);
  return failed ? 1 : 0;
}

}  // namespace

Command add_pack_command(CLI::App& app) {
  auto args = std::make_shared<PackArgs>();
  args->extensions = loader::image_extensions();
  CLI::App* cmd = app.add_subcommand("pack",
                                     "Write files (or folders, recursively) or manifests as WebDataset tar shards, one "
                                     "sample per file or row, indexed");
  cmd->add_option("INPUT", args->inputs,
                  "Files or folders (a folder's sub-folders are classes: .cls labels), or manifests (.jsonl, .ndjson, "
                  ".csv: one sample per row, .cls and .json from its label and other fields)")
      ->required();
  cmd->add_option("-o,--output", args->pattern,
                  "Shard path with one %d or %0Nd for the shard number, out/train-%06d.tar")
      ->required();
  cmd->add_option("--shard-size", args->shard_size, "Samples per shard")
      ->required()
      ->check(CLI::Range(int64_t{1}, int64_t{1} << 40));
  cmd->add_option("--shard-bytes", args->shard_bytes,
                  "Also end a shard before its input files would pass B bytes (K, M, G, T: powers of 1024)");
  cmd->add_option("--extensions", args->extensions,
                  "In folders, the file extensions packed, comma-separated (default: the image extensions)")
      ->delimiter(',');
  const ImageFlags image = add_image_flags(*cmd, args->image);
  add_batch_flags(*cmd, args->batch);
  add_shard_flags(*cmd, args->shards, "shards");
  cmd->callback([args, image] {  // reject bad values while parsing, before any file is touched
    const auto manifest = std::find_if(args->inputs.begin(), args->inputs.end(), names_manifest);
    const auto other = std::find_if_not(args->inputs.begin(), args->inputs.end(), names_manifest);
    if (manifest != args->inputs.end() && other != args->inputs.end()) {
      throw CLI::ValidationError("INPUT", fmt::format("'{}' is a manifest and '{}' is not: pack manifests, or files "
                                                      "and folders, not both (their labels share no class list)",
                                                      *manifest, *other));
    }
    check_image_args(args->image, image);
    args->transform = image.any_given();
    shard_path(args->pattern, 0);
    parse_bytes(args->shard_bytes);
    shard_split(args->shards);
  });
  return {cmd, [args] { return run_pack(*args); }};
}

}  // namespace loom::cli
