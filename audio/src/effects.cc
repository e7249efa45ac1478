// SoX effect chains through libsox: a tensor (or sox_open_read) source effect, the user's effects, and
// a collecting sink effect. See loom/audio/effects.h for the contract and docs/audio.md for how the
// result relates to the `sox` CLI.
#include "loom/audio/effects.h"

#include <sox.h>
#include <strings.h>

#include <algorithm>
#include <cmath>
#include <cstdarg>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <deque>
#include <memory>
#include <mutex>
#include <optional>
#include <string>
#include <system_error>
#include <vector>

#include "audio_tensor_checks.h"
#include "loom/codec/error.h"
#include "loom/codec/internal/regular_file.h"
#include "loom/codec/limits.h"

namespace loom::audio {
namespace {

// ---- libsox initialisation and messages ----

// libsox reports failures (bad effect arguments, unreadable files) through one global callback. Each
// thread keeps the last failure message it produced, so that the loom::Error thrown on that thread can
// quote libsox.
thread_local std::string t_sox_message;

// Called from libsox's C frames: nothing may throw out of it (an allocation failure drops the message).
void on_sox_message(unsigned level, const char* /*filename*/, const char* fmt, va_list ap) noexcept {
  if (level > 1) return;  // failures only; warnings ("clipped N samples") and debug output are dropped
  char buffer[512];
  std::vsnprintf(buffer, sizeof buffer, fmt, ap);
  try {
    if (!t_sox_message.empty()) t_sox_message += "; ";
    t_sox_message += buffer;
  } catch (...) {
  }
}

// The random seed libsox starts with; every chain starts from it again (as `sox -R`).
sox_int32_t g_initial_seed = 0;

void init_sox_once() {
  static std::once_flag once;
  static int status = SOX_SUCCESS;
  std::call_once(once, [] {
    status = sox_init();
    if (status == SOX_SUCCESS) {
      sox_get_globals()->output_message_handler = on_sox_message;
      sox_get_globals()->verbosity = 1;
      sox_get_globals()->repeatable = sox_true;
      g_initial_seed = sox_get_globals()->ranqd1;
    }
  });
  if (status != SOX_SUCCESS) throw Error(ErrorCode::kInternal, "libsox", "sox_init failed");
}

// Builds and starts chains (libsox's option parsing, effect start-up and format look-up touch its
// globals) and runs the chains whose effects draw from libsox's global random generator.
std::mutex& sox_mutex() {
  static std::mutex mutex;
  return mutex;
}

// Effects whose flow draws from libsox's one global random generator (sox_globals.ranqd1): their chains
// run under sox_mutex from start to end, each from the initial seed, so that their output is
// reproducible. ("dither" seeds its own generator in start, which always runs under the mutex.)
bool draws_global_random(const std::string& name) {
  return strcasecmp(name.c_str(), "synth") == 0;  // its noise generators (the only such use in SoX 14.4's effects)
}

// ---- RAII ----

struct ChainDeleter {
  void operator()(sox_effects_chain_t* chain) const { sox_delete_effects_chain(chain); }
};
using ChainPtr = std::unique_ptr<sox_effects_chain_t, ChainDeleter>;

struct FormatDeleter {
  void operator()(sox_format_t* format) const { sox_close(format); }
};
using FormatPtr = std::unique_ptr<sox_format_t, FormatDeleter>;

// An effect from sox_create_effect that is not (yet) in a chain: owns the struct and its priv. After
// sox_add_effect the chain holds a copy of the struct (and owns priv when the effect was added).
class PendingEffect {
 public:
  explicit PendingEffect(sox_effect_t* effect) : effect_(effect) {}
  ~PendingEffect() {
    if (!effect_) return;
    // libsox 14.4.2 frees priv (and sets it to null) itself when start() says the effect does nothing.
    if (owns_priv_ && effect_->priv) {
      effect_->handler.kill(effect_);
      std::free(effect_->priv);
    }
    std::free(effect_);
  }
  PendingEffect(const PendingEffect&) = delete;
  PendingEffect& operator=(const PendingEffect&) = delete;
  sox_effect_t* get() const { return effect_; }
  void release_priv() { owns_priv_ = false; }

 private:
  sox_effect_t* effect_;
  bool owns_priv_ = true;
};

// ---- the tensor source and the collecting sink ----

struct Source {
  const sox_sample_t* data = nullptr;  // interleaved
  size_t size = 0;
  size_t index = 0;
  unsigned channels = 1;
};

struct Sink {
  std::vector<sox_sample_t> data;  // interleaved
  size_t max_samples = 0;          // Limits::max_bytes as samples (0: no limit)
  bool overflow = false;           // the chain produced more: the flow was stopped, the result is an error
  bool out_of_memory = false;      // with overflow: below the limit, but the allocation failed
};

template <typename T>
T* priv_pointer(sox_effect_t* effp) {
  return *static_cast<T**>(effp->priv);
}

int source_drain(sox_effect_t* effp, sox_sample_t* obuf, size_t* osamp) {
  Source* source = priv_pointer<Source>(effp);
  size_t n = std::min(*osamp, source->size - source->index);
  n -= n % source->channels;
  std::memcpy(obuf, source->data + source->index, n * sizeof(sox_sample_t));
  source->index += n;
  *osamp = n;
  return n == 0 ? SOX_EOF : SOX_SUCCESS;
}

// The effect callbacks run inside libsox's C frames: they never throw. The sink stops the flow (through
// stop_flow, sox_flow_effects' callback) when the output would pass max_samples or cannot be allocated;
// it grows its buffer itself so that the capacity never passes max_samples either.
int sink_flow(sox_effect_t* effp, const sox_sample_t* ibuf, sox_sample_t* /*obuf*/, size_t* isamp,
              size_t* osamp) noexcept {
  Sink* sink = priv_pointer<Sink>(effp);
  *osamp = 0;
  std::vector<sox_sample_t>& data = sink->data;
  const size_t need = data.size() + *isamp;
  if (sink->overflow || (sink->max_samples != 0 && need > sink->max_samples)) {
    sink->overflow = true;
    return SOX_EOF;
  }
  try {
    if (need > data.capacity()) {
      size_t capacity = std::max(need, 2 * data.capacity());
      if (sink->max_samples != 0) capacity = std::min(capacity, sink->max_samples);
      data.reserve(capacity);
    }
    data.insert(data.end(), ibuf, ibuf + *isamp);
  } catch (...) {  // std::bad_alloc: below the limit, but more than this process can have
    sink->overflow = sink->out_of_memory = true;
    return SOX_EOF;
  }
  return SOX_SUCCESS;
}

// sox_flow_effects' callback: stops the flow once the sink has overflowed.
int stop_flow(sox_bool /*all_done*/, void* client) noexcept {
  return static_cast<const Sink*>(client)->overflow ? SOX_EOF : SOX_SUCCESS;
}

const sox_effect_handler_t* source_handler() {
  static const sox_effect_handler_t handler = {"loom_source", nullptr,      SOX_EFF_MCHAN, nullptr, nullptr,
                                               nullptr,       source_drain, nullptr,       nullptr, sizeof(Source*)};
  return &handler;
}

const sox_effect_handler_t* sink_handler() {
  static const sox_effect_handler_t handler = {"loom_sink", nullptr, SOX_EFF_MCHAN, nullptr, nullptr,
                                               sink_flow,   nullptr, nullptr,       nullptr, sizeof(Sink*)};
  return &handler;
}

// ---- building and running a chain ----

constexpr double kSampleScale = 2147483648.0;  // 2^31: libsox's full scale

std::string describe(const Effect& effect) {
  std::string text = effect.name;
  for (const std::string& arg : effect.args) text += " " + arg;
  return text;
}

// Adds `effp` to `chain`, taking `signal` forward; throws naming `what` when libsox refuses.
void add_effect(sox_effects_chain_t* chain, PendingEffect& effect, sox_signalinfo_t* signal,
                const sox_signalinfo_t* out, const std::string& what) {
  const size_t length_before = chain->length;
  t_sox_message.clear();
  if (sox_add_effect(chain, effect.get(), signal, out) != SOX_SUCCESS) {
    throw Error(ErrorCode::kInvalidInput, what,
                "libsox could not start the effect" + (t_sox_message.empty() ? "" : ": " + t_sox_message));
  }
  // Added: the chain owns priv now. Not added (an effect that does nothing in this configuration, such
  // as "rate" to the same rate, whose priv libsox has freed already): PendingEffect frees what is left.
  if (chain->length != length_before) effect.release_priv();
}

struct Run {
  ChainPtr chain;
  sox_signalinfo_t signal{};  // after the last user effect
  Sink sink;
  Sink* sink_ptr = &sink;
  std::deque<std::string> args;  // argv strings stay alive for the chain's life (effects may keep them)
  bool lock_whole_run = false;
};

// Appends the user's effects and the sink to run.chain (whose source is in place), under sox_mutex.
void add_user_effects(Run& run, const EffectChain& effects) {
  const sox_signalinfo_t in_signal = run.signal;
  for (const Effect& effect : effects) {
    const std::string what = "SoX effect \"" + describe(effect) + "\"";
    if (effect.name.empty()) throw Error(ErrorCode::kInvalidInput, what, "empty effect name");
    const sox_effect_handler_t* handler = sox_find_effect(effect.name.c_str());
    if (!handler || (handler->flags & SOX_EFF_INTERNAL)) {
      throw Error(ErrorCode::kInvalidInput, what, "libsox has no effect named \"" + effect.name + "\"");
    }
    if (draws_global_random(effect.name)) run.lock_whole_run = true;
    PendingEffect pending(sox_create_effect(handler));
    if (!pending.get()) throw Error(ErrorCode::kInternal, what, "sox_create_effect failed");
    std::vector<char*> argv;
    for (const std::string& arg : effect.args) argv.push_back(run.args.emplace_back(arg).data());
    argv.push_back(nullptr);
    t_sox_message.clear();
    if (sox_effect_options(pending.get(), static_cast<int>(effect.args.size()), argv.data()) != SOX_SUCCESS) {
      throw Error(ErrorCode::kInvalidInput, what,
                  "libsox rejected the arguments" + (t_sox_message.empty() ? "" : ": " + t_sox_message));
    }
    // `out` is what an effect without its own target (a bare "rate" or "channels") aims at: the input's
    // format, as torchaudio did; the CLI would aim at the output file's.
    add_effect(run.chain.get(), pending, &run.signal, &in_signal, what);
  }
  PendingEffect sink(sox_create_effect(sink_handler()));
  *static_cast<Sink**>(sink.get()->priv) = run.sink_ptr;
  sox_signalinfo_t signal = run.signal;
  add_effect(run.chain.get(), sink, &signal, &run.signal, "loom sink");
}

void check_result_signal(const sox_signalinfo_t& signal) {
  const Limits limits;
  if (signal.channels == 0) throw Error(ErrorCode::kInvalidInput, "SoX effect chain", "ends with 0 channels");
  if (signal.channels > static_cast<unsigned>(limits.max_audio_channels)) {
    throw Error(ErrorCode::kLimitExceeded, "SoX effect chain",
                "ends with " + std::to_string(signal.channels) + " channels, more than the limit of " +
                    std::to_string(limits.max_audio_channels));
  }
  if (!(signal.rate > 0) || signal.rate != std::floor(signal.rate) || signal.rate > limits.max_sample_rate) {
    char rate[64];
    std::snprintf(rate, sizeof rate, "%.6g", signal.rate);
    throw Error(signal.rate > limits.max_sample_rate ? ErrorCode::kLimitExceeded : ErrorCode::kInvalidInput,
                "SoX effect chain",
                std::string("ends at ") + rate +
                    " Hz, not a whole number of Hz within the limits (after \"speed\", add \"rate <Hz>\")");
  }
}

// Runs the chain built by `build` (which adds the source and sets run.signal), then the user's effects.
template <typename Build>
EffectResult run_chain(const EffectChain& effects, bool channels_first, Build&& build, const std::string& input_name) {
  init_sox_once();
  Run run;
  std::unique_lock lock(sox_mutex());
  sox_get_globals()->ranqd1 = g_initial_seed;
  build(run);
  add_user_effects(run, effects);
  check_result_signal(run.signal);
  // The output is collected as 32-bit samples, then returned as float32: both sizes are samples * 4.
  const uint64_t max_samples = Limits{}.max_bytes / sizeof(float);
  run.sink.max_samples = static_cast<size_t>(max_samples);
  const std::string limit_text = "exceeds the limit of " + std::to_string(Limits{}.max_bytes) + " bytes";
  // libsox carries the length forward through the effects that know theirs (pad, rate, channels, trim,
  // ...): a size known before the flow is checked before the flow.
  if (max_samples != 0 && run.signal.length != SOX_UNKNOWN_LEN && run.signal.length > max_samples) {
    throw Error(ErrorCode::kLimitExceeded, input_name,
                "the effects' output of " + std::to_string(run.signal.length) + " samples " + limit_text);
  }
  if (!run.lock_whole_run) lock.unlock();

  t_sox_message.clear();
  const int status = sox_flow_effects(run.chain.get(), stop_flow, &run.sink);
  if (run.sink.overflow) {
    throw Error(ErrorCode::kLimitExceeded, input_name,
                run.sink.out_of_memory ? "out of memory collecting the effects' output (under the byte limit)"
                                       : "the effects' output " + limit_text);
  }
  if (status != SOX_SUCCESS && status != SOX_EOF) {
    throw Error(ErrorCode::kInternal, input_name,
                "libsox failed while running the effects" + (t_sox_message.empty() ? "" : ": " + t_sox_message));
  }
  if (!t_sox_message.empty()) {
    throw Error(ErrorCode::kInvalidInput, input_name, "libsox failed while running the effects: " + t_sox_message);
  }
  run.chain.reset();  // stops the effects (some flush in stop) before the samples are read
  if (lock.owns_lock()) lock.unlock();

  const int64_t channels = run.signal.channels;
  const int64_t frames = static_cast<int64_t>(run.sink.data.size()) / channels;
  Tensor out = channels_first ? Tensor::empty({channels, frames}, DType::kFloat32)
                              : Tensor::empty({frames, channels}, DType::kFloat32);
  float* dst = out.data<float>();
  const sox_sample_t* src = run.sink.data.data();
  if (channels_first) {
    for (int64_t f = 0; f < frames; ++f) {
      for (int64_t c = 0; c < channels; ++c) {
        dst[c * frames + f] = static_cast<float>(src[f * channels + c] * (1.0 / kSampleScale));
      }
    }
  } else {
    for (int64_t i = 0; i < frames * channels; ++i) dst[i] = static_cast<float>(src[i] * (1.0 / kSampleScale));
  }
  return {std::move(out), static_cast<int>(run.signal.rate)};
}

// The tensor's samples as libsox's interleaved 32-bit integers (SOX_FLOAT_32BIT_TO_SAMPLE).
std::vector<sox_sample_t> to_sox_samples(const Tensor& samples, bool channels_first, int64_t channels, int64_t frames) {
  std::vector<sox_sample_t> out(static_cast<size_t>(channels * frames));
  const float* base = samples.data<float>();
  const int64_t channel_stride = samples.stride(channels_first ? 0 : 1);
  const int64_t frame_stride = samples.stride(channels_first ? 1 : 0);
  for (int64_t f = 0; f < frames; ++f) {
    for (int64_t c = 0; c < channels; ++c) {
      const float x = base[c * channel_stride + f * frame_stride];
      if (!std::isfinite(x)) {
        throw Error(ErrorCode::kInvalidInput, "samples",
                    "holds NaN or infinity (channel " + std::to_string(c) + ", frame " + std::to_string(f) + ")");
      }
      // SOX_FLOAT_32BIT_TO_SAMPLE: scale by 2^31, clip, truncate toward zero.
      const double d = static_cast<double>(x) * kSampleScale;
      out[static_cast<size_t>(f * channels + c)] = d < SOX_SAMPLE_MIN         ? SOX_SAMPLE_MIN
                                                   : d >= SOX_SAMPLE_MAX + 1. ? SOX_SAMPLE_MAX
                                                                              : static_cast<sox_sample_t>(d);
    }
  }
  return out;
}

}  // namespace

EffectResult apply_effects(const Tensor& samples, int sample_rate, const EffectChain& chain, bool channels_first) {
  // Named, not a structured binding: the chain's lambda captures them (clang 14 cannot capture bindings).
  const detail::ChannelsFrames size = detail::check_effect_input(samples, sample_rate, channels_first);
  const int64_t channels = size.channels, frames = size.frames;
  const std::vector<sox_sample_t> interleaved = to_sox_samples(samples, channels_first, channels, frames);
  Source source{interleaved.data(), interleaved.size(), 0, static_cast<unsigned>(channels)};
  return run_chain(
      chain, channels_first,
      [&](Run& run) {
        // 25 bits: what SoX reports for 32-bit float samples (a 24-bit mantissa and a sign).
        run.signal = sox_signalinfo_t{static_cast<sox_rate_t>(sample_rate), static_cast<unsigned>(channels), 25,
                                      static_cast<sox_uint64_t>(interleaved.size()), nullptr};
        run.chain.reset(sox_create_effects_chain(nullptr, nullptr));
        if (!run.chain) throw Error(ErrorCode::kInternal, "libsox", "sox_create_effects_chain failed");
        PendingEffect effect(sox_create_effect(source_handler()));
        *static_cast<Source**>(effect.get()->priv) = &source;
        sox_signalinfo_t signal = run.signal;
        add_effect(run.chain.get(), effect, &signal, &run.signal, "loom source");
      },
      "samples");
}

EffectResult apply_effects_file(const std::filesystem::path& path, const EffectChain& chain, bool channels_first) {
  std::error_code ec;
  if (!std::filesystem::exists(path, ec)) throw Error(ErrorCode::kIo, path.string(), "no such file");
  require_regular_file(path);  // before libsox's fopen(), which would block on a FIFO
  FormatPtr format;
  EffectResult result = run_chain(
      chain, channels_first,
      [&](Run& run) {
        t_sox_message.clear();
        format.reset(sox_open_read(path.c_str(), nullptr, nullptr, nullptr));
        if (!format) {
          throw Error(ErrorCode::kInvalidInput, path.string(),
                      "libsox cannot read it" + (t_sox_message.empty() ? "" : ": " + t_sox_message));
        }
        const Limits limits;
        if (format->signal.channels == 0 || !(format->signal.rate > 0)) {
          throw Error(ErrorCode::kInvalidInput, path.string(), "no channels or no sample rate in its header");
        }
        if (format->signal.channels > static_cast<unsigned>(limits.max_audio_channels) ||
            format->signal.rate > limits.max_sample_rate) {
          throw Error(ErrorCode::kLimitExceeded, path.string(), "too many channels or too high a sample rate");
        }
        run.signal = format->signal;
        run.signal.mult = nullptr;
        run.chain.reset(sox_create_effects_chain(&format->encoding, nullptr));
        if (!run.chain) throw Error(ErrorCode::kInternal, "libsox", "sox_create_effects_chain failed");
        PendingEffect effect(sox_create_effect(sox_find_effect("input")));
        char* argv[] = {reinterpret_cast<char*>(format.get()), nullptr};
        if (sox_effect_options(effect.get(), 1, argv) != SOX_SUCCESS) {
          throw Error(ErrorCode::kInternal, path.string(), "libsox's input effect refused the file");
        }
        sox_signalinfo_t signal = run.signal;
        add_effect(run.chain.get(), effect, &signal, &run.signal, path.string());
      },
      path.string());
  if (format->sox_errno != SOX_SUCCESS) {
    throw Error(ErrorCode::kInvalidInput, path.string(),
                std::string("libsox failed while reading it: ") + format->sox_errstr);
  }
  return result;
}

}  // namespace loom::audio
