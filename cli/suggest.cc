#include "suggest.h"

#include <algorithm>
#include <vector>

namespace loom::cli {

size_t edit_distance(std::string_view a, std::string_view b) {
  // d[i][j]: distance from a[0, i) to b[0, j) (optimal string alignment).
  std::vector<std::vector<size_t>> d(a.size() + 1, std::vector<size_t>(b.size() + 1));
  for (size_t i = 0; i <= a.size(); ++i) d[i][0] = i;
  for (size_t j = 0; j <= b.size(); ++j) d[0][j] = j;
  for (size_t i = 1; i <= a.size(); ++i) {
    for (size_t j = 1; j <= b.size(); ++j) {
      d[i][j] = std::min({d[i - 1][j] + 1, d[i][j - 1] + 1, d[i - 1][j - 1] + (a[i - 1] == b[j - 1] ? 0 : 1)});
      if (i > 1 && j > 1 && a[i - 1] == b[j - 2] && a[i - 2] == b[j - 1])
        d[i][j] = std::min(d[i][j], d[i - 2][j - 2] + 1);
    }
  }
  return d[a.size()][b.size()];
}

std::optional<std::string> closest(std::string_view word, std::span<const std::string_view> candidates) {
  std::optional<std::string> best;
  if (word.empty()) return best;
  size_t best_distance = std::min<size_t>(2, (word.size() - 1) / 2) + 1;  // must beat this
  for (const std::string_view c : candidates) {
    const size_t d = edit_distance(word, c);
    if (d < best_distance) {
      best = std::string(c);
      best_distance = d;
    }
  }
  if (best && *best == word) return std::nullopt;
  return best;
}

std::string did_you_mean(std::string_view word, std::span<const std::string_view> candidates) {
  const std::optional<std::string> c = closest(word, candidates);
  return c ? "; did you mean \"" + *c + "\"?" : std::string();
}

}  // namespace loom::cli
