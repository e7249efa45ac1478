// "Did you mean X?" for a misspelt name: the closest of a list by edit distance. Thread safety: pure.
#pragma once

#include <optional>
#include <span>
#include <string>
#include <string_view>

namespace loom::cli {

// Edit distance (Damerau-Levenshtein, optimal string alignment): the fewest single-character
// insertions, deletions, substitutions and swaps of two neighbours that turn `a` into `b` (bytes
// compared as they are).
size_t edit_distance(std::string_view a, std::string_view b);

// The candidate closest to `word` when it is close enough to be a misspelling: at most 2 edits, and
// fewer than half of `word`'s length (so "x" suggests nothing). The first of equally close ones.
std::optional<std::string> closest(std::string_view word, std::span<const std::string_view> candidates);

// "; did you mean \"X\"?" for closest(word, candidates), or "" when there is none.
std::string did_you_mean(std::string_view word, std::span<const std::string_view> candidates);

}  // namespace loom::cli
