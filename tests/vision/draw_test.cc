// Drawing utilities: pixel parity with torchvision.utils (0.14 on Pillow 9.4 from Debian; rotated boxes
// with torchvision 0.23+ when /work/venv-tv has it), label text checked analytically, bad input.
#include "loom/vision/draw.h"

#include <fmt/format.h>
#include <gtest/gtest.h>

#include <cmath>
#include <filesystem>
#include <random>
#include <string>
#include <thread>
#include <vector>

#include "image_test_util.h"
#include "loom/codec/error.h"
#include "python_reference.h"
#include "test_media.h"

namespace loom::test {
namespace {

using vision::Color;

// A C x H x W uint8 image with varied pixels (so that blends and copies are visible).
Tensor chw_image(int channels, int height, int width) {
  return make_image(height, width, channels).permute({2, 0, 1}).contiguous();
}

// `fg` over `bg` at opacity alpha/255, rounded to nearest (what Pillow's blend computes).
uint8_t blend(int alpha, int bg, int fg) {
  return static_cast<uint8_t>(std::lround((bg * (255 - alpha) + fg * alpha) / 255.0));
}

uint8_t at(const Tensor& chw, int c, int64_t y, int64_t x) {
  return chw.data<uint8_t>()[(c * chw.size(1) + y) * chw.size(2) + x];
}

// The interpreter with torchvision >= 0.23 for rotated boxes, else Debian's (the script then draws
// rotated boxes as torchvision 0.23 does, with Pillow directly).
std::string rotated_interpreter() {
  const char* venv = "/work/venv-tv/bin/python";
  if (std::filesystem::exists(venv) &&
      std::system((std::string(venv) + " -c 'import torchvision' >/dev/null 2>&1").c_str()) == 0) {
    return venv;
  }
  return "/usr/bin/python3";
}

std::string colors_json(const std::vector<Color>& colors) {
  if (colors.empty()) return "null";
  std::string s = "[";
  for (const Color& c : colors)
    s += "[" + std::to_string(c[0]) + "," + std::to_string(c[1]) + "," + std::to_string(c[2]) + "],";
  s.back() = ']';
  return s;
}

// Exact comparison with a report of how many samples differ.
void expect_same(const Tensor& ours, const Tensor& theirs, const std::string& what) {
  ASSERT_TRUE(theirs.defined()) << what;
  ASSERT_EQ(ours.ndim(), theirs.ndim()) << what;
  for (int d = 0; d < ours.ndim(); ++d) ASSERT_EQ(ours.size(d), theirs.size(d)) << what;
  const Tensor a = ours.contiguous(), b = theirs.contiguous();
  int64_t differ = 0;
  std::string where;  // the first differing samples as (channel, y, x): ours vs theirs
  for (int64_t i = 0; i < a.numel(); ++i) {
    const uint8_t u = a.data<uint8_t>()[i], v = b.data<uint8_t>()[i];
    if (u == v) continue;
    if (++differ <= 6 && a.ndim() == 3) {
      const int64_t hw = a.size(1) * a.size(2);
      where += " (" + std::to_string(i / hw) + ", " + std::to_string(i % hw / a.size(2)) + ", " +
               std::to_string(i % a.size(2)) + "): " + std::to_string(u) + " vs " + std::to_string(v);
    }
  }
  EXPECT_EQ(differ, 0) << what << ": " << differ << " of " << a.numel() << " samples differ, max difference "
                       << max_diff(a, b) << ";" << where;
}

Tensor float_tensor(const std::vector<float>& values, std::initializer_list<int64_t> shape) {
  Tensor t = Tensor::empty(shape, DType::kFloat32);
  std::copy(values.begin(), values.end(), t.data<float>());
  return t;
}

// Random boxes in and around a w x h image, float32 with fractions (truncated by both sides).
Tensor random_boxes(std::mt19937& rng, int n, int w, int h) {
  std::uniform_real_distribution<float> x(-15.0f, w + 15.0f), y(-15.0f, h + 15.0f);
  std::vector<float> v;
  for (int i = 0; i < n; ++i) {
    float x1 = x(rng), x2 = x(rng), y1 = y(rng), y2 = y(rng);
    if (x1 > x2) std::swap(x1, x2);
    if (y1 > y2) std::swap(y1, y2);
    v.insert(v.end(), {x1, y1, x2, y2});
  }
  return float_tensor(v, {n, 4});
}

// Random rotated rectangles (four corners in order), some crossing the border.
Tensor random_rotated(std::mt19937& rng, int n, int w, int h) {
  std::uniform_real_distribution<double> cx(-5, w + 5), cy(-5, h + 5), side(3, 30), angle(0, 3.14159);
  std::vector<float> v;
  for (int i = 0; i < n; ++i) {
    const double x = cx(rng), y = cy(rng), a = side(rng) / 2, b = side(rng) / 2, t = angle(rng);
    const double ux = std::cos(t), uy = std::sin(t);
    for (const auto& [sa, sb] : {std::pair{-1, -1}, {1, -1}, {1, 1}, {-1, 1}}) {
      v.push_back(static_cast<float>(x + sa * a * ux - sb * b * uy));
      v.push_back(static_cast<float>(y + sa * a * uy + sb * b * ux));
    }
  }
  return float_tensor(v, {n, 8});
}

TEST(DrawBoxes, PaletteIsTorchvisions) {
  const std::vector<Color> p = vision::generate_color_palette(3);
  ASSERT_EQ(p.size(), 3u);
  EXPECT_EQ(p[0], (Color{0, 0, 0}));
  // (2^25 - 1) % 255 = 1, (2^15 - 1) % 255 = 127, (2^21 - 1) % 255 = 31.
  EXPECT_EQ(p[1], (Color{1, 127, 31}));
  EXPECT_EQ(p[2], (Color{2, 254, 62}));
}

// Parity cases for one reference script, run in one Python process (importing torch dominates the time):
// case i passes <input>_<i>.npy and its parameters, and compares loom's result with out_<output>_<i>.npy.
class ReferenceBatch {
 public:
  ReferenceBatch(std::string script, std::string input, std::string output)
      : script_(std::move(script)), input_(std::move(input)), output_(std::move(output)) {}
  void shared(const std::string& name, const Tensor& t) { inputs_[name] = t; }
  void add(const Tensor& input, const std::string& params, const Tensor& ours, const std::string& what) {
    inputs_[input_ + "_" + std::to_string(cases_.size())] = input;
    cases_.push_back({params, ours, what});
  }
  void check(const std::string& interpreter = "/usr/bin/python3") {
    std::string json = "{\"cases\": [";
    for (const Case& c : cases_) json += c.params + ",";
    json.back() = ']';
    json += "}";
    const TensorMap ref = run_python_reference(script_, inputs_, json, interpreter);
    for (size_t i = 0; i < cases_.size(); ++i) {
      const auto it = ref.find(output_ + "_" + std::to_string(i));
      ASSERT_NE(it, ref.end()) << script_ << " wrote no result for " << cases_[i].what;
      expect_same(cases_[i].ours, it->second, cases_[i].what);
    }
  }

 private:
  struct Case {
    std::string params;
    Tensor ours;
    std::string what;
  };
  std::string script_, input_, output_;
  TensorMap inputs_;
  std::vector<Case> cases_;
};

std::string box_params(const vision::BoxDrawOptions& opt) {
  return "{\"colors\": " + colors_json(opt.colors) + ", \"fill\": " + (opt.fill ? "true" : "false") +
         ", \"width\": " + std::to_string(opt.width) + "}";
}

TEST(DrawBoxes, OutlinesAndFillsMatchTorchvision) {
  std::mt19937 rng(7);
  const Tensor image = chw_image(3, 61, 83);
  ReferenceBatch batch("draw_boxes.py", "boxes", "image");
  batch.shared("image", image);
  for (bool fill : {false, true}) {
    for (int width : {1, 2, 3, 5, 0}) {
      for (bool palette : {false, true}) {
        const Tensor boxes = random_boxes(rng, 9, 83, 61);
        vision::BoxDrawOptions opt;
        opt.width = width;
        opt.fill = fill;
        if (!palette)
          opt.colors = {{255, 0, 0},   {0, 200, 30},  {10, 20, 250},   {240, 10, 157}, {1, 2, 3},
                        {255, 255, 0}, {0, 255, 255}, {128, 128, 128}, {255, 255, 255}};
        batch.add(boxes, box_params(opt), vision::draw_bounding_boxes(image, boxes, opt),
                  "fill " + std::to_string(fill) + ", width " + std::to_string(width) + ", palette " +
                      std::to_string(palette));
      }
    }
  }
  // Integer boxes, and boxes of one pixel, one row and one column (Pillow draws thick outlines of thin
  // boxes partly outside them).
  Tensor ints = Tensor::empty({5, 4}, DType::kInt64);
  const int64_t values[] = {2, 3, 20, 30, -5, -5, 10, 10, 30, 1, 39, 39, 40, 40, 40, 40, 50, 10, 60, 10};
  std::copy(std::begin(values), std::end(values), ints.data<int64_t>());
  for (int width : {1, 3}) {
    vision::BoxDrawOptions opt;
    opt.width = width;
    batch.add(ints, box_params(opt), vision::draw_bounding_boxes(image, ints, opt), "integer boxes");
  }
  batch.check();
}

TEST(DrawBoxes, GrayImageMatchesTorchvision) {
  const Tensor gray = chw_image(1, 40, 40);
  const Tensor boxes = float_tensor({2, 3, 20, 30, -5, -5, 10, 10, 30.5f, 1, 39.9f, 39}, {3, 4});
  ReferenceBatch batch("draw_boxes.py", "boxes", "image");
  batch.shared("image", gray);
  vision::BoxDrawOptions opt;
  opt.colors = {{200, 100, 50}};
  opt.width = 2;
  const Tensor ours = vision::draw_bounding_boxes(gray, boxes, opt);
  ASSERT_EQ(ours.size(0), 3);
  opt.colors = {{200, 100, 50}, {200, 100, 50}, {200, 100, 50}};
  batch.add(boxes, box_params(opt), ours, "gray image");
  batch.check();
}

TEST(DrawBoxes, RotatedMatchTorchvision) {
  std::mt19937 rng(3);
  const Tensor image = chw_image(3, 64, 72);
  const std::string python = rotated_interpreter();
  ReferenceBatch batch("draw_boxes.py", "boxes", "image");
  batch.shared("image", image);
  for (bool fill : {false, true}) {
    for (int width : {1, 2, 3, 0}) {
      const Tensor boxes = random_rotated(rng, 6, 72, 64);
      vision::BoxDrawOptions opt;
      opt.width = width;
      opt.fill = fill;
      batch.add(boxes, box_params(opt), vision::draw_bounding_boxes(image, boxes, opt),
                python + ": rotated, fill " + std::to_string(fill) + ", width " + std::to_string(width));
    }
  }
  batch.check(python);
}

TEST(DrawBoxes, ClipsBoxesOutsideTheImage) {
  const Tensor image = chw_image(3, 20, 20);
  const Tensor boxes = float_tensor({-1e9f, -1e9f, 1e9f, 1e9f, 30, 30, 40, 40, -50, 5, -40, 8}, {3, 4});
  vision::BoxDrawOptions opt;
  opt.colors = {{255, 0, 0}};
  opt.fill = true;
  opt.width = 3;
  const Tensor out = vision::draw_bounding_boxes(image, boxes, opt);
  // The huge box's outline and the other boxes are outside: every pixel is the fill blended once.
  for (int64_t y = 0; y < 20; ++y)
    for (int64_t x = 0; x < 20; ++x)
      for (int c = 0; c < 3; ++c)
        ASSERT_EQ(at(out, c, y, x), blend(100, at(image, c, y, x), c == 0 ? 255 : 0)) << x << "," << y;
  const Tensor rotated = float_tensor({-1e9f, -1e9f, 1e9f, -1e9f, 1e9f, 1e9f, -1e9f, 1e9f}, {1, 8});
  EXPECT_NO_THROW(vision::draw_bounding_boxes(image, rotated, opt));
}

TEST(DrawKeypoints, MatchTorchvision) {
  std::mt19937 rng(5);
  const Tensor image = chw_image(3, 70, 90);
  std::uniform_real_distribution<float> x(-10.0f, 100.0f), y(-10.0f, 80.0f);
  ReferenceBatch batch("draw_keypoints.py", "keypoints", "image");
  batch.shared("image", image);
  for (const auto& [radius, width] : {std::pair{2, 3}, {1, 1}, {3, 2}, {5, 4}, {0, 5}, {4, 7}, {8, 1}, {6, 0}}) {
    std::vector<float> v;
    for (int i = 0; i < 3 * 5; ++i) v.insert(v.end(), {x(rng), y(rng)});
    const Tensor keypoints = float_tensor(v, {3, 5, 2});
    vision::KeypointDrawOptions opt;
    opt.connectivity = {{0, 1}, {1, 2}, {2, 3}, {3, 4}, {4, 0}, {1, 3}, {2, 2}};
    opt.color = {250, 30, 60};
    opt.radius = radius;
    opt.width = width;
    batch.add(keypoints,
              "{\"connectivity\": [[0,1],[1,2],[2,3],[3,4],[4,0],[1,3],[2,2]], \"color\": [250,30,60], \"radius\": " +
                  std::to_string(radius) + ", \"width\": " + std::to_string(width) + "}",
              vision::draw_keypoints(image, keypoints, opt),
              "radius " + std::to_string(radius) + ", width " + std::to_string(width));
  }
  batch.check();
}

TEST(DrawKeypoints, HiddenKeypointsAndTheirConnectionsAreNotDrawn) {
  const Tensor image = chw_image(3, 40, 40);
  const Tensor keypoints = float_tensor({5, 5, 30, 8, 20, 30, 10, 20, 35, 35, 2, 30}, {2, 3, 2});
  Tensor visibility = Tensor::zeros({2, 3}, DType::kUInt8);
  const uint8_t vis[] = {1, 0, 1, 1, 1, 1};
  std::copy(std::begin(vis), std::end(vis), visibility.data<uint8_t>());
  vision::KeypointDrawOptions opt;
  opt.connectivity = {{0, 1}, {1, 2}, {2, 0}};
  opt.color = {255, 0, 0};
  opt.line_color = {0, 0, 255};
  opt.visibility = visibility;
  const Tensor ours = vision::draw_keypoints(image, keypoints, opt);
  // The same as drawing instance 0 without keypoint 1 (and its two connections), then instance 1 whole.
  vision::KeypointDrawOptions first = opt;
  first.visibility = Tensor();
  first.connectivity = {{1, 0}};  // keypoints 0 and 2 of instance 0, re-indexed
  const Tensor expected =
      vision::draw_keypoints(vision::draw_keypoints(image, float_tensor({5, 5, 20, 30}, {1, 2, 2}), first),
                             float_tensor({10, 20, 35, 35, 2, 30}, {1, 3, 2}), [&] {
                               vision::KeypointDrawOptions second = opt;
                               second.visibility = Tensor();
                               return second;
                             }());
  expect_same(ours, expected, "visibility");
  // Keypoint 1 of instance 0 really is left out: its disc centre keeps the image's pixel.
  EXPECT_EQ(at(ours, 0, 8, 30), at(image, 0, 8, 30));
  EXPECT_EQ(at(ours, 0, 5, 3), 255);  // keypoint 0's disc, left of its blue connection
  EXPECT_EQ(at(ours, 2, 5, 3), 0);
}

TEST(DrawMasks, MatchTorchvision) {
  std::mt19937 rng(9);
  const Tensor image = chw_image(3, 33, 47);
  std::bernoulli_distribution coin(0.4);
  ReferenceBatch batch("draw_masks.py", "masks", "image");
  batch.shared("image", image);
  for (double alpha : {0.8, 0.5, 0.3, 1.0, 0.0, 0.123}) {
    for (bool palette : {false, true}) {
      Tensor masks = Tensor::empty({4, 33, 47}, DType::kUInt8);
      for (int64_t i = 0; i < masks.numel(); ++i) masks.data<uint8_t>()[i] = coin(rng);
      vision::MaskDrawOptions opt;
      opt.alpha = alpha;
      if (!palette) opt.colors = {{255, 0, 0}, {0, 255, 0}, {10, 20, 30}, {200, 201, 202}};
      batch.add(masks, "{\"alpha\": " + fmt::format("{}", alpha) + ", \"colors\": " + colors_json(opt.colors) + "}",
                vision::draw_segmentation_masks(image, masks, opt), "alpha " + std::to_string(alpha));
    }
  }
  // A single [H, W] mask.
  Tensor mask = Tensor::empty({33, 47}, DType::kUInt8);
  for (int64_t i = 0; i < mask.numel(); ++i) mask.data<uint8_t>()[i] = coin(rng);
  vision::MaskDrawOptions opt;
  opt.colors = {{9, 99, 199}};
  batch.add(mask, "{\"alpha\": 0.8, \"colors\": [[9,99,199]]}", vision::draw_segmentation_masks(image, mask, opt),
            "one mask");
  batch.check();
}

TEST(MakeGrid, MatchesTorchvision) {
  ReferenceBatch batch("draw_grid.py", "images", "grid");
  for (const auto& [count, nrow, padding] : {std::tuple{5, 2, 2}, {5, 8, 2}, {7, 3, 0}, {4, 4, 5}, {1, 8, 2}}) {
    for (int channels : {3, 1}) {
      const Tensor images = make_image(count * channels * 9, 11, 1).view({count, channels, 9, 11});
      vision::GridOptions opt;
      opt.nrow = nrow;
      opt.padding = padding;
      opt.pad_value = 200.7;
      const Tensor ours = vision::make_grid(images, opt);
      const std::string what = "count " + std::to_string(count) + ", nrow " + std::to_string(nrow) + ", channels " +
                               std::to_string(channels);
      batch.add(images,
                "{\"nrow\": " + std::to_string(nrow) + ", \"padding\": " + std::to_string(padding) +
                    ", \"pad_value\": 200.7}",
                ours, what);
      // The list form gives the same grid.
      std::vector<Tensor> list;
      for (int i = 0; i < count; ++i) list.push_back(images.select(0, i));
      expect_same(vision::make_grid(list, opt), ours, "list, " + what);
    }
  }
  batch.check();
}

TEST(MakeGrid, FloatImagesKeepTheirValues) {
  Tensor images = Tensor::empty({3, 1, 2, 2}, DType::kFloat32);
  for (int i = 0; i < 12; ++i) images.data<float>()[i] = 0.25f * i;
  vision::GridOptions opt;
  opt.nrow = 2;
  opt.padding = 1;
  opt.pad_value = 0.5;
  const Tensor grid = vision::make_grid(images, opt);
  ASSERT_EQ(grid.size(0), 3);
  ASSERT_EQ(grid.size(1), 2 * 3 + 1);
  ASSERT_EQ(grid.size(2), 2 * 3 + 1);
  const float* g = grid.data<float>();
  EXPECT_EQ(g[0], 0.5f);                    // padding
  EXPECT_EQ(g[1 * 7 + 1], 0.0f);            // image 0, (0, 0)
  EXPECT_EQ(g[2 * 7 + 5], 0.25f * 7);       // image 1, (1, 1)
  EXPECT_EQ(g[49 + 4 * 7 + 2], 0.25f * 9);  // channel 1 (repeated gray), image 2, (0, 1)
  EXPECT_EQ(g[49 + 4 * 7 + 5], 0.5f);       // the empty cell stays padding
}

// Labels: FreeType output is not Pillow's, so check where and how the text lands.
class DrawLabels : public ::testing::Test {
 protected:
  // A flat gray image, so that any changed pixel is drawing.
  static Tensor flat(int h, int w) {
    Tensor t = Tensor::empty({3, h, w}, DType::kUInt8);
    std::fill(t.data<uint8_t>(), t.data<uint8_t>() + t.numel(), 90);
    return t;
  }
  // Bounding box (x0, y0, x1, y1) of the pixels that differ from `base`; x0 > x1 when none.
  static std::array<int64_t, 4> changed(const Tensor& out, const Tensor& base) {
    std::array<int64_t, 4> box{INT64_MAX, INT64_MAX, -1, -1};
    for (int64_t y = 0; y < out.size(1); ++y)
      for (int64_t x = 0; x < out.size(2); ++x)
        for (int c = 0; c < 3; ++c)
          if (at(out, c, y, x) != at(base, c, y, x)) {
            box = {std::min(box[0], x), std::min(box[1], y), std::max(box[2], x), std::max(box[3], y)};
          }
    return box;
  }
};

TEST_F(DrawLabels, TextLandsInsideTheBoxCornerInItsColor) {
  const Tensor image = flat(80, 200);
  const Tensor boxes = float_tensor({20, 10, 190, 70}, {1, 4});
  vision::BoxDrawOptions opt;
  opt.colors = {{255, 0, 0}};
  opt.width = 2;
  opt.font_size = 20;
  const Tensor boxed = vision::draw_bounding_boxes(image, boxes, opt);
  opt.labels = {"Hello"};
  opt.label_colors = {{0, 255, 0}};
  const Tensor labelled = vision::draw_bounding_boxes(image, boxes, opt);
  const auto ink = changed(labelled, boxed);
  ASSERT_LE(ink[0], ink[2]) << "no text drawn";
  // Text starts at the box corner + width + 1 = (23, 13) and stays inside the box.
  EXPECT_GE(ink[0], 23);
  EXPECT_LE(ink[0], 26);
  EXPECT_GE(ink[1], 13);
  EXPECT_LT(ink[2], 188);
  EXPECT_LT(ink[3], 13 + 20 + 2);
  EXPECT_GT(ink[2] - ink[0], 30);  // five glyphs at 20 px
  // Text pixels are the label color blended over the background: no red, green up, blue down.
  int full = 0;
  for (int64_t y = ink[1]; y <= ink[3]; ++y)
    for (int64_t x = ink[0]; x <= ink[2]; ++x) {
      if (at(labelled, 0, y, x) == at(boxed, 0, y, x) && at(labelled, 1, y, x) == at(boxed, 1, y, x)) continue;
      EXPECT_LE(at(labelled, 0, y, x), 90);
      EXPECT_GE(at(labelled, 1, y, x), 90);
      full += at(labelled, 1, y, x) == 255 && at(labelled, 0, y, x) == 0;
    }
  EXPECT_GT(full, 20) << "fully covered text pixels";
}

TEST_F(DrawLabels, WiderTextGivesWiderInkAndFilledBackground) {
  const Tensor image = flat(60, 300);
  const Tensor boxes = float_tensor({10, 10, 290, 50}, {1, 4});
  vision::BoxDrawOptions opt;
  opt.colors = {{0, 0, 255}};
  const Tensor boxed = vision::draw_bounding_boxes(image, boxes, opt);
  opt.labels = {"cat"};
  const auto narrow = changed(vision::draw_bounding_boxes(image, boxes, opt), boxed);
  opt.labels = {"cat on a mat"};
  const auto wide = changed(vision::draw_bounding_boxes(image, boxes, opt), boxed);
  EXPECT_EQ(narrow[0], wide[0]);
  EXPECT_GT(wide[2], narrow[2] + 20);

  // fill_labels: an opaque background rectangle around the ink, text black by default.
  opt.fill_labels = true;
  opt.label_background_colors = {{255, 255, 0}};
  const Tensor filled = vision::draw_bounding_boxes(image, boxes, opt);
  const auto bg = changed(filled, boxed);
  EXPECT_EQ(bg[0], wide[0] - 1);
  EXPECT_EQ(bg[2], wide[2] + 1);
  EXPECT_EQ(at(filled, 0, bg[1], bg[0]), 255);  // background corner
  EXPECT_EQ(at(filled, 2, bg[1], bg[0]), 0);
  int black = 0;
  for (int64_t y = bg[1]; y <= bg[3]; ++y)
    for (int64_t x = bg[0]; x <= bg[2]; ++x) black += at(filled, 0, y, x) == 0 && at(filled, 1, y, x) == 0;
  EXPECT_GT(black, 10);
}

TEST_F(DrawLabels, LabelsAreClippedAtTheBorder) {
  const Tensor image = flat(20, 20);
  const Tensor boxes = float_tensor({10, 10, 19, 19, -30, -30, -25, -25}, {2, 4});
  vision::BoxDrawOptions opt;
  opt.labels = {"WWWWWWWW", "outside"};
  opt.font_size = 30;
  const Tensor out = vision::draw_bounding_boxes(image, boxes, opt);
  EXPECT_EQ(out.size(1), 20);
}

TEST_F(DrawLabels, MissingFontIsAnErrorNamingTheFile) {
  const Tensor image = flat(20, 20);
  const Tensor boxes = float_tensor({1, 1, 10, 10}, {1, 4});
  vision::BoxDrawOptions opt;
  opt.labels = {"a"};
  opt.font = "/nonexistent/NoSuchFont.ttf";
  const Error e = error_of([&] { vision::draw_bounding_boxes(image, boxes, opt); });
  EXPECT_EQ(e.code(), ErrorCode::kIo);
  EXPECT_NE(std::string(e.what()).find("NoSuchFont.ttf"), std::string::npos) << e.what();
  // A file that is not a font.
  TempDir dir;
  write_bytes(dir / "bad.ttf", {1, 2, 3, 4, 5});
  opt.font = dir / "bad.ttf";
  EXPECT_EQ(error_code_of([&] { vision::draw_bounding_boxes(image, boxes, opt); }), ErrorCode::kInvalidInput);
  // No label, no font needed.
  opt.labels = {""};
  EXPECT_NO_THROW(vision::draw_bounding_boxes(image, boxes, opt));
}

TEST(DrawInput, NeverModifiedAndAnyStridesWork) {
  const Tensor hwc = make_image(30, 40, 3);
  const Tensor view = hwc.permute({2, 0, 1});  // non-contiguous CHW
  const Tensor before = view.clone();
  const Tensor boxes = float_tensor({2, 2, 20, 20}, {1, 4});
  vision::BoxDrawOptions opt;
  opt.fill = true;
  opt.labels = {"x"};
  const Tensor out = vision::draw_bounding_boxes(view, boxes, opt);
  EXPECT_TRUE(same_pixels(view, before));
  EXPECT_TRUE(out.is_contiguous());
  EXPECT_TRUE(same_pixels(out.slice(1, 25, 30), before.slice(1, 25, 30)));
  EXPECT_FALSE(same_pixels(out, before));
  Tensor masks = Tensor::zeros({30, 40}, DType::kUInt8);
  EXPECT_TRUE(same_pixels(vision::draw_segmentation_masks(view, masks), before));
  EXPECT_TRUE(same_pixels(view, before));
}

TEST(DrawInput, BadInputIsInvalidInput) {
  const Tensor image = chw_image(3, 20, 20);
  const Tensor boxes = float_tensor({1, 1, 5, 5}, {1, 4});
  auto code = [](auto&& f) { return error_code_of(f); };
  const ErrorCode bad = ErrorCode::kInvalidInput;
  // Images.
  EXPECT_EQ(code([&] { vision::draw_bounding_boxes(Tensor::zeros({3, 4, 4}, DType::kFloat32), boxes); }), bad);
  EXPECT_EQ(code([&] { vision::draw_bounding_boxes(Tensor::zeros({4, 4}, DType::kUInt8), boxes); }), bad);
  EXPECT_EQ(code([&] { vision::draw_bounding_boxes(Tensor::zeros({1, 3, 4, 4}, DType::kUInt8), boxes); }), bad);
  EXPECT_EQ(code([&] { vision::draw_bounding_boxes(Tensor::zeros({4, 4, 4}, DType::kUInt8), boxes); }), bad);
  EXPECT_EQ(code([&] {
              vision::draw_keypoints(Tensor::zeros({2, 4, 4}, DType::kUInt8), float_tensor({1, 1}, {1, 1, 2}));
            }),
            bad);
  EXPECT_EQ(code([&] { vision::draw_segmentation_masks(Tensor(), Tensor::zeros({4, 4}, DType::kUInt8)); }), bad);
  // Boxes.
  EXPECT_EQ(code([&] { vision::draw_bounding_boxes(image, float_tensor({1, 2, 3}, {1, 3})); }), bad);
  EXPECT_EQ(code([&] { vision::draw_bounding_boxes(image, float_tensor({1, 2, 3, 4}, {4})); }), bad);
  EXPECT_EQ(code([&] { vision::draw_bounding_boxes(image, float_tensor({5, 1, 4, 5}, {1, 4})); }), bad);     // x2 < x1
  EXPECT_EQ(code([&] { vision::draw_bounding_boxes(image, float_tensor({1, 5, 4, 4.5f}, {1, 4})); }), bad);  // y2 < y1
  EXPECT_EQ(code([&] { vision::draw_bounding_boxes(image, float_tensor({1, 1, NAN, 5}, {1, 4})); }), bad);
  EXPECT_EQ(code([&] { vision::draw_bounding_boxes(image, Tensor::zeros({1, 4}, DType::kFloat16)); }), bad);
  const Error e = error_of([&] { vision::draw_bounding_boxes(image, float_tensor({5, 1, 4, 5}, {1, 4})); });
  EXPECT_NE(std::string(e.what()).find("draw_bounding_boxes"), std::string::npos);
  EXPECT_NE(std::string(e.what()).find("x1 <= x2"), std::string::npos) << e.what();
  // Counts.
  vision::BoxDrawOptions opt;
  opt.labels = {"a", "b"};
  EXPECT_EQ(code([&] { vision::draw_bounding_boxes(image, boxes, opt); }), bad);
  opt = {};
  opt.colors = {{1, 2, 3}, {4, 5, 6}};
  const Tensor three = float_tensor({1, 1, 5, 5, 1, 1, 5, 5, 1, 1, 5, 5}, {3, 4});
  EXPECT_EQ(code([&] { vision::draw_bounding_boxes(image, three, opt); }), bad);
  opt = {};
  opt.label_colors = {{1, 2, 3}, {4, 5, 6}};
  EXPECT_EQ(code([&] { vision::draw_bounding_boxes(image, three, opt); }), bad);
  opt = {};
  opt.width = -1;
  EXPECT_EQ(code([&] { vision::draw_bounding_boxes(image, boxes, opt); }), bad);
  opt = {};
  opt.font_size = 0;
  EXPECT_EQ(code([&] { vision::draw_bounding_boxes(image, boxes, opt); }), bad);
  // Keypoints.
  EXPECT_EQ(code([&] { vision::draw_keypoints(image, float_tensor({1, 1, 2, 2}, {2, 2})); }), bad);
  EXPECT_EQ(code([&] { vision::draw_keypoints(image, float_tensor({1, 1, 2}, {1, 1, 3})); }), bad);
  vision::KeypointDrawOptions kopt;
  kopt.connectivity = {{0, 2}};
  EXPECT_EQ(code([&] { vision::draw_keypoints(image, float_tensor({1, 1, 2, 2}, {1, 2, 2}), kopt); }), bad);
  kopt = {};
  kopt.visibility = Tensor::zeros({1, 3}, DType::kUInt8);
  EXPECT_EQ(code([&] { vision::draw_keypoints(image, float_tensor({1, 1, 2, 2}, {1, 2, 2}), kopt); }), bad);
  kopt = {};
  kopt.radius = -2;
  EXPECT_EQ(code([&] { vision::draw_keypoints(image, float_tensor({1, 1, 2, 2}, {1, 2, 2}), kopt); }), bad);
  // Masks.
  EXPECT_EQ(code([&] { vision::draw_segmentation_masks(image, Tensor::zeros({2, 19, 20}, DType::kUInt8)); }), bad);
  EXPECT_EQ(code([&] { vision::draw_segmentation_masks(image, Tensor::zeros({2, 20, 20}, DType::kFloat32)); }), bad);
  EXPECT_EQ(code([&] { vision::draw_segmentation_masks(image, Tensor::zeros({1, 2, 20, 20}, DType::kUInt8)); }), bad);
  vision::MaskDrawOptions mopt;
  mopt.alpha = 1.5;
  EXPECT_EQ(code([&] { vision::draw_segmentation_masks(image, Tensor::zeros({20, 20}, DType::kUInt8), mopt); }), bad);
  mopt = {};
  mopt.colors = {{1, 1, 1}, {2, 2, 2}};
  EXPECT_EQ(code([&] {
              vision::draw_segmentation_masks(image, Tensor::zeros({3, 20, 20}, DType::kUInt8), mopt);
            }),
            bad);
  // Grids.
  EXPECT_EQ(code([&] { vision::make_grid(std::vector<Tensor>{}); }), bad);
  EXPECT_EQ(code([&] { vision::make_grid(std::vector<Tensor>{image, chw_image(3, 20, 21)}); }), bad);
  EXPECT_EQ(code([&] {
              vision::make_grid(std::vector<Tensor>{image, Tensor::zeros({3, 20, 20}, DType::kFloat32)});
            }),
            bad);
  vision::GridOptions gopt;
  gopt.nrow = 0;
  EXPECT_EQ(code([&] { vision::make_grid(std::vector<Tensor>{image, image}, gopt); }), bad);
  gopt = {};
  gopt.pad_value = 300;
  EXPECT_EQ(code([&] { vision::make_grid(std::vector<Tensor>{image, image}, gopt); }), bad);
}

TEST(DrawInput, ConcurrentCallsGiveTheSameResult) {
  const Tensor image = chw_image(3, 64, 64);
  const Tensor boxes = float_tensor({2, 2, 60, 40, 10, 30, 50, 62}, {2, 4});
  vision::BoxDrawOptions opt;
  opt.labels = {"person", "dog"};
  opt.fill = true;
  opt.width = 2;
  const Tensor expected = vision::draw_bounding_boxes(image, boxes, opt);
  std::vector<Tensor> results(8);
  std::vector<std::thread> threads;
  for (size_t i = 0; i < results.size(); ++i) {
    threads.emplace_back([&, i] {
      for (int k = 0; k < 10; ++k) results[i] = vision::draw_bounding_boxes(image, boxes, opt);
    });
  }
  for (auto& t : threads) t.join();
  for (const Tensor& r : results) EXPECT_TRUE(same_pixels(r, expected));
}

}  // namespace
}  // namespace loom::test
