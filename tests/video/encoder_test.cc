// VideoEncoder: round trips read back by PyAV and ffprobe (tests/reference/video_encode.py), options,
// errors and atomicity.
#include "loom/video/encoder.h"

#include <gtest/gtest.h>
#include <signal.h>
#include <sys/resource.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cmath>
#include <cstring>
#include <filesystem>
#include <random>
#include <string>

#include "loom/codec/atomic_file.h"
#include "loom/codec/byte_source.h"
#include "python_reference.h"
#include "test_media.h"

namespace loom::video {
namespace {

using test::error_of;
using test::read_bytes;
using test::TempDir;

// Smooth moving colour pattern, NHWC [n, h, w, 3].
Tensor smooth_frames(int n, int h, int w) {
  Tensor t = Tensor::empty({n, h, w, 3}, DType::kUInt8);
  uint8_t* p = t.data<uint8_t>();
  for (int i = 0; i < n; ++i) {
    for (int y = 0; y < h; ++y) {
      for (int x = 0; x < w; ++x) {
        const double u = static_cast<double>(x) / w, v = static_cast<double>(y) / h;
        uint8_t* px = p + ((static_cast<int64_t>(i) * h + y) * w + x) * 3;
        px[0] = static_cast<uint8_t>(128 + 90 * std::sin(6.283 * u + 0.2 * i));
        px[1] = static_cast<uint8_t>(128 + 90 * std::cos(6.283 * v + 0.1 * i));
        px[2] = static_cast<uint8_t>(128 + 90 * std::sin(3.14 * (u + v) - 0.15 * i));
      }
    }
  }
  return t;
}

Tensor noise_frames(int n, int h, int w, unsigned seed = 1) {
  Tensor t = Tensor::empty({n, h, w, 3}, DType::kUInt8);
  std::mt19937 rng(seed);
  uint8_t* p = t.data<uint8_t>();
  for (int64_t i = 0; i < t.numel(); ++i) p[i] = static_cast<uint8_t>(rng() >> 24);
  return t;
}

// NHWC -> a contiguous NCHW copy.
Tensor to_nchw(const Tensor& nhwc) {
  return nhwc.permute({0, 3, 1, 2}).contiguous();
}

struct Readback {
  int64_t frames = 0, width = 0, height = 0;
  double avg_fps = 0, r_fps = 0;
  int avg_num = 0, avg_den = 0;
  std::string codec, pix_fmt, color_space, color_transfer, color_primaries, color_range, format, audio_codec;
  bool has_audio = false;
  double sample_rate = 0, channels = 0, audio_duration = 0, decoded_samples = -1;
  Tensor rgb;      // [N, H, W, 3] when decoded
  Tensor samples;  // [C, N] when decoded
};

Readback read_back(const std::filesystem::path& file, bool decode, const std::string& src_colorspace = "",
                   bool decode_audio = false) {
  const std::string params = "{\"file\": \"" + file.string() + "\", \"decode\": " + (decode ? "true" : "false") +
                             ", \"decode_audio\": " + (decode_audio ? "true" : "false") + ", \"src_colorspace\": " +
                             (src_colorspace.empty() ? "null" : "\"" + src_colorspace + "\"") + "}";
  test::TensorMap out = test::run_python_reference("video_encode.py", {}, params);
  Readback r;
  if (out.count("video") == 0) {
    ADD_FAILURE() << "no read-back for " << file;
    return r;
  }
  const int64_t* v = out["video"].data<int64_t>();
  r.frames = v[0];
  r.width = v[1];
  r.height = v[2];
  r.avg_num = static_cast<int>(v[3]);
  r.avg_den = static_cast<int>(v[4]);
  r.avg_fps = v[4] ? static_cast<double>(v[3]) / static_cast<double>(v[4]) : 0;
  r.r_fps = v[6] ? static_cast<double>(v[5]) / static_cast<double>(v[6]) : 0;
  const Tensor& tags = out["tags"];
  std::string all(reinterpret_cast<const char*>(tags.data()), static_cast<size_t>(tags.numel()));
  std::vector<std::string> parts;
  for (size_t start = 0;;) {
    const size_t bar = all.find('|', start);
    parts.push_back(all.substr(start, bar - start));
    if (bar == std::string::npos) break;
    start = bar + 1;
  }
  EXPECT_EQ(parts.size(), 8u) << all;
  parts.resize(8);
  r.codec = parts[0], r.pix_fmt = parts[1], r.color_space = parts[2], r.color_transfer = parts[3];
  r.color_primaries = parts[4], r.color_range = parts[5], r.format = parts[6];
  r.audio_codec = parts[7];
  if (out.count("audio")) {
    const double* a = out["audio"].data<double>();
    r.has_audio = true;
    r.sample_rate = a[0], r.channels = a[1], r.audio_duration = a[2], r.decoded_samples = a[3];
  }
  if (out.count("frames")) r.rgb = out["frames"];
  if (out.count("samples")) r.samples = out["samples"];
  return r;
}

double psnr(const Tensor& a, const Tensor& b) {
  EXPECT_EQ(a.numel(), b.numel());
  if (a.numel() != b.numel() || a.numel() == 0) return 0;
  const uint8_t* p = a.data<uint8_t>();
  const uint8_t* q = b.data<uint8_t>();
  double se = 0;
  for (int64_t i = 0; i < a.numel(); ++i) se += (p[i] - q[i]) * (p[i] - q[i]);
  const double mse = se / static_cast<double>(a.numel());
  return mse == 0 ? 99.0 : 10 * std::log10(255.0 * 255.0 / mse);
}

bool equal_bytes(const Tensor& a, const Tensor& b) {
  return a.numel() == b.numel() && std::memcmp(a.data(), b.data(), a.nbytes()) == 0;
}

// Hidden temporary files the encoder left in `dir`.
int leftover_temps(const std::filesystem::path& dir) {
  int n = 0;
  for (const auto& e : std::filesystem::directory_iterator(dir))
    n += e.path().filename().string().find(".loom-") != std::string::npos;
  return n;
}

EncoderOptions nhwc(EncoderOptions o = {}) {
  o.dimension_order = Layout::kHWC;
  return o;
}

// ---- Lossless ----

// FFmpeg 5.1's ffv1 takes 8-bit RGB as bgr0 (its planar gbrp starts at 9 bits); libx264rgb with qp 0
// is lossless too.
TEST(EncoderLossless, RgbRoundTripIsBitExact) {
  TempDir dir;
  const Tensor frames = noise_frames(6, 48, 64);
  struct Case {
    const char* codec;
    const char* pix;
    const char* expect_codec;
  };
  for (const Case& c :
       {Case{"ffv1", "bgr0", "ffv1"}, Case{"libx264rgb", "rgb24", "h264"}, Case{"libx264rgb", "bgr0", "h264"}}) {
    SCOPED_TRACE(std::string(c.codec) + " " + c.pix);
    EncoderOptions o = nhwc();
    o.codec = c.codec;
    o.pixel_format = c.pix;
    if (std::string(c.codec) == "libx264rgb") o.codec_options = {{"qp", "0"}, {"preset", "ultrafast"}};
    const auto path = dir / (std::string(c.codec) + "_" + c.pix + ".mkv");
    encode_video(path, frames, 25, o);
    const Readback r = read_back(path, true);
    EXPECT_EQ(r.codec, c.expect_codec);
    EXPECT_EQ(r.frames, 6);
    ASSERT_TRUE(r.rgb.defined());
    ASSERT_EQ(r.rgb.numel(), frames.numel());
    EXPECT_TRUE(equal_bytes(r.rgb, frames)) << "PSNR " << psnr(r.rgb, frames);
    EXPECT_EQ(r.color_space, "gbr");
    EXPECT_EQ(r.color_transfer, "iec61966-2-1");
    EXPECT_EQ(r.color_primaries, "bt709");
    EXPECT_EQ(r.color_range, "pc");
  }
}

TEST(EncoderLossless, NchwInputAndBatchesGiveTheSameFrames) {
  TempDir dir;
  const Tensor frames = noise_frames(5, 32, 40, 7);
  EncoderOptions o;
  o.codec = "ffv1";
  o.pixel_format = "bgr0";
  VideoEncoder e = VideoEncoder::open(dir / "a.mkv", 40, 32, o);
  const Tensor nchw = to_nchw(frames);
  e.write(nchw.slice(0, 0, 2));
  e.write(nchw.slice(0, 2, 5));
  EXPECT_EQ(e.frames_written(), 5);
  e.close();
  const Readback r = read_back(dir / "a.mkv", true);
  EXPECT_EQ(r.frames, 5);
  EXPECT_TRUE(equal_bytes(r.rgb, frames));
}

// ---- Lossy codecs: count, size, rate, quality ----

struct LossyCase {
  const char* file;
  const char* codec;
  const char* expect_codec;  // ffprobe's codec_name
  int crf;
  const char* preset;
  double fps;
  int num, den;  // fps as a rational
  double min_psnr;
  bool colour_tags = true;  // AVI + MPEG-4 part 2 carry none (decoders assume BT.601 for SD)
};

void PrintTo(const LossyCase& c, std::ostream* os) {
  *os << c.file << " (" << c.codec << ")";
}

class EncoderLossy : public testing::TestWithParam<LossyCase> {};

TEST_P(EncoderLossy, DecodesBackWithCountSizeRateAndQuality) {
  const LossyCase& c = GetParam();
  TempDir dir;
  const int n = 12, h = 96, w = 128;
  const Tensor frames = smooth_frames(n, h, w);
  EncoderOptions o;
  o.codec = c.codec;
  o.crf = c.crf;
  o.preset = c.preset;
  o.fps = c.fps;
  VideoEncoder e = VideoEncoder::open(dir / c.file, w, h, o);
  EXPECT_EQ(e.fps_num(), c.num);
  EXPECT_EQ(e.fps_den(), c.den);
  e.write(to_nchw(frames));
  e.close();
  const Readback r = read_back(dir / c.file, true);
  EXPECT_EQ(r.codec, c.expect_codec);
  EXPECT_EQ(r.frames, n);
  EXPECT_EQ(r.width, w);
  EXPECT_EQ(r.height, h);
  EXPECT_EQ(r.pix_fmt, "yuv420p");
  EXPECT_NEAR(r.avg_fps, c.fps, 0.01);
  EXPECT_NEAR(r.r_fps, c.fps, 0.01);
  // SD: BT.601 (SMPTE 170M), limited range.
  if (c.colour_tags) {
    EXPECT_EQ(r.color_space, "smpte170m");
    EXPECT_EQ(r.color_transfer, "smpte170m");
    EXPECT_EQ(r.color_primaries, "smpte170m");
    EXPECT_EQ(r.color_range, "tv");
  }
  ASSERT_TRUE(r.rgb.defined());
  const double p = psnr(r.rgb, frames);
  EXPECT_GT(p, c.min_psnr);
  std::printf("%s %s crf %d: %.2f dB, %lld bytes\n", c.file, c.codec, c.crf, p,
              static_cast<long long>(std::filesystem::file_size(dir / c.file)));
}

INSTANTIATE_TEST_SUITE_P(Encoder, EncoderLossy,
                         testing::Values(LossyCase{"h264.mp4", "libx264", "h264", 18, "fast", 30000.0 / 1001, 30000,
                                                   1001, 35},
                                         LossyCase{"h264.mkv", "h264", "h264", 18, "", 29.97, 30000, 1001, 35},
                                         LossyCase{"mpeg4.avi", "mpeg4", "mpeg4", 2, "", 25, 25, 1, 30, false},
                                         LossyCase{"vp9.webm", "libvpx-vp9", "vp9", 20, "8", 24, 24, 1, 33},
                                         LossyCase{"svt.mkv", "libsvtav1", "av1", 20, "12", 25, 25, 1, 33},
                                         LossyCase{"aom.mkv", "libaom-av1", "av1", 20, "8", 25, 25, 1, 33},
                                         LossyCase{"rav1e.mp4", "librav1e", "av1", 60, "10", 12.5, 25, 2, 33},
                                         LossyCase{"x264.mov", "", "h264", 18, "", 23.976, 24000, 1001, 35}),
                         [](const testing::TestParamInfo<LossyCase>& info) {
                           std::string name = info.param.file;
                           for (char& ch : name) ch = std::isalnum(static_cast<unsigned char>(ch)) ? ch : '_';
                           return name;
                         });

TEST(EncoderSettings, Av1PicksAnAvailableEncoder) {
  TempDir dir;
  EncoderOptions o = nhwc();
  o.codec = "av1";
  o.preset = "12";
  VideoEncoder e = VideoEncoder::open(dir / "a.mkv", 64, 64, o);
  EXPECT_EQ(e.codec_name(), "libsvtav1");
  e.write(smooth_frames(2, 64, 64));
  e.close();
  EXPECT_EQ(read_back(dir / "a.mkv", false).codec, "av1");
}

TEST(EncoderSettings, CrfAndPresetChangeTheSize) {
  TempDir dir;
  const Tensor frames = noise_frames(6, 64, 96, 3);
  auto size_with = [&](int crf, const std::string& preset, const std::string& name) {
    EncoderOptions o = nhwc();
    o.crf = crf;
    o.preset = preset;
    encode_video(dir / name, frames, 30, o);
    return std::filesystem::file_size(dir / name);
  };
  const auto fine = size_with(10, "medium", "fine.mp4");
  const auto coarse = size_with(40, "medium", "coarse.mp4");
  EXPECT_GT(fine, 2 * coarse);
  const auto fast = size_with(23, "ultrafast", "fast.mp4");
  const auto slow = size_with(23, "slower", "slow.mp4");
  EXPECT_NE(fast, slow);
  EXPECT_GT(fast, slow);
}

TEST(EncoderSettings, NchwAndNhwcGiveIdenticalFiles) {
  TempDir dir;
  const Tensor frames = smooth_frames(8, 48, 64);
  for (const char* file : {"a.mp4", "a.mkv", "a.webm"}) {
    SCOPED_TRACE(file);
    EncoderOptions o;
    o.num_threads = 1;
    if (std::string(file) == "a.mkv") {
      o.codec = "ffv1";
    } else {
      o.crf = 20;
    }
    // x264's AVX-512 code gives different bytes from one encoder instance to the next in one process
    // (seen with x264 0.164 on FFmpeg 5.1); its AVX2 code does not.
    if (std::string(file) == "a.mp4") o.codec_options = {{"x264-params", "asm=avx2"}};
    encode_video(dir / ("nchw_" + std::string(file)), to_nchw(frames), 30, o);
    encode_video(dir / ("nhwc_" + std::string(file)), frames, 30, nhwc(o));
    // A strided NCHW view (permuted, not contiguous) goes through the same path.
    encode_video(dir / ("view_" + std::string(file)), frames.permute({0, 3, 1, 2}), 30, o);
    const auto a = read_bytes(dir / ("nchw_" + std::string(file)));
    EXPECT_GT(a.size(), 1000u);
    EXPECT_EQ(a, read_bytes(dir / ("nhwc_" + std::string(file))));
    EXPECT_EQ(a, read_bytes(dir / ("view_" + std::string(file))));
  }
}

TEST(EncoderSettings, HdFramesUseBt709) {
  TempDir dir;
  const Tensor frames = smooth_frames(2, 720, 1280);
  EncoderOptions o = nhwc();
  o.preset = "ultrafast";
  o.crf = 12;
  encode_video(dir / "hd.mp4", frames, 30, o);
  const Readback r709 = read_back(dir / "hd.mp4", true, "ITU709");
  EXPECT_EQ(r709.color_space, "bt709");
  EXPECT_EQ(r709.color_transfer, "bt709");
  EXPECT_EQ(r709.color_primaries, "bt709");
  EXPECT_EQ(r709.color_range, "tv");
  // The pixels really use the BT.709 matrix: decoding them as BT.601 is much worse.
  const Readback r601 = read_back(dir / "hd.mp4", true, "ITU601");
  const double good = psnr(r709.rgb, frames), bad = psnr(r601.rgb, frames);
  EXPECT_GT(good, 38);
  EXPECT_GT(good, bad + 5) << good << " vs " << bad;
}

TEST(EncoderSettings, CodecOptionsReachTheEncoder) {
  TempDir dir;
  const Tensor frames = smooth_frames(4, 32, 32);
  EncoderOptions o = nhwc();
  o.codec_options = {{"qp", "0"}, {"preset", "ultrafast"}};  // x264 lossless in 4:4:4
  o.pixel_format = "yuv444p";
  encode_video(dir / "q.mkv", frames, 10, o);
  o.codec_options = {{"qp", "51"}, {"preset", "ultrafast"}};
  encode_video(dir / "r.mkv", frames, 10, o);
  EXPECT_GT(std::filesystem::file_size(dir / "q.mkv"), 2 * std::filesystem::file_size(dir / "r.mkv"));
  EXPECT_EQ(read_back(dir / "q.mkv", false).pix_fmt, "yuv444p");
}

TEST(EncoderSettings, OddSizesWorkWithoutChromaSubsampling) {
  TempDir dir;
  const Tensor frames = noise_frames(3, 33, 45);
  EncoderOptions o = nhwc();
  o.codec = "ffv1";
  o.pixel_format = "bgr0";
  encode_video(dir / "odd.mkv", frames, 30, o);
  const Readback r = read_back(dir / "odd.mkv", true);
  EXPECT_EQ(r.width, 45);
  EXPECT_EQ(r.height, 33);
  EXPECT_TRUE(equal_bytes(r.rgb, frames));
}

// ---- Audio ----

Tensor tone(int channels, int64_t n, int rate) {
  Tensor t = Tensor::empty({channels, n}, DType::kFloat32);
  float* p = t.data<float>();
  for (int c = 0; c < channels; ++c) {
    for (int64_t i = 0; i < n; ++i) p[c * n + i] = 0.5f * std::sin(6.2831853f * (220.0f * (c + 1)) * i / rate);
  }
  return t;
}

struct AudioCase {
  const char* file;
  const char* codec;         // "" = container default
  const char* expect_codec;  // ffprobe's codec_name
  int rate, channels, expect_rate;
  // Extra decoded samples allowed: PyAV keeps the AAC priming frame and MP3-in-AVI encoder delay and
  // padding (ffprobe's duration above is the trimmed one).
  int slack = 0;
};

void PrintTo(const AudioCase& c, std::ostream* os) {
  *os << c.file << " at " << c.rate << " Hz";
}

class EncoderAudio : public testing::TestWithParam<AudioCase> {};

TEST_P(EncoderAudio, TrackHasRateChannelsAndDuration) {
  const AudioCase& c = GetParam();
  TempDir dir;
  const int fps = 25, n = 25;  // 1 s of video
  AudioTrack a;
  a.samples = tone(c.channels, c.rate, c.rate);  // 1 s of audio
  a.sample_rate = c.rate;
  a.codec = c.codec;
  encode_video(dir / c.file, smooth_frames(n, 48, 64), fps, nhwc(), a);
  const Readback r = read_back(dir / c.file, false, "", true);
  ASSERT_TRUE(r.has_audio);
  EXPECT_EQ(r.sample_rate, c.expect_rate);
  EXPECT_EQ(r.channels, c.channels);
  EXPECT_NEAR(r.audio_duration, 1.0, 0.05);
  EXPECT_GE(r.decoded_samples, c.expect_rate - 0.01 * c.expect_rate);
  EXPECT_LE(r.decoded_samples, c.expect_rate + 0.01 * c.expect_rate + c.slack);
  EXPECT_EQ(r.audio_codec, c.expect_codec);
  EXPECT_EQ(r.frames, n);
}

INSTANTIATE_TEST_SUITE_P(Encoder, EncoderAudio,
                         testing::Values(AudioCase{"aac.mp4", "", "aac", 44100, 2, 44100, 2 * 1024},
                                         AudioCase{"opus.webm", "", "opus", 44100, 1, 48000},
                                         AudioCase{"flac.mkv", "", "flac", 48000, 2, 48000},
                                         AudioCase{"mp3.avi", "", "mp3", 44100, 2, 44100, 2 * 1152},
                                         AudioCase{"aac.mov", "aac", "aac", 22050, 1, 22050, 2 * 1024}),
                         [](const testing::TestParamInfo<AudioCase>& info) {
                           std::string name = info.param.file;
                           for (char& ch : name) ch = std::isalnum(static_cast<unsigned char>(ch)) ? ch : '_';
                           return name;
                         });

TEST(EncoderAudioFlac, SamplesSurviveWithin24BitPrecision) {
  TempDir dir;
  AudioTrack a;
  a.samples = tone(2, 30000, 48000);
  a.sample_rate = 48000;
  EncoderOptions o = nhwc();
  o.codec = "ffv1";
  encode_video(dir / "a.mkv", smooth_frames(10, 32, 32), 10, o, a);
  const Readback r = read_back(dir / "a.mkv", false, "", true);
  ASSERT_TRUE(r.samples.defined());
  ASSERT_EQ(r.samples.size(0), 2);
  ASSERT_EQ(r.samples.size(1), 30000);
  const float* p = a.samples.data<float>();
  const float* q = r.samples.data<float>();
  float worst = 0;
  for (int64_t i = 0; i < a.samples.numel(); ++i) worst = std::max(worst, std::fabs(p[i] - q[i]));
  EXPECT_LT(worst, 1e-6f);
}

// ---- Errors ----

TEST(EncoderErrors, OddWidthWithYuv420p) {
  TempDir dir;
  const Error e = error_of([&] { VideoEncoder::open(dir / "a.mp4", 65, 48); });
  EXPECT_EQ(e.code(), ErrorCode::kInvalidInput);
  EXPECT_NE(e.message().find("multiple of 2"), std::string::npos) << e.what();
  EXPECT_EQ(error_of([&] { VideoEncoder::open(dir / "a.mp4", 64, 47); }).code(), ErrorCode::kInvalidInput);
  EXPECT_TRUE(std::filesystem::is_empty(dir.path()));
}

TEST(EncoderErrors, BadFrameBatches) {
  TempDir dir;
  VideoEncoder e = VideoEncoder::open(dir / "a.mp4", 64, 48);
  EXPECT_EQ(error_of([&] {
              e.write(Tensor::zeros({1, 3, 48, 64}, DType::kFloat32));
            }).code(),
            ErrorCode::kInvalidInput);
  EXPECT_EQ(error_of([&] { e.write(Tensor::zeros({3, 48, 64}, DType::kUInt8)); }).code(), ErrorCode::kInvalidInput);
  EXPECT_EQ(error_of([&] { e.write(Tensor::zeros({1, 4, 48, 64}, DType::kUInt8)); }).code(), ErrorCode::kInvalidInput);
  EXPECT_EQ(error_of([&] { e.write(Tensor::zeros({1, 48, 64, 3}, DType::kUInt8)); }).code(), ErrorCode::kInvalidInput);
  const Error size = error_of([&] { e.write(Tensor::zeros({1, 3, 50, 64}, DType::kUInt8)); });
  EXPECT_EQ(size.code(), ErrorCode::kInvalidInput);
  EXPECT_NE(size.message().find("64x50"), std::string::npos) << size.what();
  EXPECT_EQ(error_of([&] { e.write(Tensor()); }).code(), ErrorCode::kInvalidInput);
  // The encoder is still usable after a rejected batch.
  e.write(to_nchw(smooth_frames(3, 48, 64)));
  e.write(Tensor::zeros({0, 3, 48, 64}, DType::kUInt8));
  e.close();
  EXPECT_EQ(read_back(dir / "a.mp4", false).frames, 3);
}

TEST(EncoderErrors, UnknownCodecExtensionAndCombinations) {
  TempDir dir;
  EncoderOptions o;
  o.codec = "no_such_encoder";
  const Error codec = error_of([&] { VideoEncoder::open(dir / "a.mp4", 64, 48, o); });
  EXPECT_EQ(codec.code(), ErrorCode::kUnsupported);
  EXPECT_NE(codec.message().find("no_such_encoder"), std::string::npos);
  const Error ext = error_of([&] { VideoEncoder::open(dir / "a.xyz", 64, 48); });
  EXPECT_EQ(ext.code(), ErrorCode::kUnsupported);
  EXPECT_NE(ext.message().find(".xyz"), std::string::npos);
  EXPECT_EQ(error_of([&] { VideoEncoder::open(dir / "noext", 64, 48); }).code(), ErrorCode::kUnsupported);
  o.codec = "ffv1";  // WebM holds VP8/VP9/AV1 only
  EXPECT_EQ(error_of([&] { VideoEncoder::open(dir / "a.webm", 64, 48, o); }).code(), ErrorCode::kUnsupported);
  o.codec = "aac";  // an audio encoder as video codec
  EXPECT_EQ(error_of([&] { VideoEncoder::open(dir / "a.mp4", 64, 48, o); }).code(), ErrorCode::kInvalidInput);
  o = {};
  o.pixel_format = "rgb24";  // libx264 takes no packed RGB
  EXPECT_EQ(error_of([&] { VideoEncoder::open(dir / "a.mp4", 64, 48, o); }).code(), ErrorCode::kUnsupported);
  o.pixel_format = "nonsense";
  EXPECT_EQ(error_of([&] { VideoEncoder::open(dir / "a.mp4", 64, 48, o); }).code(), ErrorCode::kInvalidInput);
  o = {};
  o.codec = "ffv1";
  o.crf = 10;  // lossless: no quality control
  EXPECT_EQ(error_of([&] { VideoEncoder::open(dir / "a.mkv", 64, 48, o); }).code(), ErrorCode::kUnsupported);
  o = {};
  o.codec_options = {{"no_such_option", "1"}};
  const Error opt = error_of([&] { VideoEncoder::open(dir / "a.mp4", 64, 48, o); });
  EXPECT_EQ(opt.code(), ErrorCode::kInvalidInput);
  EXPECT_NE(opt.message().find("no_such_option"), std::string::npos);
  o = {};
  o.preset = "warp-speed";
  EXPECT_EQ(error_of([&] { VideoEncoder::open(dir / "a.mp4", 64, 48, o); }).code(), ErrorCode::kInvalidInput);
  o = {};
  o.fps = 0;
  EXPECT_EQ(error_of([&] { VideoEncoder::open(dir / "a.mp4", 64, 48, o); }).code(), ErrorCode::kInvalidInput);
  o.fps = std::nan("");
  EXPECT_EQ(error_of([&] { VideoEncoder::open(dir / "a.mp4", 64, 48, o); }).code(), ErrorCode::kInvalidInput);
  EXPECT_EQ(error_of([&] { VideoEncoder::open(dir / "a.mp4", 0, 48); }).code(), ErrorCode::kInvalidInput);
  AudioTrack a;
  a.samples = Tensor::zeros({2, 100}, DType::kInt16);
  a.sample_rate = 48000;
  EXPECT_EQ(error_of([&] { VideoEncoder::open(dir / "a.mp4", 64, 48, {}, a); }).code(), ErrorCode::kInvalidInput);
  a.samples = Tensor::zeros({2, 100}, DType::kFloat32);
  a.sample_rate = 0;
  EXPECT_EQ(error_of([&] { VideoEncoder::open(dir / "a.mp4", 64, 48, {}, a); }).code(), ErrorCode::kInvalidInput);
  a.sample_rate = 48000;
  a.codec = "aac";  // WebM holds Vorbis and Opus only
  EXPECT_EQ(error_of([&] { VideoEncoder::open(dir / "a.webm", 64, 48, {}, a); }).code(), ErrorCode::kUnsupported);
  const Error folder = error_of([&] { VideoEncoder::open(dir / "missing" / "a.mp4", 64, 48); });
  EXPECT_EQ(folder.code(), ErrorCode::kIo);
  std::filesystem::create_directory(dir / "d.mp4");
  EXPECT_EQ(error_of([&] { VideoEncoder::open(dir / "d.mp4", 64, 48); }).code(), ErrorCode::kIo);
  std::filesystem::remove(dir / "d.mp4");
  EXPECT_TRUE(std::filesystem::is_empty(dir.path()));
}

TEST(EncoderErrors, WriteAfterClose) {
  TempDir dir;
  VideoEncoder e = VideoEncoder::open(dir / "a.webm", 64, 48, nhwc());
  e.write(smooth_frames(2, 48, 64));
  e.close();
  e.close();  // a second close does nothing
  const Error err = error_of([&] { e.write(smooth_frames(1, 48, 64)); });
  EXPECT_EQ(err.code(), ErrorCode::kInvalidInput);
  EXPECT_NE(err.message().find("after close"), std::string::npos);
  EXPECT_EQ(read_back(dir / "a.webm", false).frames, 2);
}

// ---- Atomicity ----

TEST(EncoderAtomic, NothingWithoutClose) {
  TempDir dir;
  {
    VideoEncoder e = VideoEncoder::open(dir / "a.mp4", 64, 48, nhwc());
    e.write(smooth_frames(3, 48, 64));
    EXPECT_EQ(leftover_temps(dir.path()), 1);  // the hidden temporary file while encoding
    EXPECT_FALSE(std::filesystem::exists(dir / "a.mp4"));
  }
  EXPECT_TRUE(std::filesystem::is_empty(dir.path()));
}

TEST(EncoderAtomic, ExistingFileUntouchedUntilClose) {
  TempDir dir;
  test::write_bytes(dir / "a.mkv", {'o', 'l', 'd'});
  {
    VideoEncoder e = VideoEncoder::open(dir / "a.mkv", 64, 48, nhwc());
    e.write(smooth_frames(3, 48, 64));
  }
  EXPECT_EQ(read_bytes(dir / "a.mkv"), (std::vector<uint8_t>{'o', 'l', 'd'}));
  EncoderOptions bad = nhwc();
  bad.codec_options = {{"no_such_option", "1"}};
  EXPECT_THROW(VideoEncoder::open(dir / "a.mkv", 64, 48, bad), Error);
  EXPECT_EQ(read_bytes(dir / "a.mkv"), (std::vector<uint8_t>{'o', 'l', 'd'}));
  VideoEncoder e = VideoEncoder::open(dir / "a.mkv", 64, 48, nhwc());
  e.write(smooth_frames(3, 48, 64));
  e.close();
  EXPECT_EQ(read_back(dir / "a.mkv", false).frames, 3);
  EXPECT_EQ(leftover_temps(dir.path()), 0);
}

// overwrite = false (AtomicFile::create(path, false)): an existing file is refused by open() and kept;
// a new path is written as usual.
TEST(EncoderAtomic, NoOverwriteRefusesAnExistingFile) {
  TempDir dir;
  test::write_bytes(dir / "a.mp4", {'o', 'l', 'd'});
  EncoderOptions o = nhwc();
  o.overwrite = false;
  const Error err = error_of([&] { VideoEncoder::open(dir / "a.mp4", 64, 48, o); });
  EXPECT_EQ(err.code(), ErrorCode::kIo) << err.what();
  EXPECT_EQ(err.input(), (dir / "a.mp4").string());
  EXPECT_EQ(read_bytes(dir / "a.mp4"), (std::vector<uint8_t>{'o', 'l', 'd'}));
  VideoEncoder e = VideoEncoder::open(dir / "b.mp4", 64, 48, o);
  e.write(smooth_frames(2, 48, 64));
  e.close();
  EXPECT_EQ(read_back(dir / "b.mp4", false).frames, 2);
  EXPECT_EQ(leftover_temps(dir.path()), 0);
}

TEST(EncoderAtomic, DiskFullLeavesNothingAndTheOldFile) {
  TempDir dir;
  test::write_bytes(dir / "a.mkv", {'o', 'l', 'd'});
  // Files may grow to 64 KiB only: the lossless noise video below needs ~500 KiB.
  signal(SIGXFSZ, SIG_IGN);
  rlimit old{};
  getrlimit(RLIMIT_FSIZE, &old);
  rlimit small = old;
  small.rlim_cur = 64 * 1024;
  ASSERT_EQ(setrlimit(RLIMIT_FSIZE, &small), 0);
  EncoderOptions o = nhwc();
  o.codec = "ffv1";
  o.pixel_format = "bgr0";
  const Error e = error_of([&] {
    VideoEncoder enc = VideoEncoder::open(dir / "a.mkv", 128, 96, o);
    enc.write(noise_frames(15, 96, 128));
    enc.close();
  });
  setrlimit(RLIMIT_FSIZE, &old);
  signal(SIGXFSZ, SIG_DFL);
  EXPECT_EQ(e.code(), ErrorCode::kIo) << e.what();
  EXPECT_EQ(read_bytes(dir / "a.mkv"), (std::vector<uint8_t>{'o', 'l', 'd'}));
  EXPECT_EQ(leftover_temps(dir.path()), 0);
}

TEST(EncoderAtomic, PendingFilesRegistryRemovesTheTemporary) {
  TempDir dir;
  VideoEncoder e = VideoEncoder::open(dir / "a.mp4", 64, 48, nhwc());
  e.write(smooth_frames(2, 48, 64));
  ASSERT_EQ(leftover_temps(dir.path()), 1);
  // What a fatal signal's handler calls. It closes the registry for good, so it runs in a forked child;
  // the temporary it removes is the parent's file.
  const pid_t child = fork();
  if (child == 0) {
    remove_pending_files();
    _exit(0);
  }
  int status = 1;
  ASSERT_EQ(waitpid(child, &status, 0), child);
  ASSERT_EQ(status, 0);
  EXPECT_EQ(leftover_temps(dir.path()), 0);
  EXPECT_EQ(error_of([&] { e.close(); }).code(), ErrorCode::kIo);
  EXPECT_TRUE(std::filesystem::is_empty(dir.path()));
}

}  // namespace
}  // namespace loom::video
