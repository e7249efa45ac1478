#!/usr/bin/env bash
# Runs every loom benchmark that compares with a peer, then the plot. Builds nothing.
#
#   bench/run_all.sh BUILD_DIR [RESULTS_DIR]
#
# BUILD_DIR: a configured and built loom tree (Release), with cli/loom and
#            bench/loom_bench_image_decode in it, e.g.
#              cmake -G Ninja -S . -B build -DCMAKE_BUILD_TYPE=Release && ninja -C build
# RESULTS_DIR: where the JSON and text outputs go (default: a new temporary folder, printed).
# Writes docs/performance_images.png, docs/performance_transforms.png and docs/performance_loader.png. Needs Debian's
# /usr/bin/python3 with python3-pil, python3-opencv, python3-numpy, python3-matplotlib and python3-torchvision; the
# loader step also runs the PyPI torch and DALI peers when bench/setup_loader_peers.sh has made their venvs in /tmp
# (skipped, and said so, when not). Takes a few minutes; keep the machine quiet.
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

# step TITLE SCRIPT NAME TOOL [HINT]: runs bench/SCRIPT.py on TOOL (passed as --loom for cli/loom, else
# as --loom-bench), writing $results/NAME.json and NAME.txt; stops when TOOL is missing.
step() {
  local title=$1 script=$2 name=$3 tool=$4 hint=${5:-build loom first}
  echo "== $title"
  [[ -x "$tool" ]] || { echo "missing $tool: $hint" >&2; exit 1; }
  local flag=--loom-bench
  [[ "$tool" == "$build/cli/loom" ]] && flag=--loom
  "$py" "$here/$script.py" "$flag" "$tool" --json "$results/$name.json" | tee "$results/$name.txt"
}

step "image decode (results in $results)" image_decode decode "$build/bench/loom_bench_image_decode"
step "convert --resize 256" convert_resize convert "$build/cli/loom"
step "resize" resize resize "$build/bench/loom_bench_resize"
step "gaussian noise and normalize" noise_normalize noise_normalize "$build/bench/loom_bench_color"
step "geometric transforms" geometry geometry "$build/bench/loom_bench_geometry"
step "audio load" audio_load audio_load "$build/bench/loom_bench_audio_load"
step "video decode" video_decode video_decode "$build/bench/loom_bench_video_decode" \
  "build loom with -DLOOM_BUILD_BENCH=ON first"
step "loader pipeline vs DataLoader and DALI" loader loader "$build/cli/loom"
echo "== plot"
"$py" "$here/plot.py" --decode "$results/decode.json" --convert "$results/convert.json" --resize "$results/resize.json" \
  --noise-normalize "$results/noise_normalize.json" --loader "$results/loader.json" \
  -o "$here/../docs/performance_images.png" -o2 "$here/../docs/performance_transforms.png" \
  -o3 "$here/../docs/performance_loader.png"
echo "results: $results"
