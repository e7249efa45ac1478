// ManifestDataset: JSON Lines and CSV manifests (fields, labels, annotations, quoting, line ends), the
// CSV reading against Python's csv module (tests/reference/manifest_csv.py), bad rows with their line,
// path resolution, MemoryStorage as the backend.
#include <gtest/gtest.h>

#include <filesystem>
#include <memory>
#include <nlohmann/json.hpp>
#include <string>
#include <tuple>
#include <vector>

#include "loom/codec/error.h"
#include "loom/loader/dataset.h"
#include "loom/loader/storage.h"
#include "python_reference.h"
#include "test_media.h"

namespace loom::loader {
namespace {
namespace fs = std::filesystem;
using loom::test::error_of;
using loom::test::TempDir;

std::vector<uint8_t> bytes_of(const std::string& s) {
  return {s.begin(), s.end()};
}

void write_text(const fs::path& p, const std::string& text) {
  fs::create_directories(p.parent_path());
  loom::test::write_bytes(p, bytes_of(text));
}

std::string text_of(const Member& m) {
  return {reinterpret_cast<const char*>(m.bytes.data()), m.bytes.size()};
}

// A manifest held in a MemoryStorage, with the files it names.
struct InMemory {
  std::shared_ptr<MemoryStorage> storage = std::make_shared<MemoryStorage>();
  ManifestOptions options() const {
    ManifestOptions o;
    o.storage = storage;
    return o;
  }
  std::shared_ptr<const ManifestDataset> open(const std::string& name, const std::string& text,
                                              ManifestOptions o = {}) {
    storage->put(name, bytes_of(text));
    o.storage = storage;
    return ManifestDataset::open(name, o);
  }
  Error refusal(const std::string& name, const std::string& text, ManifestOptions o = {}) {
    return error_of([&] { open(name, text, o); });
  }
};

TEST(ManifestDatasetTest, JsonLinesCarryLabelsAndAnnotationsAsWritten) {
  InMemory m;
  m.storage->put("sets/img/1.jpg", {1, 2, 3});
  m.storage->put("sets/img/2.PNG", {4});
  m.storage->put("/abs/3.webp", {5, 6});
  const std::string manifest =
      "{\"path\": \"img/1.jpg\", \"label\": 2, \"boxes\": [[1, 2, 30.5, 40]], \"keypoints\": [[0.5, 1.5, 2]],"
      " \"meta\": {\"src\": \"cam \\u00e9\", \"ok\": true}}\n"
      "\n"
      "   \r\n"
      "{\"label\": null, \"path\": \"img/2.PNG\"}\r\n"
      "{\"path\": \"/abs/3.webp\", \"zeta\": 1, \"alpha\": 2}";  // no final newline
  const auto dataset = m.open("sets/train.jsonl", manifest);
  ASSERT_EQ(dataset->size(), 3);
  EXPECT_TRUE(dataset->classes().empty());

  const Record first = dataset->read(0);
  EXPECT_EQ(first.key, "img/1.jpg");
  EXPECT_EQ(first.source, "sets/img/1.jpg");
  ASSERT_EQ(first.members.size(), 1u);
  EXPECT_EQ(first.members[0].name, "jpg");
  EXPECT_EQ(std::vector<uint8_t>(first.members[0].bytes.bytes().begin(), first.members[0].bytes.bytes().end()),
            (std::vector<uint8_t>{1, 2, 3}));
  EXPECT_EQ(first.label, 2);
  EXPECT_EQ(first.annotations,
            "{\"boxes\":[[1,2,30.5,40]],\"keypoints\":[[0.5,1.5,2]],\"meta\":{\"src\":\"cam \xc3\xa9\",\"ok\":true}}");

  const Record second = dataset->read(1);
  EXPECT_EQ(second.members[0].name, "png");
  EXPECT_FALSE(second.label.has_value());
  EXPECT_EQ(second.annotations, "");

  const Record third = dataset->read(2);
  EXPECT_EQ(third.source, "/abs/3.webp");                    // absolute: as written
  EXPECT_EQ(third.annotations, "{\"zeta\":1,\"alpha\":2}");  // in the order written
  EXPECT_EQ(dataset->name(2), "/abs/3.webp");
  EXPECT_EQ(error_of([&] { dataset->read(3); }).code(), ErrorCode::kInvalidInput);
}

TEST(ManifestDatasetTest, ClassNamesMapToSortedUniqueNamesOrToTheGivenList) {
  InMemory m;
  const std::string manifest =
      "{\"path\": \"a.jpg\", \"label\": \"dog\"}\n"
      "{\"path\": \"b.jpg\", \"label\": \"cat\"}\n"
      "{\"path\": \"c.jpg\", \"label\": 7}\n"
      "{\"path\": \"d.jpg\", \"label\": \"dog\"}\n";
  for (const char* name : {"a.jpg", "b.jpg", "c.jpg", "d.jpg"}) m.storage->put(name, {0});
  const auto sorted = m.open("m.jsonl", manifest);
  EXPECT_EQ(sorted->classes(), (std::vector<std::string>{"cat", "dog"}));
  EXPECT_EQ(sorted->read(0).label, 1);
  EXPECT_EQ(sorted->read(1).label, 0);
  EXPECT_EQ(sorted->read(2).label, 7);  // integers are taken as written
  EXPECT_EQ(sorted->read(3).label, 1);

  ManifestOptions given;
  given.classes = {"dog", "bird", "cat"};
  const auto listed = m.open("m.jsonl", manifest, given);
  EXPECT_EQ(listed->classes(), given.classes);
  EXPECT_EQ(listed->read(0).label, 0);
  EXPECT_EQ(listed->read(1).label, 2);

  given.classes = {"dog"};
  const Error unknown = m.refusal("m.jsonl", manifest, given);
  EXPECT_EQ(unknown.code(), ErrorCode::kInvalidInput);
  EXPECT_EQ(unknown.input(), "m.jsonl");
  EXPECT_EQ(unknown.message(), "line 2: unknown class \"cat\"");
  given.classes = {"dog", "cat", "dog"};
  EXPECT_NE(m.refusal("m.jsonl", manifest, given).message().find("listed twice"), std::string::npos);
}

TEST(ManifestDatasetTest, FieldNamesAreOptions) {
  InMemory m;
  ManifestOptions o;
  o.path_field = "file";
  o.label_field = "y";
  const auto dataset = m.open("m.ndjson", "{\"file\": \"x.jpg\", \"y\": 3, \"path\": \"kept\"}\n", o);
  EXPECT_EQ(dataset->size(), 1);
  m.storage->put("x.jpg", {9});
  const Record r = dataset->read(0);
  EXPECT_EQ(r.label, 3);
  EXPECT_EQ(r.annotations, "{\"path\":\"kept\"}");
}

TEST(ManifestDatasetTest, BadJsonLinesNameTheManifestAndLine) {
  InMemory m;
  const auto refused = [&](const std::string& text, const std::string& message) {
    const Error e = m.refusal("bad.jsonl", text);
    EXPECT_EQ(e.code(), ErrorCode::kInvalidInput) << text;
    EXPECT_EQ(e.input(), "bad.jsonl");
    EXPECT_EQ(e.message().substr(0, message.size()), message) << e.message();
  };
  const std::string ok = "{\"path\": \"a.jpg\"}\n";
  refused(ok + "\n" + "{\"path\": \"b.jpg\",}\n", "line 3: malformed JSON");
  refused(ok + "[1, 2]\n", "line 2: not a JSON object");
  refused(ok + "{\"file\": \"b.jpg\"}\n", "line 2: no path field \"path\"");
  refused(ok + "{\"path\": 5}\n", "line 2: the path field \"path\" is not a string");
  refused(ok + "{\"path\": \"\"}\n", "line 2: the path field \"path\" is empty");
  refused(ok + "{\"path\": \"b.jpg\", \"label\": 1.5}\n", "line 2: the label \"label\" is neither");
  refused(ok + "{\"path\": \"b.jpg\", \"label\": true}\n", "line 2: the label");
  refused(ok + "{\"path\": \"b.jpg\", \"label\": 18446744073709551615}\n", "line 2: the label");
  refused(ok + "{\"path\": \"b\xff.jpg\"}\n", "line 2: malformed JSON");
  refused("\n\n", "holds no record");
}

// A CSV manifest with RFC 4180's corners: quoted commas, doubled quotes, line breaks inside quotes
// (LF and CRLF), CRLF line ends, an empty last field, blank lines, no final line end, a byte order mark.
const std::string kCsv =
    "\xEF\xBB\xBF"
    "path,label,caption,box\r\n"
    "img/1.jpg,cat,\"a cat, sitting\",\"[1, 2, 3, 4]\"\r\n"
    "\"img/2 \"\"quoted\"\".png\",3,\"two\nlines\",\r\n"
    "\r\n"
    "img/3.jpg,,\"crlf\r\ninside\",\"\"\n"
    "img/4.jpg,dog,plain,\"x\"";

TEST(ManifestDatasetTest, CsvReadsAsPythonsCsvModule) {
  TempDir dir;
  const fs::path manifest = dir / "sets" / "train.csv";
  write_text(manifest, kCsv);
  const auto dataset = ManifestDataset::open(manifest);
  const auto out =
      loom::test::run_python_reference_json("manifest_csv.py", nlohmann::json{{"manifest", manifest.string()}}.dump());
  ASSERT_EQ(out.count("rows"), 1u);
  const nlohmann::json rows = nlohmann::json::parse(out.at("rows"));
  ASSERT_EQ(dataset->size(), static_cast<int64_t>(rows.size()));
  EXPECT_EQ(dataset->classes(), (std::vector<std::string>{"cat", "dog"}));
  for (int64_t i = 0; i < dataset->size(); ++i) {
    const nlohmann::json& row = rows[static_cast<size_t>(i)];
    const std::string path = row["path"].get<std::string>();
    write_text(dir / "sets" / path, "file " + std::to_string(i));
    const Record r = dataset->read(i);
    EXPECT_EQ(r.key, path);
    EXPECT_EQ(r.source, (dir / "sets" / path).string());
    EXPECT_EQ(text_of(r.members[0]), "file " + std::to_string(i));
    const std::string label = row["label"].get<std::string>();
    if (label.empty()) {
      EXPECT_FALSE(r.label.has_value());
    } else if (label == "3") {
      EXPECT_EQ(r.label, 3);
    } else {
      EXPECT_EQ(dataset->classes()[static_cast<size_t>(*r.label)], label);
    }
    nlohmann::ordered_json annotations;
    annotations["caption"] = row["caption"];
    annotations["box"] = row["box"];
    EXPECT_EQ(r.annotations, annotations.dump()) << "row " << i;
  }
  EXPECT_EQ(dataset->read(1).key, "img/2 \"quoted\".png");
  EXPECT_EQ(dataset->read(1).members[0].name, "png");
  EXPECT_EQ(dataset->read(2).annotations, "{\"caption\":\"crlf\\r\\ninside\",\"box\":\"\"}");
}

TEST(ManifestDatasetTest, BadCsvRowsNameTheLineTheyStartOn) {
  InMemory m;
  const auto refused = [&](const std::string& text, const std::string& message) {
    const Error e = m.refusal("bad.csv", text);
    EXPECT_EQ(e.code(), ErrorCode::kInvalidInput) << text;
    EXPECT_EQ(e.input(), "bad.csv");
    EXPECT_EQ(e.message(), message);
  };
  const std::string head = "path,label\na.jpg,1\n\"b\nc.jpg\",2\n";  // the second record spans lines 3-4
  refused(head + "d.jpg,1,extra\n", "line 5: 3 fields where the header has 2");
  refused(head + "d.jpg\n", "line 5: 1 field where the header has 2");
  refused(head + "\"d.jpg,1\n", "line 5: a quoted field is not closed");
  refused(head + "d\"e.jpg,1\n", "line 5: a double quote inside an unquoted field");
  refused(head + "\"d\"x,1\n", "line 5: a closing double quote not followed by a comma or a line end");
  refused(head + "d.jpg,1\rx\n", "line 5: a carriage return without a line feed");
  refused(head + ",1\n", "line 5: the path field \"path\" is empty");
  refused("file,label\na.jpg,1\n", "line 1: the header has no path field \"path\"");
  refused("path,label,path\na.jpg,1,b\n", "line 1: the header names the field \"path\" twice");
  refused("path,label\n", "holds no record");
  refused("", "no header row");
}

TEST(ManifestDatasetTest, CsvLabelsAreDecimalIntegersOrNames) {
  InMemory m;
  const auto dataset = m.open("m.csv", "path,label\na.jpg,-4\nb.jpg,007\nc.jpg, 5\nd.jpg,5x\n");
  for (const char* name : {"a.jpg", "b.jpg", "c.jpg", "d.jpg"}) m.storage->put(name, {0});
  EXPECT_EQ(dataset->classes(), (std::vector<std::string>{" 5", "5x"}));
  EXPECT_EQ(dataset->read(0).label, -4);
  EXPECT_EQ(dataset->read(1).label, 7);
  EXPECT_EQ(dataset->read(2).label, 0);
  EXPECT_EQ(dataset->read(3).label, 1);
  EXPECT_EQ(dataset->read(0).annotations, "");  // no other column
}

TEST(ManifestDatasetTest, FormatComesFromTheExtension) {
  InMemory m;
  EXPECT_EQ(m.open("UPPER.JSONL", "{\"path\": \"a\"}\n")->size(), 1);
  EXPECT_EQ(m.open("x.CSV", "path\na\n")->size(), 1);
  const Error e = m.refusal("m.json", "{\"path\": \"a\"}\n");
  EXPECT_EQ(e.code(), ErrorCode::kUnsupported);
  EXPECT_EQ(e.input(), "m.json");
  EXPECT_EQ(m.refusal("manifest", "path\na\n").code(), ErrorCode::kUnsupported);
}

TEST(ManifestDatasetTest, FilesAreReadOnlyByRead) {
  InMemory m;
  const auto dataset = m.open("sets/m.jsonl", "{\"path\": \"later.jpg\", \"label\": 4, \"boxes\": [[1, 2, 3, 4]]}\n");
  const Error missing = error_of([&] { dataset->read(0); });
  EXPECT_EQ(missing.code(), ErrorCode::kIo);
  EXPECT_EQ(missing.input(), "sets/later.jpg");
  // describe() is the record less its member, from the manifest alone.
  const Record described = dataset->describe(0);
  EXPECT_EQ(described.key, "later.jpg");
  EXPECT_EQ(described.source, "sets/later.jpg");
  EXPECT_EQ(described.label, 4);
  EXPECT_EQ(described.annotations, "{\"boxes\":[[1,2,3,4]]}");
  EXPECT_TRUE(described.members.empty());
  EXPECT_EQ(error_of([&] { dataset->describe(1); }).code(), ErrorCode::kInvalidInput);
  m.storage->put("sets/later.jpg", {1, 2});
  const Record read = dataset->read(0);
  EXPECT_EQ(read.members[0].bytes.size(), 2u);
  EXPECT_EQ(std::tie(read.key, read.source, read.label, read.annotations),
            std::tie(described.key, described.source, described.label, described.annotations));

  // The limits bound the manifest and each file.
  m.storage->put("sets/later.jpg", std::vector<uint8_t>(2000, 7));
  ManifestOptions limited = m.options();
  limited.limits.max_bytes = 100;
  const auto bounded = ManifestDataset::open("sets/m.jsonl", limited);
  EXPECT_EQ(error_of([&] { bounded->read(0); }).code(), ErrorCode::kLimitExceeded);
  limited.limits.max_bytes = 10;
  EXPECT_EQ(error_of([&] { ManifestDataset::open("sets/m.jsonl", limited); }).code(), ErrorCode::kLimitExceeded);
}

TEST(ManifestDatasetTest, MissingManifestIsIo) {
  TempDir dir;
  const Error e = error_of([&] { ManifestDataset::open(dir / "none.jsonl"); });
  EXPECT_EQ(e.code(), ErrorCode::kIo);
  EXPECT_EQ(e.input(), (dir / "none.jsonl").string());
  InMemory m;
  EXPECT_EQ(error_of([&] { ManifestDataset::open("none.csv", m.options()); }).code(), ErrorCode::kIo);
}

TEST(ManifestDatasetTest, FingerprintFollowsRows) {
  InMemory m;
  const std::string base = "{\"path\": \"a.jpg\", \"label\": 1}\n{\"path\": \"b.jpg\", \"box\": [1]}\n";
  const uint64_t first = m.open("m.jsonl", base)->fingerprint();
  EXPECT_EQ(m.open("m.jsonl", base)->fingerprint(), first);
  EXPECT_NE(
      m.open("m.jsonl", "{\"path\": \"a.jpg\", \"label\": 2}\n{\"path\": \"b.jpg\", \"box\": [1]}\n")->fingerprint(),
      first);
  EXPECT_NE(
      m.open("m.jsonl", "{\"path\": \"a.jpg\", \"label\": 1}\n{\"path\": \"b.jpg\", \"box\": [2]}\n")->fingerprint(),
      first);
  EXPECT_NE(
      m.open("m.jsonl", "{\"path\": \"b.jpg\", \"box\": [1]}\n{\"path\": \"a.jpg\", \"label\": 1}\n")->fingerprint(),
      first);
}

}  // namespace
}  // namespace loom::loader
