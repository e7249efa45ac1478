// Color, dtype and blur ops against torchvision.transforms.functional on tensors (Debian's torch 1.13 +
// torchvision 0.14, through tests/reference/color_tv.py): uint8 within 1, float32 within 1e-5,
// normalize within 1e-6 relative; on random images and a real photo. Also: HWC and strided inputs give
// the CHW result, and argument errors (of the transform objects' constructors too).
#include "loom/transforms/color.h"

#include <fmt/format.h>
#include <gtest/gtest.h>

#include <cmath>
#include <functional>
#include <iostream>
#include <random>

#include "color_test_util.h"
#include "loom/codec/error.h"
#include "loom/transforms/color_transforms.h"
#include "loom/vision/image.h"
#include "python_reference.h"
#include "test_media.h"

namespace loom::transforms {
namespace {

using color_test::chw;
using color_test::compare;
using color_test::Diff;
using color_test::hwc;
using color_test::random_image;
using color_test::same_shape;

struct Case {
  std::string name, op_json, input;
  std::function<Tensor(const Tensor&, Layout)> fn;
  double tolerance;  // absolute; for normalize relative to max(|want|, 1)
};

class ColorParity : public ::testing::Test {
 protected:
  static void SetUpTestSuite() {
    inputs_ = new test::TensorMap;
    auto& in = *inputs_;
    in["u8"] = random_image(3, 37, 53, DType::kUInt8, 1);
    in["f32"] = random_image(3, 37, 53, DType::kFloat32, 2);
    in["g8"] = random_image(1, 29, 31, DType::kUInt8, 3);
    in["gf"] = random_image(1, 29, 31, DType::kFloat32, 4);
    in["real"] = vision::read_image(test::media("images/jpeg/hopper.jpg"));
    in["realf"] = to_dtype(in["real"], DType::kFloat32);
    cases_ = new std::vector<Case>;
    auto add = [](std::string name, std::string json, std::string input, auto fn, double tol) {
      cases_->push_back({name, json, input, fn, tol});
    };
    for (std::string x : {"u8", "f32", "real", "realf"}) {
      const bool u8 = x == "u8" || x == "real";
      const double tol = u8 ? 1.0 : 1e-5;
      for (double f : {0.0, 0.5, 1.7}) {
        add(
            x + "_brightness_" + std::to_string(f), R"("op": "adjust_brightness", "factor": )" + std::to_string(f), x,
            [f](const Tensor& t, Layout l) { return adjust_brightness(t, f, l); }, tol);
      }
      for (double f : {0.0, 0.3, 1.8}) {
        add(
            x + "_contrast_" + std::to_string(f), R"("op": "adjust_contrast", "factor": )" + std::to_string(f), x,
            [f](const Tensor& t, Layout l) { return adjust_contrast(t, f, l); }, tol);
      }
      for (double f : {0.0, 0.4, 2.5}) {
        add(
            x + "_saturation_" + std::to_string(f), R"("op": "adjust_saturation", "factor": )" + std::to_string(f), x,
            [f](const Tensor& t, Layout l) { return adjust_saturation(t, f, l); }, tol);
      }
      for (double f : {-0.5, -0.3, 0.0, 0.1, 0.45}) {
        for (std::string op : {"adjust_hue", "hue_v2"}) {
          add(
              x + "_" + op + "_" + std::to_string(f), R"("op": ")" + op + R"(", "factor": )" + std::to_string(f), x,
              [f](const Tensor& t, Layout l) { return adjust_hue(t, f, l); }, tol);
        }
      }
      for (auto [g, k] : {std::pair{0.5, 1.0}, {2.2, 0.8}, {1.0, 1.3}}) {
        add(
            x + "_gamma_" + std::to_string(g) + "_" + std::to_string(k),
            R"("op": "adjust_gamma", "gamma": )" + std::to_string(g) + R"(, "gain": )" + std::to_string(k), x,
            [g, k](const Tensor& t, Layout l) { return adjust_gamma(t, g, k, l); }, tol);
      }
      for (int n : {1, 3}) {
        add(
            x + "_gray_" + std::to_string(n), R"("op": "rgb_to_grayscale", "channels": )" + std::to_string(n), x,
            [n](const Tensor& t, Layout l) { return rgb_to_grayscale(t, n, l); }, tol);
      }
      for (auto [kx, ky, sx, sy] :
           {std::tuple{3, 3, 1.0, 1.0}, {5, 9, 0.8, 2.5}, {1, 7, 1.0, 1.5}, {11, 3, 3.0, 0.5}}) {
        add(
            x + "_blur_" + std::to_string(kx) + "x" + std::to_string(ky),
            fmt::format(R"("op": "gaussian_blur", "kernel": [{}, {}], "sigma": [{}, {}])", kx, ky, sx, sy), x,
            [=](const Tensor& t, Layout l) {
              return gaussian_blur(t, {kx, ky}, {sx, sy}, l);
            },
            tol);
      }
      add(
          x + "_normalize", R"("op": "normalize", "mean": [0.485, 0.456, 0.406], "std": [0.229, 0.224, 0.225])", x,
          [](const Tensor& t, Layout l) {
            return normalize(t, {0.485f, 0.456f, 0.406f}, {0.229f, 0.224f, 0.225f}, {l, l});
          },
          1e-6);
      add(
          x + "_to_f64", R"("op": "to_dtype", "dtype": "float64")", x,
          [](const Tensor& t, Layout l) { return to_dtype(t, DType::kFloat64, true, l); }, 1e-12);
      add(
          x + (u8 ? "_to_f32" : "_to_u8"),
          std::string(R"("op": "to_dtype", "dtype": ")") + (u8 ? "float32" : "uint8") + "\"", x,
          [u8](const Tensor& t, Layout l) { return to_dtype(t, u8 ? DType::kFloat32 : DType::kUInt8, true, l); },
          u8 ? 1e-7 : 0.0);  // v2 multiplies by float(1/255), 0.14 divides by 255: 1 ulp apart
    }
    for (std::string x : {"g8", "gf"}) {
      const double tol = x == "g8" ? 1.0 : 1e-5;
      add(
          x + "_brightness", R"("op": "adjust_brightness", "factor": 1.4)", x,
          [](const Tensor& t, Layout l) { return adjust_brightness(t, 1.4, l); }, tol);
      add(
          x + "_contrast", R"("op": "adjust_contrast", "factor": 0.6)", x,
          [](const Tensor& t, Layout l) { return adjust_contrast(t, 0.6, l); }, tol);
      add(
          x + "_saturation", R"("op": "adjust_saturation", "factor": 0.6)", x,
          [](const Tensor& t, Layout l) { return adjust_saturation(t, 0.6, l); }, 0.0);
      add(
          x + "_hue", R"("op": "adjust_hue", "factor": 0.2)", x,
          [](const Tensor& t, Layout l) { return adjust_hue(t, 0.2, l); }, 0.0);
      add(
          x + "_gray3", R"("op": "rgb_to_grayscale", "channels": 3)", x,
          [](const Tensor& t, Layout l) { return rgb_to_grayscale(t, 3, l); }, 0.0);
      add(
          x + "_blur", R"("op": "gaussian_blur", "kernel": [7, 5], "sigma": [1.2, 0.7])", x,
          [](const Tensor& t, Layout l) {
            return gaussian_blur(t, {7, 5}, {1.2, 0.7}, l);
          },
          tol);
      add(
          x + "_normalize", R"("op": "normalize", "mean": [0.5], "std": [0.25])", x,
          [](const Tensor& t, Layout l) {
            return normalize(t, {0.5f}, {0.25f}, {l, l});
          },
          1e-6);
    }
    std::string json = R"({"ops": [)";
    for (size_t i = 0; i < cases_->size(); ++i) {
      const Case& c = (*cases_)[i];
      json += fmt::format(R"({}{{"name": "{}", "input": "{}", {}}})", i ? ", " : "", c.name, c.input, c.op_json);
    }
    json += "]}";
    outputs_ = new test::TensorMap(test::run_python_reference("color_tv.py", *inputs_, json));
  }
  static void TearDownTestSuite() {
    delete inputs_;
    delete cases_;
    delete outputs_;
  }
  static test::TensorMap* inputs_;
  static std::vector<Case>* cases_;
  static test::TensorMap* outputs_;
};
test::TensorMap* ColorParity::inputs_ = nullptr;
std::vector<Case>* ColorParity::cases_ = nullptr;
test::TensorMap* ColorParity::outputs_ = nullptr;

TEST_F(ColorParity, EveryOpMatchesTorchvision) {
  ASSERT_EQ(outputs_->size(), cases_->size());
  for (const Case& c : *cases_) {
    SCOPED_TRACE(c.name);
    const Tensor& input = inputs_->at(c.input);
    const Tensor got = c.fn(input, Layout::kCHW);
    Tensor want = outputs_->at(c.name);
    if (c.name.ends_with("_gray3") && want.size(0) == 1) {
      // torchvision 0.14 returns 1 channel for a 1-channel input with num_output_channels=3 (v2 repeats
      // it, as loom does): every output channel must equal it.
      for (int k = 1; k < 3; ++k) EXPECT_EQ(compare(got.slice(0, k, k + 1), got.slice(0, 0, 1)).max_abs, 0.0);
      want = want.slice(0, 0, 1);
      ASSERT_EQ(compare(got.slice(0, 0, 1), want).max_abs, 0.0);
      continue;
    }
    ASSERT_TRUE(same_shape(got, want));
    ASSERT_EQ(got.dtype(), want.dtype());
    const Diff d = compare(got, want);
    std::cout << "[parity] " << c.name << " max_abs " << d.max_abs << " max_rel " << d.max_rel << " mismatches "
              << d.mismatches << "/" << got.numel() << "\n";
    if (c.name.ends_with("_normalize")) {
      EXPECT_LE(d.max_rel, c.tolerance);
    } else {
      EXPECT_LE(d.max_abs, c.tolerance);
    }
    // torchvision 0.14's uint8 adjust_hue truncates x * 255 where v2 (and loom) truncate x * 255.999:
    // about a third of the samples differ by 1 from 0.14; the hue_v2 cases hold loom to v2's formulas.
    const bool v1_hue = got.dtype() == DType::kUInt8 && c.op_json.find("\"adjust_hue\"") != std::string::npos;
    if (got.dtype() == DType::kUInt8 && c.tolerance > 0 && !v1_hue) {
      EXPECT_LE(d.mismatches, got.numel() / 50) << "off-by-one on more than 2% of the samples";
    }
  }
}

TEST_F(ColorParity, HwcAndStridedInputsGiveTheChwResult) {
  for (const Case& c : *cases_) {
    SCOPED_TRACE(c.name);
    const Tensor& input = inputs_->at(c.input);
    const Tensor want = c.fn(input, Layout::kCHW);
    const Tensor from_hwc = c.fn(hwc(input), Layout::kHWC);
    EXPECT_EQ(compare(chw(from_hwc), want).max_abs, 0.0);
    // A CHW view with a column step of 2 over a wider buffer.
    const Tensor wide = Tensor::zeros({input.size(0), input.size(1), 2 * input.size(2)}, input.dtype());
    const Tensor strided = wide.slice(2, 0, wide.size(2), 2);
    strided.copy_from(input);
    ASSERT_FALSE(strided.is_contiguous());
    EXPECT_EQ(compare(c.fn(strided, Layout::kCHW), want).max_abs, 0.0);
  }
}

TEST(ColorOps, NormalizeChangesLayoutInOnePass) {
  const Tensor image = random_image(3, 17, 23, DType::kUInt8, 9);
  const std::vector<float> mean{0.1f, 0.5f, 0.9f}, std{0.2f, 0.3f, 0.4f};
  const Tensor want = normalize(image, mean, std);
  for (Layout in : {Layout::kCHW, Layout::kHWC}) {
    for (Layout out : {Layout::kCHW, Layout::kHWC}) {
      const Tensor src = in == Layout::kHWC ? hwc(image) : image;
      Tensor got = normalize(src, mean, std, {in, out});
      if (out == Layout::kHWC) got = chw(got);
      EXPECT_EQ(compare(got, want).max_abs, 0.0);
    }
  }
  // Hand-computed element: ((x * float(1/255)) - mean) / std.
  const float x = image.data<uint8_t>()[17 * 23 + 5];
  EXPECT_EQ(want.data<float>()[17 * 23 + 5], (x * static_cast<float>(1.0 / 255.0) - 0.5f) / 0.3f);
}

TEST(ColorOps, NormalizeIntoWritesTheSameValuesIntoAGivenSlot) {
  const Tensor image = random_image(3, 17, 23, DType::kUInt8, 4);
  const std::vector<float> mean{0.1f, 0.5f, 0.9f}, std{0.2f, 0.3f, 0.4f};
  const Tensor batch = Tensor::zeros({2, 3, 17, 23}, DType::kFloat32);
  normalize_into(hwc(image), batch.select(0, 1), mean, std, {Layout::kHWC, Layout::kCHW});
  EXPECT_EQ(compare(batch.select(0, 1), normalize(image, mean, std)).max_abs, 0.0);
  EXPECT_EQ(compare(batch.select(0, 0), Tensor::zeros({3, 17, 23}, DType::kFloat32)).max_abs, 0.0);  // untouched
  auto code = [&](const Tensor& out) { return test::error_code_of([&] { normalize_into(image, out, mean, std); }); };
  EXPECT_EQ(code(Tensor::empty({3, 17, 22}, DType::kFloat32)), ErrorCode::kInvalidInput);                     // shape
  EXPECT_EQ(code(Tensor::empty({3, 17, 23}, DType::kUInt8)), ErrorCode::kInvalidInput);                       // dtype
  EXPECT_EQ(code(Tensor::empty({3, 23, 17}, DType::kFloat32).permute({0, 2, 1})), ErrorCode::kInvalidInput);  // strided
  EXPECT_EQ(code(Tensor()), ErrorCode::kInvalidInput);
}

TEST(ColorOps, ToDtypeIntegerAndFloatConversions) {
  Tensor u8 = Tensor::empty({1, 1, 4}, DType::kUInt8);
  const uint8_t v[4] = {0, 1, 128, 255};
  std::copy(v, v + 4, u8.data<uint8_t>());
  const Tensor u16 = to_dtype(u8, DType::kUInt16);
  EXPECT_EQ(u16.data<uint16_t>()[2], 128 * 256);
  EXPECT_EQ(u16.data<uint16_t>()[3], 255 * 256);
  const Tensor back = to_dtype(u16, DType::kUInt8);
  EXPECT_EQ(compare(back, u8).max_abs, 0.0);
  const Tensor f = to_dtype(u16, DType::kFloat32);
  EXPECT_FLOAT_EQ(f.data<float>()[3], 255.0f * 256.0f / 65535.0f);
  // float -> uint8 maps [0, 1] onto 256 equal bins, clamping what is outside.
  Tensor fl = Tensor::empty({1, 1, 5}, DType::kFloat32);
  const float fv[5] = {-0.5f, 0.0f, 0.5f, 0.999f, 1.5f};
  std::copy(fv, fv + 5, fl.data<float>());
  const Tensor q = to_dtype(fl, DType::kUInt8);
  const uint8_t want[5] = {0, 0, 127, 255, 255};
  for (int i = 0; i < 5; ++i) EXPECT_EQ(q.data<uint8_t>()[i], want[i]) << i;
  const Tensor plain = to_dtype(fl, DType::kUInt8, /*scale=*/false);
  EXPECT_EQ(plain.data<uint8_t>()[4], 1);  // 1.5 truncated
}

TEST(ColorErrors, BadArgumentsThrowInvalidInput) {
  const Tensor rgb = random_image(3, 8, 8, DType::kUInt8, 5);
  const Tensor four = random_image(4, 8, 8, DType::kUInt8, 5);
  auto code = [](auto&& fn) {
    try {
      fn();
    } catch (const Error& e) {
      return e.code();
    }
    return ErrorCode::kInternal;
  };
  EXPECT_EQ(code([&] { adjust_brightness(four, 1.0); }), ErrorCode::kInvalidInput);
  EXPECT_EQ(code([&] { adjust_brightness(rgb, -0.1); }), ErrorCode::kInvalidInput);
  EXPECT_EQ(code([&] { adjust_contrast(rgb.select(0, 0), 1.0); }), ErrorCode::kInvalidInput);
  EXPECT_EQ(code([&] { adjust_hue(rgb, 0.6); }), ErrorCode::kInvalidInput);
  EXPECT_EQ(code([&] { adjust_saturation(four, 1.0); }), ErrorCode::kInvalidInput);
  EXPECT_EQ(code([&] { rgb_to_grayscale(rgb, 2); }), ErrorCode::kInvalidInput);
  EXPECT_EQ(code([&] { gaussian_blur(rgb, {4, 3}, {1.0, 1.0}); }), ErrorCode::kInvalidInput);
  EXPECT_EQ(code([&] { gaussian_blur(rgb, {3, 3}, {0.0, 1.0}); }), ErrorCode::kInvalidInput);
  EXPECT_EQ(code([&] { gaussian_blur(rgb, {17, 3}, {1.0, 1.0}); }), ErrorCode::kInvalidInput);  // pad 8 >= width 8
  EXPECT_EQ(code([&] { normalize(rgb, {0.5f, 0.5f}, {0.5f}); }), ErrorCode::kInvalidInput);
  EXPECT_EQ(code([&] { normalize(rgb, {0.5f}, {0.5f, 0.0f, 0.5f}); }), ErrorCode::kInvalidInput);
  EXPECT_EQ(code([&] { adjust_gamma(rgb, -1.0); }), ErrorCode::kInvalidInput);
  EXPECT_EQ(code([&] { adjust_brightness(Tensor::zeros({3, 4, 4}, DType::kInt16), 1.0); }), ErrorCode::kUnsupported);
  EXPECT_EQ(code([&] { to_dtype(rgb, DType::kInt32); }), ErrorCode::kUnsupported);
  EXPECT_EQ(code([&] { ColorJitter(-0.1); }), ErrorCode::kInvalidInput);
  EXPECT_EQ(code([&] { ColorJitter(0, 0, 0, 0.6); }), ErrorCode::kInvalidInput);
  EXPECT_EQ(code([&] { GaussianBlur({3, 2}); }), ErrorCode::kInvalidInput);
  EXPECT_EQ(code([&] { GaussianBlur({3, 3}, {2.0, 1.0}); }), ErrorCode::kInvalidInput);
  EXPECT_EQ(code([&] { RandomGrayscale(1.5); }), ErrorCode::kInvalidInput);
  EXPECT_EQ(code([&] { Normalize({0.5f}, {0.0f}); }), ErrorCode::kInvalidInput);
}

}  // namespace
}  // namespace loom::transforms
