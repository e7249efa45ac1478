// loom._loom.data: datasets (folder, manifest, shards) and the prefetching Loader over them.
//
// Batches cross into Python without a copy: each field's loom::Tensor goes through to_python (torch,
// numpy or loom.Tensor per loom.set_output_type), which shares the batch's memory and keeps it alive.
// Every wait for a batch, and the loader's teardown, runs without the GIL.
//
// Fork: a Loader's threads exist only in the process that made it. A Loader used in a forked child
// raises loom.Error (kUnsupported) instead of waiting on threads that are not there, and its memory
// is left to the child's exit instead of joining them. New Loaders in the child work.
#include <nanobind/stl/optional.h>
#include <nanobind/stl/string.h>
#include <nanobind/stl/vector.h>
#include <unistd.h>

#include <cstring>
#include <memory>
#include <mutex>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "bindings.h"
#include "data_py.h"
#include "loom/accel/cuda.h"
#include "loom/codec/error.h"
#include "loom/loader/dataset.h"
#include "loom/loader/loader.h"
#include "loom/loader/shards.h"
#include "names_py.h"
#include "source_py.h"
#include "tensor_py.h"

namespace loom::python {
namespace {

using namespace nb::literals;
namespace ld = loom::loader;

// A dataset of any kind, as the loader takes it; `classes` for folder and manifest datasets.
struct PyDataset {
  ld::DatasetPtr dataset;
  std::vector<std::string> classes;
  std::string kind;  // "folder", "manifest", "shards"
  std::vector<std::string> shards;
};

PyDataset open_folder(nb::handle root, std::optional<std::vector<std::string>> extensions) {
  const auto path = path_from_python(root);
  if (!path) throw nb::type_error("root must be a str or an os.PathLike");
  ld::FolderOptions options;
  if (extensions) options.extensions = *extensions;
  std::shared_ptr<const ld::FolderDataset> d;
  {
    nb::gil_scoped_release unlocked;
    d = ld::FolderDataset::open(*path, options);
  }
  return {d, d->classes(), "folder", {}};
}

PyDataset open_manifest(nb::handle manifest, const std::string& path_field, const std::string& label_field,
                        std::vector<std::string> classes) {
  const auto path = path_from_python(manifest);
  if (!path) throw nb::type_error("path must be a str or an os.PathLike");
  ld::ManifestOptions options;
  options.path_field = path_field;
  options.label_field = label_field;
  options.classes = std::move(classes);
  std::shared_ptr<const ld::ManifestDataset> d;
  {
    nb::gil_scoped_release unlocked;
    d = ld::ManifestDataset::open(*path, options);
  }
  return {d, d->classes(), "manifest", {}};
}

PyDataset open_shards(std::vector<std::string> patterns, const std::string& index_folder, bool write_index) {
  ld::ShardOptions options;
  options.index_folder = index_folder;
  options.write_index = write_index;
  std::shared_ptr<const ld::ShardDataset> d;
  {
    nb::gil_scoped_release unlocked;
    d = ld::ShardDataset::open(patterns, options);
  }
  return {d, {}, "shards", d->shards()};
}

ld::Shuffle shuffle_named(const std::string& name) {
  if (name == "none") return ld::Shuffle::kNone;
  if (name == "torch") return ld::Shuffle::kTorch;
  if (name == "native") return ld::Shuffle::kNative;
  if (name == "shards") return ld::Shuffle::kShards;
  throw nb::value_error(("shuffle must be True, False, 'torch', 'native' or 'shards', not '" + name + "'").c_str());
}

ld::ErrorPolicy policy_named(const std::string& name) {
  if (name == "raise") return ld::ErrorPolicy::kRaise;
  if (name == "skip") return ld::ErrorPolicy::kSkip;
  if (name == "replace") return ld::ErrorPolicy::kReplace;
  throw nb::value_error(("error_policy must be 'raise', 'skip' or 'replace', not '" + name + "'").c_str());
}

nb::object tensors_to_python(std::vector<Tensor>& tensors) {
  nb::list out;
  for (Tensor& t : tensors) out.append(to_python(std::move(t)));
  return out;
}

// The C++ Loader behind loom.data.Loader. One consumer at a time: `consumer` serialises next(),
// set_epoch() and restore() between Python threads (taken after the GIL is released, so a thread
// waiting for a batch never blocks one holding the GIL). stats() and skipped() need no lock.
class PyLoader {
 public:
  PyLoader(const PyDataset& dataset, ld::LoaderOptions options, bool metadata)
      : metadata_(metadata), owner_pid_(getpid()) {
    nb::gil_scoped_release unlocked;
    loader_ = std::make_unique<ld::Loader>(dataset.dataset, std::move(options));
  }

  ~PyLoader() {
    if (!loader_) return;
    if (getpid() != owner_pid_) {
      // A forked copy: the pipeline thread and oneTBB workers it would join do not exist here.
      (void)loader_.release();
      return;
    }
    nb::gil_scoped_release unlocked;
    loader_.reset();
  }

  PyLoader(const PyLoader&) = delete;
  PyLoader& operator=(const PyLoader&) = delete;

  // Stops the pipeline and frees the prefetched batches; the loader cannot be used afterwards.
  void close() {
    if (!loader_) return;
    if (getpid() != owner_pid_) {
      (void)loader_.release();
      return;
    }
    nb::gil_scoped_release unlocked;
    std::lock_guard lock(consumer_);
    loader_.reset();
  }

  // The next batch of the epoch as a dict, or None at its end (the loader then moves to the next epoch).
  nb::object next() {
    ld::Loader& loader = checked();
    std::optional<ld::Batch> batch;
    {
      nb::gil_scoped_release unlocked;
      std::lock_guard lock(consumer_);
      batch = loader.next();
    }
    if (!batch) return nb::none();
    return to_dict(*batch);
  }

  int64_t num_batches() { return checked().num_batches(); }
  int64_t epoch() { return checked().epoch(); }
  void set_epoch(int64_t epoch) {
    ld::Loader& loader = checked();
    nb::gil_scoped_release unlocked;
    std::lock_guard lock(consumer_);
    loader.set_epoch(epoch);
  }
  std::string state() { return checked().state().to_json(); }
  void restore(const std::string& json) {
    ld::Loader& loader = checked();
    const ld::LoaderState state = ld::LoaderState::from_json(json);
    nb::gil_scoped_release unlocked;
    std::lock_guard lock(consumer_);
    loader.restore(state);
  }

  nb::list skipped() {
    nb::list out;
    for (const ld::SkippedSample& s : checked().skipped()) {
      nb::dict d;
      d["epoch"] = s.epoch;
      d["position"] = s.position;
      d["index"] = s.index;
      d["name"] = s.name;
      d["code"] = std::string(to_string(s.code));
      d["error"] = s.error;
      d["replaced_by"] = s.replaced_by ? nb::cast(*s.replaced_by) : nb::none();
      out.append(d);
    }
    return out;
  }
  std::string skipped_json() { return checked().skipped_json(); }

  nb::dict stats() {
    const ld::LoaderStats s = checked().stats();
    nb::dict d;
    d["samples"] = s.samples;
    d["batches"] = s.batches;
    d["seconds"] = s.seconds;
    d["samples_per_second"] = s.samples_per_second;
    d["read_seconds"] = s.read_seconds;
    d["decode_seconds"] = s.decode_seconds;
    d["transform_seconds"] = s.transform_seconds;
    d["collate_seconds"] = s.collate_seconds;
    d["wait_seconds"] = s.wait_seconds;
    d["ready_batches"] = s.ready_batches;
    d["batches_in_flight"] = s.batches_in_flight;
    d["bytes_in_flight"] = s.bytes_in_flight;
    return d;
  }

 private:
  ld::Loader& checked() {
    if (getpid() != owner_pid_) {
      throw Error(ErrorCode::kUnsupported, "loom.data.Loader",
                  "this Loader was made in process " + std::to_string(owner_pid_) +
                      " and cannot be used in a forked child (its threads are not there); make a new Loader "
                      "in the child");
    }
    if (!loader_) throw Error(ErrorCode::kInvalidInput, "loom.data.Loader", "the Loader was closed");
    return *loader_;
  }

  // Field tensors are moved out of the batch (the batch is dropped right after): each crosses once.
  nb::object to_dict(ld::Batch& batch) {
    nb::dict d;
    for (auto& [name, field] : batch.fields) {
      if (field.tensor.defined()) {
        d[name.c_str()] = to_python(std::move(field.tensor));
        if (field.lengths.defined()) d[(name + ".lengths").c_str()] = to_python(std::move(field.lengths));
      } else if (!field.texts.empty()) {
        d[name.c_str()] = nb::cast(field.texts);
      } else {
        d[name.c_str()] = tensors_to_python(field.list);
      }
    }
    if (metadata_) {
      d["__key__"] = nb::cast(batch.keys);
      d["__index__"] = nb::cast(batch.indices);
      d["__position__"] = nb::cast(batch.positions);
      d["__epoch__"] = batch.epoch;
      d["__step__"] = batch.step;
    }
    return d;
  }

  std::unique_ptr<ld::Loader> loader_;
  std::mutex consumer_;
  bool metadata_;
  pid_t owner_pid_;
};

}  // namespace

void bind_data(nb::module_& m) {
  bind_data_fields(m);

  nb::class_<PyDataset>(m, "Dataset", "A dataset the loader reads (made by loom.data's dataset classes).")
      .def("__len__", [](const PyDataset& d) { return d.dataset->size(); })
      .def_prop_ro("classes", [](const PyDataset& d) { return d.classes; })
      .def_prop_ro("kind", [](const PyDataset& d) { return d.kind; })
      .def_prop_ro("shards", [](const PyDataset& d) { return d.shards; })
      .def_prop_ro("fingerprint", [](const PyDataset& d) { return d.dataset->fingerprint(); })
      .def(
          "name", [](const PyDataset& d, int64_t index) { return d.dataset->name(index); }, "index"_a)
      .def(
          "read",
          [](const PyDataset& d, int64_t index) {
            ld::Record record;
            {
              nb::gil_scoped_release unlocked;
              record = d.dataset->read(index);
            }
            nb::dict members;
            for (const ld::Member& member : record.members) {
              Tensor bytes = Tensor::empty({static_cast<int64_t>(member.bytes.size())}, DType::kUInt8);
              if (member.bytes.size() > 0) std::memcpy(bytes.data(), member.bytes.data(), member.bytes.size());
              members[member.name.c_str()] = to_python(std::move(bytes));
            }
            nb::dict out;
            out["key"] = record.key;
            out["source"] = record.source;
            out["label"] = record.label ? nb::cast(*record.label) : nb::none();
            out["annotations"] = record.annotations;
            out["members"] = members;
            return out;
          },
          "index"_a);
  // CUDA's fork record (loom/accel/cuda.h), for tests without a GPU and for Python code about to use
  // CUDA through another library: _check_cuda_fork_safety raises loom.UnsupportedError in a child
  // forked after _note_cuda_initialized (or loom's own CUDA use) in an ancestor.
  m.def("_note_cuda_initialized", &accel::note_cuda_initialized);
  m.def(
      "_check_cuda_fork_safety", [](const std::string& what) { accel::check_cuda_fork_safety(what.c_str()); },
      "what"_a = "cuda");
  m.def("_open_folder", &open_folder, "root"_a, "extensions"_a.none());
  m.def("_open_manifest", &open_manifest, "path"_a, "path_field"_a, "label_field"_a, "classes"_a);
  m.def("_open_shards", &open_shards, "patterns"_a, "index_folder"_a, "write_index"_a);

  nb::class_<PyLoader>(m, "Loader", "The C++ loader (use loom.data.Loader).")
      .def(
          "__init__",
          [](PyLoader* self, const PyDataset& dataset, std::vector<ld::FieldSpec> fields, int64_t batch_size,
             const std::string& shuffle, uint64_t seed, int64_t rank, int64_t world_size, bool drop_last,
             bool partition_drop_last, int num_threads, int prefetch, int64_t max_bytes_in_flight, bool ordered,
             const std::string& error_policy, int max_replacements, int64_t shuffle_buffer, bool metadata,
             const std::string& device) {
            ld::LoaderOptions o;
            o.batch_size = batch_size;
            o.drop_last = drop_last;
            o.order.shuffle = shuffle_named(shuffle);
            o.order.seed = seed;
            o.order.rank = rank;
            o.order.world_size = world_size;
            o.order.drop_last = partition_drop_last;
            o.order.shuffle_buffer = shuffle_buffer;
            o.fields = std::move(fields);
            o.threads = num_threads;
            o.prefetch = prefetch;
            o.max_bytes_in_flight = max_bytes_in_flight;
            o.ordered = ordered;
            o.on_error = policy_named(error_policy);
            o.max_replacements = max_replacements;
            o.device = device_named(device);
            new (self) PyLoader(dataset, std::move(o), metadata);
          },
          "dataset"_a, "fields"_a, "batch_size"_a, "shuffle"_a, "seed"_a, "rank"_a, "world_size"_a, "drop_last"_a,
          "partition_drop_last"_a, "num_threads"_a, "prefetch"_a, "max_bytes_in_flight"_a, "ordered"_a,
          "error_policy"_a, "max_replacements"_a, "shuffle_buffer"_a, "metadata"_a, "device"_a)
      .def("next", &PyLoader::next, "The next batch (a dict) or None at the end of the epoch.")
      .def("__len__", &PyLoader::num_batches)
      .def_prop_ro("epoch", &PyLoader::epoch)
      .def("set_epoch", &PyLoader::set_epoch, "epoch"_a)
      .def("state", &PyLoader::state)
      .def("restore", &PyLoader::restore, "state"_a)
      .def("skipped", &PyLoader::skipped)
      .def("skipped_json", &PyLoader::skipped_json)
      .def("stats", &PyLoader::stats)
      .def("close", &PyLoader::close);
}

}  // namespace loom::python
