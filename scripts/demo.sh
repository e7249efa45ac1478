#!/usr/bin/env bash
# The loom demo: generates sample media (ffmpeg, ImageMagick, sox), describes it with `loom info`, and
# batch-preprocesses the images with `loom convert` (shorter side 256, JPEG; JPEG inputs decode at a
# DCT-reduced size). One generated image is deliberately truncated to show the per-file error report.
#   scripts/demo.sh BUILD_DIR
set -euo pipefail
build=${1:-build}
loom="$build/cli/loom"
demo="$build/demo"
media="$demo/media"
out="$demo/out"
rm -rf "$demo"
mkdir -p "$media/images/photos" "$media/images/drawings" "$media/av"

echo "== generating sample media in $media"
ffmpeg -v error -f lavfi -i "testsrc2=size=1920x1080:rate=4" -frames:v 12 -q:v 3 "$media/images/photos/frame_%02d.jpg"
for i in 1 2 3 4; do
  /usr/bin/convert -size 800x600 "plasma:fractal" -seed "$i" "$media/images/drawings/plasma_$i.png" 2>/dev/null ||
    /usr/bin/convert -size 800x600 "gradient:#204080-#f0c020" -swirl $((i * 60)) "$media/images/drawings/plasma_$i.png"
done
head -c 30000 "$media/images/photos/frame_01.jpg" > "$media/images/photos/truncated.jpg"
sox -n -r 16000 -c 1 "$media/av/tone.wav" synth 2 sine 440 fade 0.1 2 0.1
ffmpeg -v error -f lavfi -i "testsrc=size=640x360:rate=25" -f lavfi -i "sine=frequency=220:sample_rate=48000" \
  -t 2 -c:v libx264 -pix_fmt yuv420p -c:a aac -shortest "$media/av/clip.mp4"

echo "== loom info (one JSON object per file)"
"$loom" info "$media/av" "$media/images/drawings/plasma_1.png" "$media/images/photos/frame_01.jpg"

echo "== loom convert --resize 256 --format jpg (one file is truncated on purpose)"
set +e
"$loom" convert "$media/images" -o "$out" --resize 256 --format jpg
status=$?
set -e
if [ "$status" -ne 1 ]; then
  echo "demo: expected exit status 1 for the truncated file, got $status" >&2
  exit 1
fi

echo "== results"
converted=$(find "$out" -type f | wc -l)
echo "$converted images written under $out (mirroring $media/images):"
"$loom" info "$out/photos/frame_01.jpg" "$out/drawings/plasma_1.jpg"
if [ "$converted" -ne 16 ] || [ -e "$out/photos/truncated.jpg" ]; then
  echo "demo: unexpected output" >&2
  exit 1
fi
echo "demo: ok (16 converted, the truncated file reported and skipped)"
