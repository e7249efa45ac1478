#include "loom/loader/tar_writer.h"

#include <fmt/format.h>
#include <sys/stat.h>

#include <cerrno>
#include <cstring>
#include <exception>
#include <unordered_set>

#include "archive_handles.h"
#include "loom/codec/atomic_file.h"
#include "loom/codec/error.h"
#include "loom/loader/shards.h"
#include "tar_reader.h"

namespace loom::loader {

struct TarWriter::State {
  State(AtomicFile f, const TarWriterOptions& o, std::string path)
      : file(std::move(f)), options(o), shard(std::move(path)) {}

  AtomicFile file;
  TarWriterOptions options;
  std::string shard;  // the path, for messages and the index
  // Declared before the writer, which outlives it: freeing the writer flushes through write_callback,
  // which may still store an error here.
  std::exception_ptr error;  // what the write callback caught
  ArchiveWriter writer;
  bool failed = false;  // a write failed part-way: the archive is unusable
  bool done = false;    // committed or abandoned
  ShardIndex index;
  std::unordered_set<std::string> keys;

  // libarchive's write callback: appends to the AtomicFile; catches everything (no exception may cross
  // libarchive's frames) and keeps it.
  static la_ssize_t write_callback(archive* a, void* self, const void* buffer, size_t length) {
    auto* s = static_cast<State*>(self);
    try {
      s->file.write(std::span<const uint8_t>(static_cast<const uint8_t*>(buffer), length));
      return static_cast<la_ssize_t>(length);
    } catch (...) {
      s->error = std::current_exception();
      archive_set_error(a, EIO, "writing the shard failed");
      return -1;
    }
  }

  [[noreturn]] void fail(std::string_view doing) {
    failed = true;
    if (error) std::rethrow_exception(error);
    const char* why = archive_error_string(writer.get());
    throw Error(ErrorCode::kIo, shard, fmt::format("{}: {}", doing, why ? why : "libarchive failed"));
  }

  void check_usable() const {
    if (done) throw Error(ErrorCode::kInvalidInput, shard, "the shard was already committed or abandoned");
    if (failed) throw Error(ErrorCode::kIo, shard, "an earlier write to the shard failed");
  }
};

std::string member_problem(const std::string& key, const std::string& name) {
  const std::string path = key + "." + name;
  if (const std::string why = unsafe_member_path(path); !why.empty()) return fmt::format("member '{}' {}", path, why);
  const std::optional<SampleName> split = split_member_path(path);
  if (!split || split->key != key || split->name != name) {
    return fmt::format(
        "member '{}' would not read back as key '{}', name '{}' (a key's file name may hold no dot, a name is "
        "lower-case without '/')",
        path, key, name);
  }
  return "";
}

TarWriter::TarWriter(std::unique_ptr<State> state) : state_(std::move(state)) {}
TarWriter::TarWriter(TarWriter&&) noexcept = default;
TarWriter& TarWriter::operator=(TarWriter&&) noexcept = default;

TarWriter::~TarWriter() {
  abandon();
}

TarWriter TarWriter::create(const std::filesystem::path& path, const TarWriterOptions& options) {
  auto state = std::unique_ptr<State>(new State(AtomicFile::create(path, options.overwrite), options, path.string()));
  const Utf8Locale locale;
  state->writer.reset(archive_write_new());
  archive* a = state->writer.get();
  if (!a) throw std::bad_alloc();
  if (archive_write_set_format_pax_restricted(a) != ARCHIVE_OK ||
      archive_write_set_bytes_per_block(a, 10240) != ARCHIVE_OK ||
      archive_write_set_bytes_in_last_block(a, 10240) != ARCHIVE_OK ||
      archive_write_open(a, state.get(), nullptr, &State::write_callback, nullptr) != ARCHIVE_OK) {
    state->fail("cannot start the tar archive");
  }
  return TarWriter(std::move(state));
}

void TarWriter::write(const std::string& key, std::span<const TarMember> members) {
  State& s = *state_;
  s.check_usable();
  auto refuse = [&](const std::string& why) { throw Error(ErrorCode::kInvalidInput, s.shard, why); };
  if (members.empty()) refuse(fmt::format("sample '{}' has no members", key));
  if (s.keys.count(key)) refuse(fmt::format("sample '{}' was already written (keys must be unique in a shard)", key));
  for (size_t i = 0; i < members.size(); ++i) {
    if (const std::string why = member_problem(key, members[i].name); !why.empty()) refuse(why);
    for (size_t k = 0; k < i; ++k) {
      if (members[k].name == members[i].name)
        refuse(fmt::format("sample '{}' has two members '{}'", key, members[i].name));
    }
  }

  const Utf8Locale locale;
  archive* a = s.writer.get();
  IndexedSample indexed{key, {}};
  for (const TarMember& m : members) {
    const std::string path = key + "." + m.name;
    const ArchiveEntry entry(archive_entry_new());
    if (!entry) throw std::bad_alloc();
    archive_entry_copy_pathname(entry.get(), path.c_str());
    archive_entry_set_filetype(entry.get(), AE_IFREG);
    archive_entry_set_perm(entry.get(), 0644);
    archive_entry_set_size(entry.get(), static_cast<la_int64_t>(m.bytes.size()));
    archive_entry_set_mtime(entry.get(), 0, 0);
    archive_entry_set_uid(entry.get(), 0);
    archive_entry_set_gid(entry.get(), 0);
    if (archive_write_header(a, entry.get()) != ARCHIVE_OK) s.fail(fmt::format("cannot write member '{}'", path));
    const auto offset = static_cast<uint64_t>(archive_filter_bytes(a, 0));
    size_t done = 0;
    while (done < m.bytes.size()) {
      const la_ssize_t n = archive_write_data(a, m.bytes.data() + done, m.bytes.size() - done);
      if (n <= 0) s.fail(fmt::format("cannot write member '{}'", path));
      done += static_cast<size_t>(n);
    }
    if (archive_write_finish_entry(a) != ARCHIVE_OK) s.fail(fmt::format("cannot write member '{}'", path));
    indexed.members.push_back({m.name, offset, m.bytes.size()});
  }
  s.keys.insert(key);
  s.index.samples.push_back(std::move(indexed));
}

void TarWriter::commit() {
  State& s = *state_;
  s.check_usable();
  {
    const Utf8Locale locale;
    if (archive_write_close(s.writer.get()) != ARCHIVE_OK) s.fail("cannot end the tar archive");
  }
  struct stat st {};
  if (::fstat(s.file.fd(), &st) != 0) {
    s.failed = true;
    throw Error(ErrorCode::kIo, s.shard, std::string("cannot stat the shard: ") + std::strerror(errno));
  }
  s.index.stamp = {static_cast<uint64_t>(st.st_size), int64_t{st.st_mtim.tv_sec} * 1'000'000'000 + st.st_mtim.tv_nsec};
  if (s.options.write_index) {
    const std::string text = format_shard_index(s.index, s.shard);
    write_file_atomic(index_path(s.shard),
                      std::span<const uint8_t>(reinterpret_cast<const uint8_t*>(text.data()), text.size()));
  }
  s.done = true;
  s.file.commit();
}

void TarWriter::abandon() noexcept {
  if (!state_ || state_->done) return;
  state_->done = true;
  state_->file.abandon();
}

const std::filesystem::path& TarWriter::path() const {
  return state_->file.path();
}

int64_t TarWriter::samples() const {
  return static_cast<int64_t>(state_->index.samples.size());
}

uint64_t TarWriter::bytes() const {
  return static_cast<uint64_t>(archive_filter_bytes(state_->writer.get(), 0));
}

}  // namespace loom::loader
