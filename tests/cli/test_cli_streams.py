"""Which stream the CLI reads from a file with several: FFmpeg's best (av_find_best_stream, as TorchCodec
and loom's library), unless `loom audio --stream N` asks for one. The file holds a small video and an
8 kHz audio stream first, then a 96x64 video and a 16 kHz audio stream with the default disposition;
the references are ffmpeg's own decodes of the chosen stream (`-map 0:N`)."""
import json
import subprocess

import numpy as np
import pytest
import soundfile as sf
from PIL import Image


@pytest.fixture(scope="module")
def two_of_each(tmp_path_factory):
    path = tmp_path_factory.mktemp("streams") / "two.mkv"
    subprocess.run(["ffmpeg", "-v", "error", "-y",
                    "-f", "lavfi", "-i", "testsrc=size=64x48:rate=10:duration=1",
                    "-f", "lavfi", "-i", "testsrc2=size=96x64:rate=10:duration=1",
                    "-f", "lavfi", "-i", "sine=frequency=440:sample_rate=8000:duration=1",
                    "-f", "lavfi", "-i", "sine=frequency=1000:sample_rate=16000:duration=1",
                    "-map", "0:v", "-map", "2:a", "-map", "1:v", "-map", "3:a", "-c:v", "libx264", "-c:a", "flac",
                    "-disposition:v:0", "0", "-disposition:v:1", "default",
                    "-disposition:a:0", "0", "-disposition:a:1", "default", str(path)], check=True)
    return path


def ffmpeg_wav(src, stream, out):
    subprocess.run(["ffmpeg", "-v", "error", "-y", "-i", str(src), "-map", f"0:{stream}", "-c:a", "pcm_s16le",
                    str(out)], check=True)
    return sf.read(out, dtype="int16")


def test_info_describes_the_best_streams(run_loom, two_of_each):
    result = run_loom("info", two_of_each)
    assert result.returncode == 0, result.stderr
    line = json.loads(result.stdout)
    assert (line["stream_index"], line["width"], line["height"]) == (2, 96, 64)


@pytest.mark.parametrize("stream,rate", [(None, 16000), (3, 16000), (1, 8000)])
def test_audio_reads_the_best_or_the_asked_stream(run_loom, two_of_each, tmp_path, stream, rate):
    out = tmp_path / "out.wav"
    result = run_loom("audio", two_of_each, "-o", out, "--bits", "16", "-q",
                      *(["--stream", stream] if stream is not None else []))
    assert result.returncode == 0, result.stderr
    got, got_rate = sf.read(out, dtype="int16")
    want, want_rate = ffmpeg_wav(two_of_each, 3 if stream is None else stream, tmp_path / "ref.wav")
    assert got_rate == want_rate == rate
    assert np.array_equal(got, want)


def test_audio_stream_that_is_not_audio_fails_per_file(run_loom, two_of_each, tmp_path):
    result = run_loom("audio", two_of_each, "-o", tmp_path / "out.wav", "--stream", "2")
    assert result.returncode == 1
    assert f"{two_of_each}: stream 2 is not an audio stream" in result.stderr
    assert not (tmp_path / "out.wav").exists()


def test_frames_come_from_the_best_video_stream(run_loom, two_of_each, tmp_path):
    result = run_loom("frames", two_of_each, "-o", tmp_path, "-q")
    assert result.returncode == 0, result.stderr
    frames = sorted(tmp_path.rglob("*.png"))
    assert frames
    assert Image.open(frames[0]).size == (96, 64)
