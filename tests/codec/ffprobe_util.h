// Test helper: what ffprobe (the tool users trust) says about a media file, as flat key=value pairs.
// Shared by the codec, audio and video suites (included by relative path; not a test itself).
#pragma once

#include <gtest/gtest.h>

#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <map>
#include <optional>
#include <string>
#include <vector>

namespace loom::test {

// The path quoted for /bin/sh.
inline std::string shell_quote(const std::string& s) {
  std::string out = "'";
  for (char c : s) {
    if (c == '\'') {
      out += "'\\''";
    } else {
      out += c;
    }
  }
  return out + "'";
}

// Runs `command` and returns its standard output; records a test failure when it exits non-zero.
inline std::string run_command(const std::string& command) {
  std::string out;
  FILE* pipe = ::popen(command.c_str(), "r");
  if (pipe == nullptr) {
    ADD_FAILURE() << "cannot run: " << command;
    return out;
  }
  char buf[4096];
  size_t n = 0;
  while ((n = std::fread(buf, 1, sizeof(buf), pipe)) > 0) out.append(buf, n);
  const int status = ::pclose(pipe);
  EXPECT_EQ(status, 0) << "command failed: " << command;
  return out;
}

// `ffprobe -show_streams -show_format -of flat` parsed into "streams.stream.0.codec_name" -> "h264",
// "format.duration" -> "4.000000", ... (string values unquoted).
class FfprobeInfo {
 public:
  explicit FfprobeInfo(const std::filesystem::path& file) {
    const std::string text = run_command("ffprobe -v error -show_streams -show_format -of flat " +
                                         shell_quote(file.string()) + " 2>/dev/null");
    size_t pos = 0;
    while (pos < text.size()) {
      size_t end = text.find('\n', pos);
      if (end == std::string::npos) end = text.size();
      const std::string line = text.substr(pos, end - pos);
      pos = end + 1;
      const size_t eq = line.find('=');
      if (eq == std::string::npos) continue;
      std::string value = line.substr(eq + 1);
      if (value.size() >= 2 && value.front() == '"' && value.back() == '"') value = value.substr(1, value.size() - 2);
      values_[line.substr(0, eq)] = value;
    }
    EXPECT_FALSE(values_.empty()) << "ffprobe printed nothing for " << file;
  }

  // The raw value, or nullopt when ffprobe did not print the key.
  std::optional<std::string> get(const std::string& key) const {
    auto it = values_.find(key);
    if (it == values_.end()) return std::nullopt;
    return it->second;
  }
  std::string str(const std::string& key) const { return get(key).value_or(""); }
  // A number, or nullopt for a missing key, "N/A" or text that is not a number.
  std::optional<double> number(const std::string& key) const {
    auto v = get(key);
    if (!v || v->empty() || *v == "N/A") return std::nullopt;
    char* end = nullptr;
    const double d = std::strtod(v->c_str(), &end);
    if (end == v->c_str() || *end != '\0') return std::nullopt;
    return d;
  }
  // "30000/1001" -> 29.97; "0/0" or missing -> 0.
  double rational(const std::string& key) const {
    const std::string v = str(key);
    const size_t slash = v.find('/');
    if (slash == std::string::npos) return number(key).value_or(0);
    const double num = std::strtod(v.substr(0, slash).c_str(), nullptr);
    const double den = std::strtod(v.substr(slash + 1).c_str(), nullptr);
    return den > 0 && num > 0 ? num / den : 0;
  }

  std::string stream(int i, const std::string& field) const {
    return str("streams.stream." + std::to_string(i) + "." + field);
  }
  std::optional<double> stream_number(int i, const std::string& field) const {
    return number("streams.stream." + std::to_string(i) + "." + field);
  }
  double stream_rational(int i, const std::string& field) const {
    return rational("streams.stream." + std::to_string(i) + "." + field);
  }
  int num_streams() const { return static_cast<int>(number("format.nb_streams").value_or(-1)); }
  // Index of the first stream of `type` ("video", "audio") that is not cover art; -1 when none.
  // The stream av_find_best_stream picks (TorchCodec's and loom's default), by FFmpeg's rule as
  // ffprobe shows its inputs: audio needs a sample rate and channels; then the most points of
  // disposition (1 unless for the hearing or visually impaired, +1 for default), then the higher bit
  // rate, then the lower index. (The rule's second key, how many frames probing decoded, is not shown
  // by ffprobe; every corpus stream has some.) Video passes over cover art, as loom does; when no
  // stream qualifies, the first of the type, as loom takes it. -1: none.
  int best(const std::string& type) const {
    int best = -1, best_points = -1;
    int64_t best_rate = -1;
    for (int i = 0; i < num_streams(); ++i) {
      if (stream(i, "codec_type") != type || (type == "video" && stream(i, "disposition.attached_pic") == "1")) {
        continue;
      }
      if (type == "audio" &&
          (stream_number(i, "sample_rate").value_or(0) <= 0 || stream_number(i, "channels").value_or(0) <= 0)) {
        continue;
      }
      const int points =
          (stream(i, "disposition.hearing_impaired") != "1" && stream(i, "disposition.visual_impaired") != "1") +
          (stream(i, "disposition.default") == "1");
      const auto rate = static_cast<int64_t>(stream_number(i, "bit_rate").value_or(0));
      if (points > best_points || (points == best_points && rate > best_rate)) {
        best = i;
        best_points = points;
        best_rate = rate;
      }
    }
    if (best >= 0) return best;
    for (int i = 0; i < num_streams(); ++i) {  // none FFmpeg would pick: loom takes the first of the type
      if (stream(i, "codec_type") == type && stream(i, "disposition.attached_pic") != "1") return i;
    }
    return -1;
  }
  // ffprobe's format_name is a comma-separated list ("mov,mp4,m4a,3gp,3g2,mj2").
  std::vector<std::string> format_names() const {
    std::vector<std::string> names;
    std::string all = str("format.format_name");
    size_t pos = 0;
    while (pos <= all.size()) {
      size_t comma = all.find(',', pos);
      if (comma == std::string::npos) comma = all.size();
      names.push_back(all.substr(pos, comma - pos));
      pos = comma + 1;
    }
    return names;
  }

 private:
  std::map<std::string, std::string> values_;
};

// The sample width loom reports for audio stream `i`: ffprobe's bits_per_sample for PCM codecs (fixed
// width), else the decoded width the header states (bits_per_raw_sample, e.g. 24 for 24-bit FLAC), else 0.
// ADPCM is deliberately 0: ffprobe's "4" for adpcm_ima_wav is a nominal code size, not a sample width.
inline int expected_bits_per_sample(const FfprobeInfo& ff, int i) {
  const std::string codec = ff.stream(i, "codec_name");
  if (codec.rfind("pcm_", 0) == 0 || codec.rfind("adpcm_", 0) == 0) {
    return static_cast<int>(ff.stream_number(i, "bits_per_sample").value_or(0));
  }
  return static_cast<int>(ff.stream_number(i, "bits_per_raw_sample").value_or(0));
}

// Every regular file directly inside `folder`, sorted.
inline std::vector<std::filesystem::path> files_in(const std::filesystem::path& folder) {
  std::vector<std::filesystem::path> files;
  for (const auto& entry : std::filesystem::directory_iterator(folder)) {
    if (entry.is_regular_file()) files.push_back(entry.path());
  }
  std::sort(files.begin(), files.end());
  return files;
}

}  // namespace loom::test
