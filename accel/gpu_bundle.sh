#!/usr/bin/env bash
# Packs what accel/gpu_check.sh needs into one archive for a GPU machine that has the NVIDIA driver but
# none of loom's libraries (a device machine lent to a session: no Debian packages, no registry): the
# GPU tests and benchmarks built for sm_90, loom's libraries, every shared library they load that is not
# the C/C++ runtime or the driver, the test media they read and the benchmarks' inputs (1080p H.264 and
# HEVC clips, a folder of JPEGs). Unpacked at /tmp/loom-gpu-bundle (the path the tests were built
# with), it runs there with GPU_BUNDLE=... accel/gpu_check.sh.
#
#   accel/gpu_bundle.sh [ARCHIVE]        default .gpu-bundle/loom-gpu.tar.xz (ignored by git)
#
# Environment: BUILD_DIR (default build-gpu-bundle), CUDA_ARCHS (default 90-real), LOOM_MEDIA_DIR
# (../shared/media). The archive (about 55 MB, most of it FFmpeg and its codecs) and the checkout
# together stay under the device tool's 64 MiB: name .gpu-bundle in its carry.
set -euo pipefail
cd "$(dirname "$0")/.."
ARCHIVE=$(realpath -m "${1:-.gpu-bundle/loom-gpu.tar.xz}")
BUILD_DIR=${BUILD_DIR:-build-gpu-bundle}
MEDIA=${LOOM_MEDIA_DIR:-$(pwd)/../shared/media}
ROOT=/tmp/loom-gpu-bundle  # where gpu_check.sh unpacks it; the tests read their media from $ROOT/media
export CCACHE_BASEDIR=${CCACHE_BASEDIR:-$(pwd)}
if ! command -v nvcc >/dev/null && [ -x /usr/local/cuda/bin/nvcc ]; then export PATH=/usr/local/cuda/bin:$PATH; fi

targets=(test_accel_gpu test_transforms_gpu test_video_gpu test_loader_gpu loom loom_cli
         loom_bench_video_decode loom_bench_gpu_transforms)
cmake -G Ninja -S . -B "$BUILD_DIR" -DCMAKE_BUILD_TYPE=Release -DLOOM_CUDA=ON -DLOOM_PYTHON=OFF \
  -DCMAKE_CUDA_ARCHITECTURES="${CUDA_ARCHS:-90-real}" -DLOOM_MEDIA_DIR="$ROOT/media" >/dev/null
cmake --build "$BUILD_DIR" --target "${targets[@]}"

stage=$(mktemp -d)
trap 'rm -rf "$stage"' EXIT
mkdir -p "$stage/bin" "$stage/lib" "$stage/media/video"
cp "$BUILD_DIR"/tests/test_*_gpu "$BUILD_DIR"/bench/loom_bench_video_decode "$BUILD_DIR"/bench/loom_bench_gpu_transforms \
  "$BUILD_DIR"/cli/loom "$stage/bin/"
cp "$BUILD_DIR"/cli/libloom_cli.so "$stage/bin/"  # the launcher finds it beside itself
# Every library the programs load, but the C and C++ runtimes (the machine's newer ones serve) and the
# driver's (the machine's own must be used).
system='/(libc|libm|libstdc\+\+|libgcc_s|ld-linux-x86-64|libpthread|libdl|librt|libcuda|libnvidia-[a-z-]*)\.so'
for program in "$stage"/bin/*; do
  ldd "$program" | awk '/=> \// {print $3}'
done | sort -u | grep -Ev "$system" | while read -r lib; do cp -L "$lib" "$stage/lib/"; done
for f in nasa_13013.mp4 h265_video.mp4 moviepy_no_duration.webm exo_roadtrip-vp92-10bit.webm h264_10bits.mp4 \
  exo_sample_with_increasing_timestamps_320w_240h.mp4 decord_video_90.mov; do
  cp "$MEDIA/video/$f" "$stage/media/video/"
done
accel/gpu_inputs.sh "$stage/inputs"
mkdir -p "$(dirname "$ARCHIVE")"
XZ_OPT=-9 tar -cJf "$ARCHIVE" -C "$stage" .
echo "gpu bundle: $ARCHIVE ($(du -h "$ARCHIVE" | cut -f1)); on the GPU machine: GPU_BUNDLE=$ARCHIVE accel/gpu_check.sh"
