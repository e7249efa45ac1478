// Helpers shared by loom's GoogleTest suites.
#pragma once

#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <random>
#include <string>
#include <utility>
#include <vector>

#include "loom/codec/error.h"

namespace loom::test {

// ../shared/media (LOOM_MEDIA_DIR at configure time). Tests need it: a missing folder fails the test.
inline std::filesystem::path media_dir() {
  const std::filesystem::path dir = LOOM_MEDIA_DIR;
  EXPECT_TRUE(std::filesystem::is_directory(dir)) << "test media folder missing: " << dir;
  return dir;
}

inline std::filesystem::path media(const std::string& relative) {
  return media_dir() / relative;
}

inline std::vector<uint8_t> read_bytes(const std::filesystem::path& path) {
  std::ifstream in(path, std::ios::binary);
  return {std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>()};
}

inline void write_bytes(const std::filesystem::path& path, const std::vector<uint8_t>& bytes) {
  std::ofstream out(path, std::ios::binary);
  out.write(reinterpret_cast<const char*>(bytes.data()), static_cast<std::streamsize>(bytes.size()));
}

// `n` bytes from std::mt19937 seeded with `seed` (the same bytes on every standard library).
inline std::vector<uint8_t> pseudo_random_bytes(size_t n, uint32_t seed) {
  std::mt19937 rng(seed);
  std::vector<uint8_t> v(n);
  for (auto& b : v) b = static_cast<uint8_t>(rng() >> 24);
  return v;
}

// The loom::Error that `f` throws; fails the test when it throws none.
template <typename F>
Error error_of(F&& f) {
  try {
    f();
  } catch (const Error& e) {
    return e;
  }
  ADD_FAILURE() << "no loom::Error thrown";
  return Error(ErrorCode::kInternal, "", "none thrown");
}

template <typename F>
ErrorCode error_code_of(F&& f) {
  return error_of(std::forward<F>(f)).code();
}

// A fresh folder under the system temp dir, removed when the object goes away.
class TempDir {
 public:
  TempDir() {
    std::string tmpl = (std::filesystem::temp_directory_path() / "loom-test-XXXXXX").string();
    path_ = ::mkdtemp(tmpl.data());
  }
  ~TempDir() {
    std::error_code ec;
    std::filesystem::remove_all(path_, ec);
  }
  TempDir(const TempDir&) = delete;
  TempDir& operator=(const TempDir&) = delete;
  const std::filesystem::path& path() const { return path_; }
  std::filesystem::path operator/(const std::string& name) const { return path_ / name; }

 private:
  std::filesystem::path path_;
};

}  // namespace loom::test
