#!/usr/bin/env bash
# Runs every loom benchmark that compares with a peer, then the plot. Builds nothing.
#
#   bench/run_all.sh BUILD_DIR [RESULTS_DIR]
#
# BUILD_DIR: a configured and built loom tree (Release), with cli/loom and
#            bench/loom_bench_image_decode in it, e.g.
#              cmake -G Ninja -S . -B build -DCMAKE_BUILD_TYPE=Release && ninja -C build
# RESULTS_DIR: where the JSON and text outputs go (default: a new temporary folder, printed).
# Writes docs/performance_images.png and docs/performance_transforms.png. Needs Debian's /usr/bin/python3 with python3-pil,
# python3-opencv, python3-numpy and python3-matplotlib. Takes a few minutes; keep the machine quiet.
set -euo pipefail

if [[ $# -lt 1 || $# -gt 2 ]]; then
  echo "usage: $0 BUILD_DIR [RESULTS_DIR]" >&2
  exit 2
fi
here="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
build="$(cd "$1" && pwd)"
results="${2:-$(mktemp -d -t loom-bench-XXXXXX)}"
mkdir -p "$results"
py=/usr/bin/python3

for f in "$build/cli/loom" "$build/bench/loom_bench_image_decode" "$build/bench/loom_bench_resize"; do
  [[ -x "$f" ]] || { echo "missing $f: build loom first" >&2; exit 1; }
done

echo "== image decode (results in $results)"
"$py" "$here/image_decode.py" --loom-bench "$build/bench/loom_bench_image_decode" \
  --json "$results/decode.json" | tee "$results/decode.txt"
echo "== convert --resize 256"
"$py" "$here/convert_resize.py" --loom "$build/cli/loom" \
  --json "$results/convert.json" | tee "$results/convert.txt"
echo "== resize"
"$py" "$here/resize.py" --loom-bench "$build/bench/loom_bench_resize" \
  --json "$results/resize.json" | tee "$results/resize.txt"
echo "== gaussian noise and normalize"
if [[ -x "$build/bench/loom_bench_color" ]]; then
  "$py" "$here/noise_normalize.py" --loom-bench "$build/bench/loom_bench_color" \
    --json "$results/noise_normalize.json" | tee "$results/noise_normalize.txt"
else
  echo "missing $build/bench/loom_bench_color: build loom first" >&2; exit 1
fi
echo "== geometric transforms"
if [[ -x "$build/bench/loom_bench_geometry" ]]; then
  "$py" "$here/geometry.py" --loom-bench "$build/bench/loom_bench_geometry" \
    --json "$results/geometry.json" | tee "$results/geometry.txt"
else
  echo "missing $build/bench/loom_bench_geometry: build loom first" >&2; exit 1
fi
echo "== audio load"
if [[ -x "$build/bench/loom_bench_audio_load" ]]; then
  "$py" "$here/audio_load.py" --loom-bench "$build/bench/loom_bench_audio_load" \
    --json "$results/audio_load.json" | tee "$results/audio_load.txt"
else
  echo "missing $build/bench/loom_bench_audio_load: build loom first" >&2; exit 1
fi
echo "== video decode"
if [[ -x "$build/bench/loom_bench_video_decode" ]]; then
  "$py" "$here/video_decode.py" --loom-bench "$build/bench/loom_bench_video_decode" \
    --json "$results/video_decode.json" | tee "$results/video_decode.txt"
else
  echo "missing $build/bench/loom_bench_video_decode: build loom with -DLOOM_BUILD_BENCH=ON first" >&2; exit 1
fi
echo "== plot"
"$py" "$here/plot.py" --decode "$results/decode.json" --convert "$results/convert.json" --resize "$results/resize.json" \
  --noise-normalize "$results/noise_normalize.json" \
  -o "$here/../docs/performance_images.png" -o2 "$here/../docs/performance_transforms.png"
echo "results: $results"
