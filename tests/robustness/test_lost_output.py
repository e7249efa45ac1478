"""Lost output (CATALOG.md 55a): a command whose standard output cannot be written fails, as coreutils
do, instead of exiting 0 with its answer lost. /dev/full makes every write fail with ENOSPC.
"""
import subprocess

import pytest


@pytest.mark.parametrize("args", [["info", "{media}/images/png/tiny.png"],
                                  ["bench", "resize", "--size", "64x48", "--iterations", "1"],
                                  ["--version"], ["version"]],
                         ids=["info", "bench", "launcher-version", "version"])
def test_a_write_error_on_stdout_is_an_error_exit(loom, media, args):
    argv = [str(loom)] + [a.format(media=media) for a in args]
    with open("/dev/full", "w") as full:
        result = subprocess.run(argv, stdout=full, stderr=subprocess.PIPE, text=True, timeout=120)
    assert result.returncode == 1, result.stderr
    assert result.stderr.endswith("loom: write error: No space left on device\n"), result.stderr
    # The same command with a writable stdout succeeds: the failure above is the lost output alone.
    assert subprocess.run(argv, capture_output=True, timeout=120).returncode == 0
