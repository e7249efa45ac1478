"""Signals (CATALOG.md 52, 52a-52c): whatever signal lands when, no temporary is left; an interrupted
run says how far it got; a signal ignored at start stays ignored; SIGXFSZ is a write error of one file.

The moment right after a temporary is created is forced with the fault injection library
(tests/common/fault_injection.c), which raises the signal in the creating thread itself.
"""
import resource
import signal
import subprocess
import time

import numpy as np
import pytest
import soundfile as sf
from PIL import Image

# One small input per batch command, and the extra arguments it needs.
COMMANDS = {
    "convert": ("images/png/hopper.png", []),
    "audio": ("audio/exo_bear.flac", ["--format", "wav"]),
    "frames": ("video/nasa_13013.mp4", ["--indices", "0,1"]),
}


@pytest.mark.parametrize("sig", [signal.SIGINT, signal.SIGHUP, signal.SIGTERM], ids=lambda s: s.name)
@pytest.mark.parametrize("command", COMMANDS)
def test_a_signal_right_after_a_temporary_is_created_leaves_nothing(loom, media, faulty_env, tmp_path, command, sig):
    source, extra = COMMANDS[command]
    out = tmp_path / "out"
    result = subprocess.run([str(loom), command, str(media / source), "-o", str(out), *extra], capture_output=True,
                            text=True, timeout=120, env=faulty_env(raise_after_create=int(sig)))
    assert result.returncode == -sig, (result.returncode, result.stderr)
    assert f"loom: interrupted by {sig.name} after 0 of " in result.stderr, result.stderr
    assert "no partial output left\n" in result.stderr
    assert not out.exists() or list(out.iterdir()) == []  # the temporary went with the signal


@pytest.fixture(scope="module")
def slow_inputs(tmp_path_factory):
    """Eight 1600x1200 JPEGs: converting them to PNG at compression 9 takes a few seconds."""
    src = tmp_path_factory.mktemp("slow")
    rng = np.random.default_rng(3)
    for i in range(8):
        Image.fromarray(rng.integers(0, 256, (1200, 1600, 3), dtype=np.uint8)).save(src / f"{i}.jpg", quality=90)
    return src


def test_a_signal_ignored_at_start_stays_ignored(loom, slow_inputs, tmp_path):
    # As under nohup: SIGHUP (the terminal closed) must not stop the run.
    out = tmp_path / "out"
    proc = subprocess.Popen([str(loom), "convert", str(slow_inputs), "-o", str(out), "--format", "png",
                             "--compression", "9", "-j", "1", "-q"], stderr=subprocess.PIPE, text=True,
                            preexec_fn=lambda: signal.signal(signal.SIGHUP, signal.SIG_IGN))
    deadline = time.monotonic() + 60
    while time.monotonic() < deadline and proc.poll() is None and not any(out.glob("*.png")):
        time.sleep(0.01)
    proc.send_signal(signal.SIGHUP)
    _, stderr = proc.communicate(timeout=300)
    assert proc.returncode == 0, stderr
    assert len(list(out.glob("*.png"))) == 8


@pytest.mark.parametrize("command", ["convert", "audio"])
def test_a_write_past_the_file_size_limit_fails_that_file_alone(loom, media, tmp_path, command):
    # `ulimit -f`: the kernel sends SIGXFSZ, whose default action kills the process; loom ignores it, so
    # the write fails with EFBIG.
    src = tmp_path / "src"
    src.mkdir()
    if command == "convert":
        small, big = "tiny.png", "test-card.png"
        for name in (small, big):
            (src / name).write_bytes((media / "images" / "png" / name).read_bytes())
        extra = ["--format", "png", "--compression", "0"]
    else:
        small, big = "short.wav", "long.wav"
        rate = 8000
        t = np.arange(rate * 4) / rate
        sf.write(src / small, 0.5 * np.sin(2 * np.pi * 440 * t[:200]), rate, subtype="PCM_16")
        sf.write(src / big, 0.5 * np.sin(2 * np.pi * 440 * t), rate, subtype="PCM_16")
        extra = ["--format", "wav"]
    limit = 20000
    assert (src / small).stat().st_size < limit < (src / big).stat().st_size

    def limit_file_size():
        signal.signal(signal.SIGXFSZ, signal.SIG_DFL)  # as a shell leaves it (Python ignores it)
        resource.setrlimit(resource.RLIMIT_FSIZE, (limit, limit))

    out = tmp_path / "out"
    result = subprocess.run([str(loom), command, str(src), "-o", str(out), *extra], capture_output=True, text=True,
                            preexec_fn=limit_file_size, timeout=120)
    assert result.returncode == 1, (result.returncode, result.stderr)  # not killed by SIGXFSZ (-25)
    assert f"{src / big}: " in result.stderr and "cannot write: File too large" in result.stderr, result.stderr
    assert "1 ok, 1 failed" in result.stderr
    assert [p.name for p in out.iterdir()] == [small]  # no partial file, no temporary
