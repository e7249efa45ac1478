// AtomicFile (streaming: write, fd, commit, abandon, the pending-files registry) and write_file_atomic.
#include "loom/codec/atomic_file.h"

#include <fmt/format.h>
#include <gtest/gtest.h>
#include <signal.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <chrono>
#include <cstdint>
#include <filesystem>
#include <string>
#include <thread>
#include <utility>
#include <vector>

#include "loom/codec/byte_source.h"
#include "loom/codec/error.h"
#include "test_media.h"

namespace loom {
namespace {
using loom::test::error_of;
namespace fs = std::filesystem;
using loom::test::pseudo_random_bytes;
using loom::test::read_bytes;
using loom::test::TempDir;
using loom::test::write_bytes;

// Names in `dir`, sorted.
std::vector<std::string> listing(const fs::path& dir) {
  std::vector<std::string> names;
  for (const auto& e : fs::directory_iterator(dir)) names.push_back(e.path().filename().string());
  std::sort(names.begin(), names.end());
  return names;
}

mode_t current_umask() {
  const mode_t m = ::umask(0);
  ::umask(m);
  return m;
}

// ---- AtomicFile ----

TEST(AtomicFileTest, NothingAppearsBeforeCommit) {
  TempDir dir;
  const auto first = pseudo_random_bytes(3000, 1), second = pseudo_random_bytes(5000, 2);
  AtomicFile f = AtomicFile::create(dir / "out.bin");
  EXPECT_EQ(f.path(), dir / "out.bin");
  f.write(first);
  f.write(second);
  EXPECT_FALSE(fs::exists(dir / "out.bin"));
  ASSERT_EQ(listing(dir.path()).size(), 1u);
  EXPECT_TRUE(listing(dir.path())[0].starts_with(".out.bin.loom-")) << listing(dir.path())[0];
  f.commit();
  std::vector<uint8_t> want = first;
  want.insert(want.end(), second.begin(), second.end());
  EXPECT_EQ(read_bytes(dir / "out.bin"), want);
  EXPECT_EQ(listing(dir.path()), std::vector<std::string>{"out.bin"});
  struct stat st {};
  ASSERT_EQ(::stat((dir / "out.bin").c_str(), &st), 0);
  EXPECT_EQ(st.st_mode & 0777, 0666 & ~current_umask());
}

TEST(AtomicFileTest, ALibraryWritesAndSeeksThroughTheDescriptor) {
  TempDir dir;
  AtomicFile f = AtomicFile::create(dir / "out.bin");
  ASSERT_GE(f.fd(), 0);
  ASSERT_EQ(::write(f.fd(), "hello world", 11), 11);
  ASSERT_EQ(::lseek(f.fd(), 0, SEEK_SET), 0);  // as a muxer goes back to fill in a header
  ASSERT_EQ(::write(f.fd(), "HELLO", 5), 5);
  f.commit();
  EXPECT_EQ(f.fd(), -1);
  const std::string text = "HELLO world";
  EXPECT_EQ(read_bytes(dir / "out.bin"), std::vector<uint8_t>(text.begin(), text.end()));
}

TEST(AtomicFileTest, DestroyedWithoutCommitLeavesThePathAsItWas) {
  TempDir dir;
  const auto before = pseudo_random_bytes(100, 3);
  write_bytes(dir / "f", before);
  {
    AtomicFile f = AtomicFile::create(dir / "f");
    f.write(pseudo_random_bytes(1000, 4));
  }
  EXPECT_EQ(read_bytes(dir / "f"), before);
  EXPECT_EQ(listing(dir.path()), std::vector<std::string>{"f"}) << "temporary file left behind";
  { AtomicFile g = AtomicFile::create(dir / "new"); }
  EXPECT_EQ(listing(dir.path()), std::vector<std::string>{"f"});
}

TEST(AtomicFileTest, AbandonIsIdempotentAndEndsTheFile) {
  TempDir dir;
  AtomicFile f = AtomicFile::create(dir / "out");
  f.write(std::vector<uint8_t>{1, 2, 3});
  f.abandon();
  f.abandon();
  EXPECT_TRUE(listing(dir.path()).empty());
  EXPECT_EQ(f.fd(), -1);
  EXPECT_EQ(error_of([&] { f.write(std::vector<uint8_t>{1}); }).code(), ErrorCode::kIo);
  EXPECT_EQ(error_of([&] { f.commit(); }).code(), ErrorCode::kIo);
  EXPECT_TRUE(listing(dir.path()).empty());
}

TEST(AtomicFileTest, CommitTwiceOrWriteAfterCommitIsAnError) {
  TempDir dir;
  AtomicFile f = AtomicFile::create(dir / "out");
  f.write(std::vector<uint8_t>{7});
  f.commit();
  const Error e = error_of([&] { f.commit(); });
  EXPECT_EQ(e.code(), ErrorCode::kIo);
  EXPECT_EQ(e.input(), (dir / "out").string());
  EXPECT_EQ(error_of([&] { f.write(std::vector<uint8_t>{8}); }).code(), ErrorCode::kIo);
  f.abandon();  // no-op after commit: the file stays
  EXPECT_EQ(read_bytes(dir / "out"), std::vector<uint8_t>{7});
}

TEST(AtomicFileTest, MovedFromFileHandsOverTheTemporary) {
  TempDir dir;
  AtomicFile a = AtomicFile::create(dir / "out");
  a.write(std::vector<uint8_t>{1, 2});
  AtomicFile b = std::move(a);
  b.write(std::vector<uint8_t>{3});
  b.commit();
  EXPECT_EQ(read_bytes(dir / "out"), (std::vector<uint8_t>{1, 2, 3}));
  EXPECT_EQ(listing(dir.path()), std::vector<std::string>{"out"});
}

// Without overwrite, a destination that appears while the file is written is not clobbered: commit
// fails, the newcomer keeps its bytes and the temporary is gone.
TEST(AtomicFileTest, NoOverwriteNeverClobbersAFileThatAppearedMeanwhile) {
  TempDir dir;
  AtomicFile f = AtomicFile::create(dir / "out", /*overwrite=*/false);
  f.write(std::vector<uint8_t>{1, 2, 3});
  write_bytes(dir / "out", {9});
  const Error e = error_of([&] { f.commit(); });
  EXPECT_EQ(e.code(), ErrorCode::kIo);
  EXPECT_EQ(e.input(), (dir / "out").string());
  EXPECT_EQ(read_bytes(dir / "out"), std::vector<uint8_t>{9});
  EXPECT_EQ(listing(dir.path()), std::vector<std::string>{"out"});
}

TEST(AtomicFileTest, CreateRefusesWhatWriteFileAtomicRefuses) {
  TempDir dir;
  write_bytes(dir / "exists", {1});
  fs::create_directory(dir / "sub");
  EXPECT_EQ(error_of([&] { AtomicFile::create(dir / "exists", false); }).code(), ErrorCode::kIo);
  EXPECT_EQ(error_of([&] { AtomicFile::create(dir / "sub"); }).code(), ErrorCode::kIo);
  EXPECT_EQ(error_of([&] { AtomicFile::create(dir / "missing" / "x"); }).code(), ErrorCode::kIo);
  EXPECT_EQ(listing(dir.path()), (std::vector<std::string>{"exists", "sub"}));
}

// remove_pending_files() is what a fatal signal's handler calls before the process dies: it closes the
// registry for good, so the tests call it in a forked child (the files it removes are the parent's too).
template <typename Fn>
int exit_code_in_child(Fn&& fn) {
  const pid_t pid = ::fork();
  if (pid == 0) ::_exit(fn());
  int status = 0;
  ::waitpid(pid, &status, 0);
  return WIFEXITED(status) ? WEXITSTATUS(status) : 100 + WTERMSIG(status);
}

// Every open AtomicFile's temporary goes, committed files stay, and no new temporary can be made.
TEST(AtomicFileTest, RemovePendingFilesDeletesOpenTemporariesAndClosesTheRegistry) {
  TempDir dir;
  AtomicFile done = AtomicFile::create(dir / "done");
  done.write(std::vector<uint8_t>{1});
  done.commit();
  AtomicFile open1 = AtomicFile::create(dir / "a");
  AtomicFile open2 = AtomicFile::create(dir / "b");
  open2.write(std::vector<uint8_t>{2});
  EXPECT_EQ(listing(dir.path()).size(), 3u);
  EXPECT_EQ(exit_code_in_child([&] {
              remove_pending_files();
              if (listing(dir.path()) != std::vector<std::string>{"done"}) return 1;
              try {
                AtomicFile::create(dir / "late");
                return 2;
              } catch (const Error& e) {
                if (e.code() != ErrorCode::kIo || e.input() != (dir / "late").string()) return 3;
              }
              return listing(dir.path()) == std::vector<std::string>{"done"} ? 0 : 4;
            }),
            0);
  EXPECT_EQ(listing(dir.path()), std::vector<std::string>{"done"});
  AtomicFile after = AtomicFile::create(dir / "c");  // the parent's registry is still open
  after.commit();
}

// A signal landing while other threads create, write and commit files: the process ends right after
// remove_pending_files(), as a fatal signal's handler ends it, with the other threads wherever they
// were; no temporary may be left, in any of 20 rounds. (A thread between registering and creating a
// temporary is waited for; that window is too short for this test to force.)
TEST(AtomicFileTest, RemovePendingFilesLeavesNothingOfThreadsCaughtMidWrite) {
  TempDir dir;
  for (int round = 0; round < 20; ++round) {
    const fs::path folder = dir / std::to_string(round);
    fs::create_directory(folder);
    const int code = exit_code_in_child([&] {
      std::atomic<int> started{0};
      for (int t = 0; t < 3; ++t) {
        std::thread([&, t] {
          try {
            for (int i = 0;; ++i) {
              AtomicFile f = AtomicFile::create(folder / fmt::format("{}-{}", t, i));
              if (i == 0) ++started;
              f.write(std::vector<uint8_t>(100, 1));
              f.commit();
            }
          } catch (const Error&) {  // "not written: the process is being interrupted"
          }
        }).detach();
      }
      while (started < 3) std::this_thread::yield();
      std::this_thread::sleep_for(std::chrono::microseconds(200 * (round % 10)));
      remove_pending_files();
      return 0;  // _exit: the threads end with the process
    });
    ASSERT_EQ(code, 0);
    std::vector<std::string> left;
    for (const std::string& name : listing(folder))
      if (name.find(".loom-") != std::string::npos) left.push_back(name);
    EXPECT_TRUE(left.empty()) << "round " << round << ": " << left.size() << " temporaries left, "
                              << (left.empty() ? "" : left[0]);
  }
}

// Every legal name (up to NAME_MAX = 255 bytes) can be written: the temporary ".NAME.loom-XXXXXX" would be
// 12 bytes longer, so for long names it is shortened, staying hidden, distinct for names that differ
// only past the cut, and registered for remove_pending_files().
TEST(AtomicFileTest, NamesUpToNameMaxAreWritten) {
  TempDir dir;
  for (const size_t length : {size_t{243}, size_t{244}, size_t{250}, size_t{255}}) {
    const std::string name(length, 'n');
    AtomicFile f = AtomicFile::create(dir / name);
    f.write(std::vector<uint8_t>{7});
    const std::vector<std::string> pending = listing(dir.path());
    ASSERT_EQ(pending.size(), 1u) << length;
    EXPECT_TRUE(pending[0].starts_with(".")) << pending[0];
    EXPECT_NE(pending[0].find(".loom-"), std::string::npos) << pending[0];
    EXPECT_LE(pending[0].size(), 255u);
    f.commit();
    EXPECT_EQ(listing(dir.path()), std::vector<std::string>{name});
    EXPECT_EQ(read_bytes(dir / name), std::vector<uint8_t>{7});
    fs::remove(dir / name);
  }
}

TEST(AtomicFileTest, LongNamesThatDifferOnlyAtTheEndGetTheirOwnTemporaries) {
  TempDir dir;
  const std::string a = std::string(254, 'x') + "a", b = std::string(254, 'x') + "b";
  AtomicFile fa = AtomicFile::create(dir / a);
  AtomicFile fb = AtomicFile::create(dir / b);
  fa.write(std::vector<uint8_t>{1});
  fb.write(std::vector<uint8_t>{2});
  EXPECT_EQ(listing(dir.path()).size(), 2u);
  EXPECT_EQ(exit_code_in_child([&] {
              remove_pending_files();  // finds both shortened temporaries
              return listing(dir.path()).empty() ? 0 : 1;
            }),
            0);
}

// ---- write_file_atomic ----

TEST(WriteFileAtomicTest, WritesTheBytesWithUsualPermissions) {
  TempDir dir;
  const auto bytes = pseudo_random_bytes(10000, 21);
  write_file_atomic(dir / "out.bin", bytes);
  EXPECT_EQ(read_bytes(dir / "out.bin"), bytes);
  EXPECT_EQ(listing(dir.path()), std::vector<std::string>{"out.bin"}) << "temporary file left behind";
  struct stat st {};
  ASSERT_EQ(::stat((dir / "out.bin").c_str(), &st), 0);
  EXPECT_TRUE(S_ISREG(st.st_mode));
  EXPECT_EQ(st.st_mode & 0777, 0666 & ~current_umask());
}

TEST(WriteFileAtomicTest, EmptyBytesGiveAnEmptyFile) {
  TempDir dir;
  write_file_atomic(dir / "empty", {});
  EXPECT_TRUE(fs::is_regular_file(dir / "empty"));
  EXPECT_EQ(fs::file_size(dir / "empty"), 0u);
  EXPECT_EQ(listing(dir.path()), std::vector<std::string>{"empty"});
}

TEST(WriteFileAtomicTest, OverwriteReplacesTheWholeFile) {
  TempDir dir;
  write_bytes(dir / "f", pseudo_random_bytes(5000, 1));
  const std::vector<uint8_t> shorter = {9, 8, 7};
  write_file_atomic(dir / "f", shorter, /*overwrite=*/true);
  EXPECT_EQ(read_bytes(dir / "f"), shorter);
  EXPECT_EQ(listing(dir.path()), std::vector<std::string>{"f"});
}

TEST(WriteFileAtomicTest, NoOverwriteCreatesANewFile) {
  TempDir dir;
  const auto bytes = pseudo_random_bytes(777, 5);
  write_file_atomic(dir / "new", bytes, /*overwrite=*/false);
  EXPECT_EQ(read_bytes(dir / "new"), bytes);
  EXPECT_EQ(listing(dir.path()), std::vector<std::string>{"new"});
}

TEST(WriteFileAtomicTest, NoOverwriteRefusesAnExistingFile) {
  TempDir dir;
  const auto before = pseudo_random_bytes(100, 2);
  write_bytes(dir / "f", before);
  const Error e = error_of([&] { write_file_atomic(dir / "f", std::vector<uint8_t>{1, 2, 3}, false); });
  EXPECT_EQ(e.code(), ErrorCode::kIo);
  EXPECT_EQ(e.input(), (dir / "f").string());
  EXPECT_EQ(read_bytes(dir / "f"), before);
  EXPECT_EQ(listing(dir.path()), std::vector<std::string>{"f"});
}

TEST(WriteFileAtomicTest, NoOverwriteRefusesAPlantedSymlinkAndLeavesItsTarget) {
  TempDir dir;
  const auto target_bytes = pseudo_random_bytes(64, 3);
  write_bytes(dir / "target", target_bytes);
  fs::create_symlink(dir / "target", dir / "out");
  EXPECT_EQ(error_of([&] { write_file_atomic(dir / "out", std::vector<uint8_t>{1}, false); }).code(), ErrorCode::kIo);
  EXPECT_TRUE(fs::is_symlink(dir / "out"));
  EXPECT_EQ(read_bytes(dir / "target"), target_bytes);
  EXPECT_EQ(listing(dir.path()), (std::vector<std::string>{"out", "target"}));
}

TEST(WriteFileAtomicTest, NoOverwriteRefusesADanglingSymlinkAndCreatesNoTarget) {
  TempDir dir;
  fs::create_symlink(dir / "elsewhere", dir / "out");
  EXPECT_EQ(error_of([&] { write_file_atomic(dir / "out", std::vector<uint8_t>{1}, false); }).code(), ErrorCode::kIo);
  EXPECT_FALSE(fs::exists(dir / "elsewhere"));
  EXPECT_TRUE(fs::is_symlink(dir / "out"));
  EXPECT_EQ(listing(dir.path()), std::vector<std::string>{"out"});
}

TEST(WriteFileAtomicTest, OverwriteReplacesASymlinkWithoutWritingThroughIt) {
  TempDir dir;
  const auto target_bytes = pseudo_random_bytes(64, 4);
  write_bytes(dir / "target", target_bytes);
  fs::create_symlink(dir / "target", dir / "out");
  const std::vector<uint8_t> fresh = {42, 43};
  write_file_atomic(dir / "out", fresh, true);
  EXPECT_FALSE(fs::is_symlink(dir / "out"));
  EXPECT_TRUE(fs::is_regular_file(fs::symlink_status(dir / "out")));
  EXPECT_EQ(read_bytes(dir / "out"), fresh);
  EXPECT_EQ(read_bytes(dir / "target"), target_bytes) << "wrote through the symlink";
  EXPECT_EQ(listing(dir.path()), (std::vector<std::string>{"out", "target"}));
}

TEST(WriteFileAtomicTest, OverwriteReplacesASymlinkToAFolderNotTheFolder) {
  TempDir dir;
  fs::create_directory(dir / "folder");
  write_bytes(dir / "folder" / "keep", {5});
  fs::create_directory_symlink(dir / "folder", dir / "out");
  const std::vector<uint8_t> fresh = {1, 2, 3};
  write_file_atomic(dir / "out", fresh, true);
  EXPECT_FALSE(fs::is_symlink(dir / "out"));
  EXPECT_EQ(read_bytes(dir / "out"), fresh);
  EXPECT_EQ(listing(dir / "folder"), std::vector<std::string>{"keep"});
  EXPECT_EQ(listing(dir.path()), (std::vector<std::string>{"folder", "out"}));
}

TEST(WriteFileAtomicTest, MissingFolderIsIoAndLeavesNothing) {
  TempDir dir;
  const Error e = error_of([&] { write_file_atomic(dir / "missing" / "out.bin", std::vector<uint8_t>{1, 2}); });
  EXPECT_EQ(e.code(), ErrorCode::kIo);
  EXPECT_EQ(e.input(), (dir / "missing" / "out.bin").string());
  EXPECT_FALSE(fs::exists(dir / "missing"));
  EXPECT_TRUE(listing(dir.path()).empty());
}

TEST(WriteFileAtomicTest, ParentThatIsAFileIsIo) {
  TempDir dir;
  write_bytes(dir / "plain", {1});
  EXPECT_EQ(error_of([&] { write_file_atomic(dir / "plain" / "out", std::vector<uint8_t>{1}); }).code(),
            ErrorCode::kIo);
  EXPECT_EQ(listing(dir.path()), std::vector<std::string>{"plain"});
}

TEST(WriteFileAtomicTest, FolderAtThePathIsIoAndUntouched) {
  TempDir dir;
  fs::create_directory(dir / "sub");
  write_bytes(dir / "sub" / "keep", {5});
  for (bool overwrite : {true, false}) {
    EXPECT_EQ(error_of([&] { write_file_atomic(dir / "sub", std::vector<uint8_t>{1}, overwrite); }).code(),
              ErrorCode::kIo);
    EXPECT_TRUE(fs::is_directory(dir / "sub"));
    EXPECT_EQ(listing(dir / "sub"), std::vector<std::string>{"keep"});
    EXPECT_EQ(listing(dir.path()), std::vector<std::string>{"sub"});
  }
}

// A write that fails half-way (the file size limit, RLIMIT_FSIZE, makes write() fail with EFBIG)
// must throw kIo, remove its temporary file and leave the destination as it was. Run in a child
// process so the limit does not touch the test runner.
TEST(WriteFileAtomicTest, FailedWriteRemovesTheTemporaryFile) {
  TempDir dir;
  const auto before = pseudo_random_bytes(100, 8);
  write_bytes(dir / "f", before);
  const pid_t pid = ::fork();
  ASSERT_GE(pid, 0);
  if (pid == 0) {
    ::signal(SIGXFSZ, SIG_IGN);
    struct rlimit lim {
      4096, 4096
    };
    if (::setrlimit(RLIMIT_FSIZE, &lim) != 0) ::_exit(10);
    const std::vector<uint8_t> big(100000, 1);
    int code = 11;  // returned without an error
    try {
      write_file_atomic(dir / "f", big, true);
    } catch (const Error& e) {
      code = e.code() == ErrorCode::kIo ? 0 : 12;
    } catch (...) {
      code = 13;
    }
    ::_exit(code);
  }
  int status = 0;
  ASSERT_EQ(::waitpid(pid, &status, 0), pid);
  ASSERT_TRUE(WIFEXITED(status));
  EXPECT_EQ(WEXITSTATUS(status), 0) << "10: setrlimit failed, 11: no error, 12: wrong code, 13: not loom::Error";
  EXPECT_EQ(read_bytes(dir / "f"), before);
  EXPECT_EQ(listing(dir.path()), std::vector<std::string>{"f"}) << "temporary file left behind";
}

TEST(WriteFileAtomicTest, BareFileNameWritesIntoTheWorkingFolder) {
  TempDir dir;
  const fs::path old = fs::current_path();
  fs::current_path(dir.path());
  const std::vector<uint8_t> bytes = {1, 2, 3};
  EXPECT_NO_THROW(write_file_atomic("bare.bin", bytes));
  fs::current_path(old);
  EXPECT_EQ(read_bytes(dir / "bare.bin"), bytes);
  EXPECT_EQ(listing(dir.path()), std::vector<std::string>{"bare.bin"});
}

// A file larger than ByteSource's memory-mapping threshold, read back through a mapping.
TEST(WriteFileAtomicTest, RoundTripThroughFromFile) {
  TempDir dir;
  const auto bytes = pseudo_random_bytes((size_t{1} << 20) + 123, 31);
  write_file_atomic(dir / "rt", bytes);
  const ByteSource src = ByteSource::from_file(dir / "rt");
  EXPECT_EQ(std::vector<uint8_t>(src.data(), src.data() + src.size()), bytes);
}

}  // namespace
}  // namespace loom
