#include "loom/loader/loader.h"

#include <tbb/parallel_for.h>
#include <tbb/parallel_pipeline.h>
#include <tbb/task_arena.h>

#include <algorithm>
#include <chrono>
#include <condition_variable>
#include <map>
#include <mutex>
#include <nlohmann/json.hpp>
#include <set>
#include <thread>

#include "buffer_pool.h"
#include "collate.h"
#include "field_reader.h"
#include "fork_guard.h"
#include "loom/accel/cuda.h"
#include "loom/accel/device_memory.h"
#include "loom/codec/error.h"

namespace loom::loader {
namespace {

using Clock = std::chrono::steady_clock;

double seconds_since(Clock::time_point t) {
  return std::chrono::duration<double>(Clock::now() - t).count();
}

void check_options(const LoaderOptions& o) {
  auto fail = [](const std::string& what) { throw Error(ErrorCode::kInvalidInput, "loader", what); };
  if (o.batch_size <= 0) fail("batch_size must be > 0, not " + std::to_string(o.batch_size));
  if (o.threads < 0) fail("threads must be >= 0 (0: one per core), not " + std::to_string(o.threads));
  if (o.prefetch < 0) fail("prefetch must be >= 0 (0: two batches per thread), not " + std::to_string(o.prefetch));
  if (o.max_bytes_in_flight < 0) fail("max_bytes_in_flight must be >= 0 (0: no limit)");
  if (o.max_replacements < 1) fail("max_replacements must be >= 1");
  if (o.fields.empty()) fail("no fields to load");
  std::set<std::string> names;
  for (const FieldSpec& f : o.fields) {
    if (f.name.empty()) fail("a field has no name");
    if (!names.insert(f.name).second) fail("two fields are named \"" + f.name + "\"");
    if (f.image.decode_crop && !f.image.crop) fail("field \"" + f.name + "\": decode_crop needs a crop");
    if (const auto& n = f.image.normalize) {
      if (n->mean.empty() || n->std.empty() || std::find(n->std.begin(), n->std.end(), 0.0f) != n->std.end())
        fail("field \"" + f.name + "\": normalize needs a mean and a std without zeros");
    }
    if (f.kind == FieldKind::kVideo && (f.video.num_frames <= 0 || f.video.frame_step <= 0))
      fail("field \"" + f.name + "\": num_frames and frame_step must be > 0");
    if (f.kind == FieldKind::kAudio &&
        (f.audio.duration_seconds < 0 || f.audio.channels < 0 || f.audio.sample_rate < 0))
      fail("field \"" + f.name + "\": duration, channels and sample_rate must be >= 0");
  }
}

// Every tensor of a batch's fields, for copies and stream bookkeeping (`lengths` stays on the CPU).
template <typename B, typename F>  // B: Batch or const Batch
void for_each_tensor(B& batch, F&& f) {
  for (auto& [name, field] : batch.fields) {
    if (field.tensor.defined()) f(field.tensor);
    for (auto& t : field.list) f(t);
  }
}

// A batch on its way: built by the pipeline, waiting for the consumer.
struct Work {
  int64_t step = 0;
  Batch batch;
  std::exception_ptr error;  // kRaise: the first failure, in batch order
  int64_t bytes = 0;
};

}  // namespace

const BatchField& Batch::operator[](std::string_view name) const {
  for (const auto& [n, field] : fields)
    if (n == name) return field;
  throw Error(ErrorCode::kInvalidInput, "batch", "has no field \"" + std::string(name) + "\"");
}

void Batch::use_on(const accel::Stream& stream) const {
  if (!ready.defined()) return;
  stream.wait(ready);
  for_each_tensor(*this, [&](const Tensor& t) { accel::record_stream(t, stream); });
}

std::vector<FieldSpec> default_fields() {
  FieldSpec image;
  image.name = "image";
  image.image.decode.mode = vision::ImageReadMode::kRGB;
  FieldSpec label;
  label.name = "label";
  label.kind = FieldKind::kLabel;
  return {image, label};
}

std::string LoaderState::to_json() const {
  return nlohmann::json{
      {"fingerprint", fingerprint}, {"seed", seed}, {"epoch", epoch}, {"samples_consumed", samples_consumed}}
      .dump();
}

LoaderState LoaderState::from_json(std::string_view text) {
  const nlohmann::json j = nlohmann::json::parse(text, nullptr, /*allow_exceptions=*/false);
  auto number = [&](const char* key) -> const nlohmann::json& {
    if (!j.is_object() || !j.contains(key) || !j[key].is_number_integer())
      throw Error(ErrorCode::kInvalidInput, "loader state", std::string("needs an integer \"") + key + "\"");
    return j[key];
  };
  LoaderState s;
  s.fingerprint = number("fingerprint").get<uint64_t>();
  s.seed = number("seed").get<uint64_t>();
  s.epoch = number("epoch").get<int64_t>();
  s.samples_consumed = number("samples_consumed").get<int64_t>();
  return s;
}

// One pass of the pipeline over steps [first, end) of one epoch.
struct Run {
  std::shared_ptr<const EpochOrder> order;
  int64_t first = 0, end = 0;

  std::mutex mutex;
  std::condition_variable changed;
  std::map<int64_t, Work> ready;  // built, by step
  int64_t emitted = 0;            // steps handed to the pipeline
  int64_t taken = 0;              // steps given to the consumer
  int64_t next_ordered = 0;       // ordered delivery: the step due next
  int64_t bytes_ready = 0;
  int64_t batch_bytes = 0;  // the largest batch built so far
  bool stop = false;
  std::exception_ptr fatal;  // the pipeline itself failed
  std::thread thread;
};

struct Loader::Impl {
  DatasetPtr dataset;
  LoaderOptions options;
  int threads = 1;
  int prefetch = 2;
  tbb::task_arena arena;
  BufferPool pool;  // pinned memory when the batches go to a CUDA device
  StageClock clock;

  // device = cuda: the stream the batches' copies run on, and the pinned buffers of copies that may
  // still be running (each given back once its event has completed). Used by the delivering stage only.
  accel::Stream copy_stream;
  std::vector<std::pair<accel::Event, std::vector<Tensor>>> copies_in_flight;

  // Where the next iteration starts (the consumer's view).
  int64_t epoch = 0;
  int64_t next_step = 0;
  bool epoch_done = false;                  // the epoch's last batch was taken; next() reports the end once
  std::shared_ptr<const EpochOrder> order;  // of `epoch`
  std::unique_ptr<Run> run;
  bool reserved = false;  // the pool holds buffers for prefetch + 1 batches (set by the pipeline thread)

  mutable std::mutex report_mutex;
  std::vector<SkippedSample> skipped;

  // For stats(), which any thread may call.
  std::atomic<int64_t> samples{0}, batches{0}, wait_ns{0}, in_flight{0}, ready{0}, bytes_ready{0};
  std::atomic<int64_t> started_ns{0};  // steady clock at the first next(); 0 before

  Impl(DatasetPtr d, LoaderOptions o)
      : dataset(std::move(d)),
        options(std::move(o)),
        threads(options.threads > 0 ? options.threads
                                    : static_cast<int>(std::max(1u, std::thread::hardware_concurrency()))),
        prefetch(options.prefetch > 0 ? options.prefetch : std::max(2, 2 * threads)),
        arena(threads),
        // Enough free buffers for every batch alive at once (`prefetch` ahead and the consumer's), per
        // field; more would keep a passing peak for the rest of the run.
        pool(static_cast<size_t>(prefetch + 1) * options.fields.size(), !options.device.is_cpu()) {
    if (!options.device.is_cpu()) copy_stream = accel::Stream::create(options.device.index);
  }

  int64_t global_batch() const { return options.batch_size * options.order.world_size; }

  const EpochOrder& order_of_epoch() {
    if (!order || order->epoch() != epoch)
      order = std::make_shared<const EpochOrder>(dataset->size(), options.order, epoch);
    return *order;
  }

  int64_t num_batches() {
    const int64_t n = order_of_epoch().num_samples(), b = options.batch_size;
    return options.drop_last ? n / b : (n + b - 1) / b;
  }

  // ---- the pipeline ----
  void start() {
    run = std::make_unique<Run>();
    order_of_epoch();
    run->order = order;
    run->first = run->emitted = run->next_ordered = next_step;
    run->end = num_batches();
    Run* r = run.get();
    r->thread = std::thread([this, r] { arena.execute([&] { pipeline(*r); }); });
  }

  void stop() {
    if (!run) return;
    {
      std::lock_guard lock(run->mutex);
      run->stop = true;
    }
    run->changed.notify_all();
    run->thread.join();
    if (!copies_in_flight.empty()) {
      copy_stream.synchronize();  // the staging buffers may go now
      copies_in_flight.clear();
    }
    in_flight -= static_cast<int64_t>(run->ready.size());
    ready -= static_cast<int64_t>(run->ready.size());
    bytes_ready -= run->bytes_ready;
    run.reset();
  }

  // The pipeline's stages: emit the next step when fewer than `prefetch` batches (and, with
  // max_bytes_in_flight, fewer bytes than it allows) are in flight; build it (its samples in
  // parallel); hand it to the consumer.
  void pipeline(Run& r) {
    using tbb::filter_mode;
    const filter_mode delivery = options.ordered ? filter_mode::serial_in_order : filter_mode::serial_out_of_order;
    try {
      tbb::parallel_pipeline(
          static_cast<size_t>(prefetch),
          tbb::make_filter<void, Work*>(filter_mode::serial_in_order, [&](tbb::flow_control& fc) {
            return emit(r, fc);
          }) & tbb::make_filter<Work*, Work*>(filter_mode::parallel, [&](Work* w) {
            build(r, *w);
            return w;
          }) & tbb::make_filter<Work*, void>(delivery, [&](Work* w) { deliver(r, std::unique_ptr<Work>(w)); }));
    } catch (...) {  // out of memory for a Work, or a broken invariant: the consumer rethrows it
      std::lock_guard lock(r.mutex);
      r.fatal = std::current_exception();
    }
    r.changed.notify_all();
  }

  bool room_for_another(const Run& r) const {
    const int64_t in_flight_now = r.emitted - r.taken - r.first;
    if (in_flight_now >= prefetch) return false;
    const int64_t limit = options.max_bytes_in_flight;
    // Until a batch has been built its size is unknown: one at a time.
    return limit == 0 || in_flight_now == 0 || (r.batch_bytes > 0 && (in_flight_now + 1) * r.batch_bytes <= limit);
  }

  Work* emit(Run& r, tbb::flow_control& fc) {
    std::unique_lock lock(r.mutex);
    r.changed.wait(lock, [&] { return r.stop || room_for_another(r); });
    if (r.stop || r.emitted >= r.end) {
      fc.stop();
      return nullptr;
    }
    auto w = std::make_unique<Work>();
    w->step = r.emitted++;
    ++in_flight;
    return w.release();
  }

  void deliver(Run& r, std::unique_ptr<Work> w) {
    if (!reserved) {  // the first batch: buffers for every batch that may be alive at once
      reserved = true;
      for (const auto& [name, field] : w->batch.fields)
        if (field.tensor.defined()) pool.reserve(field.tensor.nbytes(), static_cast<size_t>(prefetch + 1));
    }
    if (!options.device.is_cpu() && !w->error) {
      try {
        copy_to_device(w->batch);
      } catch (...) {
        w->error = std::current_exception();
      }
    }
    {
      std::lock_guard lock(r.mutex);
      r.bytes_ready += w->bytes;
      r.batch_bytes = std::max(r.batch_bytes, w->bytes);
      bytes_ready += w->bytes;
      ++ready;
      r.ready.emplace(w->step, std::move(*w));
    }
    r.changed.notify_all();
  }

  // Queues the copies of the batch's tensors (in pinned memory) to the device on copy_stream, and
  // records batch.ready after them. The pinned buffers are kept until that event has completed.
  void copy_to_device(Batch& batch) {
    std::erase_if(copies_in_flight, [](const auto& c) { return c.first.query(); });
    std::vector<Tensor> staging;
    for_each_tensor(batch, [&](Tensor& t) {
      if (!t.is_contiguous()) t = t.contiguous();  // a list's view: its own pinned-less copy first
      Tensor on_device = accel::copy(t, options.device, copy_stream);
      staging.push_back(std::move(t));
      t = std::move(on_device);
    });
    batch.ready = accel::Event::create(options.device.index);
    batch.ready.record(copy_stream);
    copies_in_flight.emplace_back(batch.ready, std::move(staging));
  }

  // One sample: its fields, or an error recorded (kSkip/kReplace) or returned (kRaise).
  std::optional<std::vector<FieldValue>> build_sample(const EpochOrder& order, int64_t position,
                                                      std::exception_ptr& error) {
    const uint64_t seed = sample_seed(options.order.seed, order.epoch());
    auto attempt = [&](int64_t index) {
      transforms::Rng rng(seed, static_cast<uint64_t>(position));
      Stopwatch watch;
      const Record record = dataset->read(index);
      watch.lap(clock.read_ns);
      return read_fields(options.fields, record, rng, clock);
    };
    const int64_t index = order.at(position);
    SkippedSample failure;
    try {
      return attempt(index);
    } catch (const std::exception& e) {
      failure = describe_failure(order, position, index, e);
    }
    if (options.on_error == ErrorPolicy::kReplace) {
      for (int k = 1; k <= options.max_replacements; ++k) {
        const int64_t other = order.at((position + k) % order.total_size());
        try {
          std::vector<FieldValue> values = attempt(other);
          failure.replaced_by = other;
          report(std::move(failure));
          return values;
        } catch (const std::exception&) {
        }
      }
    }
    if (options.on_error == ErrorPolicy::kSkip) {
      report(std::move(failure));
    } else if (!error) {
      error = std::make_exception_ptr(Error(failure.code, failure.name, failure.error));
    }
    return std::nullopt;
  }

  SkippedSample describe_failure(const EpochOrder& order, int64_t position, int64_t index, const std::exception& e) {
    SkippedSample s;
    s.epoch = order.epoch();
    s.position = position;
    s.index = index;
    s.name = dataset->name(index);
    if (const auto* le = dynamic_cast<const Error*>(&e)) {
      s.code = le->code();
      s.error = le->input() == s.name ? le->message() : le->what();
    } else {
      s.error = e.what();
    }
    return s;
  }

  void report(SkippedSample s) {
    std::lock_guard lock(report_mutex);
    skipped.push_back(std::move(s));
  }

  void build(const Run& r, Work& w) {
    try {
      const EpochOrder& order = *r.order;
      const int64_t b = options.batch_size;
      const int64_t begin = w.step * b, end = std::min(begin + b, order.num_samples());
      const int64_t n = end - begin;
      std::vector<std::optional<std::vector<FieldValue>>> results(static_cast<size_t>(n));
      std::vector<std::exception_ptr> errors(static_cast<size_t>(n));
      tbb::parallel_for(int64_t{0}, n, [&](int64_t i) {
        const int64_t position = order.position(options.order.rank, begin + i);
        results[static_cast<size_t>(i)] = build_sample(order, position, errors[static_cast<size_t>(i)]);
      });
      for (const std::exception_ptr& e : errors)
        if (e) {
          w.error = e;
          return;
        }
      Stopwatch watch;
      Batch& batch = w.batch;
      batch.epoch = order.epoch();
      batch.step = w.step;
      std::vector<std::vector<FieldValue>> values;
      for (int64_t i = 0; i < n; ++i) {
        if (!results[static_cast<size_t>(i)]) continue;  // skipped
        const int64_t position = order.position(options.order.rank, begin + i);
        batch.positions.push_back(position);
        batch.indices.push_back(order.at(position));
        values.push_back(std::move(*results[static_cast<size_t>(i)]));
      }
      for (int64_t index : batch.indices) batch.keys.push_back(dataset->name(index));
      for (size_t f = 0; f < options.fields.size(); ++f) {
        for (auto& entry : collate(options.fields[f], f, values, pool)) {
          w.bytes += static_cast<int64_t>(entry.second.tensor.defined() ? entry.second.tensor.nbytes() : 0);
          batch.fields.push_back(std::move(entry));
        }
      }
      watch.lap(clock.collate_ns);
    } catch (...) {
      w.error = std::current_exception();
    }
  }

  // ---- the consumer ----
  std::optional<Batch> next() {
    if (started_ns == 0) started_ns = Clock::now().time_since_epoch().count();
    if (epoch_done) {
      epoch_done = false;
      return std::nullopt;
    }
    if (!run) {
      if (next_step >= num_batches()) {  // an empty remainder: the epoch is over
        finish_epoch();
        return std::nullopt;
      }
      start();
    }
    Run& r = *run;
    Work w;
    {
      Stopwatch watch;
      std::unique_lock lock(r.mutex);
      r.changed.wait(
          lock, [&] { return r.fatal || (options.ordered ? r.ready.count(r.next_ordered) > 0 : !r.ready.empty()); });
      if (r.fatal) std::rethrow_exception(r.fatal);
      auto it = options.ordered ? r.ready.find(r.next_ordered) : r.ready.begin();
      w = std::move(it->second);
      r.ready.erase(it);
      r.bytes_ready -= w.bytes;
      bytes_ready -= w.bytes;
      --ready;
      ++r.taken;
      ++r.next_ordered;
      watch.lap(wait_ns);
    }
    r.changed.notify_all();
    --in_flight;
    ++next_step;
    if (r.first + r.taken == r.end) {
      stop();
      finish_epoch();
      epoch_done = true;
    }
    if (w.error) std::rethrow_exception(w.error);
    samples += w.batch.size();
    ++batches;
    w.batch.use_on(accel::current_stream(options.device.index));
    return std::move(w.batch);
  }

  void finish_epoch() {
    ++epoch;
    next_step = 0;
  }
};

Loader::Loader(DatasetPtr dataset, LoaderOptions options) {
  if (!dataset) throw Error(ErrorCode::kInvalidInput, "loader", "no dataset");
  check_options(options);
  if (!options.device.is_cpu()) accel::check_cuda_device(options.device.index, "loader");
  if (options.order.shuffle == Shuffle::kShards && options.order.shard_sizes.empty())
    options.order.shard_sizes = dataset->shard_sizes();
  impl_ = std::make_unique<Impl>(std::move(dataset), std::move(options));
  impl_->order_of_epoch();  // refuses a partition that starves a rank now, not at the first batch
  // Before fork(): stop the pipeline (next() restarts it at the same batch) and free the arena's
  // threads, so that neither process inherits a thread caught mid-task (fork_guard.h).
  detail::register_for_fork(impl_.get(), [impl = impl_.get()] {
    impl->stop();
    impl->arena.terminate();
  });
}

Loader::~Loader() {
  detail::unregister_for_fork(impl_.get());
  impl_->stop();
}

std::optional<Batch> Loader::next() {
  return impl_->next();
}

Loader::Iterator::Iterator(Loader* loader) : loader_(loader) {
  if (loader_) ++*this;
}

Loader::Iterator& Loader::Iterator::operator++() {
  batch_ = Batch();  // give the batch's buffers back before the next one is taken: one batch held, not two
  std::optional<Batch> b = loader_->next();
  if (b) {
    batch_ = std::move(*b);
  } else {
    loader_ = nullptr;
  }
  return *this;
}

Loader::Iterator Loader::begin() {
  return Iterator(this);
}

int64_t Loader::num_batches() const {
  return impl_->num_batches();
}
int64_t Loader::epoch() const {
  return impl_->epoch;
}

void Loader::set_epoch(int64_t epoch) {
  if (epoch < 0) throw Error(ErrorCode::kInvalidInput, "loader", "epoch must be >= 0");
  impl_->stop();
  impl_->epoch = epoch;
  impl_->next_step = 0;
  impl_->epoch_done = false;
}

LoaderState Loader::state() const {
  if (!impl_->options.ordered && impl_->next_step > 0)
    throw Error(ErrorCode::kUnsupported, "loader", "state() mid-epoch needs ordered delivery");
  return {impl_->dataset->fingerprint(), impl_->options.order.seed, impl_->epoch,
          impl_->next_step * impl_->global_batch()};
}

void Loader::restore(const LoaderState& state) {
  Impl& d = *impl_;
  if (state.fingerprint != d.dataset->fingerprint())
    throw Error(ErrorCode::kInvalidInput, "loader state", "was saved for another dataset (fingerprint differs)");
  if (state.seed != d.options.order.seed)
    throw Error(ErrorCode::kInvalidInput, "loader state",
                "was saved with seed " + std::to_string(state.seed) + ", this loader has " +
                    std::to_string(d.options.order.seed));
  if (state.epoch < 0 || state.samples_consumed < 0 || state.samples_consumed % d.global_batch() != 0)
    throw Error(ErrorCode::kInvalidInput, "loader state",
                std::to_string(state.samples_consumed) + " samples consumed is not a multiple of the global batch (" +
                    std::to_string(d.global_batch()) + ")");
  set_epoch(state.epoch);
  const int64_t step = state.samples_consumed / d.global_batch();
  if (step > d.num_batches())
    throw Error(ErrorCode::kInvalidInput, "loader state",
                std::to_string(state.samples_consumed) + " samples consumed is more than the epoch holds");
  d.next_step = step;
}

std::vector<SkippedSample> Loader::skipped() const {
  std::lock_guard lock(impl_->report_mutex);
  return impl_->skipped;
}

std::string Loader::skipped_json() const {
  nlohmann::json list = nlohmann::json::array();
  for (const SkippedSample& s : skipped()) {
    nlohmann::json j{{"epoch", s.epoch},
                     {"position", s.position},
                     {"index", s.index},
                     {"name", s.name},
                     {"code", std::string(to_string(s.code))},
                     {"error", s.error}};
    if (s.replaced_by) j["replaced_by"] = *s.replaced_by;
    list.push_back(std::move(j));
  }
  return list.dump();
}

LoaderStats Loader::stats() const {
  const Impl& d = *impl_;
  LoaderStats s;
  s.samples = d.samples;
  s.batches = d.batches;
  if (const int64_t t = d.started_ns) s.seconds = seconds_since(Clock::time_point(Clock::duration(t)));
  s.samples_per_second = s.seconds > 0 ? static_cast<double>(s.samples) / s.seconds : 0;
  s.read_seconds = static_cast<double>(d.clock.read_ns) * 1e-9;
  s.decode_seconds = static_cast<double>(d.clock.decode_ns) * 1e-9;
  s.transform_seconds = static_cast<double>(d.clock.transform_ns) * 1e-9;
  s.collate_seconds = static_cast<double>(d.clock.collate_ns) * 1e-9;
  s.wait_seconds = static_cast<double>(d.wait_ns) * 1e-9;
  s.batches_in_flight = d.in_flight;
  s.ready_batches = d.ready;
  s.bytes_in_flight = d.bytes_ready;
  return s;
}

}  // namespace loom::loader
