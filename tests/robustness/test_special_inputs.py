"""Inputs that are not regular files (CATALOG.md 45a-45c): FIFOs and character devices named as inputs
are refused before anything opens them, so that no command can block waiting for a writer.

Each run has a timeout: a command that blocks in open() on the FIFO fails the test instead of hanging
the suite.
"""
import os

import pytest

TIMEOUT = 30


@pytest.fixture
def fifo(tmp_path):
    path = tmp_path / "pipe.wav"  # an audio extension: `loom audio` must not sniff it either
    os.mkfifo(path)
    return path


def refused(result, path):
    assert result.returncode == 1, (result.stdout, result.stderr)
    assert f"{path}: is not a regular file" in result.stderr


@pytest.mark.parametrize("device", ["fifo", "/dev/zero"])
@pytest.mark.parametrize("command", [["convert"], ["audio"], ["frames", "--indices", "0"]], ids=lambda c: c[0])
def test_batch_commands_refuse_a_special_file_without_blocking(run_loom, tmp_path, fifo, device, command):
    path = fifo if device == "fifo" else device
    out = tmp_path / "out"
    refused(run_loom(command[0], path, "-o", out, *command[1:], timeout=TIMEOUT), path)
    assert not out.exists() or not any(out.iterdir())


def test_info_refuses_a_fifo_without_blocking(run_loom, fifo):
    result = run_loom("info", fifo, timeout=TIMEOUT)
    assert result.returncode == 1
    assert '"error":"is not a regular file"' in result.stdout
