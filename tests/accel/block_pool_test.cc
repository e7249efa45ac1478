// The caching policy of the device allocator and the pinned pool (accel/src/block_pool.h), on plain
// memory with fake events, so that it is tested without a GPU.
#include "block_pool.h"

#include <gtest/gtest.h>

#include <cstdlib>
#include <map>
#include <set>

namespace loom::accel::detail {
namespace {

// malloc-backed memory whose allocations can be made to fail, and events that are ready when a test
// says so (per stream: "stream s has passed everything recorded so far").
struct FakeDevice {
  std::set<void*> live;
  int allocations = 0, frees = 0;
  int fail_next = 0;                  // the next N allocations fail
  std::map<void*, uintptr_t> events;  // event -> stream it was recorded on
  std::map<uintptr_t, bool> passed;   // stream -> its events are ready
  int events_destroyed = 0;

  PoolBackend backend() {
    PoolBackend b;
    b.allocate = [this](size_t bytes) -> void* {
      if (fail_next > 0) {
        --fail_next;
        return nullptr;
      }
      ++allocations;
      void* p = std::malloc(bytes);
      live.insert(p);
      return p;
    };
    b.free = [this](void* p) {
      ++frees;
      live.erase(p);
      std::free(p);
    };
    b.record = [this](uintptr_t stream) -> void* {
      void* e = new char;
      events[e] = stream;
      passed[stream] = false;
      return e;
    };
    b.ready = [this](void* e) { return passed[events.at(e)]; };
    b.destroy = [this](void* e) {
      events.erase(e);
      ++events_destroyed;
      delete static_cast<char*>(e);
    };
    return b;
  }
};

constexpr uintptr_t kStreamA = 0x10, kStreamB = 0x20;
constexpr size_t kLimit = size_t{64} << 20;

TEST(BlockPoolTest, SizeClassesRoundUpBy512BytesThenByEighths) {
  EXPECT_EQ(size_class(0), 512u);
  EXPECT_EQ(size_class(1), 512u);
  EXPECT_EQ(size_class(512), 512u);
  EXPECT_EQ(size_class(513), 1024u);
  EXPECT_EQ(size_class((1 << 20) - 1), size_t{1} << 20);
  EXPECT_EQ(size_class(size_t{1} << 20), size_t{1} << 20);
  EXPECT_EQ(size_class((size_t{1} << 20) + 1), (size_t{1} << 20) + (size_t{1} << 17));  // next eighth
  for (size_t bytes : {size_t{3} << 20, size_t{150528} * 256, size_t{12345678}}) {
    const size_t c = size_class(bytes);
    EXPECT_GE(c, bytes);
    EXPECT_LE(c, bytes + bytes / 8) << bytes;
  }
}

TEST(BlockPoolTest, AFreedBlockServesTheNextRequestOfItsStreamOnly) {
  FakeDevice dev;
  BlockPool pool(dev.backend(), kLimit);
  const BlockPool::Block a = pool.allocate(1000, kStreamA);
  ASSERT_NE(a.data, nullptr);
  EXPECT_EQ(a.capacity, 1024u);
  pool.release(a.data);
  EXPECT_EQ(pool.stats().cached_bytes, 1024u);
  const BlockPool::Block on_b = pool.allocate(1000, kStreamB);  // another stream: a fresh block
  EXPECT_NE(on_b.data, a.data);
  const BlockPool::Block again = pool.allocate(900, kStreamA);  // same class, same stream: the kept block
  EXPECT_EQ(again.data, a.data);
  const MemoryStats s = pool.stats();
  EXPECT_EQ(s.allocations, 3u);
  EXPECT_EQ(s.reuses, 1u);
  EXPECT_EQ(s.in_use_bytes, 2048u);
  EXPECT_EQ(s.cached_bytes, 0u);
  EXPECT_EQ(dev.allocations, 2);
  pool.release(on_b.data);
  pool.release(again.data);
}

TEST(BlockPoolTest, AKeptBlockServesRequestsUpToTwiceSmallerButNoSmaller) {
  FakeDevice dev;
  BlockPool pool(dev.backend(), kLimit);
  const size_t big = size_t{8} << 20;
  void* block = pool.allocate(big, kStreamA).data;
  pool.release(block);
  const BlockPool::Block small = pool.allocate(big / 2 - (600 << 10), kStreamA);  // class 3.5 MiB
  EXPECT_NE(small.data, block) << "more than twice the request";
  const BlockPool::Block half = pool.allocate(big / 2, kStreamA);
  EXPECT_EQ(half.data, block);
  EXPECT_EQ(half.capacity, big) << "the kept block's capacity, not the request's";
  const BlockPool::Block larger = pool.allocate(big + 1, kStreamA);
  EXPECT_EQ(larger.capacity, size_class(big + 1));
  for (const BlockPool::Block& b : {small, half, larger}) pool.release(b.data);
}

TEST(BlockPoolTest, ABlockUsedOnAnotherStreamWaitsForThatStream) {
  FakeDevice dev;
  BlockPool pool(dev.backend(), kLimit);
  const BlockPool::Block a = pool.allocate(4096, kStreamA);
  const char* inside = static_cast<const char*>(a.data) + 100;  // a view into the block
  EXPECT_TRUE(pool.record_use(inside, kStreamB));
  EXPECT_TRUE(pool.record_use(inside, kStreamB)) << "twice: still one event";
  EXPECT_TRUE(pool.record_use(a.data, kStreamA)) << "its own stream: nothing to wait for";
  pool.release(a.data);
  EXPECT_EQ(dev.events.size(), 1u);
  EXPECT_EQ(dev.events.begin()->second, kStreamB);
  EXPECT_EQ(pool.stats().cached_bytes, 4096u) << "parked blocks count as cached";
  void* fresh = pool.allocate(4096, kStreamA).data;
  EXPECT_NE(fresh, a.data) << "stream B may still read it";
  dev.passed[kStreamB] = true;
  void* reused = pool.allocate(4096, kStreamA).data;
  EXPECT_EQ(reused, a.data);
  EXPECT_EQ(dev.events_destroyed, 1);
  pool.release(fresh);
  pool.release(reused);
}

TEST(BlockPoolTest, RecordUseOutsideEveryLiveBlockIsRefused) {
  FakeDevice dev;
  BlockPool pool(dev.backend(), kLimit);
  int other = 0;
  EXPECT_FALSE(pool.record_use(&other, kStreamB));
  const BlockPool::Block a = pool.allocate(512, kStreamA);
  EXPECT_FALSE(pool.record_use(static_cast<char*>(a.data) + a.capacity, kStreamB)) << "one past the end";
  pool.release(a.data);
  EXPECT_FALSE(pool.record_use(a.data, kStreamB)) << "freed blocks are not live";
  pool.release(&other);  // not from the pool: ignored, never freed
  EXPECT_EQ(dev.frees, 0);
}

TEST(BlockPoolTest, BlocksBeyondTheCacheLimitAreGivenBackAtOnce) {
  FakeDevice dev;
  BlockPool pool(dev.backend(), 4096);
  void* a = pool.allocate(4096, kStreamA).data;
  void* b = pool.allocate(4096, kStreamA).data;
  pool.release(a);
  pool.release(b);  // over the limit
  EXPECT_EQ(dev.frees, 1);
  EXPECT_EQ(pool.stats().cached_bytes, 4096u);
  BlockPool none(dev.backend(), 0);
  none.release(none.allocate(10, kStreamA).data);
  EXPECT_EQ(dev.frees, 2) << "a limit of 0 keeps nothing";
}

TEST(BlockPoolTest, OutOfMemoryGivesBackTheCacheAndTriesOnceMore) {
  FakeDevice dev;
  BlockPool pool(dev.backend(), kLimit);
  pool.release(pool.allocate(1 << 20, kStreamB).data);  // kept, but for another stream
  dev.fail_next = 1;
  const BlockPool::Block a = pool.allocate(1 << 20, kStreamA);
  EXPECT_NE(a.data, nullptr);
  EXPECT_EQ(dev.frees, 1) << "the kept block was given back before the retry";
  EXPECT_EQ(pool.stats().cached_bytes, 0u);
  dev.fail_next = 2;
  const BlockPool::Block none = pool.allocate(1 << 20, kStreamA);
  EXPECT_EQ(none.data, nullptr);
  EXPECT_EQ(pool.stats().allocations, 2u) << "a failed request is not counted as served";
  pool.release(a.data);
}

TEST(BlockPoolTest, TrimGivesBackFreeAndReadyParkedBlocksOnly) {
  FakeDevice dev;
  BlockPool pool(dev.backend(), kLimit);
  void* free_block = pool.allocate(512, kStreamA).data;
  void* parked = pool.allocate(1024, kStreamA).data;
  pool.record_use(parked, kStreamB);
  pool.release(free_block);
  pool.release(parked);
  EXPECT_EQ(pool.trim(), 512u) << "stream B has not passed the parked block";
  EXPECT_EQ(dev.live.size(), 1u);
  dev.passed[kStreamB] = true;
  EXPECT_EQ(pool.trim(), 1024u);
  EXPECT_TRUE(dev.live.empty());
  EXPECT_EQ(pool.stats().cached_bytes, 0u);
}

TEST(BlockPoolTest, DestroyingThePoolGivesBackWhatItKeeps) {
  FakeDevice dev;
  {
    BlockPool pool(dev.backend(), kLimit);
    pool.release(pool.allocate(512, kStreamA).data);
    void* parked = pool.allocate(512, kStreamA).data;
    pool.record_use(parked, kStreamB);
    pool.release(parked);
  }
  EXPECT_TRUE(dev.live.empty());
  EXPECT_TRUE(dev.events.empty());
}

}  // namespace
}  // namespace loom::accel::detail
