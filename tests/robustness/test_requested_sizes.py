"""Requested sizes (CATALOG.md 55d-55f): an output whose size the command line asks for is checked
against the limits (Limits::max_pixels, Limits::max_bytes) before any work, as decoded sizes are: a
clean limit error naming the file, no output file, never an out-of-memory failure.

The runs have a memory limit, so that a regression fails with an allocation failure instead of paging
the machine out: an address-space limit, or for an AddressSanitizer build (which reserves terabytes of
shadow address space, so it cannot run under one) ASan's own cap on an allocation.
"""
import functools
import os
import resource
import struct
import subprocess
from pathlib import Path


ADDRESS_SPACE = 6 << 30
ASAN_ALLOCATION_MB = 2048


@functools.lru_cache(maxsize=None)
def instrumented_with_asan(loom):
    return b"__asan_init" in Path(loom).read_bytes()


def limited():
    resource.setrlimit(resource.RLIMIT_AS, (ADDRESS_SPACE, ADDRESS_SPACE))


def run_limited(loom, *args, asan_allocation_mb=ASAN_ALLOCATION_MB):
    command = [str(loom), *map(str, args)]
    if instrumented_with_asan(str(loom)):
        options = os.environ.get("ASAN_OPTIONS", "")
        options += f":max_allocation_size_mb={asan_allocation_mb}:allocator_may_return_null=1"
        env = dict(os.environ, ASAN_OPTIONS=options.lstrip(":"))
        return subprocess.run(command, capture_output=True, text=True, env=env, timeout=300)
    return subprocess.run(command, capture_output=True, text=True, preexec_fn=limited, timeout=120)


def wav(path, channels=1, rate=8000, seconds=1):
    frames = rate * seconds
    fmt = struct.pack("<HHIIHH", 1, channels, rate, rate * channels * 2, channels * 2, 16)
    data = b"\0\1" * frames * channels
    body = b"WAVE" + b"fmt " + struct.pack("<I", len(fmt)) + fmt + b"data" + struct.pack("<I", len(data)) + data
    path.write_bytes(b"RIFF" + struct.pack("<I", len(body)) + body)
    return path


def refused(result, path, out):
    assert result.returncode == 1, result.stderr
    assert result.stderr.startswith(f"{path}: "), result.stderr
    assert "exceeds the limit" in result.stderr, result.stderr
    assert not out.exists() or not any(out.rglob("*")), list(out.rglob("*"))


def test_convert_resize_to_ten_billion_pixels_is_refused(loom, media, tmp_path):
    src = tmp_path / "tiny.png"
    src.write_bytes((media / "images" / "png" / "tiny.png").read_bytes())
    out = tmp_path / "out"
    refused(run_limited(loom, "convert", src, "-o", out, "--resize", "100000x100000"), src, out)


def test_audio_rate_and_channels_asking_for_tens_of_gigabytes_are_refused(loom, tmp_path):
    src = wav(tmp_path / "one_second.wav")
    out = tmp_path / "out"
    # 6 MHz x 1024 channels x 4 bytes: 24.6 GB for one second.
    refused(run_limited(loom, "audio", src, "-o", out, "--rate", "6000000", "--channels", "1024"), src, out)


def test_a_pad_effect_asking_for_tens_of_gigabytes_is_refused(loom, tmp_path):
    src = wav(tmp_path / "one_second.wav", channels=2, rate=48000)
    out = tmp_path / "out"
    # 100,000 s of 48 kHz stereo float: 38 GB.
    refused(run_limited(loom, "audio", src, "-o", out, "--effects", "pad 0 100000"), src, out)


def test_frames_resize_to_ten_billion_pixels_is_refused(loom, media, tmp_path):
    src = media / "video" / "nasa_13013.mp4"
    out = tmp_path / "out"
    refused(run_limited(loom, "frames", src, "-o", out, "--indices", "0", "--resize", "100000x100000"), src, out)


def test_effects_of_unknown_length_stop_cleanly_at_the_limit_or_out_of_memory(loom, tmp_path):
    # After "silence" libsox no longer knows the length, so nothing can be checked up front: the sink
    # stops the flow, at Limits::max_bytes or (here, under the address-space limit) when memory runs
    # out, with a loom error instead of a std::bad_alloc unwinding through libsox's C frames. ASan's
    # operator new aborts instead of throwing, so there only the limit can stop it: its cap on one
    # allocation is then above Limits::max_bytes (4 GiB).
    src = wav(tmp_path / "one_second.wav", channels=2, rate=48000)
    out = tmp_path / "out"
    result = run_limited(loom, "audio", src, "-o", out, "--effects", "synth sine 440; silence 1 0.01 1%; repeat 20000",
                         asan_allocation_mb=12288)
    assert result.returncode == 1, result.stderr
    assert result.stderr.startswith(f"{src}: samples: "), result.stderr
    assert "the effects' output" in result.stderr and "bad_alloc" not in result.stderr, result.stderr
    assert not out.exists() or not any(out.rglob("*")), list(out.rglob("*"))
