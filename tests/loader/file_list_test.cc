// scan_files: recursive listing of a dataset folder, filters, hidden names, symlinks, errors.
#include "loom/loader/file_list.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <filesystem>
#include <string>
#include <vector>

#include "loom/codec/error.h"
#include "test_media.h"

namespace loom::loader {
namespace {
namespace fs = std::filesystem;
using loom::test::TempDir;

void touch(const fs::path& p) {
  fs::create_directories(p.parent_path());
  loom::test::write_bytes(p, {1, 2, 3});
}

std::vector<std::string> relatives(const std::vector<FileEntry>& files) {
  std::vector<std::string> out;
  for (const FileEntry& f : files) out.push_back(f.relative.generic_string());
  return out;
}

// A small dataset tree:
//   cat/1.jpg cat/2.JPG cat/notes.txt dog/a/3.png dog/4.jpeg top.jpg .hidden.jpg .cache/x.jpg
//   dog/.thumbs/5.jpg README
class ScanTest : public ::testing::Test {
 protected:
  void SetUp() override {
    for (const char* rel : {"cat/1.jpg", "cat/2.JPG", "cat/notes.txt", "dog/a/3.png", "dog/4.jpeg", "top.jpg",
                            ".hidden.jpg", ".cache/x.jpg", "dog/.thumbs/5.jpg", "README"}) {
      touch(dir_ / rel);
    }
  }
  TempDir dir_;
};

TEST_F(ScanTest, ListsEveryVisibleFileRecursivelyAndSorted) {
  const auto files = scan_files(dir_.path());
  const std::vector<std::string> want = {"README",     "cat/1.jpg",   "cat/2.JPG", "cat/notes.txt",
                                         "dog/4.jpeg", "dog/a/3.png", "top.jpg"};
  EXPECT_EQ(relatives(files), want);
  for (const FileEntry& f : files) {
    EXPECT_EQ(f.path, dir_.path() / f.relative);
    EXPECT_TRUE(fs::is_regular_file(f.path)) << f.path;
  }
}

TEST_F(ScanTest, ExtensionFilterIgnoresCase) {
  ScanOptions opt;
  opt.extensions = {".jpg", ".png"};
  const std::vector<std::string> want = {"cat/1.jpg", "cat/2.JPG", "dog/a/3.png", "top.jpg"};
  EXPECT_EQ(relatives(scan_files(dir_.path(), opt)), want);
}

TEST_F(ScanTest, ImageExtensionsListCoversCommonFormats) {
  const auto& ext = image_extensions();
  for (const char* e : {".jpg", ".jpeg", ".png", ".webp", ".gif", ".bmp", ".tif", ".tiff"}) {
    EXPECT_NE(std::find(ext.begin(), ext.end(), e), ext.end()) << e;
  }
  for (const std::string& e : ext) {
    EXPECT_EQ(e.front(), '.') << e;
    EXPECT_TRUE(std::none_of(e.begin(), e.end(), [](unsigned char c) { return std::isupper(c); })) << e;
  }
  ScanOptions opt;
  opt.extensions = image_extensions();
  const std::vector<std::string> want = {"cat/1.jpg", "cat/2.JPG", "dog/4.jpeg", "dog/a/3.png", "top.jpg"};
  EXPECT_EQ(relatives(scan_files(dir_.path(), opt)), want);
}

TEST_F(ScanTest, HiddenFilesAndFoldersAreSkippedUnlessAsked) {
  ScanOptions opt;
  opt.extensions = {".jpg"};
  EXPECT_EQ(relatives(scan_files(dir_.path(), opt)), (std::vector<std::string>{"cat/1.jpg", "cat/2.JPG", "top.jpg"}));
  opt.include_hidden = true;
  const std::vector<std::string> want = {".cache/x.jpg", ".hidden.jpg",       "cat/1.jpg",
                                         "cat/2.JPG",    "dog/.thumbs/5.jpg", "top.jpg"};
  EXPECT_EQ(relatives(scan_files(dir_.path(), opt)), want);
}

TEST_F(ScanTest, AFileGivenDirectlyIsAlwaysKept) {
  ScanOptions opt;
  opt.extensions = {".png"};
  const auto files = scan_files(dir_ / "cat" / "notes.txt", opt);
  ASSERT_EQ(files.size(), 1u);
  EXPECT_EQ(files[0].path, dir_ / "cat" / "notes.txt");
  EXPECT_EQ(files[0].relative, fs::path("notes.txt"));
  // Hidden too: naming it is asking for it.
  const auto hidden = scan_files(dir_ / ".hidden.jpg");
  ASSERT_EQ(hidden.size(), 1u);
  EXPECT_EQ(hidden[0].relative, fs::path(".hidden.jpg"));
}

TEST_F(ScanTest, SubfolderAndTrailingSlash) {
  const std::vector<std::string> want = {"4.jpeg", "a/3.png"};
  EXPECT_EQ(relatives(scan_files(dir_ / "dog")), want);
  EXPECT_EQ(relatives(scan_files(fs::path((dir_ / "dog").string() + "/"))), want);
}

TEST_F(ScanTest, HiddenInputFolderIsStillScanned) {
  // Only names below the input are filtered; the folder the caller names may itself start with '.'.
  const std::vector<std::string> want = {"x.jpg"};
  EXPECT_EQ(relatives(scan_files(dir_ / ".cache")), want);
}

TEST(ScanFilesTest, MissingInputIsIoNamingIt) {
  TempDir dir;
  const fs::path p = dir / "nope";
  try {
    scan_files(p);
    ADD_FAILURE() << "scan_files of a missing path returned";
  } catch (const loom::Error& e) {
    EXPECT_EQ(e.code(), loom::ErrorCode::kIo);
    EXPECT_EQ(e.input(), p.string());
  }
  fs::create_symlink(dir / "gone", dir / "dangling");
  try {
    scan_files(dir / "dangling");
    ADD_FAILURE() << "scan_files of a dangling symlink returned";
  } catch (const loom::Error& e) {
    EXPECT_EQ(e.code(), loom::ErrorCode::kIo);
  }
}

TEST(ScanFilesTest, EmptyFolderGivesNothing) {
  TempDir dir;
  fs::create_directories(dir / "a" / "b");
  EXPECT_TRUE(scan_files(dir.path()).empty());
}

TEST(ScanFilesTest, SymlinkedFolderIsNotFollowedByDefault) {
  TempDir dir;
  touch(dir / "outside" / "o.jpg");
  touch(dir / "data" / "d.jpg");
  fs::create_directory_symlink(dir / "outside", dir / "data" / "linked");
  EXPECT_EQ(relatives(scan_files(dir / "data")), std::vector<std::string>{"d.jpg"});
  ScanOptions follow;
  follow.follow_symlinks = true;
  EXPECT_EQ(relatives(scan_files(dir / "data", follow)), (std::vector<std::string>{"d.jpg", "linked/o.jpg"}));
}

TEST(ScanFilesTest, SymlinkedFileIsListed) {
  TempDir dir;
  touch(dir / "real" / "r.png");
  fs::create_directories(dir / "data");
  fs::create_symlink(dir / "real" / "r.png", dir / "data" / "l.png");
  fs::create_symlink(dir / "real" / "missing.png", dir / "data" / "broken.png");  // dangling: not a file
  const auto files = scan_files(dir / "data");
  EXPECT_EQ(relatives(files), std::vector<std::string>{"l.png"});
}

TEST(ScanFilesTest, SymlinkLoopIsNotFollowedByDefault) {
  TempDir dir;
  touch(dir / "data" / "x.jpg");
  fs::create_directory_symlink(dir / "data", dir / "data" / "loop");
  EXPECT_EQ(relatives(scan_files(dir / "data")), std::vector<std::string>{"x.jpg"});
}

// Followed, a loop would list the same files again at every level until the path is too long: it is
// refused, naming the symlink that closes it. A folder reached twice by different paths is not a loop.
TEST(ScanFilesTest, FollowedSymlinkLoopIsRefused) {
  TempDir dir;
  touch(dir / "data" / "a" / "x.jpg");
  fs::create_directory_symlink(dir / "data", dir / "data" / "a" / "up");
  ScanOptions follow;
  follow.follow_symlinks = true;
  const Error e = loom::test::error_of([&] { scan_files(dir / "data", follow); });
  EXPECT_EQ(e.code(), ErrorCode::kInvalidInput);
  EXPECT_EQ(e.input(), (dir / "data" / "a" / "up").string());
  EXPECT_NE(std::string(e.what()).find("symlink loop"), std::string::npos) << e.what();

  fs::remove(dir / "data" / "a" / "up");
  fs::create_directory_symlink(dir / "data" / "a", dir / "data" / "b");
  EXPECT_EQ(relatives(scan_files(dir / "data", follow)), (std::vector<std::string>{"a/x.jpg", "b/x.jpg"}));
}

TEST(ScanFilesTest, SortsWithinFoldersByName) {
  TempDir dir;
  for (const char* rel : {"b/2.jpg", "b/10.jpg", "a/z.jpg", "A/y.jpg", "c.jpg", "B.jpg"}) touch(dir / rel);
  // Byte order: upper case before lower case, "10" before "2".
  const std::vector<std::string> want = {"A/y.jpg", "B.jpg", "a/z.jpg", "b/10.jpg", "b/2.jpg", "c.jpg"};
  EXPECT_EQ(relatives(scan_files(dir.path())), want);
}

// The contract says "sorted by relative path (byte order)": byte order of the relative path string puts
// "a-b.jpg" (0x2D) and "a.jpg" (0x2E) before "a/c.jpg" (0x2F). std::filesystem::path's operator< compares
// component by component instead, which puts the folder "a" first.
TEST(ScanFilesTest, SortIsPathOrderFolderByFolder) {
  TempDir dir;
  for (const char* rel : {"a/c.jpg", "a.jpg", "a-b.jpg", "b/a/z.jpg", "b.png"}) touch(dir / rel);
  // Component by component: the folder "a" sorts before the files "a-b.jpg" and "a.jpg".
  const std::vector<std::string> want = {"a/c.jpg", "a-b.jpg", "a.jpg", "b/a/z.jpg", "b.png"};
  EXPECT_EQ(relatives(scan_files(dir.path())), want);
}

TEST(ScanFilesTest, ExtensionListIsCaseInsensitive) {
  TempDir dir;
  for (const char* rel : {"x.jpg", "y.JPEG", "z.png"}) touch(dir / rel);
  ScanOptions opt;
  opt.extensions = {".JPG", ".jpeg"};
  const std::vector<std::string> want = {"x.jpg", "y.JPEG"};
  EXPECT_EQ(relatives(scan_files(dir.path(), opt)), want);
}

TEST(ScanFilesTest, ScansTheRealCorpus) {
  // The image folders of the corpus, compared with a listing made here with std::filesystem.
  const fs::path images = loom::test::media("images");
  std::vector<std::string> want;
  for (const auto& e : fs::recursive_directory_iterator(images)) {
    if (e.is_regular_file() && e.path().filename().string()[0] != '.') {
      want.push_back(e.path().lexically_relative(images).generic_string());
    }
  }
  std::sort(want.begin(), want.end());
  const auto files = scan_files(images);
  auto got = relatives(files);
  std::sort(got.begin(), got.end());
  EXPECT_EQ(got, want);
  EXPECT_GT(got.size(), 50u);
}

}  // namespace
}  // namespace loom::loader
