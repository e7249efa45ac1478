// loom/loader/pack.h: planning the samples and shards of a pack, and writing one shard.
#include "loom/loader/pack.h"

#include <fmt/format.h>
#include <tbb/blocked_range.h>
#include <tbb/parallel_for.h>
#include <tbb/partitioner.h>
#include <tbb/task_arena.h>

#include <algorithm>
#include <cctype>
#include <map>
#include <memory>
#include <system_error>

#include "loom/codec/error.h"
#include "loom/loader/dataset.h"
#include "loom/loader/file_list.h"
#include "loom/loader/tar_writer.h"
#include "loom/vision/image.h"

namespace loom::loader {
namespace fs = std::filesystem;
namespace {

bool ends_with_ascii_nocase(const std::string& text, std::string_view suffix) {
  if (text.size() < suffix.size()) return false;
  return std::equal(suffix.begin(), suffix.end(), text.end() - static_cast<std::ptrdiff_t>(suffix.size()),
                    [](char a, char b) {
                      return std::tolower(static_cast<unsigned char>(a)) == std::tolower(static_cast<unsigned char>(b));
                    });
}

// The sample key of `relative`: the path without its extension, dots in the file name replaced by '_'
// (a dot there would end the key when read).
std::string key_of(const fs::path& relative) {
  std::string stem = relative.stem().string();
  std::replace(stem.begin(), stem.end(), '.', '_');
  const fs::path parent = relative.parent_path();
  return parent.empty() ? stem : (parent / stem).generic_string();
}

// Byte order of the generic forms: how inputs are sorted, whatever the order given.
bool path_before(const fs::path& a, const fs::path& b) {
  return a.generic_string() < b.generic_string();
}

// `names` sorted (byte order), each once: classes merged from several folders or manifests.
std::vector<std::string> sorted_unique(std::vector<std::string> names) {
  std::sort(names.begin(), names.end());
  names.erase(std::unique(names.begin(), names.end()), names.end());
  return names;
}

// The files of the file and folder inputs, sorted by path, labelled by class folder.
std::vector<PackEntry> list_files(std::span<const std::string> inputs, const PackOptions& options,
                                  std::vector<std::string>& errors) {
  std::vector<PackEntry> entries;
  std::vector<std::string> classes;
  ScanOptions scan;
  scan.extensions = options.extensions;
  scan.follow_symlinks = true;  // as ImageFolder walks class folders (os.walk(followlinks=True))
  for (const std::string& input : inputs) {
    std::error_code ec;
    const bool folder = fs::is_directory(input, ec);
    try {
      if (folder) {
        const std::vector<std::string> found = find_classes(input);
        classes.insert(classes.end(), found.begin(), found.end());
      }
      for (FileEntry& f : scan_files(input, scan)) {
        PackEntry e;
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
                   [](const PackEntry& a, const PackEntry& b) { return path_before(a.path, b.path); });
  classes = sorted_unique(std::move(classes));
  for (PackEntry& e : entries) {
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

// The rows of the manifest inputs, the manifests in order of their paths, each in row order. A row's
// key is made of its path as written, normalized (lexically: "./a/../b.jpg" is "b.jpg"), without a
// leading '/'.
std::vector<PackEntry> list_rows(std::span<const std::string> inputs, std::vector<std::string>& errors) {
  std::vector<std::string> manifests(inputs.begin(), inputs.end());
  std::stable_sort(manifests.begin(), manifests.end(),
                   [](const std::string& a, const std::string& b) { return path_before(a, b); });
  std::vector<std::shared_ptr<const ManifestDataset>> opened;
  std::vector<std::string> classes;
  for (const std::string& manifest : manifests) {
    try {
      opened.push_back(ManifestDataset::open(manifest));
      classes.insert(classes.end(), opened.back()->classes().begin(), opened.back()->classes().end());
    } catch (const Error& e) {
      errors.emplace_back(e.what());
      opened.push_back(nullptr);
    }
  }
  classes = sorted_unique(std::move(classes));
  std::vector<PackEntry> entries;
  for (size_t m = 0; m < manifests.size(); ++m) {
    if (!opened[m]) continue;
    try {
      if (opened[m]->classes() != classes) {
        ManifestOptions manifest_options;
        manifest_options.classes = classes;
        opened[m] = ManifestDataset::open(manifests[m], manifest_options);
      }
    } catch (const Error& e) {
      errors.emplace_back(e.what());
      continue;
    }
    for (int64_t i = 0; i < opened[m]->size(); ++i) {
      Record row = opened[m]->describe(i);
      PackEntry e;
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

// "<where>: <what>", unless the error already names `where`.
std::string failure_line(const std::string& where, const std::exception& e) {
  const auto* error = dynamic_cast<const Error*>(&e);
  return error && error->input() == where ? std::string(e.what()) : fmt::format("{}: {}", where, e.what());
}

std::span<const uint8_t> as_bytes(const std::string& text) {
  return {reinterpret_cast<const uint8_t*>(text.data()), text.size()};
}

// One sample's members, ready to write.
struct Prepared {
  std::string name;
  ByteSource file;
  std::vector<uint8_t> transformed;
  bool was_transformed = false;
  std::string label;
  std::string error;
  // The data member: `transformed`, or the bytes of `file` (computed here: both survive a move).
  std::span<const uint8_t> data() const {
    return was_transformed ? std::span<const uint8_t>(transformed) : file.bytes();
  }
};

Prepared prepare(const PackShardOptions& options, const PackEntry& e) {
  Prepared p;
  p.file = ByteSource::from_file(e.path);
  p.name = e.name;
  if (options.transform) {
    PackedImage image = options.transform(e, p.file);
    p.name = std::move(image.name);
    p.transformed = std::move(image.bytes);
    p.was_transformed = true;
  }
  if (options.verify) vision::decode_image(ByteSource::from_memory(p.data(), e.where));
  if (e.label) p.label = std::to_string(*e.label);
  return p;
}

}  // namespace

bool names_manifest(const std::string& input) {
  std::error_code ec;
  return !fs::is_directory(input, ec) &&
         (ends_with_ascii_nocase(input, ".jsonl") || ends_with_ascii_nocase(input, ".ndjson") ||
          ends_with_ascii_nocase(input, ".csv"));
}

PackPlan plan_pack(std::span<const std::string> inputs, const PackOptions& options) {
  if (options.shard_size < 1) {
    throw Error(ErrorCode::kInvalidInput, "", fmt::format("shard size {} is not positive", options.shard_size));
  }
  const auto manifest = std::find_if(inputs.begin(), inputs.end(), names_manifest);
  const auto other = std::find_if_not(inputs.begin(), inputs.end(), names_manifest);
  if (manifest != inputs.end() && other != inputs.end()) {
    throw Error(ErrorCode::kInvalidInput, "",
                fmt::format("'{}' is a manifest and '{}' is not: pack manifests, or files and folders, not both (their "
                            "labels share no class list)",
                            *manifest, *other));
  }
  PackPlan plan;
  plan.entries = manifest != inputs.end() ? list_rows(inputs, plan.errors) : list_files(inputs, options, plan.errors);
  std::map<std::string, const PackEntry*> owner;  // key -> the sample that has it
  for (PackEntry& e : plan.entries) {
    e.key = key_of(e.relative);
    std::string ext = e.relative.extension().string();
    for (char& c : ext) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
    e.name = ext.empty() ? "" : ext.substr(1);
    std::error_code ec;
    e.size = fs::file_size(e.path, ec);
    if (ec) {
      plan.errors.push_back(fmt::format("{}: cannot read its size: {}", e.where, ec.message()));
    } else if (e.name.empty()) {
      plan.errors.push_back(fmt::format("{}: has no extension to name its member", e.where));
    } else if (const std::string why = member_problem(e.key, e.name); !why.empty()) {
      plan.errors.push_back(fmt::format("{}: {}", e.where, why));
    } else if (auto [it, inserted] = owner.emplace(e.key, &e); !inserted) {
      plan.errors.push_back(fmt::format("{}: its key '{}' is also the key of {}", e.where, e.key, it->second->where));
    }
  }
  std::vector<uint64_t> sizes;
  sizes.reserve(plan.entries.size());
  for (const PackEntry& e : plan.entries) sizes.push_back(e.size);
  plan.shards = plan_shards(sizes, options.shard_size, options.shard_bytes);
  return plan;
}

PackShardResult write_pack_shard(const fs::path& path, std::span<const PackEntry> entries,
                                 const PackShardOptions& options) {
  PackShardResult result;
  std::optional<TarWriter> writer;
  try {
    std::error_code ec;
    fs::create_directories(path.parent_path(), ec);
    if (ec && !fs::is_directory(path.parent_path())) {
      throw Error(ErrorCode::kIo, path.parent_path().string(), "cannot create folder: " + ec.message());
    }
    TarWriterOptions writer_options;
    writer_options.overwrite = options.overwrite;
    writer.emplace(TarWriter::create(path, writer_options));
  } catch (const std::exception& e) {
    result.error = failure_line(path.string(), e);
    return result;
  }
  // Samples are read and transformed in parallel a window at a time, and written in order.
  const int threads = std::max(options.threads, 1);
  const size_t window = static_cast<size_t>(threads) * 4;
  tbb::task_arena arena(threads);
  for (size_t begin = 0; begin < entries.size(); begin += window) {
    const size_t n = std::min(window, entries.size() - begin);
    std::vector<Prepared> prepared(n);
    auto prepare_one = [&](size_t k) {
      try {
        prepared[k] = prepare(options, entries[begin + k]);
      } catch (const std::exception& e) {
        prepared[k].error = failure_line(entries[begin + k].where, e);
      }
    };
    if (threads == 1) {
      for (size_t k = 0; k < n; ++k) prepare_one(k);
    } else {
      arena.execute([&] {
        tbb::parallel_for(
            tbb::blocked_range<size_t>(0, n, 1),
            [&](const tbb::blocked_range<size_t>& range) {
              for (size_t k = range.begin(); k != range.end(); ++k) prepare_one(k);
            },
            tbb::simple_partitioner());
      });
    }
    for (size_t k = 0; k < n; ++k) {
      const PackEntry& e = entries[begin + k];
      Prepared& p = prepared[k];
      if (p.error.empty()) {
        try {
          std::vector<TarMember> members = {{p.name, p.data()}};
          if (e.label) members.push_back({"cls", as_bytes(p.label)});
          if (!e.annotations.empty()) members.push_back({"json", as_bytes(e.annotations)});
          writer->write(e.key, members);
        } catch (const std::exception& ex) {
          p.error = failure_line(e.where, ex);
        }
      }
      if (!p.error.empty()) {
        result.error = std::move(p.error);
        result.failed_sample = static_cast<int64_t>(begin + k);
        return result;  // the writer abandons the shard
      }
      ++result.samples;
      if (options.on_written) options.on_written(e);
    }
  }
  try {
    writer->commit();
  } catch (const std::exception& e) {
    result.error = failure_line(path.string(), e);
    return result;
  }
  result.ok = true;
  return result;
}

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
      throw Error(ErrorCode::kInvalidInput, "",
                  fmt::format("'{}': only %d or %0Nd (N up to 20) and %% may follow a %", pattern));
    }
    std::string digits = std::to_string(n);
    if (digits.size() < width) digits.insert(0, width - digits.size(), zero ? '0' : ' ');
    out += digits;
    ++conversions;
    i = k;
  }
  if (conversions != 1) {
    throw Error(ErrorCode::kInvalidInput, "",
                fmt::format("'{}' needs exactly one %d or %0Nd for the shard number", pattern));
  }
  return out;
}

}  // namespace loom::loader
