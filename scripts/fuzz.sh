#!/usr/bin/env bash
# Builds the libFuzzer targets (CMake preset "fuzz": clang-14, ASan + UBSan) and runs each for SECONDS
# (default 60) from a corpus seeded with fuzz/regressions/<target>/ and, for images and audio,
# ../shared/media (copied into build-fuzz/corpus at run time, audio files cut to their first 64 KiB; never
# committed).
# A crash, leak or timeout fails the script; the input that caused it is saved as
# fuzz/regressions/<target>/<kind>-<sha1> so that, once committed, ctest replays it in every build.
# The mutation seed is LOOM_FUZZ_SEED (default 1), so that CI explores the same inputs on every run and
# a failure reproduces; LOOM_FUZZ_SEED=0 lets libFuzzer pick a new seed (for longer exploring runs).
#   scripts/fuzz.sh [SECONDS]
set -euo pipefail
cd "$(dirname "$0")/.."
seconds=${1:-60}
seed=${LOOM_FUZZ_SEED:-1}
media=${LOOM_MEDIA_DIR:-$(pwd)/../shared/media}
# Leaks inside system libraries loom cannot patch (see the file).
export LSAN_OPTIONS="suppressions=$(pwd)/fuzz/lsan_suppressions.txt${LSAN_OPTIONS:+:$LSAN_OPTIONS}"
cmake --preset fuzz >/dev/null
cmake --build --preset fuzz

status=0
for target in image_decode audio_decode video_decode cli_args tar; do
  corpus=build-fuzz/corpus/$target
  mkdir -p "$corpus"
  cp -n fuzz/regressions/$target/* "$corpus"/ 2>/dev/null || true
  if [ "$target" = image_decode ] && [ -d "$media" ]; then
    find "$media/images" "$media/images_damaged" -type f -size -200k -exec cp -n {} "$corpus"/ \;
  fi
  if [ "$target" = audio_decode ] && [ -d "$media/audio" ]; then
    for f in "$media"/audio/*.*; do
      [ -e "$corpus/media_$(basename "$f")" ] || head -c 65536 "$f" >"$corpus/media_$(basename "$f")"
    done
  fi
  dict=fuzz/$target.dict
  echo "== fuzz_$target for ${seconds}s"
  if ! build-fuzz/fuzz/fuzz_$target "$corpus" -max_total_time="$seconds" -seed="$seed" -timeout=10 -rss_limit_mb=2048 \
        -max_len=262144 -print_final_stats=1 -artifact_prefix="fuzz/regressions/$target/" \
        $([ -f "$dict" ] && echo "-dict=$dict") 2>build-fuzz/fuzz_$target.log; then
    tail -40 build-fuzz/fuzz_$target.log
    echo "fuzz_$target FAILED: the input is in fuzz/regressions/$target/" >&2
    status=1
  else
    grep -E "stat::number_of_executed_units|cov:" build-fuzz/fuzz_$target.log | tail -2
  fi
done
exit $status
