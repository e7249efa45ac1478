// Hand a tensor to another runtime through DLPack and take it back, without copying.
#include <cstdio>

#include "loom/codec/tensor.h"

int main() {
  loom::Tensor image = loom::Tensor::zeros({3, 4, 5}, loom::DType::kUInt8);
  image.data<uint8_t>()[7] = 42;

  // Export: the consumer (PyTorch's from_dlpack, JAX, CuPy, ...) owns the DLManagedTensor and calls its
  // deleter when done; loom's storage stays alive until then.
  DLManagedTensor* exported = image.permute({1, 2, 0}).to_dlpack();

  // Import: loom takes ownership and calls the producer's deleter when the last view is gone.
  const loom::Tensor back = loom::Tensor::from_dlpack(exported);
  const bool same_memory = back.data() == image.data();
  std::printf("shape %lldx%lldx%lld, strides %lld,%lld,%lld, same memory: %s, value %d\n",
              static_cast<long long>(back.size(0)), static_cast<long long>(back.size(1)),
              static_cast<long long>(back.size(2)), static_cast<long long>(back.stride(0)),
              static_cast<long long>(back.stride(1)), static_cast<long long>(back.stride(2)),
              same_memory ? "yes" : "no", back.permute({2, 0, 1}).contiguous().data<uint8_t>()[7]);
  return same_memory ? 0 : 1;
}
