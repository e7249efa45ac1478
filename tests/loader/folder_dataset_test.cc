// FolderDataset: its listing against Debian's torchvision 0.14 ImageFolder / DatasetFolder on generated
// trees with tricky names (tests/reference/image_folder_tv.py), its records, refusals, fingerprint.
#include <gtest/gtest.h>

#include <filesystem>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "loom/codec/error.h"
#include "loom/loader/dataset.h"
#include "python_reference.h"
#include "test_media.h"

namespace loom::loader {
namespace {
namespace fs = std::filesystem;
using loom::test::error_of;
using loom::test::TempDir;

void file(const fs::path& p, const std::string& text = "x") {
  fs::create_directories(p.parent_path());
  loom::test::write_bytes(p, std::vector<uint8_t>(text.begin(), text.end()));
}

// torchvision's listing of each root: {"classes", "class_to_idx", "samples"} or {"error", "message"}.
std::vector<nlohmann::json> torchvision_listings(const std::vector<fs::path>& roots,
                                                 const std::vector<std::string>* extensions = nullptr) {
  nlohmann::json params = {{"roots", nlohmann::json::array()}, {"extensions", nullptr}};
  for (const fs::path& root : roots) params["roots"].push_back(root.string());
  if (extensions) params["extensions"] = *extensions;
  const auto out = loom::test::run_python_reference_json("image_folder_tv.py", params.dump());
  std::vector<nlohmann::json> listings;
  for (size_t k = 0; k < roots.size(); ++k) {
    const auto it = out.find(std::to_string(k));
    listings.push_back(it == out.end() ? nlohmann::json() : nlohmann::json::parse(it->second));
  }
  return listings;
}

// loom's listing equals torchvision's: the classes and, in order, each sample's path and label. A
// sample that cannot be read (a broken symlink, which ImageFolder lists too) must fail with kIo.
void expect_same_listing(const FolderDataset& dataset, const nlohmann::json& want) {
  ASSERT_TRUE(want.contains("samples")) << want.dump();
  EXPECT_EQ(dataset.classes(), want["classes"].get<std::vector<std::string>>());
  for (size_t i = 0; i < dataset.classes().size(); ++i) {
    EXPECT_EQ(want["class_to_idx"][dataset.classes()[i]].get<int64_t>(), static_cast<int64_t>(i));
  }
  const auto& samples = want["samples"];
  ASSERT_EQ(dataset.size(), static_cast<int64_t>(samples.size()));
  for (int64_t i = 0; i < dataset.size(); ++i) {
    const std::string path = samples[i][0].get<std::string>();
    EXPECT_EQ(dataset.path(i).string(), path) << "sample " << i;
    EXPECT_EQ(dataset.name(i), path);
    if (!fs::exists(path)) {
      EXPECT_EQ(error_of([&] { dataset.read(i); }).code(), ErrorCode::kIo) << path;
      continue;
    }
    const Record record = dataset.read(i);
    ASSERT_TRUE(record.label.has_value());
    EXPECT_EQ(*record.label, samples[i][1].get<int64_t>()) << path;
  }
}

// A tree whose order differs between Python's string sort, path order and a plain depth-first walk
// ("a-c" < "a.d" < "a/b"), with upper-case extensions, hidden names, a file named ".jpg", non-image
// files, nested and symlinked folders, a class that is a symlink, a hidden class, a symlink to a file,
// a broken symlink, non-ASCII names and a file at the top.
class FolderTreeTest : public ::testing::Test {
 protected:
  void SetUp() override {
    for (const char* rel : {"a-c/1.jpg",
                            "a/3.JPG",
                            "a/Z.PNG",
                            "a/.hidden.jpg",
                            "a/.jpg",
                            "a/notes.txt",
                            "a/10.jpg",
                            "a/2.jpg",
                            "a/b/2.jpg",
                            "a/b/e/9.jpg",
                            "a/b-c/4.png",
                            "a/b.d/5.jpeg",
                            "a/c/d/e/6.webp",
                            "a/c/d/e/7.TIFF",
                            "b/7.Tif",
                            "b/README",
                            "b/sub/x.jpg.txt",
                            "b/sub/y.jpg",
                            ".hidden_class/8.png",
                            "\xc3\xbc/\xc3\x9f.jpg",
                            "\xc3\xbc/z.pgm",
                            "d/real.ppm",
                            "d/a b.bmp",
                            "top.jpg"}) {
      file(root() / rel, rel);
    }
    file(dir_ / "outside" / "o1.png");
    file(dir_ / "outside" / "deep" / "o2.jpg");
    fs::create_directory_symlink(dir_ / "outside", root() / "b" / "linked");
    file(dir_ / "elsewhere" / "e.bmp");
    fs::create_directory_symlink(dir_ / "elsewhere", root() / "c");
    fs::create_symlink(dir_ / "missing.jpg", root() / "d" / "broken.jpg");
    fs::create_symlink(root() / "a" / "2.jpg", root() / "d" / "alias.jpg");
  }
  fs::path root() const { return dir_ / "data"; }
  TempDir dir_;
};

TEST_F(FolderTreeTest, ListsAsImageFolderDoes) {
  const auto dataset = FolderDataset::open(root());
  const auto want = torchvision_listings({root()});
  expect_same_listing(*dataset, want[0]);
  // What the comparison covers: in class a, Python's order of the folders' paths puts "b-c" and "b.d"
  // between "b" and "b/e" (path order and a depth-first walk put "b/e" right after "b").
  const std::vector<std::string> classes = {".hidden_class", "a", "a-c", "b", "c", "d", "\xc3\xbc"};
  EXPECT_EQ(dataset->classes(), classes);
  std::vector<std::string> keys;
  for (int64_t i = 0; i < dataset->size(); ++i) keys.push_back(dataset->path(i).lexically_relative(root()).string());
  const std::vector<std::string> want_keys = {".hidden_class/8.png",
                                              "a/.hidden.jpg",
                                              "a/.jpg",
                                              "a/10.jpg",
                                              "a/2.jpg",
                                              "a/3.JPG",
                                              "a/Z.PNG",
                                              "a/b/2.jpg",
                                              "a/b-c/4.png",
                                              "a/b.d/5.jpeg",
                                              "a/b/e/9.jpg",
                                              "a/c/d/e/6.webp",
                                              "a/c/d/e/7.TIFF",
                                              "a-c/1.jpg",
                                              "b/7.Tif",
                                              "b/linked/o1.png",
                                              "b/linked/deep/o2.jpg",
                                              "b/sub/y.jpg",
                                              "c/e.bmp",
                                              "d/a b.bmp",
                                              "d/alias.jpg",
                                              "d/broken.jpg",
                                              "d/real.ppm",
                                              "\xc3\xbc/z.pgm",
                                              "\xc3\xbc/\xc3\x9f.jpg"};
  EXPECT_EQ(keys, want_keys);
}

// find_classes is ImageFolder's class list (hidden and symlinked class folders included) whatever the
// folders hold; FolderDataset refuses what ImageFolder refuses on top of it.
TEST_F(FolderTreeTest, FindClassesIsImageFoldersClassList) {
  EXPECT_EQ(find_classes(root()), torchvision_listings({root()})[0]["classes"].get<std::vector<std::string>>());
  fs::create_directories(root() / "empty");
  const std::vector<std::string> with_empty = {".hidden_class", "a", "a-c", "b", "c", "d", "empty", "\xc3\xbc"};
  EXPECT_EQ(find_classes(root()), with_empty);
  EXPECT_EQ(error_of([&] { FolderDataset::open(root()); }).code(), ErrorCode::kInvalidInput);

  TempDir loose;
  file(loose / "1.jpg");
  fs::create_symlink(loose / "missing", loose / "broken");
  EXPECT_TRUE(find_classes(loose.path()).empty());
  const Error absent = error_of([&] { find_classes(loose / "missing"); });
  EXPECT_EQ(absent.code(), ErrorCode::kIo);
  EXPECT_EQ(absent.input(), (loose / "missing").string());
}

TEST_F(FolderTreeTest, RecordsCarryKeyFileMemberAndLabel) {
  const auto dataset = FolderDataset::open(root());
  int64_t checked = 0;
  for (int64_t i = 0; i < dataset->size(); ++i) {
    const fs::path& path = dataset->path(i);
    if (!fs::exists(path)) continue;
    const Record record = dataset->read(i);
    const std::string key = path.lexically_relative(root()).generic_string();
    EXPECT_EQ(record.key, key);
    EXPECT_EQ(record.source, path.string());
    ASSERT_EQ(record.members.size(), 1u);
    EXPECT_EQ(record.members[0].bytes.name(), path.string());
    EXPECT_EQ(record.annotations, "");
    const std::vector<uint8_t> bytes(record.members[0].bytes.bytes().begin(), record.members[0].bytes.bytes().end());
    EXPECT_EQ(bytes, loom::test::read_bytes(path));
    const std::string class_name = key.substr(0, key.find('/'));
    EXPECT_EQ(dataset->classes()[static_cast<size_t>(*record.label)], class_name);
    if (key == "a/3.JPG") EXPECT_EQ(record.members[0].name, "jpg");
    if (key == "a/.jpg") EXPECT_EQ(record.members[0].name, "jpg");
    if (key == "a/c/d/e/7.TIFF") EXPECT_EQ(record.members[0].name, "tiff");
    if (key == "a/b.d/5.jpeg") EXPECT_EQ(record.members[0].name, "jpeg");
    ++checked;
  }
  EXPECT_EQ(checked, dataset->size() - 1);  // all but the broken symlink
  EXPECT_EQ(error_of([&] { dataset->read(dataset->size()); }).code(), ErrorCode::kInvalidInput);
  EXPECT_EQ(error_of([&] { dataset->read(-1); }).code(), ErrorCode::kInvalidInput);
  EXPECT_EQ(error_of([&] { dataset->path(dataset->size()); }).code(), ErrorCode::kInvalidInput);
}

TEST_F(FolderTreeTest, LimitsApplyToEachFile) {
  FolderOptions options;
  options.limits.max_bytes = 4;  // "a/3.JPG" (the text written) is 7 bytes
  const auto dataset = FolderDataset::open(root(), options);
  for (int64_t i = 0; i < dataset->size(); ++i) {
    if (dataset->path(i).filename() == "3.JPG") {
      EXPECT_EQ(error_of([&] { dataset->read(i); }).code(), ErrorCode::kLimitExceeded);
    }
  }
}

TEST_F(FolderTreeTest, FingerprintFollowsNamesSizesAndOrder) {
  const uint64_t first = FolderDataset::open(root())->fingerprint();
  EXPECT_EQ(FolderDataset::open(root())->fingerprint(), first);
  file(root() / "a" / "2.jpg", "longer contents");
  const uint64_t resized = FolderDataset::open(root())->fingerprint();
  EXPECT_NE(resized, first);
  fs::rename(root() / "a" / "10.jpg", root() / "a" / "11.jpg");
  EXPECT_NE(FolderDataset::open(root())->fingerprint(), resized);
}

TEST(FolderDatasetTest, ExtensionsAreMatchedWithoutCaseAsDatasetFolderMatchesLowerCaseOnes) {
  TempDir dir;
  for (const char* rel : {"one/a.TXT", "one/b.jpg", "one/c.png", "one/d.Jpg", "two/e.txt", "two/f.tar.gz"}) {
    file(dir / rel);
  }
  FolderOptions options;
  options.extensions = {".TXT", ".jpg", ".tar.gz"};
  const auto dataset = FolderDataset::open(dir.path(), options);
  const std::vector<std::string> lower = {".txt", ".jpg", ".tar.gz"};  // torchvision lower-cases only the names
  expect_same_listing(*dataset, torchvision_listings({dir.path()}, &lower)[0]);
  EXPECT_EQ(dataset->size(), 5);
}

TEST(FolderDatasetTest, RefusesWhatImageFolderRefuses) {
  TempDir dir;
  const fs::path empty_classes = dir / "empty_classes", no_class = dir / "no_class", missing = dir / "missing";
  file(empty_classes / "cat" / "1.jpg");
  fs::create_directories(empty_classes / "dog");
  file(empty_classes / "fish" / "notes.txt");
  file(no_class / "1.jpg");
  const auto want = torchvision_listings({empty_classes, no_class, missing});
  for (const auto& listing : want) {
    EXPECT_EQ(listing.value("error", ""), "FileNotFoundError") << listing.dump();
  }

  const Error empty = error_of([&] { FolderDataset::open(empty_classes); });
  EXPECT_EQ(empty.code(), ErrorCode::kInvalidInput);
  EXPECT_EQ(empty.input(), empty_classes.string());
  EXPECT_NE(empty.message().find("dog, fish"), std::string::npos) << empty.message();
  const Error none = error_of([&] { FolderDataset::open(no_class); });
  EXPECT_EQ(none.code(), ErrorCode::kInvalidInput);
  EXPECT_NE(none.message().find("no class folder"), std::string::npos) << none.message();
  const Error absent = error_of([&] { FolderDataset::open(missing); });
  EXPECT_EQ(absent.code(), ErrorCode::kIo);
  EXPECT_EQ(absent.input(), missing.string());
  EXPECT_EQ(error_of([&] { FolderDataset::open(no_class / "1.jpg"); }).code(), ErrorCode::kIo);
}

// ImageFolder walks a symlink loop until the system refuses the path (40 levels on Linux), listing the
// files again at every level; loom refuses the folder instead.
TEST(FolderDatasetTest, RefusesASymlinkLoop) {
  TempDir dir;
  file(dir / "cls" / "sub" / "1.jpg");
  fs::create_directory_symlink(dir / "cls", dir / "cls" / "sub" / "back");
  const Error e = error_of([&] { FolderDataset::open(dir.path()); });
  EXPECT_EQ(e.code(), ErrorCode::kInvalidInput);
  EXPECT_EQ(e.input(), (dir / "cls" / "sub" / "back").string());
  EXPECT_NE(e.message().find("symlink loop"), std::string::npos);
}

TEST(FolderDatasetTest, TwoSymlinksToOneFolderAreBothListed) {
  TempDir dir;
  file(dir / "shared" / "s.png");
  file(dir / "data" / "cls" / "own.png");
  fs::create_directory_symlink(dir / "shared", dir / "data" / "cls" / "x");
  fs::create_directory_symlink(dir / "shared", dir / "data" / "cls" / "y");
  const auto dataset = FolderDataset::open(dir / "data");
  expect_same_listing(*dataset, torchvision_listings({dir / "data"})[0]);
  EXPECT_EQ(dataset->size(), 3);
}

TEST(RecordTest, FindTakesTheFirstNameThatIsPresent) {
  Record record;
  record.members.push_back({"json", ByteSource::from_vector({1}, "a")});
  record.members.push_back({"png", ByteSource::from_vector({2}, "b")});
  record.members.push_back({"jpg", ByteSource::from_vector({3}, "c")});
  const std::vector<std::string> names = {"webp", "jpg", "png"};
  ASSERT_NE(record.find(names), nullptr);
  EXPECT_EQ(record.find(names)->name, "jpg");
  EXPECT_EQ(record.find("png")->bytes.name(), "b");
  EXPECT_EQ(record.find("cls"), nullptr);
  const std::vector<std::string> none = {"cls", "txt"};
  EXPECT_EQ(record.find(none), nullptr);
  EXPECT_EQ(record.find(std::vector<std::string>{}), nullptr);
}

}  // namespace
}  // namespace loom::loader
