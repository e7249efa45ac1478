// DLPack exchange (DLPack 0.6 DLManagedTensor): zero-copy export/import, ownership, strides, refusals.
#include <dlpack/dlpack.h>
#include <gtest/gtest.h>

#include <array>
#include <cstdint>
#include <numeric>
#include <vector>

#include "loom/codec/error.h"
#include "loom/codec/tensor.h"

namespace loom {
namespace {

// A DLManagedTensor built by hand, as a foreign producer (NumPy, PyTorch) would hand it over.
struct Producer {
  std::vector<float> data = std::vector<float>(24);
  std::vector<int64_t> shape = {2, 3, 4};
  std::vector<int64_t> strides = {12, 4, 1};
  DLManagedTensor managed{};
  int deleter_calls = 0;

  Producer() {
    std::iota(data.begin(), data.end(), 0.f);
    DLTensor& dl = managed.dl_tensor;
    dl.data = data.data();
    dl.device = {kDLCPU, 0};
    dl.ndim = static_cast<int32_t>(shape.size());
    dl.dtype = {kDLFloat, 32, 1};
    dl.shape = shape.data();
    dl.strides = strides.data();
    dl.byte_offset = 0;
    managed.manager_ctx = this;
    managed.deleter = [](DLManagedTensor* self) { ++static_cast<Producer*>(self->manager_ctx)->deleter_calls; };
  }
};

ErrorCode import_error(DLManagedTensor* managed) {
  try {
    Tensor t = Tensor::from_dlpack(managed);
    ADD_FAILURE() << "from_dlpack accepted the tensor";
  } catch (const Error& e) {
    return e.code();
  }
  return ErrorCode::kInternal;
}

std::vector<int64_t> vec(std::span<const int64_t> s) {
  return {s.begin(), s.end()};
}

TEST(DlpackTest, ExportSharesDataShapeStridesAndDType) {
  Tensor t = Tensor::empty({2, 3, 4}, DType::kFloat32);
  DLManagedTensor* m = t.to_dlpack();
  ASSERT_NE(m, nullptr);
  ASSERT_NE(m->deleter, nullptr);
  const DLTensor& dl = m->dl_tensor;
  EXPECT_EQ(static_cast<char*>(dl.data) + dl.byte_offset, t.data());
  EXPECT_EQ(dl.device.device_type, kDLCPU);
  EXPECT_EQ(dl.device.device_id, 0);
  ASSERT_EQ(dl.ndim, 3);
  EXPECT_EQ(std::vector<int64_t>(dl.shape, dl.shape + 3), (std::vector<int64_t>{2, 3, 4}));
  ASSERT_NE(dl.strides, nullptr);
  EXPECT_EQ(std::vector<int64_t>(dl.strides, dl.strides + 3), (std::vector<int64_t>{12, 4, 1}));
  EXPECT_EQ(dl.dtype.code, kDLFloat);
  EXPECT_EQ(dl.dtype.bits, 32);
  EXPECT_EQ(dl.dtype.lanes, 1);
  m->deleter(m);
}

TEST(DlpackTest, ExportDTypeCodes) {
  struct Case {
    DType dtype;
    uint8_t code;
    uint8_t bits;
  };
  const Case cases[] = {
      {DType::kUInt8, kDLUInt, 8},       {DType::kInt16, kDLInt, 16},     {DType::kUInt16, kDLUInt, 16},
      {DType::kInt32, kDLInt, 32},       {DType::kInt64, kDLInt, 64},     {DType::kFloat16, kDLFloat, 16},
      {DType::kBFloat16, kDLBfloat, 16}, {DType::kFloat32, kDLFloat, 32}, {DType::kFloat64, kDLFloat, 64},
  };
  for (const Case& c : cases) {
    Tensor t = Tensor::zeros({3}, c.dtype);
    DLManagedTensor* m = t.to_dlpack();
    EXPECT_EQ(m->dl_tensor.dtype.code, c.code) << to_string(c.dtype);
    EXPECT_EQ(m->dl_tensor.dtype.bits, c.bits) << to_string(c.dtype);
    EXPECT_EQ(m->dl_tensor.dtype.lanes, 1) << to_string(c.dtype);
    // And back: the same dtype, no copy.
    Tensor back = Tensor::from_dlpack(m);
    EXPECT_EQ(back.dtype(), c.dtype);
    EXPECT_EQ(back.data(), t.data());
  }
}

TEST(DlpackTest, ExportKeepsStorageAliveUntilTheConsumerDeletes) {
  int calls = 0;
  std::vector<int32_t> buf(6, 5);
  DLManagedTensor* m = nullptr;
  {
    const int64_t shape[] = {2, 3};
    Tensor t = Tensor::from_blob(buf.data(), shape, {}, DType::kInt32, Device::cpu(), [&](void*) { ++calls; });
    m = t.to_dlpack();
  }
  EXPECT_EQ(calls, 0) << "storage released while a DLPack consumer still holds it";
  EXPECT_EQ(static_cast<int32_t*>(m->dl_tensor.data)[5], 5);
  m->deleter(m);
  EXPECT_EQ(calls, 1);
}

TEST(DlpackTest, RoundTripIsZeroCopyAndReleasesOnce) {
  int calls = 0;
  std::vector<uint16_t> buf(60);
  std::iota(buf.begin(), buf.end(), uint16_t{0});
  {
    const int64_t shape[] = {3, 4, 5};
    Tensor t = Tensor::from_blob(buf.data(), shape, {}, DType::kUInt16, Device::cpu(), [&](void*) { ++calls; });
    Tensor back = Tensor::from_dlpack(t.to_dlpack());
    EXPECT_EQ(back.data(), t.data());
    EXPECT_EQ(back.data(), static_cast<void*>(buf.data()));
    EXPECT_EQ(vec(back.shape()), vec(t.shape()));
    EXPECT_EQ(vec(back.strides()), vec(t.strides()));
    EXPECT_EQ(back.dtype(), DType::kUInt16);
    EXPECT_TRUE(back.device().is_cpu());
    t = Tensor();
    EXPECT_EQ(calls, 0);
    Tensor view = back.select(0, 2);
    back = Tensor();
    EXPECT_EQ(calls, 0) << "released while a view of the imported tensor exists";
    EXPECT_EQ(view.data<uint16_t>()[0], 40);
  }
  EXPECT_EQ(calls, 1);
}

TEST(DlpackTest, PermutedViewKeepsItsStrides) {
  Tensor t = Tensor::empty({2, 3, 4}, DType::kUInt8);  // strides 12, 4, 1
  for (int i = 0; i < 24; ++i) t.data<uint8_t>()[i] = static_cast<uint8_t>(i);
  const Tensor p = t.permute({2, 0, 1});
  DLManagedTensor* m = p.to_dlpack();
  ASSERT_NE(m->dl_tensor.strides, nullptr);
  EXPECT_EQ(std::vector<int64_t>(m->dl_tensor.shape, m->dl_tensor.shape + 3), (std::vector<int64_t>{4, 2, 3}));
  EXPECT_EQ(std::vector<int64_t>(m->dl_tensor.strides, m->dl_tensor.strides + 3), (std::vector<int64_t>{1, 12, 4}));
  Tensor back = Tensor::from_dlpack(m);
  EXPECT_EQ(back.data(), t.data());
  EXPECT_EQ(vec(back.shape()), (std::vector<int64_t>{4, 2, 3}));
  EXPECT_EQ(vec(back.strides()), (std::vector<int64_t>{1, 12, 4}));
  EXPECT_FALSE(back.is_contiguous());
  // Element (c, h, w) of the CHW view is byte 12 h + 4 w + c of the HWC buffer.
  const Tensor c = back.contiguous();
  for (int64_t ch = 0; ch < 4; ++ch)
    for (int64_t h = 0; h < 2; ++h)
      for (int64_t w = 0; w < 3; ++w) EXPECT_EQ(c.data<uint8_t>()[ch * 6 + h * 3 + w], 12 * h + 4 * w + ch);
}

TEST(DlpackTest, NegativeStridesSurviveTheRoundTrip) {
  Tensor t = Tensor::empty({5}, DType::kInt64);
  for (int i = 0; i < 5; ++i) t.data<int64_t>()[i] = 10 * i;
  const Tensor r = t.slice(0, 4, -6, -1);
  DLManagedTensor* m = r.to_dlpack();
  EXPECT_EQ(m->dl_tensor.strides[0], -1);
  EXPECT_EQ(*reinterpret_cast<int64_t*>(static_cast<char*>(m->dl_tensor.data) + m->dl_tensor.byte_offset), 40);
  Tensor back = Tensor::from_dlpack(m);
  EXPECT_EQ(back.stride(0), -1);
  EXPECT_EQ(back.data(), r.data());
  const Tensor c = back.clone();
  for (int i = 0; i < 5; ++i) EXPECT_EQ(c.data<int64_t>()[i], 10 * (4 - i));
}

TEST(DlpackTest, ImportFromAForeignProducer) {
  Producer prod;
  {
    Tensor t = Tensor::from_dlpack(&prod.managed);
    EXPECT_EQ(t.data(), prod.data.data());
    EXPECT_EQ(t.dtype(), DType::kFloat32);
    EXPECT_EQ(vec(t.shape()), prod.shape);
    EXPECT_EQ(vec(t.strides()), prod.strides);
    EXPECT_EQ(t.data<float>()[23], 23.f);
    Tensor copy = t;
    Tensor slice = t.slice(2, 1, 3);
    t = Tensor();
    copy = Tensor();
    EXPECT_EQ(prod.deleter_calls, 0);
  }
  EXPECT_EQ(prod.deleter_calls, 1);
}

TEST(DlpackTest, ImportWithoutStridesIsContiguous) {
  Producer prod;
  prod.managed.dl_tensor.strides = nullptr;  // DLPack: NULL strides mean compact row-major
  {
    Tensor t = Tensor::from_dlpack(&prod.managed);
    EXPECT_TRUE(t.is_contiguous());
    EXPECT_EQ(vec(t.strides()), (std::vector<int64_t>{12, 4, 1}));
  }
  EXPECT_EQ(prod.deleter_calls, 1);
}

TEST(DlpackTest, ImportHonoursByteOffset) {
  Producer prod;
  prod.managed.dl_tensor.byte_offset = 4 * sizeof(float);
  prod.shape = {5};
  prod.strides = {1};
  prod.managed.dl_tensor.shape = prod.shape.data();
  prod.managed.dl_tensor.strides = prod.strides.data();
  prod.managed.dl_tensor.ndim = 1;
  {
    Tensor t = Tensor::from_dlpack(&prod.managed);
    EXPECT_EQ(t.data(), static_cast<void*>(prod.data.data() + 4));
    EXPECT_EQ(t.data<float>()[0], 4.f);
  }
  EXPECT_EQ(prod.deleter_calls, 1);
}

TEST(DlpackTest, ImportDevices) {
  {
    Producer prod;
    prod.managed.dl_tensor.device = {kDLCUDA, 3};
    {
      Tensor t = Tensor::from_dlpack(&prod.managed);
      EXPECT_EQ(t.device(), Device::cuda(3));
    }
    EXPECT_EQ(prod.deleter_calls, 1);
  }
  {
    Producer prod;
    prod.managed.dl_tensor.device = {kDLCUDAHost, 0};  // pinned host memory is CPU-addressable
    {
      Tensor t = Tensor::from_dlpack(&prod.managed);
      EXPECT_TRUE(t.device().is_cpu());
    }
    EXPECT_EQ(prod.deleter_calls, 1);
  }
}

TEST(DlpackTest, ExportOfACudaTensorNamesTheDevice) {
  alignas(64) static float fake[4];
  const int64_t shape[] = {4};
  const Tensor t = Tensor::from_blob(fake, shape, {}, DType::kFloat32, Device::cuda(2));
  DLManagedTensor* m = t.to_dlpack();
  EXPECT_EQ(m->dl_tensor.device.device_type, kDLCUDA);
  EXPECT_EQ(m->dl_tensor.device.device_id, 2);
  m->deleter(m);
}

TEST(DlpackTest, VectorLanesAreUnsupportedAndStillReleased) {
  Producer prod;
  prod.managed.dl_tensor.dtype = {kDLFloat, 32, 4};
  EXPECT_EQ(import_error(&prod.managed), ErrorCode::kUnsupported);
  EXPECT_EQ(prod.deleter_calls, 1) << "from_dlpack takes ownership even when it refuses";
}

TEST(DlpackTest, UnrepresentedDTypesAreUnsupportedAndStillReleased) {
  const DLDataType refused[] = {
      {kDLInt, 8, 1},       // int8: loom has no signed 8-bit dtype
      {kDLUInt, 32, 1},     // uint32
      {kDLUInt, 64, 1},     // uint64
      {kDLFloat, 8, 1},     // no 8-bit float
      {kDLBfloat, 32, 1},   // bfloat is 16-bit only
      {kDLComplex, 64, 1},  // complex64
  };
  for (const DLDataType& dt : refused) {
    Producer prod;
    prod.managed.dl_tensor.dtype = dt;
    EXPECT_EQ(import_error(&prod.managed), ErrorCode::kUnsupported)
        << "code " << int(dt.code) << " bits " << int(dt.bits);
    EXPECT_EQ(prod.deleter_calls, 1) << "code " << int(dt.code) << " bits " << int(dt.bits);
  }
}

TEST(DlpackTest, UnknownDeviceIsUnsupportedAndStillReleased) {
  for (DLDeviceType device : {kDLOpenCL, kDLVulkan, kDLMetal, kDLROCM}) {
    Producer prod;
    prod.managed.dl_tensor.device = {device, 0};
    EXPECT_EQ(import_error(&prod.managed), ErrorCode::kUnsupported) << "device type " << int(device);
    EXPECT_EQ(prod.deleter_calls, 1) << "device type " << int(device);
  }
}

TEST(DlpackTest, TooManyDimensionsIsUnsupportedAndStillReleased) {
  Producer prod;
  prod.data.resize(64);
  prod.shape = {1, 2, 2, 2, 2, 2};
  prod.strides = {32, 16, 8, 4, 2, 1};
  prod.managed.dl_tensor.data = prod.data.data();
  prod.managed.dl_tensor.shape = prod.shape.data();
  prod.managed.dl_tensor.strides = prod.strides.data();
  prod.managed.dl_tensor.ndim = 6;
  EXPECT_EQ(import_error(&prod.managed), ErrorCode::kUnsupported);
  EXPECT_EQ(prod.deleter_calls, 1);
}

TEST(DlpackTest, NegativeShapeIsRefusedAndStillReleased) {
  Producer prod;
  prod.shape = {2, -3, 4};
  prod.managed.dl_tensor.shape = prod.shape.data();
  EXPECT_THROW(Tensor::from_dlpack(&prod.managed), Error);
  EXPECT_EQ(prod.deleter_calls, 1);
}

TEST(DlpackTest, ManagedTensorWithoutDeleterIsAccepted) {
  Producer prod;
  prod.managed.deleter = nullptr;  // allowed by DLPack: the producer needs no callback
  Tensor t = Tensor::from_dlpack(&prod.managed);
  EXPECT_EQ(t.data<float>()[1], 1.f);
}

TEST(DlpackTest, NullAndUndefinedAreInvalidInput) {
  try {
    Tensor::from_dlpack(nullptr);
    ADD_FAILURE() << "from_dlpack(nullptr) returned";
  } catch (const Error& e) {
    EXPECT_EQ(e.code(), ErrorCode::kInvalidInput);
  }
  try {
    Tensor().to_dlpack();
    ADD_FAILURE() << "to_dlpack of an undefined tensor returned";
  } catch (const Error& e) {
    EXPECT_EQ(e.code(), ErrorCode::kInvalidInput);
  }
}

TEST(DlpackTest, ZeroDimensionalTensorRoundTrips) {
  Tensor t = Tensor::zeros(std::span<const int64_t>{}, DType::kFloat64);
  *t.data<double>() = 2.5;
  DLManagedTensor* m = t.to_dlpack();
  EXPECT_EQ(m->dl_tensor.ndim, 0);
  Tensor back = Tensor::from_dlpack(m);
  EXPECT_EQ(back.ndim(), 0);
  EXPECT_EQ(back.numel(), 1);
  EXPECT_EQ(*back.data<double>(), 2.5);
  EXPECT_EQ(back.data(), t.data());
}

}  // namespace
}  // namespace loom
