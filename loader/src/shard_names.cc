// WebDataset's member-name split, member path safety and brace expansion of shard patterns.
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "dataset_common.h"
#include "loom/codec/error.h"
#include "loom/loader/shards.h"
#include "tar_reader.h"

namespace loom::loader {
namespace {

constexpr size_t kMaxExpansions = 1'000'000;
constexpr int kMaxDepth = 64;

// webdataset's skip_meta, re.match(r"__[^/]*__($|/)", path): the first path component is "__...__"
// (Python's "$" also matches before a final newline).
bool is_meta(std::string_view path) {
  if (!path.starts_with("__")) return false;
  const size_t slash = path.find('/');
  auto closes = [](std::string_view part) { return part.size() >= 4 && part.ends_with("__"); };
  if (slash != std::string_view::npos) return closes(path.substr(0, slash));
  return closes(path) || (path.ends_with("\n") && closes(path.substr(0, path.size() - 1)));
}

bool valid_utf8(std::string_view s) {
  size_t i = 0;
  while (i < s.size()) {
    const auto c = static_cast<uint8_t>(s[i]);
    size_t n = 0;
    uint32_t cp = 0;
    if (c < 0x80) {
      ++i;
      continue;
    } else if ((c & 0xe0) == 0xc0) {
      n = 1, cp = c & 0x1f;
    } else if ((c & 0xf0) == 0xe0) {
      n = 2, cp = c & 0x0f;
    } else if ((c & 0xf8) == 0xf0) {
      n = 3, cp = c & 0x07;
    } else {
      return false;
    }
    if (i + n >= s.size()) return false;
    for (size_t k = 1; k <= n; ++k) {
      const auto d = static_cast<uint8_t>(s[i + k]);
      if ((d & 0xc0) != 0x80) return false;
      cp = (cp << 6) | (d & 0x3f);
    }
    static constexpr uint32_t kMin[] = {0, 0x80, 0x800, 0x10000};
    if (cp < kMin[n] || cp > 0x10ffff || (cp >= 0xd800 && cp <= 0xdfff)) return false;
    i += n + 1;
  }
  return true;
}

// ---- brace expansion ----

class BraceExpander {
 public:
  explicit BraceExpander(std::string_view pattern) : pattern_(pattern) {}

  std::vector<std::string> run() {
    check_balanced();
    return expand(pattern_);
  }

 private:
  [[noreturn]] void fail(ErrorCode code, const std::string& message) const {
    throw Error(code, std::string(pattern_), message);
  }

  void check_balanced() const {
    int depth = 0;
    for (size_t i = 0; i < pattern_.size(); ++i) {
      if (pattern_[i] == '\\') {
        ++i;
      } else if (pattern_[i] == '{') {
        if (++depth > kMaxDepth) fail(ErrorCode::kLimitExceeded, "nests braces deeper than 64");
      } else if (pattern_[i] == '}') {
        if (--depth < 0) fail(ErrorCode::kInvalidInput, "unbalanced braces: a '}' closes no '{'");
      }
    }
    if (depth != 0) fail(ErrorCode::kInvalidInput, "unbalanced braces: a '{' is not closed");
  }

  // The position of the '}' closing the '{' at `open` (braces are balanced).
  static size_t closing(std::string_view s, size_t open) {
    int depth = 0;
    for (size_t i = open; i < s.size(); ++i) {
      if (s[i] == '\\') {
        ++i;
      } else if (s[i] == '{') {
        ++depth;
      } else if (s[i] == '}' && --depth == 0) {
        return i;
      }
    }
    return std::string_view::npos;
  }

  // The top-level comma-separated items of a group's body; one item when it has no top-level comma.
  static std::vector<std::string_view> items(std::string_view body) {
    std::vector<std::string_view> out;
    int depth = 0;
    size_t begin = 0;
    for (size_t i = 0; i < body.size(); ++i) {
      if (body[i] == '\\') {
        ++i;
      } else if (body[i] == '{') {
        ++depth;
      } else if (body[i] == '}') {
        --depth;
      } else if (body[i] == ',' && depth == 0) {
        out.push_back(body.substr(begin, i - begin));
        begin = i + 1;
      }
    }
    out.push_back(body.substr(begin));
    return out;
  }

  static std::optional<int64_t> integer(std::string_view s) {
    if (s.empty() || s.size() > 18) return std::nullopt;
    size_t i = s[0] == '-' ? 1 : 0;
    if (i == s.size()) return std::nullopt;
    int64_t v = 0;
    for (; i < s.size(); ++i) {
      if (s[i] < '0' || s[i] > '9') return std::nullopt;
      v = v * 10 + (s[i] - '0');
    }
    return s[0] == '-' ? -v : v;
  }

  static bool zero_padded(std::string_view s) {
    if (s.starts_with("-")) s.remove_prefix(1);
    return s.size() > 1 && s[0] == '0';
  }

  // "A..B" or "A..B..S" with integers or single letters; nullopt when `body` is not a range.
  std::optional<std::vector<std::string>> range(std::string_view body) const {
    const size_t dots = body.find("..");
    if (dots == std::string_view::npos) return std::nullopt;
    const std::string_view first = body.substr(0, dots);
    std::string_view rest = body.substr(dots + 2);
    std::string_view last = rest, step_text;
    if (const size_t more = rest.find(".."); more != std::string_view::npos) {
      last = rest.substr(0, more);
      step_text = rest.substr(more + 2);
    }
    int64_t step = 1;
    if (!step_text.empty()) {
      const std::optional<int64_t> s = integer(step_text);
      if (!s) return std::nullopt;
      step = *s < 0 ? -*s : *s;
      if (step == 0) step = 1;
    }
    std::vector<std::string> out;
    auto push = [&](std::string s) {
      if (out.size() >= kMaxExpansions)
        fail(ErrorCode::kLimitExceeded, "expands to more than " + std::to_string(kMaxExpansions) + " names");
      out.push_back(std::move(s));
    };
    const std::optional<int64_t> a = integer(first), b = integer(last);
    if (a && b) {
      const size_t width = zero_padded(first) || zero_padded(last) ? std::max(first.size(), last.size()) : 0;
      const int64_t dir = *a <= *b ? 1 : -1;
      for (int64_t v = *a; dir > 0 ? v <= *b : v >= *b; v += dir * step) {
        std::string digits = std::to_string(v < 0 ? -v : v);
        const size_t sign = v < 0 ? 1 : 0;
        if (digits.size() + sign < width) digits.insert(0, width - digits.size() - sign, '0');
        push((v < 0 ? "-" : "") + digits);
      }
      return out;
    }
    auto letter = [](std::string_view s) {
      return s.size() == 1 && ((s[0] >= 'a' && s[0] <= 'z') || (s[0] >= 'A' && s[0] <= 'Z'));
    };
    if (letter(first) && letter(last)) {
      const int dir = first[0] <= last[0] ? 1 : -1;
      for (int c = first[0]; dir > 0 ? c <= last[0] : c >= last[0]; c += dir * static_cast<int>(step)) {
        const bool is_letter = (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z');
        if (is_letter) push(std::string(1, static_cast<char>(c)));
      }
      return out;
    }
    return std::nullopt;
  }

  // Every expansion of `s`, escapes removed.
  std::vector<std::string> expand(std::string_view s) const {
    // Find the first group that expands (a comma or a range); text before it is literal.
    size_t i = 0;
    std::string literal;
    while (i < s.size()) {
      if (s[i] == '\\') {
        if (i + 1 < s.size()) literal += s[i + 1];
        i += 2;
        continue;
      }
      if (s[i] == '{') {
        const size_t close = closing(s, i);
        const std::string_view body = s.substr(i + 1, close - i - 1);
        const std::vector<std::string_view> parts = items(body);
        std::vector<std::string> choices;
        if (parts.size() > 1) {
          for (const std::string_view part : parts) {
            for (std::string& e : expand(part)) {
              if (choices.size() >= kMaxExpansions)
                fail(ErrorCode::kLimitExceeded, "expands to more than " + std::to_string(kMaxExpansions) + " names");
              choices.push_back(std::move(e));
            }
          }
        } else if (std::optional<std::vector<std::string>> r = range(body)) {
          choices = std::move(*r);
        } else {
          // Not a group: "{" stays, the body is expanded as text (it may hold groups itself).
          std::vector<std::string> out;
          const std::vector<std::string> tails = expand(s.substr(close + 1));
          for (const std::string& inner : expand(body)) {
            for (const std::string& tail : tails) {
              if (out.size() >= kMaxExpansions)
                fail(ErrorCode::kLimitExceeded, "expands to more than " + std::to_string(kMaxExpansions) + " names");
              out.push_back(literal + "{" + inner + "}" + tail);
            }
          }
          return out;
        }
        const std::vector<std::string> tails = expand(s.substr(close + 1));
        if (choices.size() * tails.size() > kMaxExpansions)
          fail(ErrorCode::kLimitExceeded, "expands to more than " + std::to_string(kMaxExpansions) + " names");
        std::vector<std::string> out;
        out.reserve(choices.size() * tails.size());
        for (const std::string& c : choices) {
          for (const std::string& t : tails) out.push_back(literal + c + t);
        }
        return out;
      }
      literal += s[i++];
    }
    return {literal};
  }

  std::string_view pattern_;
};

}  // namespace

std::optional<SampleName> split_member_path(std::string_view path) {
  if (is_meta(path)) return std::nullopt;
  // ^((?:.*/|)[^.]+)[.]([^/]*)$ as Python's re matches it: the key's folder part ends at a slash (the
  // last one first, then earlier ones; "." does not match a newline, so only slashes before the first
  // newline), else is empty; then the longest run without a dot (at least one character), a dot, and a
  // rest without a slash.
  const size_t newline = path.find('\n');
  std::vector<size_t> starts;  // where the dot-free run may begin, in the order the regex tries them
  for (size_t k = path.size(); k-- > 0;) {
    if (path[k] == '/' && (newline == std::string_view::npos || k < newline)) starts.push_back(k + 1);
  }
  starts.push_back(0);
  for (const size_t start : starts) {
    const size_t dot = path.find('.', start);
    if (dot == std::string_view::npos || dot == start) continue;
    const std::string_view rest = path.substr(dot + 1);
    if (rest.find('/') != std::string_view::npos) continue;
    return SampleName{std::string(path.substr(0, dot)), detail::ascii_lower(rest)};
  }
  return std::nullopt;
}

std::string unsafe_member_path(std::string_view path) {
  if (path.empty()) return "is empty";
  if (path.front() == '/') return "is an absolute path";
  size_t begin = 0;
  while (begin <= path.size()) {
    const size_t end = std::min(path.find('/', begin), path.size());
    if (path.substr(begin, end - begin) == "..") return "has a '..' component";
    begin = end + 1;
  }
  if (!valid_utf8(path)) return "is not valid UTF-8";
  return "";
}

std::vector<std::string> expand_braces(std::string_view pattern) {
  return BraceExpander(pattern).run();
}

}  // namespace loom::loader
