// docs/loader.md's example: this file compiles and runs it on a generated folder, and checks that the
// page shows the same code (the lines between the markers below, less their indent).
#include <gtest/gtest.h>

#include <algorithm>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>

#include "loom/loader/dataset.h"
#include "loom/loader/order.h"
#include "test_media.h"

namespace {
namespace fs = std::filesystem;

std::string read_text(const fs::path& p) {
  std::ifstream in(p);
  std::stringstream s;
  s << in.rdbuf();
  return s.str();
}

// The lines of `source` between "// example begin" and "// example end", without their first
// line's indent.
std::string example_of(const std::string& source) {
  const std::string marker = "// example begin\n";
  const size_t begin = source.find(marker) + marker.size();
  const size_t end = source.rfind('\n', source.find("// example end\n")) + 1;
  std::istringstream lines(source.substr(begin, end - begin));
  std::string out, line;
  size_t indent = std::string::npos;
  while (std::getline(lines, line)) {
    if (indent == std::string::npos) indent = line.find_first_not_of(' ');
    out += (line.size() >= indent ? line.substr(indent) : "") + "\n";
  }
  return out;
}

void run_example() {
  // example begin
  // pets/cat/001.jpg, pets/dog/002.png, ...: the classes are the folders, as in ImageFolder("pets").
  const auto dataset = loom::loader::FolderDataset::open("pets");

  loom::loader::OrderOptions order;
  order.shuffle = loom::loader::Shuffle::kTorch;  // DistributedSampler(shuffle=True, seed=42)
  order.seed = 42;
  order.rank = 1;        // torchrun's RANK
  order.world_size = 2;  // and WORLD_SIZE
  for (int64_t epoch = 0; epoch < 2; ++epoch) {
    const loom::loader::EpochOrder sequence(dataset->size(), order, epoch);  // sampler.set_epoch(epoch)
    for (const int64_t index : sequence.indices(order.rank)) {
      const loom::loader::Record record = dataset->read(index);
      const std::string& label = dataset->classes()[*record.label];
      std::printf("%s: %s, %zu bytes\n", record.key.c_str(), label.c_str(), record.members[0].bytes.size());
    }
  }
  // example end
}

TEST(LoaderDocTest, ExampleRunsAndIsThePagesCode) {
  loom::test::TempDir dir;
  for (const char* rel : {"pets/cat/001.jpg", "pets/cat/003.jpg", "pets/dog/002.png"}) {
    fs::create_directories((dir / rel).parent_path());
    loom::test::write_bytes(dir / rel, {1, 2, 3});
  }
  const fs::path before = fs::current_path();
  fs::current_path(dir.path());
  testing::internal::CaptureStdout();
  EXPECT_NO_THROW(run_example());
  const std::string printed = testing::internal::GetCapturedStdout();
  fs::current_path(before);
  // 3 samples for 2 ranks: rank 1 gets 2 per epoch.
  EXPECT_EQ(std::count(printed.begin(), printed.end(), '\n'), 4) << printed;
  EXPECT_NE(printed.find(", 3 bytes"), std::string::npos) << printed;

  // By path from the source tree, not __FILE__: ccache's base_dir (setup.sh) makes that relative.
  const fs::path tests = fs::path(LOOM_TEST_REFERENCE_DIR) / "..";
  const std::string page = read_text(tests / ".." / "docs" / "loader.md");
  const std::string code = example_of(read_text(tests / "loader" / "loader_doc_test.cc"));
  EXPECT_NE(page.find("```cpp\n" + code + "```"), std::string::npos) << "docs/loader.md lacks:\n" << code;
}

}  // namespace
