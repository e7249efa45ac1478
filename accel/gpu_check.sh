#!/usr/bin/env bash
# The GPU check (issue 13, docs/gpu.md): builds loom with CUDA, runs every gpu-labelled test (C++ and
# Python) and the GPU benchmarks, and writes what they printed to a results folder:
#   gpu.txt                    the GPU (nvidia-smi)
#   ctest-gpu.txt              ctest -L gpu: accel, transforms, video (NVDEC) and loader on the device
#   pytest-gpu.txt             tests/python -m gpu (loom.cuda, the loader into device memory, DLPack streams)
#   decode.jsonl               NVDEC against the CPU decoder (all cores) on 1080p H.264 and HEVC
#   transforms.jsonl           resize and normalize, GPU against CPU (one thread)
#   loader.jsonl               the ImageNet pipeline into device memory: CPU loader, CPU loader + a
#                              synchronous copy per batch, the loader's overlapped copy
#   summary.md                 the tables of docs/gpu.md, filled in
# Sized to finish in under 8 minutes on one H200 with 16 cores (the build is most of it).
#
#   accel/gpu_check.sh [RESULTS]          RESULTS defaults to $OUT when set (the device tool), else gpu-check
#
# Environment: BUILD_DIR (default build-gpu); SKIP_BUILD=1 uses BUILD_DIR as it is (a CUDA build carried
# to a machine without the toolchain); CUDA_ARCHS (default 90: what an H200 runs; CI builds 80 and 90
# plus PTX); LOOM_MEDIA_DIR (default ../shared/media). Exit status: non-zero when a test failed.
set -uo pipefail
cd "$(dirname "$0")/.."
RESULTS=$(realpath -m "${1:-${OUT:-gpu-check}}")
BUILD_DIR=${BUILD_DIR:-build-gpu}
MEDIA=${LOOM_MEDIA_DIR:-$(pwd)/../shared/media}
JOBS=$(nproc)
WORK=$(mktemp -d)
trap 'rm -rf "$WORK"' EXIT
mkdir -p "$RESULTS"
status=0
step() { echo "== $* ($(date +%T))"; }

step "GPU"
nvidia-smi --query-gpu=name,driver_version,memory.total,clocks.max.sm --format=csv >"$RESULTS/gpu.txt" 2>&1 ||
  echo "nvidia-smi failed" >>"$RESULTS/gpu.txt"
cat "$RESULTS/gpu.txt"

if [ "${SKIP_BUILD:-0}" != 1 ]; then
  step "build ($BUILD_DIR, sm_${CUDA_ARCHS:-90})"
  python_args=(-DLOOM_PYTHON=OFF)
  if [ -f "$BUILD_DIR/python-tools/nanobind/cmake/nanobind-config.cmake" ]; then
    python_args=(-DLOOM_PYTHON=ON -DPython_EXECUTABLE=/usr/bin/python3
                 -Dnanobind_DIR="$(realpath "$BUILD_DIR")/python-tools/nanobind/cmake")
  fi
  cmake -G Ninja -S . -B "$BUILD_DIR" -DCMAKE_BUILD_TYPE=Release -DLOOM_CUDA=ON \
    -DCMAKE_CUDA_ARCHITECTURES="${CUDA_ARCHS:-90}" -DLOOM_MEDIA_DIR="$MEDIA" "${python_args[@]}" >"$RESULTS/build.txt" 2>&1 &&
    cmake --build "$BUILD_DIR" -j "$JOBS" >>"$RESULTS/build.txt" 2>&1 || {
    tail -n 40 "$RESULTS/build.txt"
    exit 1
  }
fi
bin="$BUILD_DIR"

step "gpu-labelled tests"
ctest --test-dir "$bin" -L gpu --output-on-failure -j 4 2>&1 | tee "$RESULTS/ctest-gpu.txt" | tail -n 15 || status=1

if [ -d "$bin/python/loom" ]; then
  step "Python gpu tests"
  PYTHONPATH="$bin/python" /usr/bin/python3 -m pytest -q -p no:cacheprovider -m gpu tests/python \
    --loom="$bin/cli/loom" --media="$MEDIA" 2>&1 | tee "$RESULTS/pytest-gpu.txt" | tail -n 5 || status=1
else
  echo "no Python package in $bin: Python gpu tests not run" | tee "$RESULTS/pytest-gpu.txt"
fi

step "decode: NVDEC against the CPU"
: >"$RESULTS/decode.jsonl"
if command -v ffmpeg >/dev/null; then
  ffmpeg -v error -f lavfi -i testsrc2=size=1920x1080:rate=30 -t 10 -c:v libx264 -preset veryfast -bf 2 \
    -pix_fmt yuv420p "$WORK/h264_1080p.mp4"
  ffmpeg -v error -f lavfi -i testsrc2=size=1920x1080:rate=30 -t 10 -c:v libx265 -preset veryfast \
    -x265-params log-level=error -pix_fmt yuv420p "$WORK/hevc_1080p.mp4"
  for clip in "$WORK/h264_1080p.mp4" "$WORK/hevc_1080p.mp4"; do
    for device in cpu cuda; do
      "$bin/bench/loom_bench_video_decode" --workload sequential --threads 0 --batch 16 --reps 3 --device "$device" \
        "$clip" | tee -a "$RESULTS/decode.jsonl"
    done
  done
else
  echo '{"skipped": "no ffmpeg CLI to make the 1080p clips"}' | tee "$RESULTS/decode.jsonl"
fi

step "resize and normalize: GPU against CPU"
"$bin/bench/loom_bench_gpu_transforms" | tee "$RESULTS/transforms.jsonl"

step "loader into device memory"
: >"$RESULTS/loader.jsonl"
if command -v ffmpeg >/dev/null; then
  mkdir -p "$WORK/images/a" "$WORK/images/b"
  ffmpeg -v error -f lavfi -i testsrc2=size=500x375:rate=25 -frames:v 1024 -q:v 3 "$WORK/images/a/%04d.jpg"
  mv "$WORK"/images/a/0[5-9]*.jpg "$WORK"/images/a/1*.jpg "$WORK/images/b/" 2>/dev/null
  for mode in "--device cpu" "--device cuda --copy-after" "--device cuda"; do
    # shellcheck disable=SC2086
    "$bin/cli/loom" bench loader "$WORK/images" --batch 128 --threads "$JOBS" --epochs 3 $mode | tee -a "$RESULTS/loader.jsonl"
  done
else
  echo '{"skipped": "no ffmpeg CLI to make the JPEGs"}' | tee "$RESULTS/loader.jsonl"
fi

step "summary"
/usr/bin/python3 - "$RESULTS" <<'PY' | tee "$RESULTS/summary.md"
import json, pathlib, sys

out = pathlib.Path(sys.argv[1])
rows = lambda name: [json.loads(l) for l in (out / name).read_text().splitlines() if l.strip().startswith("{")]
print("GPU:", (out / "gpu.txt").read_text().strip().splitlines()[-1])
print("\n| clip | CPU fps (all cores) | NVDEC fps | NVDEC / CPU |\n|---|---:|---:|---:|")
decode = {}
for r in rows("decode.jsonl"):
    if "ms" in r:
        decode.setdefault(pathlib.Path(r["file"]).name, {})[r["device"]] = r["frames"] / r["ms"] * 1e3
for clip, fps in decode.items():
    cpu, gpu = fps.get("cpu"), fps.get("cuda:0")
    if cpu and gpu:
        print(f"| {clip} | {cpu:.0f} | {gpu:.0f} | {gpu / cpu:.2f} |")
print("\n| op | case | CPU ms (1 thread) | GPU ms | CPU / GPU |\n|---|---|---:|---:|---:|")
for r in rows("transforms.jsonl"):
    if "op" in r:
        print(f"| {r['op']} | {r['case']} | {r['cpu_ms']:.3f} | {r['gpu_ms']:.3f} | {r['cpu_over_gpu']:.1f} |")
print("\n| loader (batch 128, 224x224 float32) | device | copy | samples/s |\n|---|---|---|---:|")
for r in rows("loader.jsonl"):
    if "samples_per_second" in r:
        print(f"| {r['threads']} threads | {r['device']} | {r['copy']} | {r['samples_per_second']:.0f} |")
PY

grep -q "100% tests passed" "$RESULTS/ctest-gpu.txt" || status=1
echo "gpu check: $( [ $status = 0 ] && echo passed || echo FAILED ), results in $RESULTS"
exit $status
