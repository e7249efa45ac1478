"""`loom frames` on the corpus' rotated phone clips: --autorotate turns the frames as ffmpeg shows them
(the ffmpeg CLI autorotates by default; the reference is its rgb24 output, within the 2 levels the
decoder's pixel tests allow); without it the coded frames come back."""
import json
import math
import shutil
import struct
import subprocess
from pathlib import Path

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


def ffprobe_frames(path):
    """(pts, duration) in seconds of every frame of the first video stream, as ffprobe shows them."""
    out = subprocess.run(["ffprobe", "-v", "error", "-select_streams", "v:0", "-show_entries",
                          "frame=pts_time,duration_time,pkt_duration_time", "-of", "json", str(path)],
                         check=True, capture_output=True, text=True).stdout
    frames = json.loads(out)["frames"]
    return [(float(f["pts_time"]), float(f.get("duration_time", f.get("pkt_duration_time", "nan")))) for f in frames]


def test_several_videos_and_folders_each_get_a_folder_and_an_index(run_loom, media, tmp_path):
    videos = tmp_path / "videos"
    (videos / "phone").mkdir(parents=True)
    shutil.copy(media / "video/exo_video_1.mp4", videos / "phone")
    shutil.copy(media / "video/h265_video.mp4", videos)
    (videos / "notes.txt").write_text("not a video")
    lone = media / "video/decord_video_90.mov"
    out = tmp_path / "out"
    result = run_loom("frames", videos, lone, "-o", out, "--num", "3", "-q", "--json")
    assert result.returncode == 0, result.stderr
    assert json.loads(result.stdout)["ok"] == 3
    for src, folder in ((videos / "phone/exo_video_1.mp4", out / "phone/exo_video_1"),
                        (videos / "h265_video.mp4", out / "h265_video"), (lone, out / "decord_video_90")):
        lines = [json.loads(line) for line in (folder / "frames.jsonl").read_text().splitlines()]
        assert len(lines) == 3
        reference = ffprobe_frames(src)
        for line in lines:
            assert line["file"] == str(src)
            assert Path(line["output"]) == folder / ("frame_%06d.png" % line["index"])
            assert Path(line["output"]).is_file()
            pts, duration = reference[line["index"]]
            assert abs(line["pts"] - pts) < 1e-6
            assert abs(line["duration"] - duration) < 1e-6
    # A second run finds the folders: refused, or resumed with --skip-existing.
    again = run_loom("frames", videos, lone, "-o", out, "--num", "3")
    assert again.returncode == 1 and "already exists" in again.stderr
    resumed = run_loom("frames", videos, lone, "-o", out, "--num", "3", "--skip-existing")
    assert resumed.returncode == 0 and "3 skipped" in resumed.stderr


def test_one_video_writes_its_index_beside_its_frames(run_loom, media, tmp_path):
    src = media / "video/nasa_13013.mp4"
    result = run_loom("frames", src, "-o", tmp_path, "--indices", "5,0,389", "-q")
    assert result.returncode == 0, result.stderr
    lines = [json.loads(line) for line in (tmp_path / "frames.jsonl").read_text().splitlines()]
    assert [line["index"] for line in lines] == [0, 5, 389]
    assert all(Path(line["output"]).parent == tmp_path for line in lines)


def with_display_rotation(src, dst, degrees):
    """`src` (an MP4) with its video track's display matrix set to turn it `degrees` counter-clockwise
    (the tkhd matrix, as phones write it; Debian's ffmpeg 5.1 has no option to write one)."""
    data = bytearray(src.read_bytes())
    at = data.find(b"tkhd")
    fields = 8 + 8 + 4 + 4 + 8 if data[at + 4] == 1 else 4 + 4 + 4 + 4 + 4  # times, track id, duration
    matrix = at + 4 + 4 + fields + 8 + 2 + 2 + 2 + 2
    cos, sin = round(math.cos(math.radians(degrees))), round(math.sin(math.radians(degrees)))
    struct.pack_into(">9i", data, matrix, cos << 16, -sin << 16, 0, sin << 16, cos << 16, 0, 0, 0, 1 << 30)
    dst.write_bytes(bytes(data))


@pytest.mark.parametrize("degrees", [90, 180, 270])
def test_autorotate_of_generated_clips_equals_ffmpeg(run_loom, tmp_path, degrees):
    plain = tmp_path / "plain.mp4"
    subprocess.run(["ffmpeg", "-v", "error", "-f", "lavfi", "-i", "testsrc2=size=64x48:rate=10:duration=0.5",
                    "-c:v", "libx264", "-pix_fmt", "yuv420p", str(plain)], check=True)
    clip = tmp_path / f"turned{degrees}.mp4"
    with_display_rotation(plain, clip, degrees)
    result = run_loom("frames", clip, "-o", tmp_path / "out", "--autorotate", "-q")
    assert result.returncode == 0, result.stderr
    got = np.stack([np.asarray(Image.open(p)) for p in sorted((tmp_path / "out").glob("*.png"))])
    width, height = (48, 64) if degrees != 180 else (64, 48)
    ref = ffmpeg_frames(clip, width, height)
    assert got.shape == ref.shape
    assert np.abs(got.astype(int) - ref).max() <= 2
