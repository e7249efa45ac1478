// Opaque(v): returns v unchanged, but hides from the compiler where it came from, so that a multiply
// and a following add or subtract are never contracted into one fused multiply-add (GCC contracts
// across statements at -O2 wherever the target has FMA). The kernels that must give the same bits on
// every Highway target and in their scalar reference put one between each multiply and add.
// Per-target include (Highway's -inl.h convention): include it after hwy/highway.h in a *_hwy.cc file.

#ifndef LOOM_TRANSFORMS_FP_BARRIER_SHARED_
#define LOOM_TRANSFORMS_FP_BARRIER_SHARED_
namespace loom::transforms {
// The scalar form (for the scalar references and the emulated targets).
inline float opaque(float v) {
#if defined(__GNUC__) && defined(__x86_64__)
  asm("" : "+x"(v));
#elif defined(__GNUC__) && defined(__aarch64__)
  asm("" : "+w"(v));
#elif defined(__GNUC__)
  asm("" : "+m"(v));
#endif
  return v;
}
}  // namespace loom::transforms
#endif  // LOOM_TRANSFORMS_FP_BARRIER_SHARED_

#if defined(LOOM_TRANSFORMS_FP_BARRIER_INL_H_) == defined(HWY_TARGET_TOGGLE)
#ifdef LOOM_TRANSFORMS_FP_BARRIER_INL_H_
#undef LOOM_TRANSFORMS_FP_BARRIER_INL_H_
#else
#define LOOM_TRANSFORMS_FP_BARRIER_INL_H_
#endif

HWY_BEFORE_NAMESPACE();
namespace loom::transforms::HWY_NAMESPACE {

template <class V>
HWY_INLINE V Opaque(V v) {
#if HWY_TARGET == HWY_SCALAR
  v.raw = opaque(v.raw);
#elif HWY_TARGET == HWY_EMU128
  for (auto& lane : v.raw) lane = opaque(lane);
#elif HWY_ARCH_X86
  asm("" : "+x"(v.raw));
#elif HWY_ARCH_ARM_A64 && HWY_TARGET == HWY_NEON
  asm("" : "+w"(v.raw));
#elif HWY_ARCH_ARM_A64
  asm("" : "+w"(v));  // SVE: sizeless vector types
#else
#error "Opaque: no barrier for this Highway target"
#endif
  return v;
}

}  // namespace loom::transforms::HWY_NAMESPACE
HWY_AFTER_NAMESPACE();

#endif  // LOOM_TRANSFORMS_FP_BARRIER_INL_H_
