"""`loom frames` on the corpus' rotated phone clips: --autorotate turns the frames as ffmpeg shows them
(the ffmpeg CLI autorotates by default; the reference is its rgb24 output, within the 2 levels the
decoder's pixel tests allow); without it the coded frames come back."""
import subprocess

import numpy as np
import pytest
from PIL import Image


def ffmpeg_frames(path, width, height):
    raw = subprocess.run(["ffmpeg", "-v", "error", "-i", str(path), "-map", "0:v:0", "-vsync", "0",
                          "-sws_flags", "bilinear", "-pix_fmt", "rgb24", "-f", "rawvideo", "-"],
                         check=True, stdout=subprocess.PIPE).stdout
    return np.frombuffer(raw, np.uint8).reshape(-1, height, width, 3)


@pytest.mark.parametrize("name,coded", [("exo_video_1.mp4", (352, 288)), ("decord_video_90.mov", (568, 320))])
def test_autorotate_equals_ffmpeg(run_loom, media, tmp_path, name, coded):
    src = media / "video" / name
    result = run_loom("frames", src, "-o", tmp_path / "upright", "--autorotate", "-q")
    assert result.returncode == 0, result.stderr
    got = np.stack([np.asarray(Image.open(p)) for p in sorted((tmp_path / "upright").glob("*.png"))])
    ref = ffmpeg_frames(src, coded[1], coded[0])  # turned a quarter: width and height swap
    assert got.shape == ref.shape
    assert np.abs(got.astype(int) - ref).max() <= 2

    result = run_loom("frames", src, "-o", tmp_path / "coded", "--indices", "0", "-q")
    assert result.returncode == 0, result.stderr
    assert Image.open(tmp_path / "coded" / "frame_000000.png").size == coded


def test_autorotate_resize_is_of_the_turned_frame(run_loom, media, tmp_path):
    result = run_loom("frames", media / "video/decord_video_90.mov", "-o", tmp_path, "--autorotate",
                      "--resize", "100", "--indices", "0", "-q")
    assert result.returncode == 0, result.stderr
    assert Image.open(tmp_path / "frame_000000.png").size == (100, 177)  # 320x568 shown, shorter side 100
