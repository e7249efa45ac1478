"""Bad audio and video inputs from tests/robustness/CATALOG.md, driven through the CLI.

Each test builds its bad input itself (from ../shared/media or from scratch) and checks the behaviour
the catalog writes down: a clear per-file error (or, where the data allows, a correct answer), never a
crash, a hang or a partial output.
"""
import json
import os
import struct
import subprocess

import pytest


def info(run_loom, path):
    result = run_loom("info", path, timeout=60)
    lines = [json.loads(line) for line in result.stdout.splitlines()]
    assert len(lines) == 1, result.stdout
    return result.returncode, lines[0]


def wav(path, channels=1, rate=8000, bits=16, block_align=None, data_len=None, payload=b"\0" * 1600):
    block_align = block_align if block_align is not None else (channels * bits // 8) & 0xFFFF
    fmt = struct.pack("<HHIIHH", 1, channels & 0xFFFF, rate, (rate * block_align) & 0xFFFFFFFF, block_align, bits)
    data_len = len(payload) if data_len is None else data_len
    body = b"WAVE" + b"fmt " + struct.pack("<I", len(fmt)) + fmt + b"data" + struct.pack("<I", data_len) + payload
    path.write_bytes(b"RIFF" + struct.pack("<I", len(body)) + body)
    return path


def without_box(mp4, name):
    """The top-level ISO BMFF boxes of `mp4` except `name`."""
    out, i = b"", 0
    while i + 8 <= len(mp4):
        size, kind = struct.unpack(">I4s", mp4[i:i + 8])
        if kind != name:
            out += mp4[i:i + size]
        i += size
    return out


# ---- audio (catalog 31-37) ----

@pytest.mark.parametrize("channels,rate,word", [(0, 8000, "0 channels"), (65535, 8000, "exceeds the limits"),
                                                (1, 0, None)])
def test_wav_with_absurd_channels_or_rate_is_refused(run_loom, tmp_path, channels, rate, word):
    status, line = info(run_loom, wav(tmp_path / "bad.wav", channels=channels, rate=rate))
    assert status == 1 and "error" in line
    if word:
        assert word in line["error"]


def test_wav_with_zero_block_align_is_described_from_the_rest_of_its_header(run_loom, tmp_path):
    status, line = info(run_loom, wav(tmp_path / "ba0.wav", block_align=0))
    assert status == 0
    assert (line["channels"], line["sample_rate"], line["num_frames"]) == (1, 8000, 800)


def test_wav_data_chunk_longer_than_the_file_counts_only_the_data_present(run_loom, tmp_path):
    status, line = info(run_loom, wav(tmp_path / "long.wav", data_len=10**9))
    assert status == 0
    assert line["num_frames"] == 800  # 1600 bytes of 16-bit mono, not 10^9 / 2
    assert abs(line["duration"] - 0.1) < 1e-6


@pytest.mark.parametrize("name", ["exo_bear.flac", "nasa_13013.mp4.audio.mp3"])
def test_truncated_compressed_audio_is_described_from_its_header(run_loom, media, tmp_path, name):
    data = (media / "audio" / name).read_bytes()
    cut = tmp_path / name
    cut.write_bytes(data[:len(data) // 4])
    status, line = info(run_loom, cut)
    assert status == 0
    _, whole = info(run_loom, media / "audio" / name)
    assert (line["sample_rate"], line["channels"], line["codec"]) == (whole["sample_rate"], whole["channels"],
                                                                        whole["codec"])


# ---- video (catalog 38-43) ----

def test_unreadable_videos_fail_cleanly(run_loom, media, tmp_path):
    mp4 = (media / "video" / "nasa_13013.mp4").read_bytes()
    cases = {
        "empty.mp4": b"",
        "random.mp4": os.urandom(4096),
        "no_moov.mp4": without_box(mp4, b"moov"),
        "cut.mp4": mp4[:len(mp4) // 3],  # moov comes after mdat in this file: cut off with it
        "playlist.mp4": b"#EXTM3U\n#EXT-X-TARGETDURATION:10\n#EXTINF:10,\nfile:///etc/passwd\n#EXT-X-ENDLIST\n",
        "concat.mp4": f"ffconcat version 1.0\nfile '{media / 'video' / 'nasa_13013.mp4'}'\n".encode(),
    }
    for name, data in cases.items():
        (tmp_path / name).write_bytes(data)
        status, line = info(run_loom, tmp_path / name)
        assert status == 1 and line["error"], name
