// libFuzzer target: the input is a WebDataset shard in memory (MemoryStorage). The index is built and
// every record read through it; when indexing succeeds the shard is also streamed, and a stream that
// completes must give the records the index gives. Every outcome is a success or a loom::Error; limits
// are low inside the harness so that every report is a real bug.
#include <cstddef>
#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "loom/codec/error.h"
#include "loom/loader/shards.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  using namespace loom;
  using namespace loom::loader;
  auto storage = std::make_shared<MemoryStorage>();
  storage->put("fuzz.tar", std::vector<uint8_t>(data, data + size));
  ShardOptions options;
  options.storage = storage;
  options.limits.max_bytes = 64 << 20;
  std::shared_ptr<const ShardDataset> dataset;
  try {
    dataset = ShardDataset::open({"fuzz.tar"}, options);
  } catch (const Error&) {
    return 0;
  }
  std::vector<std::string> keys;
  std::vector<size_t> bytes;
  for (int64_t i = 0; i < dataset->size(); ++i) {
    keys.push_back(dataset->name(i));
    size_t n = 0;
    try {
      const Record r = dataset->read(i);
      for (const Member& m : r.members) {
        unsigned sum = 0;
        for (const uint8_t b : m.bytes.bytes()) sum += b;  // every byte is read (ASan sees overruns)
        volatile unsigned sink = sum;
        (void)sink;
        n += m.bytes.size();
      }
    } catch (const Error&) {
      n = SIZE_MAX;
    }
    bytes.push_back(n);
  }
  std::vector<std::string> streamed;
  std::vector<size_t> streamed_bytes;
  try {
    for_each_sample(
        *storage, "fuzz.tar",
        [&](Record&& r) {
          streamed.push_back("fuzz.tar:" + r.key);
          size_t n = 0;
          for (const Member& m : r.members) n += m.bytes.size();
          streamed_bytes.push_back(n);
        },
        options.limits);
  } catch (const Error&) {
    return 0;  // the stream may stop at a problem the index reads also met (a bad .cls, a member too large)
  }
  if (streamed != keys) __builtin_trap();
  for (size_t i = 0; i < bytes.size(); ++i) {
    if (bytes[i] != SIZE_MAX && bytes[i] != streamed_bytes[i]) __builtin_trap();
  }
  return 0;
}
