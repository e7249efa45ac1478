"""Shared fixtures for loom's Python-driven tests (CLI behaviour and parity with Pillow).

They run with Debian's /usr/bin/python3, which has python3-pil, python3-numpy and python3-pytest.
"""
import os
import subprocess
from pathlib import Path

import pytest


def pytest_addoption(parser):
    parser.addoption("--loom", required=True, help="path to the loom executable")
    parser.addoption("--media", required=True, help="path to ../shared/media")


@pytest.fixture(scope="session")
def loom(request):
    path = Path(request.config.getoption("--loom"))
    assert path.is_file(), f"loom executable not found: {path}"
    return path


@pytest.fixture(scope="session")
def media(request):
    path = Path(request.config.getoption("--media"))
    assert path.is_dir(), f"test media folder not found: {path}"
    return path


@pytest.fixture(scope="session")
def run_loom(loom):
    """Runs loom with arguments; returns the CompletedProcess (text mode, never raises on status)."""

    def run(*args, timeout=300, **kwargs):
        return subprocess.run([str(loom), *map(str, args)], capture_output=True, text=True,
                              timeout=timeout, **kwargs)

    return run
