#include "summary.h"

#include <nlohmann/json.hpp>

#include <cmath>

namespace loom::cli {

RunSummary summarize(const Progress& progress) {
  RunSummary s;
  s.ok = progress.ok();
  s.failed = progress.failed();
  s.skipped = progress.skipped();
  s.not_tried = progress.not_tried();
  s.seconds = progress.seconds();
  return s;
}

double round_decimals(double value, int decimals) {
  if (!std::isfinite(value)) return value;
  const double scale = std::pow(10.0, decimals);
  // k / 10^d with an integral k is correctly rounded: the double nearest the short decimal.
  return std::round(value * scale) / scale;
}

std::string summary_json(const RunSummary& summary) {
  nlohmann::ordered_json j;
  j["ok"] = summary.ok;
  j["failed"] = summary.failed;
  j["skipped"] = summary.skipped;
  j["not_tried"] = summary.not_tried;
  j["seconds"] = round_decimals(summary.seconds, 3);
  nlohmann::ordered_json errors = nlohmann::ordered_json::array();
  for (const FileError& e : summary.errors) errors.push_back({{"file", e.file}, {"error", e.error}});
  j["errors"] = std::move(errors);
  if (summary.seed) j["seed"] = *summary.seed;
  return j.dump(-1, ' ', false, nlohmann::json::error_handler_t::replace);
}

}  // namespace loom::cli
