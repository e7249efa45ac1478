// Box formats (names, sizes, conversions), validation of BoundingBoxes/KeyPoints, and row selection.
// Conversions follow torchvision 0.24's _convert_bounding_box_format: axis-aligned boxes go through
// XYXY, rotated ones through XYWHR, and a format converts to itself unchanged.
#include "loom/transforms/annotations.h"

#include <fmt/format.h>

#include <algorithm>
#include <cctype>
#include <cmath>
#include <cstring>
#include <numbers>
#include <string>

#include "boxes/box_geometry.h"
#include "loom/codec/error.h"

namespace loom::transforms {
namespace {

constexpr double kDegToRad = std::numbers::pi / 180.0;

// Axis-aligned: to and from XYXY.
void to_xyxy(const double* in, BoxFormat from, double* out) {
  switch (from) {
    case BoxFormat::kXYWH: out[0] = in[0], out[1] = in[1], out[2] = in[0] + in[2], out[3] = in[1] + in[3]; return;
    case BoxFormat::kCXCYWH: {
      // torchvision takes half of |w| and |h| for the first corner, then adds the signed size.
      const double x1 = in[0] - std::fabs(in[2]) / 2, y1 = in[1] - std::fabs(in[3]) / 2;
      out[0] = x1, out[1] = y1, out[2] = x1 + in[2], out[3] = y1 + in[3];
      return;
    }
    default: std::copy(in, in + 4, out);
  }
}

void from_xyxy(const double* in, BoxFormat to, double* out) {
  const double w = in[2] - in[0], h = in[3] - in[1];
  switch (to) {
    case BoxFormat::kXYWH: out[0] = in[0], out[1] = in[1], out[2] = w, out[3] = h; return;
    case BoxFormat::kCXCYWH: out[0] = (in[0] * 2 + w) / 2, out[1] = (in[1] * 2 + h) / 2, out[2] = w, out[3] = h; return;
    default: std::copy(in, in + 4, out);
  }
}

// Rotated: to and from XYWHR (first corner, side lengths, angle). The second corner is the first one
// moved by w along (cos r, -sin r), the fourth by h along (sin r, cos r): y points down, so a positive
// angle turns the box counter-clockwise on screen.
void to_xywhr(const double* in, BoxFormat from, double* out) {
  switch (from) {
    case BoxFormat::kCXCYWHR: {
      const double r = in[4] * kDegToRad, c = std::cos(r), s = std::sin(r);
      const double hw = std::fabs(in[2]) / 2, hh = std::fabs(in[3]) / 2;  // torchvision halves |w|, |h|
      out[0] = in[0] - hw * c - hh * s;
      out[1] = in[1] + hw * s - hh * c;
      out[2] = in[2], out[3] = in[3], out[4] = in[4];
      return;
    }
    case BoxFormat::kXYXYXYXY: {
      const double dx12 = in[2] - in[0], dy12 = in[3] - in[1], dx23 = in[4] - in[2], dy23 = in[5] - in[3];
      out[0] = in[0], out[1] = in[1];
      out[2] = std::sqrt(dx12 * dx12 + dy12 * dy12);
      out[3] = std::sqrt(dx23 * dx23 + dy23 * dy23);
      out[4] = std::atan2(in[1] - in[3], dx12) / std::numbers::pi * 180.0;  // in (-180, 180]
      return;
    }
    default: std::copy(in, in + 5, out);
  }
}

void from_xywhr(const double* in, BoxFormat to, double* out) {
  const double r = in[4] * kDegToRad, c = std::cos(r), s = std::sin(r);
  switch (to) {
    case BoxFormat::kCXCYWHR: {
      const double hw = std::fabs(in[2]) / 2, hh = std::fabs(in[3]) / 2;
      out[0] = in[0] + hw * c + hh * s;
      out[1] = in[1] - hw * s + hh * c;
      out[2] = in[2], out[3] = in[3], out[4] = in[4];
      return;
    }
    case BoxFormat::kXYXYXYXY: {
      const double x = in[0], y = in[1], w = in[2], h = in[3];
      out[0] = x, out[1] = y;
      out[2] = x + w * c, out[3] = y - w * s;
      out[4] = x + w * c + h * s, out[5] = y - w * s + h * c;
      out[6] = x + h * s, out[7] = y + h * c;
      return;
    }
    default: std::copy(in, in + 5, out);
  }
}

void check_float_cpu(const Tensor& t, std::string_view what) {
  if (!t.defined()) throw Error(ErrorCode::kInvalidInput, std::string(what), "the tensor is undefined");
  if (!t.device().is_cpu()) throw Error(ErrorCode::kInvalidInput, std::string(what), "expects a CPU tensor");
  if (t.dtype() != DType::kFloat32 && t.dtype() != DType::kFloat64) {
    throw Error(ErrorCode::kInvalidInput, std::string(what),
                fmt::format("expects float32 or float64 values, got {}", loom::to_string(t.dtype())));
  }
}

}  // namespace

bool is_rotated(BoxFormat format) {
  return format == BoxFormat::kXYWHR || format == BoxFormat::kCXCYWHR || format == BoxFormat::kXYXYXYXY;
}

int values_per_box(BoxFormat format) {
  switch (format) {
    case BoxFormat::kXYWHR:
    case BoxFormat::kCXCYWHR: return 5;
    case BoxFormat::kXYXYXYXY: return 8;
    default: return 4;
  }
}

std::string_view to_string(BoxFormat format) {
  switch (format) {
    case BoxFormat::kXYXY: return "XYXY";
    case BoxFormat::kXYWH: return "XYWH";
    case BoxFormat::kCXCYWH: return "CXCYWH";
    case BoxFormat::kXYWHR: return "XYWHR";
    case BoxFormat::kCXCYWHR: return "CXCYWHR";
    case BoxFormat::kXYXYXYXY: return "XYXYXYXY";
  }
  return "?";
}

BoxFormat box_format_from_string(std::string_view name) {
  std::string upper(name);
  for (char& c : upper) c = static_cast<char>(std::toupper(static_cast<unsigned char>(c)));
  for (BoxFormat f : {BoxFormat::kXYXY, BoxFormat::kXYWH, BoxFormat::kCXCYWH, BoxFormat::kXYWHR, BoxFormat::kCXCYWHR,
                      BoxFormat::kXYXYXYXY}) {
    if (upper == to_string(f)) return f;
  }
  throw Error(ErrorCode::kInvalidInput, "box format",
              fmt::format("unknown format '{}' (expected XYXY, XYWH, CXCYWH, XYWHR, CXCYWHR or XYXYXYXY)", name));
}

namespace detail {

void check_box_tensor(const Tensor& boxes, BoxFormat format, std::string_view what) {
  check_float_cpu(boxes, what);
  const int k = values_per_box(format);
  if (boxes.ndim() != 2 || boxes.size(1) != k) {
    std::string shape;
    for (int64_t s : boxes.shape()) shape += (shape.empty() ? "" : ", ") + std::to_string(s);
    throw Error(ErrorCode::kInvalidInput, std::string(what),
                fmt::format("{} boxes need shape [N, {}], got [{}]", to_string(format), k, shape));
  }
}

void check_canvas(Size canvas, std::string_view what) {
  if (canvas.height <= 0 || canvas.width <= 0) {
    throw Error(ErrorCode::kInvalidInput, std::string(what),
                fmt::format("the canvas must be positive, got {}x{}", canvas.width, canvas.height));
  }
}

void convert_box(const double* in, BoxFormat from, double* out, BoxFormat to) {
  double mid[kMaxBoxValues];
  if (from == to) {  // exact: four corners that are not a rectangle stay as they are
    std::copy(in, in + values_per_box(from), out);
  } else if (is_rotated(from)) {
    to_xywhr(in, from, mid);
    from_xywhr(mid, to, out);
  } else {
    to_xyxy(in, from, mid);
    from_xyxy(mid, to, out);
  }
}

std::vector<double> to_doubles(const Tensor& tensor) {
  const Tensor t = tensor.contiguous();
  const auto n = static_cast<size_t>(t.numel());
  std::vector<double> values(n);
  if (t.dtype() == DType::kFloat32) {
    std::copy(t.data<float>(), t.data<float>() + n, values.begin());
  } else {
    std::copy(t.data<double>(), t.data<double>() + n, values.begin());
  }
  return values;
}

Tensor from_doubles(std::span<const double> values, std::span<const int64_t> shape, DType dtype) {
  Tensor out = Tensor::empty(shape, dtype);
  if (dtype == DType::kFloat32) {
    std::transform(values.begin(), values.end(), out.data<float>(), [](double v) { return static_cast<float>(v); });
  } else {
    std::copy(values.begin(), values.end(), out.data<double>());
  }
  return out;
}

}  // namespace detail

void validate(const BoundingBoxes& boxes, std::string_view what) {
  detail::check_box_tensor(boxes.data, boxes.format, what);
  detail::check_canvas(boxes.canvas, what);
}

void validate(const KeyPoints& points, std::string_view what) {
  check_float_cpu(points.data, what);
  if (points.data.ndim() < 2 || points.data.size(-1) != 2) {
    throw Error(ErrorCode::kInvalidInput, std::string(what),
                fmt::format("keypoints need shape [N, ..., 2], got a {}-D tensor{}", points.data.ndim(),
                            points.data.ndim() > 0 ? fmt::format(" ending in {}", points.data.size(-1)) : ""));
  }
  detail::check_canvas(points.canvas, what);
}

Tensor convert_box_format(const Tensor& boxes, BoxFormat from, BoxFormat to) {
  detail::check_box_tensor(boxes, from, "bounding boxes");
  if (is_rotated(from) != is_rotated(to)) {
    throw Error(ErrorCode::kInvalidInput, "bounding boxes",
                fmt::format("cannot convert {} to {}: rotated and axis-aligned boxes do not convert into each other",
                            to_string(from), to_string(to)));
  }
  if (from == to) return boxes.clone();
  const std::vector<double> in = detail::to_doubles(boxes);
  const int64_t n = boxes.size(0);
  const int kin = values_per_box(from), kout = values_per_box(to);
  std::vector<double> out(static_cast<size_t>(n * kout));
  for (int64_t i = 0; i < n; ++i) detail::convert_box(&in[i * kin], from, &out[i * kout], to);
  const int64_t shape[] = {n, kout};
  return detail::from_doubles(out, shape, boxes.dtype());
}

BoundingBoxes convert_box_format(const BoundingBoxes& boxes, BoxFormat to) {
  validate(boxes);
  BoundingBoxes out = boxes;
  out.data = convert_box_format(boxes.data, boxes.format, to);
  out.format = to;
  return out;
}

Tensor select_rows(const Tensor& tensor, const std::vector<int64_t>& indices) {
  if (!tensor.defined() || tensor.ndim() < 1) {
    throw Error(ErrorCode::kInvalidInput, "select_rows", "expects a tensor of at least one dimension");
  }
  if (!tensor.device().is_cpu()) throw Error(ErrorCode::kInvalidInput, "select_rows", "expects a CPU tensor");
  const int64_t rows = tensor.size(0);
  for (int64_t i : indices) {
    if (i < 0 || i >= rows) {
      throw Error(ErrorCode::kInvalidInput, "select_rows", fmt::format("row {} is out of range [0, {})", i, rows));
    }
  }
  const Tensor src = tensor.contiguous();
  std::vector<int64_t> shape(src.shape().begin(), src.shape().end());
  shape[0] = static_cast<int64_t>(indices.size());
  Tensor out = Tensor::empty(shape, src.dtype());
  const size_t row_bytes = rows > 0 ? src.nbytes() / static_cast<size_t>(rows) : 0;
  const auto* in = static_cast<const unsigned char*>(src.data());
  auto* dst = static_cast<unsigned char*>(out.data());
  for (size_t r = 0; r < indices.size(); ++r) {
    std::memcpy(dst + r * row_bytes, in + static_cast<size_t>(indices[r]) * row_bytes, row_bytes);
  }
  return out;
}

}  // namespace loom::transforms
