// Shards written by `loom pack` read back identically through the loader: an ImageFolder tree of real
// JPEGs (../shared/media/images/jpeg) and a JSON Lines manifest with boxes are packed by the CLI itself
// (LOOM_CLI), then read with ShardDataset and a Loader shuffled as torch shuffles (Shuffle::kTorch) and
// by shards (Shuffle::kShards). Every sample's bytes must equal its source file's, its label the one
// FolderDataset (ImageFolder) or ManifestDataset gives that file, and its annotations the row's fields.
#include <sys/wait.h>

#include <gtest/gtest.h>

#include <fmt/format.h>

#include <nlohmann/json.hpp>

#include <algorithm>
#include <cstdlib>
#include <filesystem>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include "loom/loader/dataset.h"
#include "loom/loader/loader.h"
#include "loom/loader/order.h"
#include "loom/loader/shards.h"
#include "shard_test_util.h"
#include "test_media.h"

namespace loom::loader {
namespace {
namespace fs = std::filesystem;
using loom::loader::test::quoted;
using loom::test::TempDir;

// Runs the CLI with `args` (each already quoted for the shell); fails the test, with its output, unless
// it exits with status 0.
void run_loom(const std::string& args) {
  const TempDir log;
  const std::string command = std::string(quoted(LOOM_CLI)) + " " + args + " >" + quoted(log / "out") + " 2>&1";
  const int status = std::system(command.c_str());
  const std::vector<uint8_t> out = loom::test::read_bytes(log / "out");
  ASSERT_TRUE(WIFEXITED(status) && WEXITSTATUS(status) == 0) << command << " exited with " << status << ":\n"
                                                             << std::string(out.begin(), out.end());
}

// The JPEG files of the test media, in name order.
std::vector<fs::path> media_jpegs() {
  std::vector<fs::path> files;
  for (const auto& entry : fs::directory_iterator(loom::test::media("images/jpeg"))) {
    if (entry.path().extension() == ".jpg") files.push_back(entry.path());
  }
  std::sort(files.begin(), files.end());
  return files;
}

void copy_file_to(const fs::path& from, const fs::path& to) {
  fs::create_directories(to.parent_path());
  loom::test::write_bytes(to, loom::test::read_bytes(from));
}

// The key `loom pack` gives a file at `relative` (docs/cli.md): the path, normalized, without a leading
// '/' and without its extension, dots in the file name replaced by '_'.
std::string packed_key(const std::string& relative) {
  const fs::path p = fs::path(relative).lexically_normal().relative_path();
  std::string stem = p.stem().string();
  std::replace(stem.begin(), stem.end(), '.', '_');
  return p.parent_path().empty() ? stem : (p.parent_path() / stem).generic_string();
}

// What one sample must read back as.
struct Expected {
  fs::path file;
  std::optional<int64_t> label;
  std::string annotations;  // "" for none
};

std::vector<uint8_t> bytes_of(const Tensor& t) {
  const Tensor c = t.contiguous();
  const auto* p = static_cast<const uint8_t*>(c.data());
  return {p, p + c.nbytes()};
}

// The shards of `folder` named by `loom pack -o folder/train-%03d.tar`, as one brace pattern.
std::string shard_pattern(const fs::path& folder, int64_t* count) {
  *count = 0;
  for (const auto& entry : fs::directory_iterator(folder)) *count += entry.path().extension() == ".tar";
  return (folder / fmt::format("train-{{000..{:03d}}}.tar", *count - 1)).string();
}

// Reads one epoch of `dataset` through a Loader shuffled by `shuffle` and checks every sample against
// `expected` (by key): bytes, label and, with `annotations`, the annotations field. Each key must come
// exactly once, in the order EpochOrder gives for the same options.
void expect_loader_reads_back(const DatasetPtr& dataset, const std::map<std::string, Expected>& expected,
                              Shuffle shuffle, bool annotations) {
  SCOPED_TRACE(shuffle == Shuffle::kTorch ? "Shuffle::kTorch" : "Shuffle::kShards");
  LoaderOptions o;
  o.batch_size = 5;
  o.threads = 2;
  o.order.shuffle = shuffle;
  o.order.seed = 11;
  o.order.shuffle_buffer = 3;
  o.fields = {FieldSpec{.name = "bytes", .kind = FieldKind::kBytes, .members = {"jpg"}, .collate = Collate::kList},
              FieldSpec{.name = "label", .kind = FieldKind::kLabel}};
  if (annotations) o.fields.push_back(FieldSpec{.name = "notes", .kind = FieldKind::kAnnotations});
  OrderOptions order = o.order;
  order.shard_sizes = dataset->shard_sizes();
  const std::vector<int64_t> want_order = EpochOrder(dataset->size(), order, 0).indices(0);

  Loader loader(dataset, o);
  std::vector<int64_t> indices;
  std::map<std::string, int> seen;
  for (const Batch& batch : loader) {
    const BatchField& labels = batch["label"];
    ASSERT_EQ(labels.tensor.numel(), batch.size());
    for (int64_t k = 0; k < batch.size(); ++k) {
      const int64_t index = batch.indices[static_cast<size_t>(k)];
      indices.push_back(index);
      const std::string key = dataset->read(index).key;
      EXPECT_TRUE(batch.keys[static_cast<size_t>(k)].ends_with(".tar:" + key)) << batch.keys[static_cast<size_t>(k)];
      ++seen[key];
      const auto it = expected.find(key);
      ASSERT_NE(it, expected.end()) << "a sample no input has: " << key;
      EXPECT_EQ(bytes_of(batch["bytes"].list[static_cast<size_t>(k)]), loom::test::read_bytes(it->second.file)) << key;
      ASSERT_TRUE(it->second.label.has_value()) << key;
      EXPECT_EQ(labels.tensor.data<int64_t>()[k], *it->second.label) << key;
      if (annotations) {
        const std::string& text = batch["notes"].texts[static_cast<size_t>(k)];
        EXPECT_EQ(text, it->second.annotations.empty() ? "{}" : it->second.annotations) << key;
      }
    }
  }
  EXPECT_EQ(indices, want_order);
  EXPECT_EQ(seen.size(), expected.size());
  for (const auto& [key, times] : seen) EXPECT_EQ(times, 1) << key;
  std::vector<int64_t> identity(want_order.size());
  for (size_t i = 0; i < identity.size(); ++i) identity[i] = static_cast<int64_t>(i);
  EXPECT_NE(indices, identity) << "the epoch was not shuffled";
}

// An ImageFolder tree: classes whose Python order is not path order ("b" < "b-c" < "b.d"), nested
// folders, a folder and a file name with dots, an upper-case extension, a symlinked class folder, and
// a hidden class folder (ImageFolder's class 0; pack packs no hidden name but keeps the class indices).
TEST(PackLoaderTest, FolderShardsReadBackWithImageFolderLabels) {
  const std::vector<fs::path> jpegs = media_jpegs();
  ASSERT_GE(jpegs.size(), 20u);
  const std::vector<std::string> places = {"cat/1.jpg",
                                           "cat/2.jpg",
                                           "cat/sub/3.jpg",
                                           "cat/sub/deeper/4.JPG",
                                           "cat/a.b.jpg",
                                           "dog/5.jpg",
                                           "dog/x.y/6.jpg",
                                           "dog/x.y/7.jpg",
                                           "b/8.jpg",
                                           "b/e/9.jpg",
                                           "b-c/10.jpg",
                                           "b.d/11.jpg",
                                           "b.d/12.jpg",
                                           "bird/13.jpg",
                                           "bird/14.jpg",
                                           "bird/deep/15.jpg",
                                           "zebra/16.jpg",
                                           "zebra/in/17.jpg",
                                           ".ipynb_checkpoints/18.jpg"};
  TempDir dir;
  const fs::path root = dir / "data";
  for (size_t i = 0; i < places.size(); ++i) {
    const bool linked = places[i].starts_with("zebra/");
    copy_file_to(jpegs[i], (linked ? dir / "elsewhere" : root) / places[i]);
  }
  fs::create_directories(root);
  fs::create_directory_symlink(dir / "elsewhere" / "zebra", root / "zebra");

  run_loom(fmt::format("pack {} -o {} --shard-size 4 -q -j 2", quoted(root), quoted(dir / "out" / "train-%03d.tar")));
  if (HasFatalFailure()) return;

  // The reference: ImageFolder's listing and labels (FolderDataset), by packed key.
  const auto folder = FolderDataset::open(root);
  ASSERT_EQ(folder->classes().front(), ".ipynb_checkpoints");
  std::map<std::string, Expected> expected;
  for (int64_t i = 0; i < folder->size(); ++i) {
    const Record r = folder->read(i);
    if (r.key.starts_with(".")) continue;  // hidden names are not packed
    expected[packed_key(r.key)] = {folder->path(i), r.label, ""};
  }
  ASSERT_EQ(expected.size(), places.size() - 1);

  int64_t shards = 0;
  const auto dataset = ShardDataset::open({shard_pattern(dir / "out", &shards)});
  EXPECT_EQ(shards, 5);
  EXPECT_EQ(dataset->size(), static_cast<int64_t>(expected.size()));
  EXPECT_EQ(dataset->shard_sizes(), (std::vector<int64_t>{4, 4, 4, 4, 2}));
  for (const Shuffle shuffle : {Shuffle::kTorch, Shuffle::kShards}) {
    expect_loader_reads_back(dataset, expected, shuffle, /*annotations=*/false);
  }
}

// A manifest in no sorted order, with class-name labels, boxes and other fields (nested too), rows
// without annotations, a "./" path and an absolute one: packed in row order, each row's fields as
// .json, read back through the loader's kAnnotations field.
TEST(PackLoaderTest, ManifestShardsReadBackWithLabelsAndAnnotations) {
  const std::vector<fs::path> jpegs = media_jpegs();
  TempDir dir;
  const std::vector<nlohmann::ordered_json> rows = {
      {{"path", "imgs/z.jpg"}, {"label", "dog"}, {"boxes", {{1, 2, 30, 40}}}, {"labels", {3}}},
      {{"path", "imgs/sub/b.c.jpg"}, {"label", "cat"}, {"boxes", {{0, 0, 5.5, 6.25}, {2, 2, 8, 8}}}},
      {{"path", "imgs/a.jpg"}, {"label", "cat"}},
      {{"path", "./imgs/d.jpg"}, {"label", "bird"}, {"boxes", nlohmann::json::array()}, {"meta", {{"src", "x"}}}},
      {{"path", (dir / "abs" / "e.jpg").string()}, {"label", "dog"}, {"boxes", {{4, 4, 9, 9}}}},
      {{"path", "imgs/f.jpg"}, {"label", "bird"}, {"iscrowd", {0, 1}}, {"boxes", {{1, 1, 2, 2}, {3, 3, 6, 6}}}},
      {{"path", "imgs/g.jpg"}, {"label", "cat"}, {"caption", "a cat, \"sitting\""}},
  };
  std::string text;
  std::map<std::string, Expected> expected;
  std::vector<std::string> keys_in_row_order;
  for (size_t i = 0; i < rows.size(); ++i) {
    const std::string path = rows[i]["path"].get<std::string>();
    const fs::path file = fs::path(path).is_absolute() ? fs::path(path) : dir / path;
    copy_file_to(jpegs[i], file);
    text += rows[i].dump() + "\n";
    nlohmann::ordered_json fields = rows[i];
    fields.erase("path");
    fields.erase("label");
    const std::string key = packed_key(path);
    keys_in_row_order.push_back(key);
    expected[key] = {file, std::nullopt, fields.empty() ? "" : fields.dump()};
  }
  loom::test::write_bytes(dir / "train.jsonl", std::vector<uint8_t>(text.begin(), text.end()));

  run_loom(fmt::format("pack {} -o {} --shard-size 3 -q", quoted(dir / "train.jsonl"),
                       quoted(dir / "out" / "train-%03d.tar")));
  if (HasFatalFailure()) return;

  // The labels are ManifestDataset's (class names in sorted order: bird 0, cat 1, dog 2), and its
  // annotations the row's other fields as written.
  const auto manifest = ManifestDataset::open(dir / "train.jsonl");
  ASSERT_EQ(manifest->classes(), (std::vector<std::string>{"bird", "cat", "dog"}));
  for (int64_t i = 0; i < manifest->size(); ++i) {
    const Record r = manifest->describe(i);
    Expected& e = expected.at(keys_in_row_order[static_cast<size_t>(i)]);
    e.label = r.label;
    EXPECT_EQ(r.annotations, e.annotations);
  }
  EXPECT_EQ(expected.at("imgs/a").label, 1);
  EXPECT_EQ(expected.at("imgs/z").label, 2);

  int64_t shards = 0;
  const auto dataset = ShardDataset::open({shard_pattern(dir / "out", &shards)});
  EXPECT_EQ(shards, 3);
  ASSERT_EQ(dataset->size(), static_cast<int64_t>(rows.size()));
  for (int64_t i = 0; i < dataset->size(); ++i) {  // row order
    EXPECT_EQ(dataset->read(i).key, keys_in_row_order[static_cast<size_t>(i)]);
  }
  for (const Shuffle shuffle : {Shuffle::kTorch, Shuffle::kShards}) {
    expect_loader_reads_back(dataset, expected, shuffle, /*annotations=*/true);
  }
}

}  // namespace
}  // namespace loom::loader
