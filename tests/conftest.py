"""Shared fixtures for loom's Python-driven tests (CLI behaviour and parity with Pillow).

They run with Debian's /usr/bin/python3, which has python3-pil, python3-numpy and python3-pytest.
"""
import os
import subprocess
from pathlib import Path

import pytest


def pytest_configure(config):
    config.addinivalue_line("markers", "gpu: needs a CUDA device (skipped without one; the GPU check runs -m gpu)")


def pytest_addoption(parser):
    parser.addoption("--loom", required=True, help="path to the loom executable")
    parser.addoption("--media", required=True, help="path to ../shared/media")
    parser.addoption("--fault-injection", default=None,
                     help="path to the LD_PRELOAD fault injection library (tests/common/fault_injection.c)")


@pytest.fixture(scope="session")
def loom(request):
    path = Path(request.config.getoption("--loom"))
    assert path.is_file(), f"loom executable not found: {path}"
    return path


@pytest.fixture(scope="session")
def media(request):
    """../shared/media; a test that needs it is skipped, saying so, when the folder is absent (a clone
    elsewhere runs the rest of the suite on generated media)."""
    path = Path(request.config.getoption("--media"))
    if not path.is_dir():
        pytest.skip(f"needs the test media folder {path} (../shared/media; see scripts/fetch_media.sh)")
    return path


@pytest.fixture(scope="session")
def faulty_env(request):
    """Returns env(**faults): this process's environment with the fault injection library preloaded and
    the given LOOM_FAULT_* variables set (tests/common/fault_injection.c)."""
    library = request.config.getoption("--fault-injection")
    assert library and Path(library).is_file(), f"fault injection library not given or missing: {library}"

    def env(**faults):
        e = dict(os.environ, LD_PRELOAD=library, **{f"LOOM_FAULT_{k.upper()}": str(v) for k, v in faults.items()})
        # Under AddressSanitizer the preloaded library comes before ASan's runtime, which it allows so.
        e["ASAN_OPTIONS"] = ":".join(filter(None, [os.environ.get("ASAN_OPTIONS"), "verify_asan_link_order=0"]))
        return e

    return env


@pytest.fixture(scope="session")
def run_loom(loom):
    """Runs loom with arguments; returns the CompletedProcess (text mode, never raises on status)."""

    def run(*args, timeout=300, **kwargs):
        return subprocess.run([str(loom), *map(str, args)], capture_output=True, text=True,
                              timeout=timeout, **kwargs)

    return run
