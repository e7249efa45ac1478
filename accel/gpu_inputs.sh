#!/usr/bin/env bash
# The GPU benchmarks' inputs (accel/gpu_check.sh, packed by accel/gpu_bundle.sh), made with the ffmpeg
# CLI in DIR: h264_1080p.mp4 and hevc_1080p.mp4 (4 s of 1080p30 test pattern, B-frames in the H.264
# one) and jpegs/00.jpg .. 15.jpg (500x375, the size of an ImageNet photo; gpu_check.sh copies them
# into the 256-image folder the loader benchmark reads). Kept small, so that a bundle fits the device
# tool's limit.
#   accel/gpu_inputs.sh DIR
set -euo pipefail
dir=$1
mkdir -p "$dir/jpegs"
ffmpeg -v error -y -f lavfi -i testsrc2=size=1920x1080:rate=30 -t 4 -c:v libx264 -preset veryfast -crf 26 -bf 2 \
  -pix_fmt yuv420p "$dir/h264_1080p.mp4"
ffmpeg -v error -y -f lavfi -i testsrc2=size=1920x1080:rate=30 -t 4 -c:v libx265 -preset veryfast -crf 28 \
  -x265-params log-level=error -pix_fmt yuv420p "$dir/hevc_1080p.mp4"
ffmpeg -v error -y -f lavfi -i testsrc2=size=500x375:rate=25 -frames:v 16 -q:v 4 -start_number 0 "$dir/jpegs/%02d.jpg"
