#include <algorithm>
#include <charconv>
#include <map>
#include <nlohmann/json.hpp>
#include <string_view>
#include <utility>

#include "dataset_common.h"
#include "loom/codec/error.h"
#include "loom/loader/dataset.h"

namespace loom::loader {
namespace fs = std::filesystem;
namespace {

using Json = nlohmann::ordered_json;

// A row as read, before class names become indices.
struct Parsed {
  int64_t line = 0;
  std::string path;                 // as written
  std::optional<int64_t> label;     // an integer label
  std::optional<std::string> name;  // a class-name label
  Json annotations = Json::object();
};

std::string in_quotes(const std::string& field) {
  return '"' + field + '"';
}

// Reads a manifest's text into rows. Every error is Error(kInvalidInput) naming the manifest, with the
// line in the message.
class ManifestParser {
 public:
  ManifestParser(std::string manifest, const ManifestOptions& options)
      : manifest_(std::move(manifest)), options_(options) {}

  [[noreturn]] void fail(int64_t line, const std::string& message) const {
    throw Error(ErrorCode::kInvalidInput, manifest_, "line " + std::to_string(line) + ": " + message);
  }

  void set_path(Parsed& row, std::string path) const {
    if (path.empty()) fail(row.line, "the path field " + in_quotes(options_.path_field) + " is empty");
    row.path = std::move(path);
  }

  std::vector<Parsed> jsonl(std::string_view text) const;
  std::vector<Parsed> csv(std::string_view text) const;

 private:
  std::string manifest_;
  const ManifestOptions& options_;
};

std::vector<Parsed> ManifestParser::jsonl(std::string_view text) const {
  std::vector<Parsed> rows;
  int64_t line = 0;
  while (!text.empty()) {
    ++line;
    const size_t end = text.find('\n');
    std::string_view content = text.substr(0, end);
    text.remove_prefix(end == std::string_view::npos ? text.size() : end + 1);
    if (content.find_first_not_of(" \t\r") == std::string_view::npos) continue;
    if (content.ends_with('\r')) content.remove_suffix(1);

    Parsed row;
    row.line = line;
    try {
      row.annotations = Json::parse(content);
    } catch (const Json::parse_error& e) {
      fail(line, "malformed JSON at column " + std::to_string(e.byte));
    }
    if (!row.annotations.is_object()) fail(line, "not a JSON object");
    const auto path = row.annotations.find(options_.path_field);
    if (path == row.annotations.end()) fail(line, "no path field " + in_quotes(options_.path_field));
    if (!path->is_string()) fail(line, "the path field " + in_quotes(options_.path_field) + " is not a string");
    set_path(row, path->get<std::string>());
    row.annotations.erase(path);

    const auto label = row.annotations.find(options_.label_field);
    if (label != row.annotations.end()) {
      if (label->is_number_integer() &&
          (!label->is_number_unsigned() || label->get<uint64_t>() <= uint64_t{INT64_MAX})) {
        row.label = label->get<int64_t>();
      } else if (label->is_string()) {
        row.name = label->get<std::string>();
      } else if (!label->is_null()) {
        fail(line, "the label " + in_quotes(options_.label_field) + " is neither an integer nor a class name");
      }
      row.annotations.erase(label);
    }
    rows.push_back(std::move(row));
  }
  return rows;
}

// RFC 4180 records, one at a time, with the line each starts on.
class CsvReader {
 public:
  CsvReader(std::string_view text, const ManifestParser& parser) : text_(text), parser_(parser) {}

  // The next record's fields; false at the end. Empty lines between records are skipped.
  bool next(std::vector<std::string>& fields, int64_t& line) {
    while (pos_ < text_.size() && (text_[pos_] == '\n' || text_.substr(pos_, 2) == "\r\n")) {
      pos_ += text_[pos_] == '\n' ? 1 : 2;
      ++line_;
    }
    if (pos_ >= text_.size()) return false;
    line = line_;
    fields.clear();
    while (true) {
      fields.push_back(pos_ < text_.size() && text_[pos_] == '"' ? quoted() : plain());
      if (pos_ >= text_.size()) return true;
      const char c = text_[pos_];
      if (c == ',') {
        ++pos_;
        continue;
      }
      pos_ += c == '\n' ? 1 : 2;  // '\n' or "\r\n": what quoted() and plain() stop at
      ++line_;
      return true;
    }
  }

 private:
  bool at_line_end() const { return pos_ < text_.size() && (text_[pos_] == '\n' || text_.substr(pos_, 2) == "\r\n"); }

  std::string plain() {
    std::string field;
    while (pos_ < text_.size() && text_[pos_] != ',' && !at_line_end()) {
      const char c = text_[pos_];
      if (c == '"') parser_.fail(line_, "a double quote inside an unquoted field");
      if (c == '\r') parser_.fail(line_, "a carriage return without a line feed");
      field += c;
      ++pos_;
    }
    return field;
  }

  std::string quoted() {
    std::string field;
    const int64_t first_line = line_;
    ++pos_;  // the opening quote
    while (true) {
      if (pos_ >= text_.size()) parser_.fail(first_line, "a quoted field is not closed");
      const char c = text_[pos_];
      if (c == '"') {
        if (text_.substr(pos_, 2) != "\"\"") break;
        field += '"';
        pos_ += 2;
        continue;
      }
      if (c == '\n') ++line_;
      field += c;
      ++pos_;
    }
    ++pos_;  // the closing quote
    if (pos_ < text_.size() && text_[pos_] != ',' && !at_line_end()) {
      parser_.fail(line_, "a closing double quote not followed by a comma or a line end");
    }
    return field;
  }

  std::string_view text_;
  const ManifestParser& parser_;
  size_t pos_ = 0;
  int64_t line_ = 1;
};

std::vector<Parsed> ManifestParser::csv(std::string_view text) const {
  CsvReader reader(text, *this);
  std::vector<std::string> header, fields;
  int64_t line = 0;
  if (!reader.next(header, line)) throw Error(ErrorCode::kInvalidInput, manifest_, "no header row");
  const std::string& path_field = options_.path_field;
  const std::string& label_field = options_.label_field;
  for (size_t i = 0; i < header.size(); ++i) {
    if (std::find(header.begin(), header.begin() + static_cast<std::ptrdiff_t>(i), header[i]) !=
        header.begin() + static_cast<std::ptrdiff_t>(i)) {
      fail(line, "the header names the field " + in_quotes(header[i]) + " twice");
    }
  }
  if (std::find(header.begin(), header.end(), path_field) == header.end()) {
    fail(line, "the header has no path field " + in_quotes(path_field));
  }

  std::vector<Parsed> rows;
  while (reader.next(fields, line)) {
    if (fields.size() != header.size()) {
      fail(line, std::to_string(fields.size()) + (fields.size() == 1 ? " field" : " fields") +
                     " where the header has " + std::to_string(header.size()));
    }
    Parsed row;
    row.line = line;
    for (size_t i = 0; i < header.size(); ++i) {
      std::string& value = fields[i];
      if (header[i] == path_field) {
        set_path(row, std::move(value));
      } else if (header[i] == label_field) {
        if (value.empty()) continue;
        int64_t number = 0;
        const char* end = value.data() + value.size();
        const auto [ptr, ec] = std::from_chars(value.data(), end, number);
        if (ec == std::errc() && ptr == end) {
          row.label = number;
        } else {
          row.name = std::move(value);
        }
      } else {
        row.annotations[header[i]] = std::move(value);
      }
    }
    rows.push_back(std::move(row));
  }
  return rows;
}

std::string_view without_bom(std::string_view text) {
  return text.starts_with("\xEF\xBB\xBF") ? text.substr(3) : text;
}

}  // namespace

std::shared_ptr<const ManifestDataset> ManifestDataset::open(const fs::path& manifest, const ManifestOptions& options) {
  std::shared_ptr<ManifestDataset> dataset(new ManifestDataset());
  dataset->manifest_ = manifest.string();
  dataset->options_ = options;
  if (!dataset->options_.storage) dataset->options_.storage = local_storage();
  const ManifestOptions& opt = dataset->options_;
  const std::string& name = dataset->manifest_;

  const std::string extension = detail::ascii_lower(manifest.extension().string());
  const bool jsonl = extension == ".jsonl" || extension == ".ndjson";
  if (!jsonl && extension != ".csv") {
    throw Error(ErrorCode::kUnsupported, name,
                "unknown manifest format \"" + extension + "\" (.jsonl, .ndjson and .csv are read)");
  }
  const ByteSource bytes = opt.storage->read(name, opt.limits);
  const std::string_view text =
      without_bom(std::string_view(reinterpret_cast<const char*>(bytes.data()), bytes.size()));
  const ManifestParser parser(name, opt);
  std::vector<Parsed> parsed = jsonl ? parser.jsonl(text) : parser.csv(text);
  if (parsed.empty()) throw Error(ErrorCode::kInvalidInput, name, "holds no record");

  // Class names to indices: the given list, or the sorted unique names.
  dataset->classes_ = opt.classes;
  if (dataset->classes_.empty()) {
    for (const Parsed& row : parsed) {
      if (row.name) dataset->classes_.push_back(*row.name);
    }
    std::sort(dataset->classes_.begin(), dataset->classes_.end());
    dataset->classes_.erase(std::unique(dataset->classes_.begin(), dataset->classes_.end()), dataset->classes_.end());
  }
  std::map<std::string, int64_t, std::less<>> index;
  for (size_t i = 0; i < dataset->classes_.size(); ++i) {
    if (!index.emplace(dataset->classes_[i], static_cast<int64_t>(i)).second) {
      throw Error(ErrorCode::kInvalidInput, name,
                  "the class \"" + dataset->classes_[i] + "\" is listed twice in ManifestOptions::classes");
    }
  }

  detail::Fingerprint fingerprint;
  for (const std::string& c : dataset->classes_) fingerprint.add(c);
  const fs::path folder = manifest.parent_path();
  for (Parsed& row : parsed) {
    if (row.name) {
      const auto it = index.find(*row.name);
      if (it == index.end()) parser.fail(row.line, "unknown class \"" + *row.name + "\"");
      row.label = it->second;
    }
    Row out;
    const fs::path written(row.path);
    out.path = written.is_absolute() ? row.path : (folder / written).string();
    out.key = std::move(row.path);
    out.label = row.label;
    if (!row.annotations.empty()) {
      try {
        out.annotations = row.annotations.dump();
      } catch (const Json::type_error&) {
        parser.fail(row.line, "a field is not valid UTF-8");
      }
    }
    fingerprint.add(out.path);
    fingerprint.add(out.label ? 1 : 0);
    fingerprint.add(static_cast<uint64_t>(out.label.value_or(0)));
    fingerprint.add(out.annotations);
    dataset->rows_.push_back(std::move(out));
  }
  dataset->fingerprint_ = fingerprint.value();
  return dataset;
}

int64_t ManifestDataset::size() const {
  return static_cast<int64_t>(rows_.size());
}

Record ManifestDataset::describe(int64_t index) const {
  detail::check_index(index, size(), manifest_);
  const Row& row = rows_[static_cast<size_t>(index)];
  Record record;
  record.key = row.key;
  record.source = row.path;
  record.label = row.label;
  record.annotations = row.annotations;
  return record;
}

Record ManifestDataset::read(int64_t index) const {
  Record record = describe(index);
  record.members.push_back({detail::member_name(fs::path(record.source).filename().string()),
                            options_.storage->read(record.source, options_.limits)});
  return record;
}

std::string ManifestDataset::name(int64_t index) const {
  detail::check_index(index, size(), manifest_);
  return rows_[static_cast<size_t>(index)].path;
}

uint64_t ManifestDataset::fingerprint() const {
  return fingerprint_;
}

}  // namespace loom::loader
