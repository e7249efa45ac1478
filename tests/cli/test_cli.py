"""The `loom` CLI as users drive it: help and version, `info` JSON lines, `convert` of files and
folders with its error, overwrite, resize and progress behaviour.

References: Pillow (image sizes and pixels), ffprobe (audio and video fields), analytic rules
(torchvision's shorter-side resize).
"""
import json
import os
import pty
import signal
import subprocess
import time
from pathlib import Path

import numpy as np
import pytest
from PIL import Image


def ffprobe(path):
    out = subprocess.run(["ffprobe", "-v", "error", "-show_streams", "-show_format", "-of", "json", str(path)],
                         capture_output=True, text=True, check=True).stdout
    return json.loads(out)


def info_lines(run_loom, *paths):
    result = run_loom("info", *paths)
    return result, [json.loads(line) for line in result.stdout.splitlines()]


def tree(folder):
    return sorted(str(p.relative_to(folder)) for p in Path(folder).rglob("*") if p.is_file())


def make_jpeg(path, width, height, seed=0):
    rng = np.random.default_rng(seed)
    y, x = np.mgrid[0:height, 0:width]
    base = np.stack([(x * 255 // max(width - 1, 1)), (y * 255 // max(height - 1, 1)), ((x + y) % 256)], axis=2)
    noisy = np.clip(base + rng.normal(0, 8, base.shape), 0, 255).astype(np.uint8)
    Image.fromarray(noisy).save(path, quality=90)


# ---- version and help ----

def test_version_and_help(run_loom):
    version = run_loom("--version")
    assert version.returncode == 0 and version.stdout.startswith("loom ")
    assert "SIMD targets:" in version.stdout
    for args in (["--help"], ["info", "--help"], ["convert", "--help"]):
        result = run_loom(*args)
        assert result.returncode == 0, args
        assert "Usage" in result.stdout or "usage" in result.stdout.lower()
    assert "--resize" in run_loom("convert", "--help").stdout


def test_bad_command_lines_exit_2(run_loom, tmp_path):
    assert run_loom().returncode == 2
    assert run_loom("frobnicate").returncode == 2
    assert run_loom("convert", tmp_path).returncode == 2  # no -o
    assert run_loom("convert", tmp_path, "-o", tmp_path / "o", "--resize", "12y4").returncode == 2
    assert run_loom("convert", tmp_path, "-o", tmp_path / "o", "--quality", "101").returncode == 2


# ---- info ----

def test_info_images_match_pillow(run_loom, media):
    files = sorted((media / "images" / "jpeg").glob("*.jpg"))[:8] + sorted((media / "images" / "png").glob("*.png"))[:8]
    result, lines = info_lines(run_loom, *files)
    assert result.returncode == 0, result.stdout
    for path, line in zip(files, lines):
        assert line["path"] == str(path)
        assert line["kind"] == "image"
        with Image.open(path) as im:
            assert (line["width"], line["height"]) == im.size
            assert line["format"] == {"JPEG": "jpeg", "MPO": "jpeg", "PNG": "png"}[im.format]
            assert line["channels"] == {"1": 1, "L": 1, "LA": 2, "I": 1, "I;16": 1, "RGB": 3, "RGBA": 4, "CMYK": 3,
                                        "P": 4 if "transparency" in im.info else 3}[im.mode]


def test_info_audio_and_video_match_ffprobe(run_loom, media):
    files = [media / "audio" / "pluck-pcm16.wav", media / "audio" / "exo_bear.flac",
             media / "audio" / "nasa_13013.mp4.audio.mp3", media / "video" / "nasa_13013.mp4",
             media / "video" / "exo_bear-vp9.webm", media / "video" / "h265_video.mp4"]
    result, lines = info_lines(run_loom, *files)
    assert result.returncode == 0, result.stdout
    for path, line in zip(files, lines):
        probe = ffprobe(path)
        kind = line["kind"]
        stream = next(s for s in probe["streams"] if s["codec_type"] == kind
                      and not s.get("disposition", {}).get("attached_pic"))
        assert line["codec"] == stream["codec_name"], path
        duration = float(stream.get("duration", probe["format"]["duration"]))
        assert abs(line["duration"] - duration) < 1e-3, path
        if kind == "audio":
            assert line["sample_rate"] == int(stream["sample_rate"])
            assert line["channels"] == stream["channels"]
        else:
            assert (line["width"], line["height"]) == (stream["width"], stream["height"])
            assert line["pixel_format"] == stream["pix_fmt"]


def test_info_reports_errors_per_file(run_loom, media, tmp_path):
    junk = tmp_path / "junk.mp4"
    junk.write_bytes(os.urandom(2000))
    empty = tmp_path / "empty.png"
    empty.write_bytes(b"")
    good = media / "images" / "jpeg" / "hopper.jpg"
    result, lines = info_lines(run_loom, junk, good, empty, tmp_path / "missing.jpg")
    assert result.returncode == 1
    assert [line["path"] for line in lines] == [str(junk), str(good), str(empty), str(tmp_path / "missing.jpg")]
    assert "error" in lines[0] and "error" in lines[2] and "error" in lines[3]
    assert lines[1]["kind"] == "image"


# ---- convert ----

def test_convert_mirrors_the_tree_and_counts(run_loom, media, tmp_path):
    src = tmp_path / "src"
    (src / "a" / "b").mkdir(parents=True)
    for rel in ("x.jpg", "a/y.png", "a/b/z.jpg"):
        (src / rel).write_bytes((media / "images" / ("jpeg/hopper.jpg" if rel.endswith("jpg") else "png/hopper.png")).read_bytes())
    (src / "notes.txt").write_text("not an image")  # skipped in folders: not an image extension
    result = run_loom("convert", src, "-o", tmp_path / "out", "--format", "png")
    assert result.returncode == 0, result.stderr
    assert tree(tmp_path / "out") == ["a/b/z.png", "a/y.png", "x.png"]
    assert "3 ok, 0 failed" in result.stderr
    kept = run_loom("convert", src, "-o", tmp_path / "kept")  # default: keep the input's format
    assert tree(tmp_path / "kept") == ["a/b/z.jpg", "a/y.png", "x.jpg"]


def test_default_format_follows_the_bytes_not_the_name(run_loom, media, tmp_path):
    src = tmp_path / "src"
    src.mkdir()
    (src / "png_named.jpg").write_bytes((media / "images" / "png" / "hopper.png").read_bytes())
    (src / "jpeg_named.jpe").write_bytes((media / "images" / "jpeg" / "hopper.jpg").read_bytes())
    (src / "photo.mpo").write_bytes((media / "images" / "jpeg" / "sugarshack.mpo").read_bytes())
    result = run_loom("convert", src, "-o", tmp_path / "out")
    assert result.returncode == 0, result.stderr
    assert tree(tmp_path / "out") == ["jpeg_named.jpg", "photo.jpg", "png_named.png"]


def test_convert_damaged_folder_converts_the_good_files(run_loom, media, tmp_path):
    src = tmp_path / "mixed"
    src.mkdir()
    for name in ("hopper.jpg", "flower.jpg"):
        (src / name).write_bytes((media / "images" / "jpeg" / name).read_bytes())
    (src / "truncated.jpg").write_bytes((media / "images_damaged" / "jpeg" / "truncated_jpeg.jpg").read_bytes())
    (src / "random.jpg").write_bytes(os.urandom(5000))
    (src / "empty.png").write_bytes(b"")
    (src / "broken.png").write_bytes((media / "images_damaged" / "png" / "broken_data_stream.png").read_bytes())
    out = tmp_path / "out"
    result = run_loom("convert", src, "-o", out, "--format", "png", "-j", "2")
    assert result.returncode == 1
    assert tree(out) == ["flower.png", "hopper.png"]
    for bad in ("truncated.jpg", "random.jpg", "empty.png", "broken.png"):
        assert f"{src / bad}: " in result.stderr, bad
    assert "2 ok, 4 failed" in result.stderr
    for name in ("hopper", "flower"):
        with Image.open(media / "images" / "jpeg" / f"{name}.jpg") as ref:
            assert np.array_equal(np.asarray(Image.open(out / f"{name}.png")), np.asarray(ref.convert("RGB")))


def test_convert_refuses_to_overwrite_unless_asked(run_loom, media, tmp_path):
    src = media / "images" / "jpeg" / "hopper.jpg"
    out = tmp_path / "out"
    out.mkdir()
    (out / "hopper.png").write_bytes(b"keep me")
    result = run_loom("convert", src, "-o", out, "--format", "png")
    assert result.returncode == 1 and "already exists" in result.stderr
    assert (out / "hopper.png").read_bytes() == b"keep me"
    result = run_loom("convert", src, "-o", out, "--format", "png", "--overwrite")
    assert result.returncode == 0
    assert Image.open(out / "hopper.png").size == (128, 128)
    assert tree(out) == ["hopper.png"]  # no temporary files left


def test_convert_never_writes_through_a_planted_symlink(run_loom, media, tmp_path):
    victim = tmp_path / "victim.txt"
    victim.write_text("precious")
    out = tmp_path / "out"
    out.mkdir()
    (out / "hopper.png").symlink_to(victim)
    src = media / "images" / "jpeg" / "hopper.jpg"
    assert run_loom("convert", src, "-o", out, "--format", "png").returncode == 1
    assert run_loom("convert", src, "-o", out, "--format", "png", "--overwrite").returncode == 0
    assert victim.read_text() == "precious"
    assert not (out / "hopper.png").is_symlink()


def test_two_inputs_mapping_to_one_output_is_an_error(run_loom, media, tmp_path):
    a = media / "images" / "jpeg" / "hopper.jpg"
    b = media / "images" / "png" / "hopper.png"
    result = run_loom("convert", a, b, "-o", tmp_path / "out", "--format", "png")
    assert result.returncode == 1
    assert f"{b}: its output" in result.stderr
    with Image.open(a) as ref:  # the first one wins, untouched by the second
        assert np.array_equal(np.asarray(Image.open(tmp_path / "out" / "hopper.png")), np.asarray(ref.convert("RGB")))


def test_fail_fast_stops_early(run_loom, tmp_path):
    src = tmp_path / "bad"
    src.mkdir()
    for i in range(40):
        (src / f"{i:02d}.jpg").write_bytes(b"not a jpeg at all")
    result = run_loom("convert", src, "-o", tmp_path / "out", "--fail-fast", "-j", "1")
    assert result.returncode == 1
    assert result.stderr.count("not an image") < 40


def test_resize_shorter_side_and_exact(run_loom, media, tmp_path):
    src = media / "images" / "png" / "test-card.png"
    with Image.open(src) as im:
        w, h = im.size
    run_loom("convert", src, "-o", tmp_path / "n", "--resize", "100")
    short, long_ = (w, h) if w <= h else (h, w)
    expected_long = int(100 * long_ / short)
    got = Image.open(tmp_path / "n" / "test-card.png").size
    assert got == ((100, expected_long) if w <= h else (expected_long, 100))
    run_loom("convert", src, "-o", tmp_path / "e", "--resize", "64x48", "--interp", "nearest")
    assert Image.open(tmp_path / "e" / "test-card.png").size == (64, 48)


def test_resize_of_large_jpeg_uses_dct_scaling_like_pillow_draft(run_loom, tmp_path):
    # 1920x1080 -> shorter side 256: both Pillow's draft() and loom decode at 1/4 (480x270), then
    # resize with the same antialiased bilinear filter, so the results agree within 1.
    src = tmp_path / "big"
    src.mkdir()
    make_jpeg(src / "wide.jpg", 1920, 1080)
    result = run_loom("convert", src, "-o", tmp_path / "out", "--resize", "256", "--format", "png")
    assert result.returncode == 0, result.stderr
    with Image.open(src / "wide.jpg") as im:
        im.draft("RGB", (455, 256))
        assert im.size == (480, 270)
        ref = np.asarray(im.convert("RGB").resize((455, 256), Image.BILINEAR)).astype(int)
    got = np.asarray(Image.open(tmp_path / "out" / "wide.png")).astype(int)
    assert got.shape == ref.shape
    assert np.abs(got - ref).max() <= 1


def test_parallel_output_equals_serial(run_loom, media, tmp_path):
    args = [media / "images" / "png", "--resize", "50", "--format", "jpg", "-q"]
    run_loom("convert", *args[:1], "-o", tmp_path / "one", *args[1:], "-j", "1")
    run_loom("convert", *args[:1], "-o", tmp_path / "two", *args[1:], "-j", "2")
    files = tree(tmp_path / "one")
    assert files and files == tree(tmp_path / "two")
    for f in files:
        assert (tmp_path / "one" / f).read_bytes() == (tmp_path / "two" / f).read_bytes(), f


def test_quiet_prints_no_summary(run_loom, media, tmp_path):
    result = run_loom("convert", media / "images" / "jpeg" / "hopper.jpg", "-o", tmp_path, "-q")
    assert result.returncode == 0 and result.stderr == ""


def test_progress_bar_only_on_a_terminal(loom, media, tmp_path):
    master, slave = pty.openpty()
    proc = subprocess.run([str(loom), "convert", str(media / "images" / "png"), "-o", str(tmp_path / "tty")],
                          stderr=slave, stdout=subprocess.DEVNULL, timeout=120)
    os.close(slave)
    chunks = []
    try:
        while True:
            data = os.read(master, 65536)
            if not data:
                break
            chunks.append(data)
    except OSError:
        pass
    os.close(master)
    text = b"".join(chunks).decode(errors="replace")
    assert proc.returncode == 0
    assert "[####" in text and "ok, 0 failed" in text


def _interrupted_convert(loom, src, out, sig):
    """Starts a slow conversion, sends `sig` once the first outputs exist, returns the exit status."""
    proc = subprocess.Popen([str(loom), "convert", str(src), "-o", str(out), "--format", "png", "--compression", "9",
                             "-j", "2", "-q"], stderr=subprocess.DEVNULL)
    deadline = time.monotonic() + 60
    while time.monotonic() < deadline and proc.poll() is None and not any(out.rglob("*.png")):
        time.sleep(0.01)
    time.sleep(0.2)
    proc.send_signal(sig)
    return proc.wait(timeout=120)


@pytest.fixture(scope="module")
def large_jpegs(tmp_path_factory):
    src = tmp_path_factory.mktemp("large")
    for i in range(12):
        make_jpeg(src / f"{i:02d}.jpg", 1600, 1200, seed=i)
    return src


@pytest.mark.parametrize("sig", [signal.SIGINT, signal.SIGTERM, signal.SIGKILL])
def test_killed_conversion_leaves_no_partial_output(loom, large_jpegs, tmp_path, sig):
    src = large_jpegs
    out = tmp_path / "out"
    status = _interrupted_convert(loom, src, out, sig)
    assert status in (-sig, 0), status  # 0 only if it finished before the signal landed
    finished = sorted(out.rglob("*.png"))
    for f in finished:  # every output in place is complete
        with Image.open(f) as im:
            im.load()
            assert im.size == (1600, 1200)
    leftovers = [p.name for p in out.rglob(".*.loom-*")]
    if sig != signal.SIGKILL:  # a catchable signal removes the temporary files too
        assert leftovers == []
    # Rerunning completes the job.
    rerun = subprocess.run([str(loom), "convert", str(src), "-o", str(out), "--format", "png", "--overwrite", "-q"])
    assert rerun.returncode == 0
    assert len(list(out.glob("*.png"))) == 12
