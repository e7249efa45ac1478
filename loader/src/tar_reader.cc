#include "tar_reader.h"

#include <fmt/format.h>

#include <nlohmann/json.hpp>

#include <algorithm>
#include <cerrno>
#include <charconv>
#include <exception>
#include <optional>
#include <unordered_set>
#include <utility>

#include "archive_handles.h"
#include "loom/codec/error.h"
#include "loom/loader/shards.h"

namespace loom::loader {
namespace {

constexpr uint64_t kBlock = 512;
// Bytes asked of the storage per read: small when only headers are wanted (most data is seeked over),
// larger when everything is read.
constexpr uint64_t kHeaderChunk = uint64_t{64} << 10;
constexpr uint64_t kDataChunk = uint64_t{1} << 20;

uint64_t round_up(uint64_t n) {
  return (n + kBlock - 1) / kBlock * kBlock;
}

// What libarchive reads from: `length` bytes of `path` through a Storage, one block at a time. The
// callbacks catch every exception (none may cross libarchive's frames) and keep it for rethrowing.
struct StorageSource {
  StorageSource(const Storage& st, const std::string& p, uint64_t len, uint64_t ch)
      : storage(st), path(p), length(len), chunk(ch) {}

  const Storage& storage;
  const std::string& path;
  uint64_t length;
  uint64_t chunk;
  uint64_t position = 0;
  ByteSource block;
  std::exception_ptr error;

  static la_ssize_t read(archive* a, void* self, const void** buffer) {
    auto* s = static_cast<StorageSource*>(self);
    try {
      *buffer = nullptr;
      if (s->position >= s->length) return 0;
      const uint64_t n = std::min(s->chunk, s->length - s->position);
      s->block = s->storage.read_range(s->path, s->position, n);
      s->position += n;
      *buffer = s->block.data();
      return static_cast<la_ssize_t>(n);
    } catch (...) {
      s->error = std::current_exception();
      archive_set_error(a, EIO, "the storage failed to read");
      return -1;
    }
  }

  static la_int64_t skip(archive*, void* self, la_int64_t request) {
    auto* s = static_cast<StorageSource*>(self);
    if (request <= 0) return 0;
    const uint64_t n = std::min(static_cast<uint64_t>(request), s->length - s->position);
    s->position += n;
    return static_cast<la_int64_t>(n);
  }

  static la_int64_t seek(archive* a, void* self, la_int64_t offset, int whence) {
    auto* s = static_cast<StorageSource*>(self);
    const int64_t base = whence == SEEK_SET   ? 0
                         : whence == SEEK_CUR ? static_cast<int64_t>(s->position)
                                              : static_cast<int64_t>(s->length);
    const int64_t target = base + offset;
    if (target < 0) {
      archive_set_error(a, EINVAL, "seek before the start");
      return ARCHIVE_FATAL;
    }
    s->position = std::min(static_cast<uint64_t>(target), s->length);
    return static_cast<la_int64_t>(s->position);
  }
};

// The tar reader over `source`: tar formats only (ustar, GNU, pax, v7) and the compression filters
// libarchive implements itself (never one that runs an external program).
ArchiveReader open_reader(StorageSource& source) {
  ArchiveReader a(archive_read_new());
  if (!a) throw std::bad_alloc();
  archive_read_support_format_tar(a.get());
  archive_read_support_filter_gzip(a.get());
  archive_read_support_filter_bzip2(a.get());
  archive_read_support_filter_xz(a.get());
  archive_read_support_filter_lzma(a.get());
  archive_read_support_filter_zstd(a.get());
  archive_read_support_filter_lz4(a.get());
  archive_read_set_callback_data(a.get(), &source);
  archive_read_set_read_callback(a.get(), &StorageSource::read);
  archive_read_set_skip_callback(a.get(), &StorageSource::skip);
  archive_read_set_seek_callback(a.get(), &StorageSource::seek);
  return a;
}

// The storage's own error when it failed, else libarchive's as Error(kInvalidInput) naming the shard.
[[noreturn]] void throw_archive_error(archive* a, const StorageSource& source, const std::string& shard,
                                      std::string_view doing) {
  if (source.error) std::rethrow_exception(source.error);
  const char* why = archive_error_string(a);
  throw Error(ErrorCode::kInvalidInput, shard, fmt::format("{}: {}", doing, why ? why : "libarchive failed"));
}

// What a non-regular member is, for the error; nullptr for folders (skipped) and regular files.
const char* refused_type(archive_entry* e) {
  if (archive_entry_hardlink(e) != nullptr) return "a hard link";
  switch (archive_entry_filetype(e)) {
    case AE_IFREG: return nullptr;
    case AE_IFDIR: return nullptr;
    case AE_IFLNK: return "a symbolic link";
    case AE_IFCHR: return "a character device";
    case AE_IFBLK: return "a block device";
    case AE_IFIFO: return "a FIFO";
    case AE_IFSOCK: return "a socket";
    default: return "not a regular file";
  }
}

// The one WebDataset grouping (see shards.h): members in, samples out.
class Grouper {
 public:
  Grouper(const std::string& shard, const std::function<void(ScannedSample&&)>& emit) : shard_(shard), emit_(emit) {}

  void add(const std::string& path, SampleName split, ScannedMember member) {
    if (!open_ || split.key != current_.key) {
      flush();
      if (done_.count(split.key)) {
        throw Error(ErrorCode::kInvalidInput, shard_,
                    fmt::format("member '{}': key '{}' comes back after other keys (a sample's members must be "
                                "consecutive; write shards sorted by key)",
                                path, split.key));
      }
      current_ = ScannedSample{std::move(split.key), {}};
      open_ = true;
    }
    for (const ScannedMember& m : current_.members) {
      if (m.name == split.name) {
        throw Error(ErrorCode::kInvalidInput, shard_,
                    fmt::format("member '{}': sample '{}' already has a member '{}' (duplicate file name in the "
                                "sample)",
                                path, current_.key, split.name));
      }
    }
    member.name = std::move(split.name);
    current_.members.push_back(std::move(member));
  }

  void flush() {
    if (!open_) return;
    open_ = false;
    done_.insert(current_.key);
    emit_(std::move(current_));
    current_ = {};
  }

 private:
  const std::string& shard_;
  const std::function<void(ScannedSample&&)>& emit_;
  ScannedSample current_;
  bool open_ = false;
  std::unordered_set<std::string> done_;
};

// Reads the current member's data, growing the buffer with the data that arrives (never allocating
// from the declared size alone).
std::vector<uint8_t> read_data(archive* a, const StorageSource& source, const std::string& shard,
                               const std::string& path, uint64_t size) {
  std::vector<uint8_t> bytes;
  uint64_t got = 0;
  while (got < size) {
    const uint64_t want = std::min(size - got, kDataChunk);
    bytes.resize(got + want);
    const la_ssize_t n = archive_read_data(a, bytes.data() + got, want);
    if (n < 0) throw_archive_error(a, source, shard, fmt::format("member '{}'", path));
    if (n == 0) {
      throw Error(ErrorCode::kInvalidInput, shard,
                  fmt::format("member '{}' is truncated: {} of its {} bytes are there", path, got, size));
    }
    got += static_cast<uint64_t>(n);
  }
  bytes.resize(got);
  return bytes;
}

}  // namespace

void scan_shard(const Storage& storage, const std::string& shard, ScanMode mode, const Limits& limits,
                const std::function<void(ScannedSample&&)>& sample) {
  const ObjectStamp stamp = storage.stat(shard);
  if (stamp.size == 0) throw Error(ErrorCode::kInvalidInput, shard, "is empty (0 bytes), not a tar archive");
  const Utf8Locale locale;
  StorageSource source(storage, shard, stamp.size, mode == ScanMode::kHeaders ? kHeaderChunk : kDataChunk);
  const ArchiveReader reader = open_reader(source);
  archive* a = reader.get();
  if (archive_read_open1(a) != ARCHIVE_OK) throw_archive_error(a, source, shard, "not a readable tar archive");

  // Samples go to the caller under the caller's own locale.
  const std::function<void(ScannedSample &&)> emit = [&](ScannedSample&& s) {
    locale.outside([&] { sample(std::move(s)); });
  };
  Grouper grouper(shard, emit);
  bool checked_filter = false;
  std::optional<uint64_t> next_header;  // where the next header must start (kHeaders)
  for (;;) {
    archive_entry* entry = nullptr;
    const int r = archive_read_next_header(a, &entry);
    if (r == ARCHIVE_EOF) break;
    if (r != ARCHIVE_OK && r != ARCHIVE_WARN) throw_archive_error(a, source, shard, "cannot read the tar archive");
    if (!checked_filter) {
      checked_filter = true;
      if (mode == ScanMode::kHeaders && archive_filter_code(a, 0) != ARCHIVE_FILTER_NONE) {
        throw Error(ErrorCode::kUnsupported, shard,
                    fmt::format("is compressed ({}): compressed shards cannot be indexed, only streamed",
                                archive_filter_name(a, 0)));
      }
    }
    const char* raw_path = archive_entry_pathname(entry);
    const std::string path = raw_path ? raw_path : "";
    if (const std::string why = unsafe_member_path(path); !why.empty())
      throw Error(ErrorCode::kInvalidInput, shard, fmt::format("member '{}' {}", path, why));
    if (const char* type = refused_type(entry)) {
      throw Error(ErrorCode::kInvalidInput, shard,
                  fmt::format("member '{}' is {} (shards hold regular files only)", path, type));
    }
    if (archive_entry_sparse_count(entry) > 0)
      throw Error(ErrorCode::kUnsupported, shard, fmt::format("member '{}' is a sparse file", path));
    const int64_t declared = archive_entry_size_is_set(entry) ? archive_entry_size(entry) : 0;
    if (declared < 0)
      throw Error(ErrorCode::kInvalidInput, shard, fmt::format("member '{}' has a negative size", path));
    const auto size = static_cast<uint64_t>(declared);

    ScannedMember member;
    member.size = size;
    if (mode == ScanMode::kHeaders) {
      // The data starts where libarchive stopped consuming the headers (pax and GNU long-name records
      // included); checked against the tar layout: block-aligned, after this member's first header,
      // right after the previous member's padded data, and inside the shard.
      const auto header = static_cast<uint64_t>(archive_read_header_position(a));
      const auto data = static_cast<uint64_t>(archive_filter_bytes(a, 0));
      if (data % kBlock != 0 || data < header + kBlock || (next_header && *next_header != header)) {
        throw Error(ErrorCode::kInvalidInput, shard,
                    fmt::format("member '{}': inconsistent tar layout (header at byte {}, data at byte {})", path,
                                header, data));
      }
      if (size > stamp.size || data > stamp.size - size) {
        throw Error(ErrorCode::kInvalidInput, shard,
                    fmt::format("member '{}' declares {} bytes at byte {}, past the end of the shard ({} bytes): "
                                "truncated or damaged",
                                path, size, data, stamp.size));
      }
      member.offset = data;
      next_header = data + round_up(size);
    }
    if (archive_entry_filetype(entry) == AE_IFDIR) continue;
    std::optional<SampleName> split = split_member_path(path);
    if (!split) continue;  // no key (no dot in the basename) or a metadata member: skipped, as webdataset
    if (mode == ScanMode::kData) {
      if (limits.max_bytes && size > limits.max_bytes) {
        throw Error(ErrorCode::kLimitExceeded, member_source_name(shard, split->key, split->name),
                    fmt::format("is {} bytes, more than the limit of {}", size, limits.max_bytes));
      }
      member.bytes = read_data(a, source, shard, path, size);
    }
    grouper.add(path, std::move(*split), std::move(member));
  }
  grouper.flush();
}

std::string member_source_name(const std::string& shard, std::string_view key, std::string_view name) {
  return fmt::format("{}:{}.{}", shard, key, name);
}

Record make_shard_record(const std::string& shard, std::string key, std::vector<Member> members) {
  Record record;
  record.source = shard;
  for (const Member& m : members) {
    const std::string_view text(reinterpret_cast<const char*>(m.bytes.data()), m.bytes.size());
    if (m.name == "cls") {
      auto is_space = [](char c) { return c == ' ' || c == '\t' || c == '\n' || c == '\r' || c == '\v' || c == '\f'; };
      size_t b = 0, e = text.size();
      while (b < e && is_space(text[b])) ++b;
      while (e > b && is_space(text[e - 1])) --e;
      const char* first = text.data() + b;
      if (b < e && *first == '+') ++first;
      int64_t label = 0;
      const auto [end, ec] = std::from_chars(first, text.data() + e, label);
      if (b == e || ec != std::errc() || end != text.data() + e) {
        throw Error(ErrorCode::kInvalidInput, member_source_name(shard, key, m.name),
                    fmt::format("is not an integer label: '{}'", text.substr(0, 40)));
      }
      record.label = label;
    } else if (m.name == "json") {
      size_t b = 0;
      while (b < text.size() && (text[b] == ' ' || text[b] == '\t' || text[b] == '\n' || text[b] == '\r')) ++b;
      if (b == text.size() || text[b] != '{' || !nlohmann::json::accept(text)) {
        throw Error(ErrorCode::kInvalidInput, member_source_name(shard, key, m.name), "is not a JSON object");
      }
      record.annotations = std::string(text);
    }
  }
  record.key = std::move(key);
  record.members = std::move(members);
  return record;
}

void for_each_sample(const Storage& storage, const std::string& shard, const std::function<void(Record&&)>& callback,
                     const Limits& limits) {
  scan_shard(storage, shard, ScanMode::kData, limits, [&](ScannedSample&& s) {
    std::vector<Member> members;
    members.reserve(s.members.size());
    for (ScannedMember& m : s.members) {
      std::string name = member_source_name(shard, s.key, m.name);
      members.push_back({std::move(m.name), ByteSource::from_vector(std::move(m.bytes), std::move(name))});
    }
    callback(make_shard_record(shard, std::move(s.key), std::move(members)));
  });
}

}  // namespace loom::loader
