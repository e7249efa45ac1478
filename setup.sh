#!/usr/bin/env bash
# loom set-up: installs the Debian packages that are needed (skipping those present), configures
# (Ninja, Release) and builds; then runs what was asked.
#
#   ./setup.sh          the library, the CLI and the Python package: their packages (PACKAGES), built
#                       without the tests and benchmarks
#   ./setup.sh demo     ... then run the demo (generated media, batch-preprocessed by the CLI)
#   ./setup.sh test     ... also the test tooling (TEST_PACKAGES: GoogleTest, clang, qemu and the arm64
#                       cross packages, the reference tools and Python packages the parity tests
#                       compare with), built with the tests and benchmarks; then the whole test suite:
#                       the clang-format check, the Release tests,
#                       the same tests under ASan + UBSan, the multi-threaded ones under TSan, the SIMD
#                       kernels cross-built for aarch64 under qemu, and each fuzzer for a while
#
# Environment: BUILD_DIR (default: build), LOOM_MEDIA_DIR (default: ../shared/media),
# CMAKE_ARGS (extra configure arguments), LOOM_FUZZ_SECONDS (per fuzzer, default 60), LOOM_FUZZ_SEED
# (libFuzzer seed, default 1; 0 for a new one each run).
set -euo pipefail
cd "$(dirname "$0")"
BUILD_DIR=${BUILD_DIR:-build}

PACKAGES=(
  # toolchain
  build-essential cmake ninja-build pkg-config ccache curl xz-utils
  # library dependencies
  libjpeg62-turbo-dev libpng-dev libavformat-dev libavcodec-dev libavutil-dev libswscale-dev libswresample-dev
  libhwy-dev libcli11-dev nlohmann-json3-dev libfmt-dev libdlpack-dev libfreetype-dev fonts-dejavu-core
  libsndfile1-dev libvorbis-dev libogg-dev libsox-dev libsoxr-dev libtbb-dev libarchive-dev
  libwebp-dev libgif-dev libavif-dev libheif-dev libtiff-dev
  # the Python package (built against Debian's python3; pip fetches the pinned nanobind)
  python3 python3-dev python3-venv python3-pip python3-numpy
  # the demo's generated media (scripts/demo.sh)
  ffmpeg sox imagemagick
)
TEST_PACKAGES=(
  # tests, sanitizers, fuzzers and benchmarks
  libgtest-dev libgmock-dev libbenchmark-dev clang-14 libclang-rt-14-dev clang-format-14
  # aarch64 cross-check of the SIMD kernels under qemu (scripts/cross_neon.sh)
  g++-aarch64-linux-gnu qemu-user libhwy-dev:arm64 libgtest-dev:arm64 libfmt-dev:arm64
  # reference tools and Python packages of the parity checks (and tjbench for bench/jpeg_tjbench.py)
  webp libavif-bin libheif-examples libjpeg-turbo-progs python3-pytest python3-pil python3-opencv python3-matplotlib
  python3-torch python3-torchvision python3-torchaudio python3-soundfile python3-av
  # libtorch for the C++ training sample (samples/train_libtorch.cc)
  libtorch-dev
)

# Pinned PyPI build tools for the Python package (pyproject.toml pins the same for pip install .).
NANOBIND_VERSION=2.15.0

# Installs the packages named as arguments that are not installed yet.
install_packages() {
  local missing=()
  for p in "$@"; do
    dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing+=("$p")
  done
  [ ${#missing[@]} -eq 0 ] && return 0
  echo "setup: installing ${missing[*]}"
  local sudo=""
  [ "$(id -u)" -eq 0 ] || sudo=sudo
  # The :arm64 packages need the architecture enabled (multiarch) before the update.
  if [[ " ${missing[*]} " == *":arm64 "* ]]; then
    dpkg --print-foreign-architectures | grep -qx arm64 || $sudo dpkg --add-architecture arm64
  fi
  $sudo apt-get update -qq
  DEBIAN_FRONTEND=noninteractive $sudo apt-get install -y -qq --no-install-recommends "${missing[@]}" >/dev/null
}

MEDIA=${LOOM_MEDIA_DIR:-$(pwd)/../shared/media}
# The CUDA toolkit's usual home, for LOOM_CUDA=AUTO when a login shell did not put nvcc on the PATH.
if ! command -v nvcc >/dev/null && [ -x /usr/local/cuda/bin/nvcc ]; then export PATH=/usr/local/cuda/bin:$PATH; fi
JOBS=$(nproc)
# Paths in ccache keys relative to the checkout: the wheel build (tests/wheel) reuses these objects.
export CCACHE_BASEDIR=${CCACHE_BASEDIR:-$(pwd)}

# nanobind into BUILD_DIR/python-tools (a source package: CMake builds it with the extension).
python_tools() {
  local dir="$BUILD_DIR/python-tools"
  [ -f "$dir/nanobind-$NANOBIND_VERSION.installed" ] && return 0
  mkdir -p "$dir"
  /usr/bin/python3 -m pip install -q --disable-pip-version-check --root-user-action=ignore --no-deps \
    --upgrade --target "$dir" "nanobind==$NANOBIND_VERSION"
  touch "$dir/nanobind-$NANOBIND_VERSION.installed"
}

# Builds; with "tests", the tests and benchmarks too.
build() {
  python_tools
  local with_tests=OFF
  [ "${1:-}" = tests ] && with_tests=ON
  # shellcheck disable=SC2086
  cmake -G Ninja -S . -B "$BUILD_DIR" -DCMAKE_BUILD_TYPE=Release -DLOOM_MEDIA_DIR="$MEDIA" \
    -DLOOM_BUILD_TESTS=$with_tests -DLOOM_BUILD_BENCH=$with_tests \
    -DLOOM_PYTHON=ON -DPython_EXECUTABLE=/usr/bin/python3 -Dnanobind_DIR="$(realpath "$BUILD_DIR")/python-tools/nanobind/cmake" \
    ${CMAKE_ARGS:-} >/dev/null
  cmake --build "$BUILD_DIR"
}

# `import loom` for Debian's python3 (and any python3.11 reading the same user site): a .pth file in
# the user site-packages naming the build tree's package folder. A venv gets loom with `pip install .`.
register_python_package() {
  local site
  site=$(/usr/bin/python3 -m site --user-site)
  mkdir -p "$site"
  realpath "$BUILD_DIR/python" >"$site/loom-build.pth"
  /usr/bin/python3 -c "import loom, loom.io" || { echo "setup: import loom failed" >&2; exit 1; }
}

# The same suite under a sanitizer preset (see CMakePresets.json). TSan links a oneTBB built with TSan
# (scripts/tsan_onetbb.sh), so that the loader's thread pool is seen to synchronise. TSan leaves out
# LoaderFork.*: it refuses to start threads in the child of a process that had two threads at fork(),
# and after oneTBB's blocking finalize a worker can still be exiting (half of the forks under TSan);
# those tests run in the Release and ASan suites.
sanitized() {
  echo "== tests under $1"
  local extra=()
  [ "$1" = tsan ] && extra=(-DTBB_DIR="$(scripts/tsan_onetbb.sh)")
  cmake --preset "$1" -DLOOM_MEDIA_DIR="$MEDIA" "${extra[@]}" >/dev/null
  cmake --build --preset "$1" | tail -n 1
  ctest --preset "$1" -j "$JOBS"
}

run_tests() {
  scripts/check_format.sh
  echo "== tests (Release)"
  ctest --test-dir "$BUILD_DIR" --output-on-failure -j "$JOBS"
  sanitized asan
  sanitized tsan
  scripts/cross_neon.sh
  echo "== fuzzers"
  scripts/fuzz.sh "${LOOM_FUZZ_SECONDS:-60}"
}

case "${1:-build}" in
  build | demo) install_packages "${PACKAGES[@]}" && build ;;
  test) install_packages "${PACKAGES[@]}" "${TEST_PACKAGES[@]}" && build tests ;;
  *) echo "usage: $0 [build|demo|test]" >&2; exit 2 ;;
esac
register_python_package
case "${1:-build}" in
  demo) scripts/demo.sh "$BUILD_DIR" ;;
  test) run_tests ;;
esac
