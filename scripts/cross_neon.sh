#!/usr/bin/env bash
# Cross-compiles loom's Highway SIMD kernels and their tests for aarch64 and runs them under
# qemu-user, so that the NEON (and SVE/SVE2, which qemu emulates) code paths are checked against the
# scalar references on every target Highway generates there. Needs Debian's g++-aarch64-linux-gnu,
# qemu-user and the arm64 builds of libhwy-dev, libgtest-dev and libfmt-dev (setup.sh installs them).
# Highway 1.0.3 with this g++ needs -march=armv8-a+crypto for its NEON target.
#   scripts/cross_neon.sh [OUT_DIR]
set -euo pipefail
cd "$(dirname "$0")/.."
out=${1:-build-aarch64}
mkdir -p "$out"
sources=(
  codec/src/error.cc codec/src/tensor.cc codec/src/block_cache.cc accel/src/cuda_runtime_none.cc accel/src/cuda_fork.cc
  accel/src/current_stream.cc accel/src/interleave_hwy.cc accel/src/pcm_hwy.cc
  accel/src/polyphase_fir_hwy.cc transforms/src/geometry/warp.cc transforms/src/geometry/warp_hwy.cc transforms/src/geometry/reverse_hwy.cc
  transforms/src/resize/resize.cc transforms/src/resize/resize_coefficients.cc transforms/src/resize/resize_hwy.cc
  transforms/src/resize/resize_tiles_hwy.cc video/src/yuv420_rgb_hwy.cc
  transforms/src/core/image_check.cc transforms/src/color/color_hwy.cc transforms/src/noise/ziggurat.cc transforms/src/noise/noise_hwy.cc
  tests/transforms/resize_test.cc tests/transforms/resize_hwy_test.cc tests/accel/interleave_test.cc tests/accel/pcm_test.cc
  tests/transforms/color_hwy_test.cc tests/transforms/noise_hwy_test.cc tests/accel/polyphase_fir_test.cc
  tests/transforms/warp_hwy_test.cc tests/transforms/reverse_hwy_test.cc tests/video/yuv420_rgb_hwy_test.cc
)
echo "== aarch64 SIMD kernels under qemu"
# -ffp-contract=off, as CMake builds the polyphase FIR and the warps: aarch64 compilers fuse a multiply
# and an add by default, and those kernels promise the scalar reference's separately rounded bits.
aarch64-linux-gnu-g++ -std=c++20 -O2 -march=armv8-a+crypto -ffp-contract=off \
  -Icodec/include -Iaccel/include -Iaccel/src -Ivision/include -Itransforms/include -Itransforms/src -Ivideo/src -Itests/common \
  -DLOOM_MEDIA_DIR=\"/nonexistent\" "${sources[@]}" -lgtest_main -lgtest -lhwy -lfmt -lpthread \
  -o "$out/simd_tests"
qemu-aarch64 -L /usr/aarch64-linux-gnu "$out/simd_tests" --gtest_brief=1
