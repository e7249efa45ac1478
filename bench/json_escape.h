// JSON string escaping for the one-line JSON results the C++ benchmarks print (file names, errors).
#pragma once

#include <fmt/format.h>

#include <string>

namespace loom::bench {

// `s` with '"', '\\' and control characters escaped, for use between quotes in a JSON string.
inline std::string json_escape(const std::string& s) {
  std::string out;
  for (const char c : s) {
    if (c == '"' || c == '\\') {
      out += '\\';
      out += c;
    } else if (static_cast<unsigned char>(c) < 0x20) {
      out += fmt::format("\\u{:04x}", static_cast<unsigned char>(c));
    } else {
      out += c;
    }
  }
  return out;
}

}  // namespace loom::bench
