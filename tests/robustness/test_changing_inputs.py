"""Inputs that change while loom reads them (CATALOG.md 55i): a file truncated or appended to by another
process in the middle of the read fails alone, with "changed while being read", and the rest of the
batch goes on.

The change is real and lands at an exact moment: the fault injection library
(tests/common/fault_injection.c) truncates the file to half its size (or appends to it) through its path
just before loom's read of it (or, were it memory-mapped as loom once did, just after the mapping, where
touching a page past the new end raised SIGBUS and killed the whole batch).
"""
import json
import subprocess

import numpy as np
import pytest
from PIL import Image


@pytest.fixture
def big_pngs(tmp_path):
    """Three uncompressed PNGs of about 3 MB each (over the 1 MiB at which loom used to map files)."""
    src = tmp_path / "src"
    src.mkdir()
    rng = np.random.default_rng(5)
    for name in ("a", "b", "c"):
        Image.fromarray(rng.integers(0, 256, (1024, 1024, 3), dtype=np.uint8)).save(src / f"{name}.png", compress_level=0)
    return src


@pytest.mark.parametrize("change,jobs", [("truncate", "1"), ("truncate", "2"), ("append", "2")])
def test_a_file_changed_while_read_fails_alone(loom, faulty_env, big_pngs, tmp_path, change, jobs):
    out = tmp_path / "out"
    result = subprocess.run([str(loom), "convert", str(big_pngs), "-o", str(out), "-j", jobs],
                            capture_output=True, text=True, timeout=120, env=faulty_env(**{change: "/b.png"}))
    assert result.returncode == 1, (result.returncode, result.stderr)  # not killed by SIGBUS (-7)
    what = "truncated" if change == "truncate" else "modified"
    assert f"{big_pngs / 'b.png'}: changed while being read ({what}: " in result.stderr, result.stderr
    assert "2 ok, 1 failed" in result.stderr
    assert sorted(p.name for p in out.iterdir()) == ["a.png", "c.png"]  # no b.png, no temporary
    for name in ("a", "c"):
        with Image.open(out / f"{name}.png") as got, Image.open(big_pngs / f"{name}.png") as want:
            assert np.array_equal(np.asarray(got), np.asarray(want))
    assert (big_pngs / "b.png").stat().st_size != (big_pngs / "a.png").stat().st_size  # it really changed


def test_info_on_a_file_truncated_while_read_reports_it(loom, faulty_env, big_pngs):
    result = subprocess.run([str(loom), "info", str(big_pngs / "a.png"), str(big_pngs / "b.png")],
                            capture_output=True, text=True, timeout=120, env=faulty_env(truncate="/b.png"))
    assert result.returncode == 1, result.stderr
    a, b = (json.loads(line) for line in result.stdout.splitlines())
    assert a["width"] == 1024 and "error" not in a
    assert b["error"].startswith("changed while being read (truncated: "), b
