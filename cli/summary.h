// The machine-readable end of a batch run (`--json`): one JSON object on its own line of stdout, for
// `convert`, `audio` and any command that counts its items with a Progress.
//   {"ok":3,"failed":1,"skipped":0,"not_tried":0,"seconds":0.412,
//    "errors":[{"file":"in/b.jpg","error":"in/b.jpg: not an image file (unknown format)"}]}
// plus "seed" (an integer) when the run drew noise. Counts are integers; seconds are rounded to the
// millisecond, so the text never carries binary float noise (0.30000000000000004).
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "progress.h"

namespace loom::cli {

struct FileError {
  std::string file;   // the input, as listed
  std::string error;  // the whole error line printed on stderr
};

struct RunSummary {
  int64_t ok = 0, failed = 0, skipped = 0, not_tried = 0;
  double seconds = 0;
  std::vector<FileError> errors;
  std::optional<uint64_t> seed;
};

// The counts and time of `progress` (its errors and seed are the caller's).
RunSummary summarize(const Progress& progress);

// The one-line JSON text of `summary` (no newline). Bytes that are not valid UTF-8 become U+FFFD.
std::string summary_json(const RunSummary& summary);

// `value` rounded to `decimals` decimal places, as the nearest double, so that JSON prints the short
// decimal (0.1 + 0.2 -> 0.3).
double round_decimals(double value, int decimals);

}  // namespace loom::cli
