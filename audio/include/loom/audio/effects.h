// SoX effect chains and SoX resampling on float32 tensors and files, through libsox (SoX 14.4).
//
// What torchaudio.sox_effects did (apply_effects_tensor / apply_effects_file), kept alive: any effect
// that libsox provides ("gain", "lowpass", "rate", "channels", "remix", "tempo", "reverb", ...), with the
// arguments the `sox` command line takes, and an output equal to the `sox` CLI running the same chain
// (see docs/audio.md#effects-and-resampling for the exact CLI settings that make them equal).
//
// Samples: float32 tensors on the CPU, [channels, frames] (channels_first, the default) or
// [frames, channels], values nominally in [-1, 1]. Each value is converted to libsox's 32-bit integer
// sample the way SoX reads a 32-bit float WAV (SOX_FLOAT_32BIT_TO_SAMPLE: x * 2^31, truncated toward zero,
// clipped to [-2^31, 2^31 - 1]; values outside [-1, 1] therefore clip), and each output sample s back
// as float(s / 2^31) (round to nearest), the way torchaudio did.
//
// No automatic effects: unlike the `sox` CLI, nothing is added to the chain — no dither, no "rate" or
// "channels" to reach an output file's format, no "rate" after "speed" (so "speed 1.5" alone ends at
// 1.5 x the input rate: add "rate <input rate>" for the CLI's behaviour).
//
// Thread safety: all functions may be called from several threads at once; each call builds its own
// libsox chain. libsox keeps some global state: its settings, the name of the module that last logged
// (written, unsynchronised, by every libsox log call, even ones that are not printed), the random
// generator (sox_globals.ranqd1) and an FFT table cache (guarded by OpenMP locks in Debian's build).
// loom initialises libsox once (std::call_once), installs its own message handler once (libsox's failure
// messages go to a per-thread buffer that loom quotes in its errors), and builds and starts every chain
// (option parsing, filter design, opening files) under one process-wide mutex, resetting the random seed
// to libsox's initial one each time (as `sox -R`: "dither" is reproducible). The sample flow then runs
// unlocked, in parallel with other chains, except for chains holding "synth", whose flow (noise)
// draws from the global generator: they hold the mutex until they end. Changing sox_globals from
// elsewhere in the process while loom runs chains is not supported.

#pragma once

#include <filesystem>
#include <string>
#include <string_view>
#include <vector>

#include "loom/codec/api.h"
#include "loom/codec/tensor.h"

LOOM_API_BEGIN

namespace loom::audio {

// One SoX effect: its name as the `sox` CLI spells it and its arguments, one string each, exactly as
// they would follow the name on the CLI: {"rate", {"-v", "16000"}}.
struct Effect {
  std::string name;
  std::vector<std::string> args;
};

using EffectChain = std::vector<Effect>;

struct EffectResult {
  Tensor samples;       // float32, the input's layout ([channels, frames] unless channels_first = false)
  int sample_rate = 0;  // Hz, after the chain's "rate", "speed", ... effects
};

// Parses "gain -3; lowpass 4000; rate -v 16000" into an EffectChain: effects are separated by ';' (or a
// newline), arguments by blanks; an argument may be quoted with '...' or "..." to hold blanks or ';'.
// Empty effects (";;", a trailing ';') are skipped. Names and arguments are not checked here (that is
// libsox's job in apply_effects). Throws loom::Error(kInvalidInput) for an unterminated quote.
EffectChain parse_effects(std::string_view text);

// Runs `chain` over `samples` (see the header comment for layout and conversion) at `sample_rate` Hz.
// An empty chain returns the samples as libsox would pass them through (each value quantised to the
// 32-bit integer grid). The result's shape and sample_rate follow the chain ("channels 1", "remix",
// "rate", "tempo", "speed", "trim", "pad", ...).
//
// Throws loom::Error(kInvalidInput) naming the effect for an effect libsox does not know or one whose
// arguments it rejects (with libsox's own message when it gives one), and naming "samples" for a tensor
// that is not float32, not 2-D, not on the CPU, with 0 channels or 0 frames, or holding NaN or infinity,
// for sample_rate <= 0, or for a chain that ends at a rate that is not a whole number of Hz
// ("speed 1.1" alone); kLimitExceeded for more than Limits{}.max_audio_channels channels or a rate above
// Limits{}.max_sample_rate; kInternal when libsox fails while processing.
EffectResult apply_effects(const Tensor& samples, int sample_rate, const EffectChain& chain,
                           bool channels_first = true);

// Reads `path` with libsox's own format handlers (sox_open_read: WAV, FLAC, AIFF, AU, Ogg Vorbis, MP3,
// ... as the `sox` CLI does; libsox's conversion of each encoding to 32-bit integers) and runs `chain`
// over it: the same samples as `sox <path> -e signed -b 32 out.wav <chain>`, as float32. Throws
// loom::Error(kIo) for a file that does not exist, kInvalidInput for one libsox cannot open or read, and
// the errors of apply_effects for the chain.
EffectResult apply_effects_file(const std::filesystem::path& path, const EffectChain& chain,
                                bool channels_first = true);

// Resampling quality levels: SoX's "rate" levels (`sox ... rate -q|-l|-m|-h|-v`), which are also
// libsoxr's recipes (SOXR_QQ, SOXR_LQ, SOXR_MQ, SOXR_HQ, SOXR_VHQ): quick cubic; 16-bit with a large
// or a medium roll-off; 20-bit; 28-bit.
enum class ResampleQuality { kQuick, kLow, kMedium, kHigh, kVeryHigh };

// The resampler behind resample().
enum class ResampleEngine {
  // libsoxr on the float32 samples as they are (default): the fastest, and what python-soxr gives.
  kSoxr,
  // SoX's "rate" effect through libsox: bit for bit the `sox` CLI's `rate` (the samples pass through
  // libsox's 32-bit integers, so values beyond [-1, 1] clip). What the CLI's `loom audio --rate` runs.
  kSox,
  // torchaudio.functional.resample's windowed sinc (ResampleOptions' lowpass_filter_width, rolloff,
  // window, beta), computed over each output's non-zero taps only with SIMD: within 3e-5 of torchaudio's
  // float32 result and 1e-6 of its float64 one (docs/audio.md). The quality level is not used.
  kSinc,
};

// The window of the kSinc engine's sinc, torchaudio's resampling_method.
enum class SincWindow {
  kHann,    // "sinc_interp_hann" (torchaudio's default): cos(pi t / (2 width))^2
  kKaiser,  // "sinc_interp_kaiser": I0(beta sqrt(1 - (t / width)^2)) / I0(beta)
};

// How resample() works. quality is read by kSoxr and kSox; the sinc fields by kSinc only, with
// torchaudio.functional.resample's names and defaults.
struct ResampleOptions {
  ResampleQuality quality = ResampleQuality::kHigh;
  ResampleEngine engine = ResampleEngine::kSoxr;
  bool channels_first = true;    // samples (and the result) [channels, frames], else [frames, channels]
  int lowpass_filter_width = 6;  // zero crossings of the sinc on each side; > 0
  double rolloff = 0.99;         // the cutoff as a fraction of the lower rate's Nyquist; in (0, 1]
  SincWindow window = SincWindow::kHann;
  double beta = 14.769656459379492;  // kKaiser's shape (torchaudio's default when beta=None); finite
};

// Resamples from in_rate to out_rate Hz with options.engine: round(frames * out_rate / in_rate) frames
// (kSinc: ceil(frames * out_rate / in_rate), as torchaudio), any pair of rates (44100 -> 16000, 48000 ->
// 22050, up or down); in_rate == out_rate returns the samples unchanged in value (a copy). kSox is the
// same as apply_effects(samples, in_rate, {{"rate", {"-h", "<out_rate>"}}}).samples for kHigh (SoX's
// default). At kHigh kSoxr and kSox agree within 2^-13 of full scale on real audio (2^-17 to 2^-20 on
// most), except in the first and last 50 ms (the filters' edges) and where kSox clips; kSinc is
// torchaudio's filter, a coarser one (docs/audio.md). Errors as apply_effects (which names the input
// "samples"), plus kInvalidInput for out_rate <= 0 or (kSoxr, kSinc) a NaN or infinite sample, and
// kLimitExceeded for an output beyond Limits{}.max_bytes. kSinc adds kInvalidInput (naming "resample")
// for a lowpass_filter_width <= 0, a rolloff outside (0, 1], a beta that is not finite or whose window
// overflows, and kLimitExceeded for a filter beyond Limits{}.max_bytes.
// Thread safety: no shared state; one thread per call.
// The positional overload is resample(samples, in_rate, out_rate, {quality, engine, channels_first}).
Tensor resample(const Tensor& samples, int in_rate, int out_rate, const ResampleOptions& options);
Tensor resample(const Tensor& samples, int in_rate, int out_rate, ResampleQuality quality = ResampleQuality::kHigh,
                bool channels_first = true, ResampleEngine engine = ResampleEngine::kSoxr);

}  // namespace loom::audio

LOOM_API_END
