// The loader: a prefetching pipeline from a Dataset to batches of tensors.
//
//   for (const loom::loader::Batch& batch : loader) train(batch["image"].tensor, batch["label"].tensor);
//
// Each epoch the loader takes this rank's share of the epoch's global order (order.h), reads the
// records, decodes and transforms each field, and collates batches on a oneTBB arena of `threads`
// threads, with at most `prefetch` batches ahead of the consumer.
//
// Determinism: sample at global position p of epoch e draws every random choice (crops, flips, video
// clip starts, audio offsets) from transforms::Rng(sample_seed(order.seed, e), p), forked once per field
// in field order. Batches are therefore identical for any number of threads, and at a fixed global
// batch (batch_size * world_size) any number of ranks together produce the same samples.
//
// Epochs: iterating (begin() .. end()) yields the rest of the current epoch; when it has been consumed
// to its end the loader moves to the next epoch, so `for (epoch...) for (batch : loader)` trains epoch
// after epoch. set_epoch() and restore() choose where the next iteration starts.
//
// Errors: with ErrorPolicy::kRaise, a sample that fails (unreadable file, bad bytes, a transform that
// refuses it) throws loom::Error from the iterator's increment (or begin()) when its batch is due; the
// message names the sample ("<shard or file>:<key>") and the cause, and the batches before it are
// delivered first. The failed batch counts as consumed: iterating again continues after it. kSkip
// drops the sample (its batch is one smaller); kReplace puts the next readable sample of the epoch's
// sequence in its place, with the failed sample's random draws. Neither changes any other sample's
// position or random draws. Every skipped or replaced sample is listed in skipped().
//
// Device: with LoaderOptions::device a CUDA device, each batch is collated into pinned host memory and
// its tensors are copied to the device on a stream of the loader's own while the next batches are built
// (the copy overlaps their CPU work). Batch::ready completes when the copy has; next() makes the calling
// thread's current stream (accel::current_stream) wait for it, so work queued there afterwards sees
// the data, and Batch::use_on does the same for any other stream. The batch's device memory comes from
// accel's caching allocator and is reused only once every stream it was used on has passed it.
//
// Thread safety: a Loader is used by one consumer thread; stats() and skipped() may also be called
// from other threads. Batches stay valid after the loader is destroyed (they own their tensors).
#pragma once

#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "loom/accel/stream.h"
#include "loom/codec/api.h"
#include "loom/codec/error.h"
#include "loom/codec/layout.h"
#include "loom/codec/size.h"
#include "loom/codec/tensor.h"
#include "loom/loader/dataset.h"
#include "loom/loader/order.h"
#include "loom/transforms/geometry_transforms.h"
#include "loom/transforms/transform.h"
#include "loom/video/samplers.h"
#include "loom/vision/image.h"

LOOM_API_BEGIN

namespace loom::loader {

enum class FieldKind {
  kImage,        // a decoded image: uint8 [C, H, W] (or per DecodeOptions/transform), collated [N, C, H, W]
  kVideo,        // a clip of frames: uint8 [T, C, H, W] (or [T, H, W, C]), collated [N, T, ...]
  kAudio,        // a clip of samples: float32 [channels, frames], collated [N, channels, frames]
  kLabel,        // the record's label: int64, collated [N]
  kAnnotations,  // the record's annotations JSON, collated as texts
  kBytes,        // a member's bytes, undecoded: uint8 [size], collated as a list
};

// How samples' tensors of one field become the batch's.
enum class Collate {
  kAuto,  // stack into one [N, ...] tensor when every shape is equal, else a list
  kList,  // always a list, one tensor per sample
  kPad,   // stack, zero-padding every dimension to the batch's largest; `lengths` gives each sample's shape
};

struct ImageField {
  vision::DecodeOptions decode;  // mode, layout (CHW by default), limits, ...
  // Applied first when set (the ImageNet training crop). With decode_crop, JPEG images decode only the
  // crop's region at the smallest DCT scale whose crop is still at least the output size, then resize
  // it: the same random draws as RandomResizedCrop on the full image, close but not equal pixels (see
  // docs/loader.md). Other formats, and images that need EXIF rotation, take the full path.
  std::shared_ptr<const transforms::RandomResizedCrop> crop;
  bool decode_crop = false;
  // Applied after the crop, to a transforms::Sample holding the image (layout from decode.layout) and
  // the record's "boxes" / "keypoints" annotations when boxes_format is set.
  transforms::TransformPtr transform;
  // When set, the image (uint8 or float32, as the transforms leave it) becomes float32
  // (x / 255 - mean) / std in `layout` while it is collated, written straight into the batch: the
  // values of a final transforms::Normalize (bit for bit), without a float32 copy per sample. Lists
  // and padded batches normalize each image on its own.
  struct Normalization {
    std::vector<float> mean, std;  // 1 value or one per channel
    Layout layout = Layout::kCHW;
  };
  std::optional<Normalization> normalize;
  // When set, annotations {"boxes": [[...], ...]} of this format (and {"keypoints": [[x, y], ...]})
  // travel with the image through the transforms and are returned as the fields "<name>.boxes" and
  // "<name>.keypoints" (lists; float32).
  std::optional<transforms::BoxFormat> boxes_format;
};

struct VideoField {
  int num_frames = 8;            // frames per clip
  int frame_step = 1;            // num_indices_between_frames (1: consecutive frames)
  Layout layout = Layout::kCHW;  // of each frame: clip [T, C, H, W] or [T, H, W, C]
  std::optional<Size> size;      // resize frames while decoding (VideoDecoder's output_size)
  video::Policy policy = video::Policy::kRepeatLast;
};

struct AudioField {
  double duration_seconds = 0;  // clip length; 0 reads the whole track
  bool random_offset = true;    // start at a random frame (else at 0); the clip always fits
  int channels = 0;             // 1 mixes down to mono, n > 1 repeats a mono track; 0 keeps the file's
  int sample_rate = 0;          // resample to this rate (Hz, high quality); 0 keeps the file's
};

struct FieldSpec {
  std::string name;  // the field's name in the Batch
  FieldKind kind = FieldKind::kImage;
  // Record members to read it from; the first present wins. Empty: the kind's defaults (images:
  // jpg jpeg png ppm pgm bmp tif tiff webp; video: mp4 mkv webm avi mov; audio: wav flac mp3 ogg opus m4a).
  std::vector<std::string> members;
  Collate collate = Collate::kAuto;
  ImageField image;
  VideoField video;
  AudioField audio;
};

// {image, label}: the record's image decoded to uint8 RGB CHW, and its label.
std::vector<FieldSpec> default_fields();

enum class ErrorPolicy { kRaise, kSkip, kReplace };

struct LoaderOptions {
  int64_t batch_size = 1;  // per rank, > 0
  bool drop_last = false;  // drop this rank's last, incomplete batch of each epoch
  OrderOptions order;      // shuffle, seed, rank, world size (DistributedSampler's drop_last)
  std::vector<FieldSpec> fields = default_fields();
  int threads = 0;   // oneTBB threads; 0: one per core
  int prefetch = 0;  // batches built ahead of the consumer; 0: 2 per thread (at least 2)
  // When > 0, fewer batches are built ahead when their bytes (the largest batch so far, times the
  // batches in flight) would pass this; one batch is always allowed.
  int64_t max_bytes_in_flight = 0;
  bool ordered = true;  // deliver batches in order; false: as they finish (state() is then refused mid-epoch)
  ErrorPolicy on_error = ErrorPolicy::kRaise;
  int max_replacements = 16;  // kReplace: samples tried after a failure before the failure is raised
  // Where batches are delivered: the CPU, or a CUDA device (see "Device" above; every tensor of a
  // batch field goes there, `lengths` stays on the CPU). A CUDA device that is not usable is
  // Error(kUnsupported) when the loader is made.
  Device device = Device::cpu();
};

// One field of a batch: `tensor` when stacked (or padded), else `list`, or `texts` for annotations.
struct BatchField {
  Tensor tensor;
  std::vector<Tensor> list;
  std::vector<std::string> texts;
  Tensor lengths;  // kPad: int64 [N, ndim], each sample's shape before padding
};

struct Batch {
  int64_t epoch = 0;
  int64_t step = 0;                // this rank's batch number within the epoch
  std::vector<int64_t> positions;  // global positions of the samples, in batch order
  std::vector<int64_t> indices;    // their dataset indices
  std::vector<std::string> keys;   // their record keys
  std::vector<std::pair<std::string, BatchField>> fields;
  // On a CUDA device: recorded on the loader's stream after the batch's copies (see "Device" above).
  // Undefined (complete) for CPU batches.
  accel::Event ready;

  int64_t size() const { return static_cast<int64_t>(positions.size()); }
  // The field named `name`; Error(kInvalidInput) when there is none.
  const BatchField& operator[](std::string_view name) const;
  // Makes work queued on `stream` from now on wait for the batch's copies, and has the allocator keep
  // the batch's device memory until `stream` has passed the point where the batch is freed. A no-op
  // for CPU batches.
  void use_on(const accel::Stream& stream) const;
};

// Where an epoch stands, in O(1): the loader that made it resumes with exactly the batches that would
// have come next, for any thread count, and for any rank count with the same global batch.
struct LoaderState {
  uint64_t fingerprint = 0;  // the dataset's
  uint64_t seed = 0;
  int64_t epoch = 0;
  int64_t samples_consumed = 0;  // global positions consumed this epoch (a multiple of the global batch)

  std::string to_json() const;
  static LoaderState from_json(std::string_view text);  // Error(kInvalidInput) when malformed
};

struct SkippedSample {
  int64_t epoch = 0;
  int64_t position = 0;  // global position
  int64_t index = 0;     // dataset index
  std::string name;      // Dataset::name(index)
  ErrorCode code = ErrorCode::kInternal;
  std::string error;                   // the error's what()
  std::optional<int64_t> replaced_by;  // kReplace: the dataset index used instead
};

struct LoaderStats {
  int64_t samples = 0;  // delivered since the loader was made
  int64_t batches = 0;
  double seconds = 0;  // since the first batch was asked for
  double samples_per_second = 0;
  // Seconds summed over threads, per stage.
  double read_seconds = 0, decode_seconds = 0, transform_seconds = 0, collate_seconds = 0;
  double wait_seconds = 0;    // the consumer waited for batches
  int64_t ready_batches = 0;  // built and not yet taken
  int64_t batches_in_flight = 0;
  int64_t bytes_in_flight = 0;  // bytes of the batches built and not yet taken
};

class Loader {
 public:
  // Error(kInvalidInput, "loader") for bad options (batch size, fields without a name or with
  // duplicate names, threads < 0, ...) and the order's errors (a rank left without samples).
  Loader(DatasetPtr dataset, LoaderOptions options);
  ~Loader();
  Loader(const Loader&) = delete;
  Loader& operator=(const Loader&) = delete;

  class Iterator {
   public:
    using value_type = Batch;
    using difference_type = std::ptrdiff_t;
    // The current batch; incrementing releases it (copy the Batch, or its tensors, to keep them longer).
    const Batch& operator*() const { return batch_; }
    const Batch* operator->() const { return &batch_; }
    Iterator& operator++();
    bool operator==(const Iterator& other) const { return loader_ == other.loader_; }

   private:
    friend class Loader;
    explicit Iterator(Loader* loader);
    Loader* loader_ = nullptr;  // null at the end
    Batch batch_;
  };
  Iterator begin();
  Iterator end() { return Iterator(nullptr); }

  // The next batch of the current epoch, or nullopt at its end (the loader then moves to the next
  // epoch). Throws as described above.
  std::optional<Batch> next();

  // Batches per epoch on this rank.
  int64_t num_batches() const;
  int64_t epoch() const;
  // Starts the next iteration at the beginning of `epoch`.
  void set_epoch(int64_t epoch);

  LoaderState state() const;
  // Legal before the next batch is asked for: Error(kInvalidInput) when the fingerprint or seed differ,
  // or samples_consumed is not at a batch boundary of this loader's global batch.
  void restore(const LoaderState& state);

  std::vector<SkippedSample> skipped() const;
  std::string skipped_json() const;
  LoaderStats stats() const;

 private:
  struct LOOM_HIDDEN Impl;
  std::unique_ptr<Impl> impl_;
};

}  // namespace loom::loader

LOOM_API_END
