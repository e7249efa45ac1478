// `loom audio INPUT... -o OUTDIR`: decode audio files, optionally run a SoX effect chain, change the
// sample rate (SoX "rate", high quality) and the channel count (SoX "channels"), and encode WAV, FLAC,
// AIFF, MP3, Ogg/Vorbis or Ogg/Opus.
#include <fmt/format.h>

#include <CLI/CLI.hpp>

#include <algorithm>
#include <array>
#include <cmath>
#include <cstdint>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "batch.h"
#include "commands.h"
#include "format_names.h"
#include "loom/audio/effects.h"
#include "loom/audio/info.h"
#include "loom/audio/load.h"
#include "loom/audio/save.h"
#include "loom/codec/error.h"
#include "loom/codec/limits.h"
#include "loom/codec/sniff.h"
#include "loom/codec/tensor.h"
#include "messages.h"
#include "shard_args.h"
#include "suggest.h"

namespace loom::cli {
namespace fs = std::filesystem;
namespace {

struct AudioArgs {
  std::vector<std::string> inputs;
  std::string outdir;  // -o: a folder, or the output file when output_is_file
  bool output_is_file = false;
  std::vector<std::string> ext;  // --ext
  std::string format;    // "wav", "flac", "aiff", "mp3", "ogg", "opus", "m4a", or empty: keep the input's (else WAV)
  std::string bits;      // "16", "24", "32", "f32", or empty: keep the input's width (else 16)
  int rate = 0;          // Hz; 0 keeps the input's
  int channels = 0;      // 0 keeps the input's
  std::string effects;   // a SoX chain, "gain -3; lowpass 4000"
  int64_t bit_rate = 0;  // b/s for mp3, opus, m4a; 0: the encoder's default
  int stream = -1;       // --stream: the FFmpeg stream index to read; -1: FFmpeg's best audio stream
  BatchOptions batch;    // -j, --overwrite, --skip-existing, --fail-fast, -q, --dry-run, --json
  ShardFlags shards;     // --shard-index, --num-shards
};

// Folder scanning: audio-only file extensions. Video containers (.mp4, .mkv, .webm, .mov, ...) are
// converted only when named as files.
const std::vector<std::string>& audio_extensions() {
  static const std::vector<std::string> kExtensions = {".wav",  ".wave", ".rf64", ".w64", ".flac", ".mp3",  ".ogg",
                                                       ".oga",  ".opus", ".m4a",  ".aac", ".adts", ".aiff", ".aif",
                                                       ".aifc", ".au",   ".snd",  ".caf", ".mka"};
  return kExtensions;
}

bool is_lossy(const std::string& format) {
  return format == "mp3" || format == "ogg" || format == "opus" || format == "m4a";
}

// Whether `format` can hold samples of `bits` ("" holds anything: the default width is chosen per file).
bool holds_bits(const std::string& format, const std::string& bits) {
  if (bits.empty()) return true;
  if (is_lossy(format)) return false;
  if (format == "flac") return bits == "16" || bits == "24";
  return true;  // wav, aiff: 16, 24, 32, f32
}

// Opus (libopus) runs only at these rates; --rate must be one of them.
bool opus_rate(int rate) {
  return rate == 8000 || rate == 12000 || rate == 16000 || rate == 24000 || rate == 48000;
}

// The codec of an Ogg stream from its first packet: "opus", "vorbis" or "" (FLAC, Speex, unreadable).
std::string ogg_codec(const fs::path& path) {
  std::array<char, 128> head{};
  std::ifstream in(path, std::ios::binary);
  in.read(head.data(), head.size());
  const auto n = static_cast<size_t>(in.gcount());
  if (n < 27) return "";
  const size_t packet = 27 + static_cast<uint8_t>(head[26]);  // after the first page's segment table
  if (n >= packet + 8 && std::memcmp(head.data() + packet, "OpusHead", 8) == 0) return "opus";
  if (n >= packet + 7 && std::memcmp(head.data() + packet, "\x01vorbis", 7) == 0) return "vorbis";
  return "";
}

// --format, else the input's own format as its bytes say when loom can write it with --bits: WAV, FLAC,
// AIFF, MP3, Ogg/Vorbis and Ogg/Opus stay what they are; everything else (AAC, M4A, AU, Matroska, MP4,
// Ogg/FLAC, unreadable files) becomes WAV.
std::string output_format(const AudioArgs& args, const fs::path& input) {
  if (!args.format.empty()) return args.format;
  std::string format = "wav";
  switch (sniff_file(input)) {
    case Format::kWav: format = "wav"; break;
    case Format::kFlac: format = "flac"; break;
    case Format::kAiff: format = "aiff"; break;
    case Format::kMp3: format = "mp3"; break;
    case Format::kOgg: {
      const std::string codec = ogg_codec(input);
      format = codec == "opus" ? "opus" : codec == "vorbis" ? "ogg" : "wav";
      break;
    }
    default: break;
  }
  return holds_bits(format, args.bits) ? format : "wav";
}

// The encoding and width written for a PCM output (wav, aiff, flac): --bits, else the input's own
// (float stays 32-bit float, 16/24/32-bit integers keep their width), else 16-bit integers. FLAC holds
// at most 24-bit integers: wider or float inputs become 24-bit.
void choose_encoding(const std::string& format, const std::string& bits, const audio::AudioInfo& in,
                     audio::SaveOptions& out) {
  std::string b = bits;
  if (b.empty()) {
    if (in.encoding == "PCM_F") {
      b = "f32";
    } else if (in.bits_per_sample == 16 || in.bits_per_sample == 24 || in.bits_per_sample == 32) {
      b = std::to_string(in.bits_per_sample);
    } else {
      b = "16";  // 8-bit, u-law, A-law, ADPCM, lossy codecs
    }
    if (format == "flac" && (b == "32" || b == "f32")) b = "24";
  }
  out.encoding = b == "f32" ? "PCM_F" : "PCM_S";
  out.bits_per_sample = b == "f32" ? 32 : std::stoi(b);
}

// The channel and rate steps, in the order the `sox` CLI adds them for `-c N -r R`: fewer channels
// first, then the rate, then more channels. Empty when nothing changes.
audio::EffectChain format_chain(int64_t in_channels, int in_rate, int channels, int rate) {
  audio::EffectChain chain;
  const bool fewer = channels > 0 && channels < in_channels;
  const bool more = channels > 0 && channels > in_channels;
  if (fewer) chain.push_back({"channels", {std::to_string(channels)}});
  if (rate > 0 && rate != in_rate) chain.push_back({"rate", {"-h", std::to_string(rate)}});
  if (more) chain.push_back({"channels", {std::to_string(channels)}});
  return chain;
}

// Refuses, before anything is decoded, an output that --rate and --channels make larger than
// Limits::max_bytes as float32 samples (the size after --effects is checked by the effect chain itself,
// from the length libsox carries through the effects).
void check_output_size(const AudioArgs& args, const audio::AudioInfo& in, const fs::path& input) {
  if (!args.effects.empty() || in.num_frames <= 0 || in.sample_rate <= 0) return;
  const uint64_t max_bytes = Limits{}.max_bytes;
  const double rate_ratio = args.rate > 0 ? static_cast<double>(args.rate) / in.sample_rate : 1.0;
  const double frames = std::ceil(static_cast<double>(in.num_frames) * rate_ratio);
  const int64_t channels = args.channels > 0 ? args.channels : in.channels;
  const double bytes = frames * static_cast<double>(channels) * sizeof(float);
  if (max_bytes != 0 && bytes > static_cast<double>(max_bytes)) {
    throw Error(ErrorCode::kLimitExceeded, input.string(),
                fmt::format("output of {:.0f} frames of {} channels ({:.0f} bytes) exceeds the limit of {} bytes",
                            frames, channels, bytes, max_bytes));
  }
}

// Converts one file; returns the input bytes read. Throws loom::Error.
uint64_t convert_audio(const AudioArgs& args, const audio::EffectChain& effects, const BatchJob& job) {
  // FFmpeg reads audio formats the sniffer does not know (CAF, W64, ...): bytes of no known format are
  // tried, and called "not an audio file" only when FFmpeg cannot read them either.
  const Format sniffed = sniff_file(job.input);
  if (media_kind(sniffed) == MediaKind::kImage) throw not_media_file(job.input, "audio", sniffed);
  audio::AudioInfo in;
  try {
    in = audio::info(job.input, {}, args.stream);
  } catch (const Error& e) {
    if (sniffed == Format::kUnknown && e.code() == ErrorCode::kInvalidInput) {
      throw not_media_file(job.input, "audio", sniffed);
    }
    throw;
  }
  const std::string format = format_named(kAudioFormats, job.output.extension().string());
  audio::SaveOptions save;
  save.format = format;
  save.overwrite = args.batch.overwrite;
  if (args.bit_rate > 0) save.bit_rate = args.bit_rate;
  if (!is_lossy(format)) choose_encoding(format, args.bits, in, save);

  // Without processing, integer samples are written as integers (a 16-bit WAV becomes a bit-identical
  // 16-bit FLAC, 24-bit samples widen exactly to 32); processing, float and lossy outputs use float32.
  const bool process = !effects.empty() || (args.rate > 0 && in.sample_rate != args.rate) ||
                       (args.channels > 0 && in.channels != args.channels) || save.encoding != "PCM_S";
  check_output_size(args, in, job.input);
  audio::LoadOptions load;
  load.normalize = process;
  load.stream_index = in.stream_index;
  audio::Audio a = audio::load(job.input, load);
  if (!process && (a.sample_rate != in.sample_rate || a.samples.size(0) != in.channels)) {
    load.normalize = true;  // the header did not tell the decoded layout: process after all
    a = audio::load(job.input, load);
  }
  Tensor samples = a.samples;
  int rate = a.sample_rate;
  if (!effects.empty()) {
    audio::EffectResult r = audio::apply_effects(samples, rate, effects);
    samples = r.samples;
    rate = r.sample_rate;
  }
  const audio::EffectChain chain = format_chain(samples.size(0), rate, args.channels, args.rate);
  if (!chain.empty()) {  // only when processing: the samples are float32
    audio::EffectResult r = audio::apply_effects(samples, rate, chain);
    samples = r.samples;
    rate = r.sample_rate;
  }
  create_output_folder(job.folder, job.output);
  audio::save(job.output, samples, rate, save);
  std::error_code ec;
  const uintmax_t size = fs::file_size(job.input, ec);
  return ec ? 0 : static_cast<uint64_t>(size);
}

// The effects of libsox 14.4 (`sox --help`), for "did you mean" only: libsox itself decides which
// names it knows.
constexpr std::string_view kSoxEffects[] = {
    "allpass",   "band",     "bandpass",  "bandreject",  "bass",     "bend",      "biquad",   "chorus",     "channels",
    "compand",   "contrast", "dcshift",   "deemph",      "delay",    "dither",    "divide",   "downsample", "earwax",
    "echo",      "echos",    "equalizer", "fade",        "fir",      "firfit",    "flanger",  "gain",       "highpass",
    "hilbert",   "ladspa",   "loudness",  "lowpass",     "mcompand", "noiseprof", "noisered", "norm",       "oops",
    "overdrive", "pad",      "phaser",    "pitch",       "rate",     "remix",     "repeat",   "reverb",     "reverse",
    "riaa",      "silence",  "sinc",      "spectrogram", "speed",    "splice",    "stat",     "stats",      "stretch",
    "swap",      "synth",    "tempo",     "treble",      "tremolo",  "trim",      "upsample", "vad",        "vol"};

// Refuses, while parsing, an effect chain that no file could run: a quote left open, an effect libsox
// does not know (with the closest known name) or arguments libsox rejects. The chain is set up once
// over 64 frames of silence and cut to one sample by a final "trim" (so that "pad 0 3600" costs
// nothing here); what depends on the input (a "remix" of channels it lacks) is left to each file.
// Throws CLI::ValidationError("--effects").
void check_effects(const std::string& text) {
  audio::EffectChain chain;
  try {
    chain = audio::parse_effects(text);
  } catch (const Error& e) {
    throw CLI::ValidationError("--effects", e.message());
  }
  if (chain.empty()) return;
  try {
    audio::EffectChain bounded = chain;
    bounded.push_back({"trim", {"0", "1s"}});  // one sample out: libsox stops pulling after it
    audio::apply_effects(Tensor::zeros({2, 64}, DType::kFloat32), 48000, bounded);
  } catch (const Error& e) {
    const std::string& m = e.message();
    const bool unknown = m.rfind("libsox has no effect named", 0) == 0 || m.rfind("empty effect name", 0) == 0;
    if (!unknown && m.rfind("libsox rejected the arguments", 0) != 0) return;  // a matter of the input
    std::string hint;
    for (const audio::Effect& effect : chain) {
      if (unknown && std::find(std::begin(kSoxEffects), std::end(kSoxEffects), effect.name) == std::end(kSoxEffects)) {
        hint = did_you_mean(effect.name, kSoxEffects);
        break;
      }
    }
    throw CLI::ValidationError("--effects", e.what() + hint);
  }
}

// With -o naming a file, its extension is the format; --format (if given) must agree with it.
void check_output_file(AudioArgs& args) {
  args.output_is_file = output_names_file(args.inputs, args.outdir, format_extensions(kAudioFormats));
  if (!args.output_is_file) return;
  const std::string format = format_named(kAudioFormats, fs::path(args.outdir).extension().string());
  if (!args.format.empty() && args.format != format) {
    throw CLI::ValidationError(
        "--format", fmt::format("--format {} contradicts the output file {} ({})", args.format, args.outdir, format));
  }
  args.format = format;
}

// Rejects combinations that no file could be written with, while parsing.
void check_args(const AudioArgs& args) {
  if (!args.bits.empty() && !args.format.empty() && !holds_bits(args.format, args.bits)) {
    throw CLI::ValidationError(
        "--bits", is_lossy(args.format) ? fmt::format("{} output is lossy and takes no --bits", args.format)
                                        : fmt::format("FLAC holds 16 or 24-bit integers, not --bits {}", args.bits));
  }
  if (args.bit_rate > 0 && args.format != "mp3" && args.format != "opus" && args.format != "m4a") {
    throw CLI::ValidationError("--bit-rate", "--bit-rate needs --format mp3, opus or m4a");
  }
  if (args.format == "opus" && args.rate > 0 && !opus_rate(args.rate)) {
    throw CLI::ValidationError("--rate",
                               fmt::format("Opus takes 8000, 12000, 16000, 24000 or 48000 Hz, not {}", args.rate));
  }
  check_effects(args.effects);
}

int run_audio(const AudioArgs& args) {
  const audio::EffectChain effects = audio::parse_effects(args.effects);
  BatchPlanRequest request;
  request.inputs = args.inputs;
  request.output = args.outdir;
  request.output_is_file = args.output_is_file;
  request.extensions = scan_extensions(args.ext, audio_extensions());
  request.output_extension = [&](const fs::path& input) { return "." + output_format(args, input); };
  std::vector<InputError> input_errors;
  const std::vector<BatchJob> jobs = plan_batch(request, input_errors);
  return run_batch(select_part(jobs, shard_split(args.shards)), input_errors, args.batch,
                   [&](const BatchJob& job) { return convert_audio(args, effects, job); });
}

}  // namespace

Command add_audio_command(CLI::App& app) {
  auto args = std::make_shared<AudioArgs>();
  CLI::App* cmd = app.add_subcommand(
      "audio", "Convert audio files (files, or folders recursively): effects, sample rate, channels, format");
  cmd->add_option("INPUT", args->inputs, "Audio files or folders")->required();
  cmd->add_option("-o,--output", args->outdir,
                  "Output folder; the tree below each folder given is mirrored (out.flac, out.wav, ... with one "
                  "input file: that file)")
      ->required();
  add_ext_flag(*cmd, args->ext);
  cmd->add_option("--format", args->format,
                  "Output format: wav, flac, aiff (aif), mp3, ogg (Vorbis), opus or m4a (default: the input's when "
                  "loom writes it, else wav)")
      ->transform(format_check(kAudioFormats));
  cmd->add_option("--bit-rate", args->bit_rate,
                  "Bit rate in bits per second of mp3, opus or m4a (AAC) output (default: the encoder's)")
      ->check(CLI::Range(int64_t{1}, int64_t{100'000'000}));
  cmd->add_option("--bits", args->bits,
                  "Sample format of wav/aiff/flac output: 16, 24, 32 (integers) or f32 (default: the input's)")
      ->check(CLI::IsMember({"16", "24", "32", "f32"}));
  cmd->add_option("--rate", args->rate, "Output sample rate in Hz (SoX rate, high quality; default: the input's)")
      ->check(CLI::Range(1, Limits{}.max_sample_rate));
  cmd->add_option("--channels", args->channels,
                  "Output channels (SoX channels: fewer are averaged, more repeat the input's; default: the input's)")
      ->check(CLI::Range(1, Limits{}.max_audio_channels));
  cmd->add_option("--stream", args->stream,
                  "Audio stream to read, by its index in the file as ffprobe numbers them (default: FFmpeg's best "
                  "audio stream, as TorchCodec)")
      ->check(CLI::Range(0, Limits{}.max_streams - 1));
  cmd->add_option("--effects", args->effects,
                  "SoX effect chain run before --rate and --channels, e.g. \"gain -3; lowpass 4000\"");
  add_batch_flags(*cmd, args->batch);
  add_run_flags(*cmd, args->batch);
  add_shard_flags(*cmd, args->shards, "input files");
  cmd->callback([args] {  // reject bad values while parsing, before any file is touched
    check_output_file(*args);
    check_args(*args);
    check_run_flags(args->batch);
    shard_split(args->shards);
  });
  return {cmd, [args] { return run_audio(*args); }};
}

}  // namespace loom::cli
