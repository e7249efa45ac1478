#!/usr/bin/env bash
# Creates the Ray virtual environment for loom.ray and its tests: Ray from PyPI (pinned) in a venv of
# Debian's python3, apart from the system packages (Ray brings numpy 2; Debian's torch 1.13 wants numpy
# 1.x), with the build tree's loom importable through a .pth file naming BUILD/python. The extension is
# built for the interpreter CMake found (Debian's CPython 3.11), which is the venv's.
#
# usage: scripts/ray_venv.sh [BUILD_DIR]   (default: build; the venv is BUILD_DIR/ray-venv)
# Idempotent: an existing venv with the pinned Ray is kept (only the .pth is rewritten).
set -euo pipefail
RAY_VERSION=2.60.0
PYTEST_VERSION=9.2.0  # tests/ray run in the venv
build=$(realpath "${1:-build}")
venv=$build/ray-venv
python=/usr/bin/python3

if ! "$venv/bin/python" -c "import ray, pytest, sys; sys.exit(ray.__version__ != '$RAY_VERSION' or pytest.__version__ != '$PYTEST_VERSION')" 2>/dev/null; then
  rm -rf "$venv"
  "$python" -m venv "$venv"
  "$venv/bin/python" -m pip install --quiet --disable-pip-version-check "ray[data]==$RAY_VERSION" \
    "pytest==$PYTEST_VERSION"
fi
site=$("$venv/bin/python" -c 'import sysconfig; print(sysconfig.get_paths()["purelib"])')
echo "$build/python" >"$site/loom-build.pth"
echo "$venv"
