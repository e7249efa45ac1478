#!/usr/bin/env bash
# Builds Debian's oneTBB (the same 2021.8.0 source as libtbb-dev) with ThreadSanitizer into a prefix, so
# that the TSan preset sees the loader's thread pool synchronise: an uninstrumented libtbb.so hides the
# happens-before of its task queues, and TSan then reports races on every task's data. The source comes
# from Debian's archive, checked against the hash of its .dsc; the build takes under a minute (ccache).
# Prints the prefix's TBB_DIR for CMake.
#   scripts/tsan_onetbb.sh [PREFIX]
set -euo pipefail
cd "$(dirname "$0")/.."
prefix=$(realpath -m "${1:-build-tsan-onetbb}")
dir=$prefix/lib/cmake/TBB
if [ -f "$dir/TBBConfig.cmake" ]; then
  echo "$dir"
  exit 0
fi
version=2021.8.0
sha256=7e9111b8bb59c8800bf6d0b06afe7b0891937443d2dae1ee1101c8e2ede6a7ef
url=http://deb.debian.org/debian/pool/main/o/onetbb/onetbb_${version}.orig.tar.xz
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
curl -fsSL --retry 3 -o "$work/src.tar.xz" "$url"
echo "$sha256  $work/src.tar.xz" | sha256sum -c --quiet
mkdir "$work/src"
tar -xJf "$work/src.tar.xz" -C "$work/src" --strip-components=1
launcher=()
command -v ccache >/dev/null && launcher=(-DCMAKE_CXX_COMPILER_LAUNCHER=ccache -DCMAKE_C_COMPILER_LAUNCHER=ccache)
cmake -G Ninja -S "$work/src" -B "$work/build" -DCMAKE_BUILD_TYPE=RelWithDebInfo -DTBB_SANITIZE=thread \
  -DTBB_TEST=OFF -DTBB_EXAMPLES=OFF -DTBBMALLOC_BUILD=OFF -DTBB_STRICT=OFF -DCMAKE_INSTALL_PREFIX="$prefix" \
  "${launcher[@]}" >/dev/null
cmake --build "$work/build" --target install >/dev/null
echo "$dir"
