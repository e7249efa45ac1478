// The shard index: its JSON form, building it from a scan, and finding a current one beside the shard.
#include <fmt/format.h>

#include <nlohmann/json.hpp>

#include <filesystem>
#include <string>

#include "dataset_common.h"
#include "loom/codec/error.h"
#include "loom/loader/shards.h"
#include "tar_reader.h"

namespace loom::loader {
namespace {

constexpr const char* kFormat = "loom-shard-index";
// An index larger than this is not read (it would describe millions of members).
constexpr uint64_t kMaxIndexBytes = uint64_t{1} << 30;

std::string file_name(std::string_view shard) {
  const size_t slash = shard.rfind('/');
  return std::string(slash == std::string_view::npos ? shard : shard.substr(slash + 1));
}

std::string cache_path(const std::string& folder, const std::string& shard) {
  detail::Fingerprint h;
  h.add(shard);
  return fmt::format("{}/{:016x}-{}.idx", folder, h.value(), file_name(shard));
}

std::shared_ptr<const Storage> storage_of(const ShardOptions& options) {
  return options.storage ? options.storage : local_storage();
}

// The index at `path` when it is readable, valid and describes the shard as it is now (`stamp`).
std::optional<ShardIndex> read_current(const Storage& storage, const std::string& path, const ObjectStamp& stamp) {
  try {
    Limits limits;
    limits.max_bytes = kMaxIndexBytes;
    const ByteSource text = storage.read(path, limits);
    ShardIndex index =
        parse_shard_index(std::string_view(reinterpret_cast<const char*>(text.data()), text.size()), path);
    if (index.stamp == stamp) return index;
  } catch (const Error&) {  // missing, unreadable or damaged: built again
  }
  return std::nullopt;
}

}  // namespace

uint64_t ShardIndex::fingerprint() const {
  detail::Fingerprint h;
  h.add(stamp.size);
  h.add(static_cast<uint64_t>(stamp.modified_ns));
  h.add(samples.size());
  for (const IndexedSample& s : samples) {
    h.add(s.key);
    h.add(s.members.size());
    for (const IndexedMember& m : s.members) {
      h.add(m.name);
      h.add(m.offset);
      h.add(m.size);
    }
  }
  return h.value();
}

std::string format_shard_index(const ShardIndex& index, std::string_view shard) {
  nlohmann::json samples = nlohmann::json::array();
  for (const IndexedSample& s : index.samples) {
    nlohmann::json members = nlohmann::json::array();
    for (const IndexedMember& m : s.members) members.push_back({m.name, m.offset, m.size});
    samples.push_back({{"key", s.key}, {"members", std::move(members)}});
  }
  const nlohmann::json j = {{"format", kFormat},
                            {"version", ShardIndex::kVersion},
                            {"shard", file_name(shard)},
                            {"size", index.stamp.size},
                            {"modified_ns", index.stamp.modified_ns},
                            {"fingerprint", fmt::format("{:016x}", index.fingerprint())},
                            {"samples", std::move(samples)}};
  return j.dump() + "\n";
}

ShardIndex parse_shard_index(std::string_view text, const std::string& input) {
  auto bad = [&](const std::string& why) {
    return Error(ErrorCode::kInvalidInput, input, "not a valid shard index: " + why);
  };
  const nlohmann::json j = nlohmann::json::parse(text, nullptr, /*allow_exceptions=*/false);
  if (!j.is_object()) throw bad("not a JSON object");
  try {
    if (j.at("format").get<std::string>() != kFormat) throw bad("its format is not " + std::string(kFormat));
    if (j.at("version").get<int>() != ShardIndex::kVersion)
      throw bad(fmt::format("version {}, not {}", j.at("version").dump(), ShardIndex::kVersion));
    ShardIndex index;
    index.stamp.size = j.at("size").get<uint64_t>();
    index.stamp.modified_ns = j.at("modified_ns").get<int64_t>();
    for (const nlohmann::json& s : j.at("samples")) {
      IndexedSample sample{s.at("key").get<std::string>(), {}};
      for (const nlohmann::json& m : s.at("members")) {
        if (!m.is_array() || m.size() != 3) throw bad("a member is not [name, offset, size]");
        IndexedMember member{m[0].get<std::string>(), m[1].get<uint64_t>(), m[2].get<uint64_t>()};
        if (member.offset % 512 != 0 || member.size > index.stamp.size ||
            member.offset > index.stamp.size - member.size) {
          throw bad(fmt::format("member '{}.{}' lies outside the shard", sample.key, member.name));
        }
        sample.members.push_back(std::move(member));
      }
      index.samples.push_back(std::move(sample));
    }
    if (j.at("fingerprint").get<std::string>() != fmt::format("{:016x}", index.fingerprint()))
      throw bad("its fingerprint does not match its contents");
    return index;
  } catch (const nlohmann::json::exception& e) {
    throw bad(e.what());
  }
}

std::string index_path(const std::string& shard) {
  return shard + ".idx";
}

ShardIndex build_shard_index(const std::string& shard, const ShardOptions& options) {
  const std::shared_ptr<const Storage> storage = storage_of(options);
  ShardIndex index;
  index.stamp = storage->stat(shard);
  scan_shard(*storage, shard, ScanMode::kHeaders, options.limits, [&](ScannedSample&& s) {
    IndexedSample sample{std::move(s.key), {}};
    sample.members.reserve(s.members.size());
    for (ScannedMember& m : s.members) sample.members.push_back({std::move(m.name), m.offset, m.size});
    index.samples.push_back(std::move(sample));
  });
  if (storage->stat(shard) != index.stamp) throw Error(ErrorCode::kIo, shard, "changed while it was being indexed");
  return index;
}

ShardIndex load_shard_index(const std::string& shard, const ShardOptions& options) {
  const std::shared_ptr<const Storage> storage = storage_of(options);
  const ObjectStamp stamp = storage->stat(shard);
  const std::string beside = index_path(shard);
  if (std::optional<ShardIndex> index = read_current(*storage, beside, stamp)) return std::move(*index);
  const std::string cached = options.index_folder.empty() ? "" : cache_path(options.index_folder, shard);
  if (!cached.empty()) {
    if (std::optional<ShardIndex> index = read_current(*storage, cached, stamp)) return std::move(*index);
  }
  ShardIndex index = build_shard_index(shard, options);
  if (options.write_index) {
    const std::string text = format_shard_index(index, shard);
    const std::span<const uint8_t> bytes(reinterpret_cast<const uint8_t*>(text.data()), text.size());
    try {
      storage->write(beside, bytes);
    } catch (const Error&) {
      try {
        if (!cached.empty()) storage->write(cached, bytes);
      } catch (const Error&) {  // kept in memory only: built again next time
      }
    }
  }
  return index;
}

}  // namespace loom::loader
