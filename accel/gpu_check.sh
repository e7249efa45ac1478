#!/usr/bin/env bash
# The GPU check (issue 13, docs/gpu.md): runs every gpu-labelled test (C++ and, from a build, Python) and
# the GPU benchmarks, and writes what they printed to a results folder:
#   gpu.txt            the GPU (nvidia-smi)
#   tests-gpu.txt      the C++ gpu tests: accel, transforms, video (NVDEC) and loader on the device
#   pytest-gpu.txt     tests/python -m gpu (loom.cuda, the loader into device memory, DLPack streams)
#   decode.jsonl       NVDEC against the CPU decoder (all cores) on 1080p H.264 and HEVC
#   transforms.jsonl   resize and normalize, GPU against CPU (one thread)
#   loader.jsonl       the ImageNet pipeline into device memory: CPU loader, CPU loader + a synchronous
#                      copy per batch, the loader's overlapped copy
#   summary.md         the tables of docs/gpu.md, filled in
# Sized to finish in under 8 minutes on one H200 with 16 cores (building is most of it).
#
#   accel/gpu_check.sh [RESULTS]     RESULTS defaults to $OUT when set (the device tool), else gpu-check
#
# Two ways to run it:
# - from a build (a machine with loom's Debian packages and nvcc): it builds BUILD_DIR (default
#   build-gpu) for CUDA_ARCHS (default 90) unless SKIP_BUILD=1, and runs ctest -L gpu and pytest -m gpu.
# - from a bundle (a GPU machine without loom's libraries): GPU_BUNDLE=ARCHIVE, made here by
#   accel/gpu_bundle.sh; it is unpacked at /tmp/loom-gpu-bundle and its gpu test programs run directly
#   (no Python: the package is built for Debian's python3).
# LOOM_MEDIA_DIR (default ../shared/media) is the test media of a build. Exit status: non-zero when a
# test failed.
set -uo pipefail
cd "$(dirname "$0")/.."
RESULTS=$(realpath -m "${1:-${OUT:-gpu-check}}")
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

if [ -n "${GPU_BUNDLE:-}" ]; then
  root=/tmp/loom-gpu-bundle
  step "unpack $GPU_BUNDLE"
  rm -rf "$root" && mkdir -p "$root" && tar -xJf "$GPU_BUNDLE" -C "$root" || exit 1
  export LD_LIBRARY_PATH="$root/lib${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}"
  bin=$root/bin bench=$root/bin loom=$root/bin/loom inputs=$root/inputs
  step "gpu tests"
  : >"$RESULTS/tests-gpu.txt"
  for t in "$bin"/test_*_gpu; do
    "$t" >>"$RESULTS/tests-gpu.txt" 2>&1 || status=1
  done
  grep -E "^\[==========\] .* ran|^\[  (PASSED|FAILED) " "$RESULTS/tests-gpu.txt"
  echo "no Python package in a bundle: Python gpu tests not run" | tee "$RESULTS/pytest-gpu.txt"
else
  BUILD_DIR=${BUILD_DIR:-build-gpu}
  if [ "${SKIP_BUILD:-0}" != 1 ]; then
    step "build ($BUILD_DIR, CUDA architectures ${CUDA_ARCHS:-90})"
    python_args=(-DLOOM_PYTHON=OFF)
    if [ -f "$BUILD_DIR/python-tools/nanobind/cmake/nanobind-config.cmake" ]; then
      python_args=(-DLOOM_PYTHON=ON -DPython_EXECUTABLE=/usr/bin/python3
                   -Dnanobind_DIR="$(realpath "$BUILD_DIR")/python-tools/nanobind/cmake")
    fi
    { cmake -G Ninja -S . -B "$BUILD_DIR" -DCMAKE_BUILD_TYPE=Release -DLOOM_CUDA=ON \
        -DCMAKE_CUDA_ARCHITECTURES="${CUDA_ARCHS:-90}" -DLOOM_MEDIA_DIR="$MEDIA" "${python_args[@]}" &&
        cmake --build "$BUILD_DIR" -j "$JOBS"; } >"$RESULTS/build.txt" 2>&1 || {
      tail -n 40 "$RESULTS/build.txt"
      exit 1
    }
  fi
  bench=$BUILD_DIR/bench loom=$BUILD_DIR/cli/loom inputs=$WORK
  step "gpu-labelled tests"
  ctest --test-dir "$BUILD_DIR" -L gpu --output-on-failure -j 4 >"$RESULTS/tests-gpu.txt" 2>&1 || status=1
  grep -E "tests passed|FAILED|Failed" "$RESULTS/tests-gpu.txt"
  if [ -d "$BUILD_DIR/python/loom" ]; then
    step "Python gpu tests"
    PYTHONPATH="$BUILD_DIR/python" /usr/bin/python3 -m pytest -q -p no:cacheprovider -m gpu tests/python \
      --loom="$loom" --media="$MEDIA" >"$RESULTS/pytest-gpu.txt" 2>&1 || status=1
    tail -n 3 "$RESULTS/pytest-gpu.txt"
  else
    echo "no Python package in $BUILD_DIR: Python gpu tests not run" | tee "$RESULTS/pytest-gpu.txt"
  fi
  step "inputs (accel/gpu_inputs.sh)"
  accel/gpu_inputs.sh "$WORK"
fi

# The loader benchmark's ImageFolder: 256 JPEGs in two classes, the 16 inputs copied 16 times.
mkdir -p "$inputs/images/a" "$inputs/images/b"
for k in $(seq 0 15); do
  for f in "$inputs"/jpegs/*.jpg; do cp "$f" "$inputs/images/$([ "$k" -lt 8 ] && echo a || echo b)/$k-${f##*/}"; done
done

step "decode: NVDEC against the CPU"
: >"$RESULTS/decode.jsonl"
for clip in "$inputs/h264_1080p.mp4" "$inputs/hevc_1080p.mp4"; do
  for device in cpu cuda; do
    "$bench/loom_bench_video_decode" --workload sequential --threads 0 --batch 16 --reps 3 --device "$device" "$clip" |
      tee -a "$RESULTS/decode.jsonl"
  done
done

step "resize and normalize: GPU against CPU"
"$bench/loom_bench_gpu_transforms" | tee "$RESULTS/transforms.jsonl"

step "loader into device memory"
: >"$RESULTS/loader.jsonl"
for mode in "--device cpu" "--device cuda --copy-after" "--device cuda"; do
  # shellcheck disable=SC2086
  "$loom" bench loader "$inputs/images" --batch 64 --threads "$JOBS" --epochs 4 $mode | tee -a "$RESULTS/loader.jsonl"
done

step "summary"
python3 - "$RESULTS" <<'PY' | tee "$RESULTS/summary.md"
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
print("\n| loader (batch 64, 224x224 float32) | device | copy | samples/s |\n|---|---|---|---:|")
for r in rows("loader.jsonl"):
    if "samples_per_second" in r:
        print(f"| {r['threads']} threads | {r['device']} | {r['copy']} | {r['samples_per_second']:.0f} |")
PY

echo "gpu check: $([ $status = 0 ] && echo passed || echo FAILED), results in $RESULTS"
exit $status
