// FNV-1a 64: the loader's fingerprints (stable across platforms and runs; not a cryptographic hash).
#pragma once

#include <cstdint>
#include <string_view>

namespace loom::loader {

class Fnv1a {
 public:
  // Bytes as they are.
  Fnv1a& bytes(std::string_view s) {
    for (const char c : s) {
      hash_ ^= static_cast<uint8_t>(c);
      hash_ *= 0x100000001b3ull;
    }
    return *this;
  }
  // A string preceded by its length, so that ("ab", "c") and ("a", "bc") differ.
  Fnv1a& text(std::string_view s) { return number(s.size()).bytes(s); }
  // The 8 bytes of `v`, little end first.
  Fnv1a& number(uint64_t v) {
    for (int i = 0; i < 8; ++i) {
      hash_ ^= (v >> (8 * i)) & 0xff;
      hash_ *= 0x100000001b3ull;
    }
    return *this;
  }
  uint64_t value() const { return hash_; }

 private:
  uint64_t hash_ = 0xcbf29ce484222325ull;
};

}  // namespace loom::loader
