// loom._loom.pack: loom pack's planning and one-shard writing (loom/loader/pack.h) for Python, so that a
// Python, Ray or multiprocessing worker writes the shards `loom pack` writes, byte for byte, through the
// same code. Entries cross as dicts (picklable, JSON-able: what a Ray Dataset row carries).
#include <nanobind/stl/optional.h>
#include <nanobind/stl/string.h>
#include <nanobind/stl/vector.h>

#include <string>
#include <vector>

#include "bindings.h"
#include "loom/loader/file_list.h"
#include "loom/loader/pack.h"
#include "loom/loader/shard_plan.h"
#include "source_py.h"

namespace loom::python {
namespace {

using namespace nb::literals;
namespace fs = std::filesystem;

std::string path_argument(nb::handle input, const char* what) {
  const std::optional<fs::path> path = path_from_python(input);
  if (!path) throw nb::type_error((std::string(what) + " must be a str or os.PathLike").c_str());
  return path->string();
}

// An entry as a dict: path, relative, where, cls (None outside class folders), key, name, size, label
// (None when unlabelled), annotations ("" for none).
nb::dict entry_to_python(const loader::PackEntry& e) {
  nb::dict d;
  d["path"] = e.path.string();
  d["relative"] = e.relative.generic_string();
  d["where"] = e.where;
  d["cls"] = e.cls ? nb::cast(*e.cls) : nb::none();
  d["key"] = e.key;
  d["name"] = e.name;
  d["size"] = e.size;
  d["label"] = e.label ? nb::cast(*e.label) : nb::none();
  d["annotations"] = e.annotations;
  return d;
}

loader::PackEntry entry_from_python(nb::handle item) {
  if (!nb::isinstance<nb::dict>(item)) throw nb::type_error("a pack entry must be a dict (from loom.pack.plan)");
  nb::dict d = nb::borrow<nb::dict>(item);
  auto field = [&](const char* name) -> nb::object {
    if (!d.contains(name)) throw nb::key_error((std::string("pack entry without '") + name + "'").c_str());
    return d[name];
  };
  loader::PackEntry e;
  e.path = path_argument(field("path"), "an entry's path");
  e.relative = nb::cast<std::string>(field("relative"));
  e.where = nb::cast<std::string>(field("where"));
  if (nb::object cls = field("cls"); !cls.is_none()) e.cls = nb::cast<std::string>(cls);
  e.key = nb::cast<std::string>(field("key"));
  e.name = nb::cast<std::string>(field("name"));
  e.size = nb::cast<uint64_t>(field("size"));
  if (nb::object label = field("label"); !label.is_none()) e.label = nb::cast<int64_t>(label);
  e.annotations = nb::cast<std::string>(field("annotations"));
  return e;
}

nb::dict plan(nb::sequence inputs, int64_t shard_size, uint64_t shard_bytes,
              std::optional<std::vector<std::string>> extensions) {
  std::vector<std::string> paths;
  for (nb::handle input : inputs) paths.push_back(path_argument(input, "an input"));
  loader::PackOptions options;
  options.shard_size = shard_size;
  options.shard_bytes = shard_bytes;
  options.extensions = extensions ? *extensions : loader::image_extensions();
  loader::PackPlan result;
  {
    nb::gil_scoped_release unlocked;
    result = loader::plan_pack(paths, options);
  }
  nb::list entries, shards;
  for (const loader::PackEntry& e : result.entries) entries.append(entry_to_python(e));
  for (const loader::IndexRange& r : result.shards) shards.append(nb::make_tuple(r.begin, r.end));
  nb::dict d;
  d["entries"] = entries;
  d["shards"] = shards;
  d["errors"] = nb::cast(result.errors);
  return d;
}

nb::dict write_shard(nb::handle path, nb::sequence entries, bool overwrite, int threads, bool verify) {
  const std::string target = path_argument(path, "path");
  std::vector<loader::PackEntry> planned;
  for (nb::handle item : entries) planned.push_back(entry_from_python(item));
  loader::PackShardOptions options;
  options.overwrite = overwrite;
  options.threads = threads;
  options.verify = verify;
  loader::PackShardResult result;
  {
    nb::gil_scoped_release unlocked;
    result = loader::write_pack_shard(target, planned, options);
  }
  nb::dict d;
  d["ok"] = result.ok;
  d["samples"] = result.samples;
  d["error"] = result.error;
  d["failed_sample"] = result.failed_sample;
  return d;
}

}  // namespace

void bind_pack(nb::module_& m) {
  m.def("plan", &plan, "inputs"_a, "shard_size"_a, "shard_bytes"_a = 0, "extensions"_a = nb::none(),
        "loom pack's plan of `inputs` (files and folders, or manifests): {'entries': [dict], 'shards': "
        "[(begin, end)], 'errors': [str]}. extensions=None packs the image extensions, [] every file.");
  m.def("write_shard", &write_shard, "path"_a, "entries"_a, "overwrite"_a = true, "threads"_a = 1, "verify"_a = false,
        "Writes one shard (and its .idx) from a plan's entries: {'ok', 'samples', 'error', 'failed_sample'}; "
        "failures are returned, not raised.");
  m.def(
      "shard_path", [](const std::string& pattern, int64_t n) { return loader::shard_path(pattern, n); }, "pattern"_a,
      "n"_a, "The path of shard n of a pattern with one %d or %0Nd.");
  m.def(
      "split_range",
      [](int64_t count, int64_t part, int64_t num_parts) {
        const loader::IndexRange r = loader::split_range(count, part, num_parts);
        return nb::make_tuple(r.begin, r.end);
      },
      "count"_a, "part"_a, "num_parts"_a,
      "Part `part` of `num_parts` of `count` items as (begin, end): what --shard-index/--num-shards pick.");
}

}  // namespace loom::python
