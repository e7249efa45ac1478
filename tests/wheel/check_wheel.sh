#!/usr/bin/env bash
# `pip install .` into a fresh venv, then the wheel's tests with the venv's own numpy (2.x, from PyPI):
# the package a user gets from pip, not the build tree. Build tools come pinned from pyproject.toml.
#
# usage: tests/wheel/check_wheel.sh SOURCE_DIR WORK_DIR MEDIA_DIR LOOM_CLI (tests/conftest.py asks for both)
# The wheel builds in SOURCE_DIR/build-wheel with ccache based at SOURCE_DIR and the same compiler as
# the main build, so that the objects setup.sh compiled are reused.
set -euo pipefail
source_dir=$(realpath "$1") work=$(realpath -m "$2") media=$(realpath "$3") cli=$4
venv=$work/venv
rm -rf "$venv"
/usr/bin/python3 -m venv "$venv"
export CCACHE_BASEDIR=$source_dir CC=${CC:-cc} CXX=${CXX:-c++} PIP_DISABLE_PIP_VERSION_CHECK=1
"$venv/bin/pip" install -q "$source_dir" pytest==8.3.4
cd "$work"  # not the source tree: `import loom` must find the installed package
"$venv/bin/python" -m pytest -q -p no:cacheprovider "$source_dir/tests/wheel/test_wheel.py" --media="$media" --loom="$cli"
