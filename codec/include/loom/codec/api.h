// What loom's shared libraries export. They are built with hidden symbols (-fvisibility=hidden); a
// public header declares its API between LOOM_API_BEGIN and LOOM_API_END, after its #includes, and
// only those declarations are exported. Private code (src/, codec/internal/) stays inside the library.
#pragma once

#define LOOM_API_BEGIN _Pragma("GCC visibility push(default)")
#define LOOM_API_END _Pragma("GCC visibility pop")

// A public class's private part, the pimpl that its public header only declares, is declared
// `struct LOOM_HIDDEN Impl;`: the members of a nested class otherwise take the exported visibility of
// the class around them, and its out-of-line member functions would be exported.
#define LOOM_HIDDEN __attribute__((visibility("hidden")))

// Marks the inline functions of kernels' plan headers (transforms' noise hash and splitmix64, video's
// NV12 pixel conversion) that CUDA twins run on the device as well: the same code on both sides, so the
// same bits. __host__ __device__ under nvcc, nothing for the host compiler.
#if defined(__CUDACC__)
#define LOOM_HOST_DEVICE __host__ __device__
#else
#define LOOM_HOST_DEVICE
#endif
