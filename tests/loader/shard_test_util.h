// Helpers of the shard tests: the Python reference (tests/reference/tar_shards.py) and record access.
#pragma once

#include <gtest/gtest.h>

#include <nlohmann/json.hpp>

#include <cstdio>
#include <filesystem>
#include <string>
#include <vector>

#include "loom/loader/dataset.h"
#include "test_media.h"

namespace loom::loader::test {

// Runs `/usr/bin/python3 tests/reference/tar_shards.py ARGS` (stdin from `input` when given) and returns
// its stdout; a failing script fails the test.
inline std::string run_reference(const std::string& args, const std::string& input = "") {
  loom::test::TempDir dir;
  const std::filesystem::path script = std::filesystem::path(LOOM_TEST_REFERENCE_DIR) / "tar_shards.py";
  std::string command = "/usr/bin/python3 " + script.string() + " " + args + " >" + (dir / "out").string() + " 2>" +
                        (dir / "err").string();
  if (!input.empty()) {
    loom::test::write_bytes(dir / "in", std::vector<uint8_t>(input.begin(), input.end()));
    command += " <" + (dir / "in").string();
  }
  const int rc = std::system(command.c_str());
  const std::vector<uint8_t> out = loom::test::read_bytes(dir / "out");
  if (rc != 0) {
    const std::vector<uint8_t> err = loom::test::read_bytes(dir / "err");
    ADD_FAILURE() << "tar_shards.py " << args << " failed:\n" << std::string(err.begin(), err.end());
  }
  return {out.begin(), out.end()};
}

// Quotes a path for the shell.
inline std::string quoted(const std::filesystem::path& p) {
  std::string out = "'";
  for (const char c : p.string()) out += c == '\'' ? std::string("'\\''") : std::string(1, c);
  return out + "'";
}

inline std::string hex(std::span<const uint8_t> bytes) {
  static const char* kDigits = "0123456789abcdef";
  std::string out;
  for (const uint8_t b : bytes) {
    out += kDigits[b >> 4];
    out += kDigits[b & 15];
  }
  return out;
}

// A record as the reference prints a sample: [key, [[name, hex], ...]].
inline nlohmann::json as_json(const Record& r) {
  nlohmann::json members = nlohmann::json::array();
  for (const Member& m : r.members) members.push_back({m.name, hex(m.bytes.bytes())});
  return {r.key, members};
}

}  // namespace loom::loader::test
