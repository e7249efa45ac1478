"""The `loom` CLI as users drive it: help and version, `info` JSON lines, `convert` of files and
folders with its error, overwrite, resize and progress behaviour.

References: Pillow (image sizes and pixels), ffprobe (audio and video fields), analytic rules
(torchvision's shorter-side resize).
"""
import json
import math
import os
import re
import pty
import shutil
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
    version = run_loom("--version")  # answered by the launcher alone
    assert version.returncode == 0 and re.fullmatch(r"loom \d+\.\d+\.\d+\n", version.stdout), version.stdout
    report = run_loom("version")  # from the commands library
    assert report.returncode == 0
    lines = report.stdout.splitlines()
    assert lines[0] == version.stdout.strip() and lines[1].startswith("SIMD targets: ") and lines[2].startswith("CUDA: ")
    # --version among other arguments goes through the commands library's parser: the same line.
    assert run_loom("--version", "info").stdout == version.stdout
    for args in (["--help"], ["info", "--help"], ["convert", "--help"], ["frames", "--help"]):
        result = run_loom(*args)
        assert result.returncode == 0, args
        assert "Usage" in result.stdout or "usage" in result.stdout.lower()
    assert "--resize" in run_loom("convert", "--help").stdout


def test_the_launcher_alone_answers_version_and_names_a_missing_library(loom, tmp_path):
    """A copy of the launcher without its commands library (lib/loom/libloom_cli.so, or beside it) still
    prints its version, and any command fails with status 70 naming the library."""
    needed = subprocess.run(["readelf", "-d", str(loom)], capture_output=True, text=True, check=True).stdout
    if "libloom_cli" in needed:
        pytest.skip("this build links the commands library (LOOM_CLI_LAUNCHER=OFF, the sanitizer presets)")
    alone = tmp_path / "bin" / "loom"
    alone.parent.mkdir()
    shutil.copy(loom, alone)
    assert subprocess.run([alone, "--version"], capture_output=True, text=True).stdout.startswith("loom ")
    result = subprocess.run([alone, "info", str(tmp_path)], capture_output=True, text=True, timeout=30)
    assert result.returncode == 70
    assert result.stderr.startswith("loom: cannot load the commands library: libloom_cli.so"), result.stderr


def test_bad_command_lines_exit_2(run_loom, tmp_path):
    bare = run_loom()  # no arguments: the help, as `loom --help`
    assert bare.returncode == 0 and bare.stdout == run_loom("--help").stdout
    assert run_loom("frobnicate").returncode == 2
    assert run_loom("convert", tmp_path).returncode == 2  # no -o
    assert run_loom("convert", tmp_path, "-o", tmp_path / "o", "--resize", "12y4").returncode == 2
    assert run_loom("convert", tmp_path, "-o", tmp_path / "o", "--quality", "101").returncode == 2


def table_commands():
    """The subcommand names of cli/commands.h's kCommands table, in its order."""
    text = (Path(__file__).resolve().parents[2] / "cli" / "commands.h").read_text()
    table = re.search(r"kCommands\[\]\s*=\s*\{([^}]*)\}", text).group(1)
    return re.findall(r"add_(\w+)_command", table)


def test_help_lists_every_command_of_the_table(run_loom):
    commands = table_commands()
    assert commands == ["info", "convert", "audio", "frames", "pack", "bench", "version"]
    section = run_loom("--help").stdout.split("Subcommands:")[1]
    assert [line.split()[0] for line in section.splitlines() if line.strip()] == commands
    for command in commands:
        result = run_loom(command, "--help")
        assert result.returncode == 0, command
        assert result.stdout.splitlines()[1].startswith("Usage: loom " + command), result.stdout


def help_line(text, flag):
    lines = [line.strip() for line in text.splitlines() if re.match(r"\s*" + re.escape(flag) + r"\b", line)]
    return lines[0] if lines else None


def test_batch_commands_share_the_batch_flags(run_loom, media, tmp_path):
    helps = {c: run_loom(c, "--help").stdout for c in ("convert", "audio", "frames")}
    for flag in ("-j,--jobs", "--overwrite", "-q,--quiet"):
        lines = {c: help_line(text, flag) for c, text in helps.items()}
        assert lines["convert"] and len(set(lines.values())) == 1, lines
    # frames stops at a video's first failed frame; --fail-fast stops a run of several videos.
    assert help_line(helps["convert"], "--fail-fast") == help_line(helps["audio"], "--fail-fast") is not None
    assert help_line(helps["frames"], "--fail-fast") is not None
    video = media / "video" / "h265_video.mp4"
    for bad in (["-j", "-1"], ["--jobs", "x"], ["--skip-existing", "--overwrite"]):
        result = run_loom("frames", video, "-o", tmp_path / "out", *bad)
        assert result.returncode == 2, (bad, result.stderr)
    assert not (tmp_path / "out").exists()
    result = run_loom("frames", video, "-o", tmp_path / "out", "--range", "0:2", "--jobs", "1", "--quiet")
    assert result.returncode == 0 and result.stderr == "", result.stderr


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
                      and not s.get("disposition", {}).get("attached_pic")
                      and s["index"] == line.get("stream_index", s["index"]))
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


def run_with_stderr_on_a_terminal(cmd):
    """Runs `cmd` with its stderr on a pseudo-terminal; returns the CompletedProcess and what it wrote there."""
    master, slave = pty.openpty()
    proc = subprocess.run(cmd, stderr=slave, stdout=subprocess.DEVNULL, timeout=120)
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
    return proc, text


def test_progress_bar_only_on_a_terminal(loom, media, tmp_path):
    proc, text = run_with_stderr_on_a_terminal([str(loom), "convert", str(media / "images" / "png"), "-o", str(tmp_path / "tty")])
    assert proc.returncode == 0
    assert "[####" in text and "ok, 0 failed" in text


def _interrupted_convert(loom, src, out, sig):
    """Starts a slow conversion, sends `sig` once the first outputs exist; returns the exit status and
    what it printed on stderr."""
    proc = subprocess.Popen([str(loom), "convert", str(src), "-o", str(out), "--format", "png", "--compression", "9",
                             "-j", "2", "-q"], stderr=subprocess.PIPE, text=True)
    deadline = time.monotonic() + 60
    while time.monotonic() < deadline and proc.poll() is None and not any(out.rglob("*.png")):
        time.sleep(0.01)
    time.sleep(0.2)
    proc.send_signal(sig)
    _, stderr = proc.communicate(timeout=120)
    return proc.returncode, stderr


@pytest.fixture(scope="module")
def large_jpegs(tmp_path_factory):
    src = tmp_path_factory.mktemp("large")
    for i in range(12):
        make_jpeg(src / f"{i:02d}.jpg", 1600, 1200, seed=i)
    return src


@pytest.mark.parametrize("sig", [signal.SIGINT, signal.SIGTERM, signal.SIGHUP, signal.SIGKILL])
def test_killed_conversion_leaves_no_partial_output(loom, large_jpegs, tmp_path, sig):
    src = large_jpegs
    out = tmp_path / "out"
    status, stderr = _interrupted_convert(loom, src, out, sig)
    assert status in (-sig, 0), status  # 0 only if it finished before the signal landed
    finished = sorted(out.rglob("*.png"))
    if status == -sig and sig != signal.SIGKILL:  # a catchable signal: one line says how far it got
        said = re.search(r"loom: interrupted by (\w+) after (\d+) of 12 images: (\d+) ok, (\d+) failed; "
                         r"(\d+) not tried; no partial output left\n", stderr)
        assert said, stderr
        name, done, written, failed, left = said.groups()
        assert name == sig.name and int(failed) == 0 and int(done) + int(left) == 12
        # A file renamed into place is counted once its worker (one of -j 2) returns.
        assert int(written) <= len(finished) <= int(written) + 2
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


# ---- convert: crop, center-crop, hflip, noise ----

def test_crop_region_and_zero_padding(run_loom, media, tmp_path):
    src = media / "images" / "png" / "test-card.png"
    ref = np.asarray(Image.open(src).convert("RGB")).astype(int)
    h, w = ref.shape[:2]
    result = run_loom("convert", src, "-o", tmp_path / "a", "--mode", "rgb", "--crop", "40x30+7+5")
    assert result.returncode == 0, result.stderr
    assert np.array_equal(np.asarray(Image.open(tmp_path / "a" / "test-card.png")), ref[5:35, 7:47])
    run_loom("convert", src, "-o", tmp_path / "b", "--mode", "rgb", "--crop", "16x12")  # offset 0,0
    assert np.array_equal(np.asarray(Image.open(tmp_path / "b" / "test-card.png")), ref[:12, :16])
    # A region reaching past the image is zero there (torchvision's crop pads).
    run_loom("convert", src, "-o", tmp_path / "c", "--mode", "rgb", "--crop", f"20x10+{w - 5}+{h - 4}")
    got = np.asarray(Image.open(tmp_path / "c" / "test-card.png")).astype(int)
    assert got.shape == (10, 20, 3)
    assert np.array_equal(got[:4, :5], ref[h - 4:, w - 5:])
    assert (got[4:] == 0).all() and (got[:, 5:] == 0).all()


def test_center_crop_pads_with_zeros_like_torchvision(run_loom, media, tmp_path):
    src = media / "images" / "jpeg" / "hopper.jpg"  # 128 x 128
    ref = np.asarray(Image.open(src).convert("RGB")).astype(int)
    result = run_loom("convert", src, "-o", tmp_path, "--format", "png", "--center-crop", "200x100")
    assert result.returncode == 0, result.stderr
    got = np.asarray(Image.open(tmp_path / "hopper.png")).astype(int)
    # torchvision: pad left (200 - 128) // 2 = 36 with zeros, crop top round((128 - 100) / 2) = 14.
    assert got.shape == (100, 200, 3)
    assert np.array_equal(got[:, 36:164], ref[14:114])
    assert (got[:, :36] == 0).all() and (got[:, 164:] == 0).all()
    run_loom("convert", src, "-o", tmp_path / "n", "--format", "png", "--center-crop", "50")  # N: N x N
    assert np.array_equal(np.asarray(Image.open(tmp_path / "n" / "hopper.png")), ref[39:89, 39:89])


@pytest.mark.parametrize("name,crop,resize", [("iptc.jpg", "400x400", "100"), ("flower.jpg", "300x200", "75x50")])
def test_center_crop_then_resize_equals_pillow(run_loom, media, tmp_path, name, crop, resize):
    # The resize target is far below the image, so a DCT-scaled decode would be chosen without the
    # crop; the result must still be the full-resolution crop, resized (Pillow: crop then resize).
    src = media / "images" / "jpeg" / name
    result = run_loom("convert", src, "-o", tmp_path, "--format", "png", "--center-crop", crop, "--resize", resize)
    assert result.returncode == 0, result.stderr
    cw, ch = map(int, crop.split("x"))
    with Image.open(src) as im:
        im = im.convert("RGB")
        left, top = int(round((im.width - cw) / 2)), int(round((im.height - ch) / 2))
        cropped = im.crop((left, top, left + cw, top + ch))
    if "x" in resize:
        size = tuple(map(int, resize.split("x")))
    else:
        n = int(resize)
        size = (n, int(n * ch / cw)) if cw <= ch else (int(n * cw / ch), n)
    ref = np.asarray(cropped.resize(size, Image.BILINEAR)).astype(int)
    got = np.asarray(Image.open(tmp_path / (Path(name).stem + ".png"))).astype(int)
    assert got.shape == ref.shape
    assert np.abs(got - ref).max() <= 1


def test_hflip_after_resize(run_loom, media, tmp_path):
    src = media / "images" / "png" / "test-card.png"
    run_loom("convert", src, "-o", tmp_path / "plain", "--resize", "40x30")
    result = run_loom("convert", src, "-o", tmp_path / "flip", "--resize", "40x30", "--hflip")
    assert result.returncode == 0, result.stderr
    plain = np.asarray(Image.open(tmp_path / "plain" / "test-card.png"))
    flipped = np.asarray(Image.open(tmp_path / "flip" / "test-card.png"))
    assert flipped.shape == plain.shape and not np.array_equal(flipped, plain)
    assert np.array_equal(flipped, plain[:, ::-1])


@pytest.fixture
def gray_folder(tmp_path):
    src = tmp_path / "gray"
    (src / "sub").mkdir(parents=True)
    for rel in ("a.png", "b.png", "sub/c.png", "sub/d.png"):
        Image.fromarray(np.full((96, 128, 3), 128, np.uint8)).save(src / rel)
    return src


def outputs(folder):
    return {f: np.asarray(Image.open(Path(folder) / f)) for f in tree(folder)}


def test_noise_seed_is_reproducible_for_any_job_count(run_loom, gray_folder, tmp_path):
    runs = {}
    for name, seed, jobs in (("s1j1", 7, 1), ("s1j2", 7, 2), ("s2j2", 8, 2)):
        result = run_loom("convert", gray_folder, "-o", tmp_path / name, "--noise", "0.1", "--seed", seed,
                          "-j", jobs, "--format", "png")
        assert result.returncode == 0, result.stderr
        assert f"seed {seed}" in result.stderr
        runs[name] = tree(tmp_path / name)
    assert runs["s1j1"] == runs["s1j2"] == ["a.png", "b.png", "sub/c.png", "sub/d.png"]
    for f in runs["s1j1"]:
        assert (tmp_path / "s1j1" / f).read_bytes() == (tmp_path / "s1j2" / f).read_bytes(), f
    one, other = outputs(tmp_path / "s1j1"), outputs(tmp_path / "s2j2")
    for f in one:
        assert not np.array_equal(one[f], other[f]), f
    # Each file has its own noise (the stream comes from its path), even though the inputs are equal.
    assert not np.array_equal(one["a.png"], one["b.png"])
    assert not np.array_equal(one["sub/c.png"], one["sub/d.png"])
    # The stream follows the relative path, not the order: converting one file alone gives the same.
    alone = run_loom("convert", gray_folder / "sub" / "d.png", "-o", tmp_path / "alone", "--noise", "0.1",
                     "--seed", 7, "--format", "png")
    assert alone.returncode == 0
    lone = np.asarray(Image.open(tmp_path / "alone" / "d.png"))
    assert not np.array_equal(lone, one["sub/d.png"])  # "d.png" and "sub/d.png" are different paths
    relative = run_loom("convert", gray_folder / "sub", "-o", tmp_path / "rel", "--noise", "0.1", "--seed", 7,
                        "--format", "png")
    assert relative.returncode == 0
    assert np.array_equal(np.asarray(Image.open(tmp_path / "rel" / "d.png")), lone)


def test_noise_without_seed_prints_a_seed_that_reproduces_the_run(run_loom, gray_folder, tmp_path):
    first = run_loom("convert", gray_folder, "-o", tmp_path / "r1", "--noise", "0.05", "--format", "png")
    assert first.returncode == 0, first.stderr
    seed = re.search(r"seed (\d+)", first.stderr).group(1)
    second = run_loom("convert", gray_folder, "-o", tmp_path / "r2", "--noise", "0.05", "--format", "png")
    assert re.search(r"seed (\d+)", second.stderr).group(1) != seed
    again = run_loom("convert", gray_folder, "-o", tmp_path / "r3", "--noise", "0.05", "--seed", seed,
                     "--format", "png")
    assert again.returncode == 0
    for f in tree(tmp_path / "r1"):
        assert (tmp_path / "r1" / f).read_bytes() == (tmp_path / "r3" / f).read_bytes(), f


def truncated_normal_pmf(levels, k):
    """P(trunc_toward_zero(z * levels) == k) for a standard normal z: torchvision's uint8 noise."""
    cdf = lambda v: 0.5 * math.erfc(-v / (levels * math.sqrt(2)))
    if k == 0:
        return cdf(1) - cdf(-1)
    a = abs(k)
    return cdf(a + 1) - cdf(a)


@pytest.mark.parametrize("sigma", [0.02, 0.1])
def test_noise_statistics_on_flat_gray_match_sigma(run_loom, tmp_path, sigma):
    src = tmp_path / "flat.png"
    Image.fromarray(np.full((256, 256, 3), 128, np.uint8)).save(src)
    result = run_loom("convert", src, "-o", tmp_path / "out", "--noise", sigma, "--seed", 1)
    assert result.returncode == 0, result.stderr
    noise = np.asarray(Image.open(tmp_path / "out" / "flat.png")).astype(float) - 128
    levels = sigma * 255  # sigma is on the [0, 1] scale, as torchvision's GaussianNoise
    ks = np.arange(-int(6 * levels) - 1, int(6 * levels) + 2)
    pmf = np.array([truncated_normal_pmf(levels, k) for k in ks])
    expected_std = math.sqrt(float((pmf * ks ** 2).sum()))
    assert abs(noise.mean()) < 0.05 * levels
    assert abs(noise.std() - expected_std) < 0.01 * expected_std, (noise.std(), expected_std)
    assert expected_std > levels - 1  # truncation shrinks the spread by less than one level
    tail = int(2 * levels)  # share beyond two sigma, about 4.6 % before truncation
    expected_tail = pmf[np.abs(ks) > tail].sum()
    assert abs(np.mean(np.abs(noise) > tail) - expected_tail) < 0.1 * expected_tail


def test_noise_on_16_bit_png_is_8_bit_noise(run_loom, tmp_path):
    src = tmp_path / "deep.png"
    Image.fromarray(np.full((32, 32), 40000, np.uint16)).save(src)
    result = run_loom("convert", src, "-o", tmp_path / "out", "--noise", "0.1", "--seed", 3)
    assert result.returncode == 0, result.stderr
    with Image.open(tmp_path / "out" / "deep.png") as im:
        assert im.mode == "L"
        assert abs(np.asarray(im).astype(float).mean() - (40000 >> 8)) < 10


def test_bad_transform_values_exit_2_before_any_file(run_loom, media, tmp_path):
    src = media / "images" / "jpeg" / "hopper.jpg"
    out = tmp_path / "out"
    cases = {
        ("--crop", "0x5"): "--crop",
        ("--crop", "abc"): "--crop",
        ("--crop", "5x5+1"): "--crop",
        ("--crop", "5x5-1-1"): "--crop",
        ("--center-crop", "0"): "--center-crop",
        ("--center-crop", "4x"): "--center-crop",
        ("--center-crop",): "--center-crop",
        ("--noise", "-0.1"): "--noise",
        ("--noise", "nan"): "--noise",
        ("--noise", "lots"): "--noise",
        ("--noise", "0.1", "--seed", "-1"): "--seed",
        ("--noise", "0.1", "--seed", "18446744073709551616"): "--seed",
        ("--seed", "4"): "--noise",  # a seed without noise
        ("--crop", "5x5", "--center-crop", "5x5"): "excludes",
    }
    for args, word in cases.items():
        result = run_loom("convert", src, "-o", out, *args)
        assert result.returncode == 2, args
        assert word in result.stderr, (args, result.stderr)
        assert not out.exists(), args


# ---- bench ----

@pytest.mark.parametrize("op", ["resize", "noise", "normalize"])
def test_bench_prints_a_json_line(run_loom, op):
    result = run_loom("bench", op, "--size", "320x200", "--iterations", "3", "--threads", "2", timeout=60)
    assert result.returncode == 0, result.stderr
    lines = result.stdout.splitlines()
    assert len(lines) == 1
    line = json.loads(lines[0])
    assert (line["op"], line["width"], line["height"], line["threads"], line["iterations"]) == (op, 320, 200, 2, 3)
    assert 0 < line["min_ms"] <= line["median_ms"]
    assert line["megapixels_per_s"] > 0
    version = run_loom("version").stdout
    targets = version.split("SIMD targets:")[1].split("\n")[0].split()
    assert line["simd_target"] == targets[0]


def test_bench_default_size_is_full_hd(run_loom):
    result = run_loom("bench", "resize", "--iterations", "1", timeout=60)
    assert result.returncode == 0, result.stderr
    line = json.loads(result.stdout)
    assert (line["width"], line["height"], line["threads"]) == (1920, 1080, 1)


def test_bench_rejects_bad_arguments(run_loom):
    for args in (["bench"], ["bench", "blur"], ["bench", "resize", "--size", "0x10"],
                 ["bench", "resize", "--size", "big"], ["bench", "resize", "--size", "100000x100000"],
                 ["bench", "noise", "--threads", "0"], ["bench", "normalize", "--iterations", "0"],
                 ["bench", "resize", "--iterations", "x"]):
        result = run_loom(*args)
        assert result.returncode == 2, args
        assert result.stdout == "", args


# ---- audio ----
# References: the `sox` CLI (rate, channels and effect chains: loom runs the same libsox effects),
# soundfile (sample values, rates, frame counts, subtypes) and ffprobe (info fields).

import soundfile as sf


def sox(*args):
    subprocess.run(["sox", *map(str, args)], check=True, capture_output=True)


def read_int32(path):
    data, rate = sf.read(str(path), dtype="int32", always_2d=True)
    return data.astype(np.int64), rate


def assert_within_lsb(got_path, ref_path, bits):
    """Equal frame count, rate and channels; every sample within 1 LSB of `bits`-bit audio."""
    got, got_rate = read_int32(got_path)
    ref, ref_rate = read_int32(ref_path)
    assert got_rate == ref_rate and got.shape == ref.shape, (got_path, got.shape, ref.shape)
    lsb = 1 << (32 - bits)
    diff = np.abs(got - ref).max() if got.size else 0
    assert diff <= lsb, (got_path, diff / lsb)
    assert np.abs(ref).max() > 100 * lsb  # not silence


@pytest.fixture
def audio_folder(media, tmp_path):
    """A folder tree of audio files (built with sox from the shared media), a corrupt FLAC, and files that
    folder scanning skips (text, MP4)."""
    a = media / "audio"
    src = tmp_path / "src"
    (src / "sub" / "deep").mkdir(parents=True)
    sox(a / "tfio_ZASFX_ADSR_no_sustain.wav", src / "a.wav")            # 16-bit stereo 44.1 kHz
    sox(a / "tfio_ZASFX_ADSR_no_sustain.s24.wav", src / "b.flac")       # 24-bit stereo 44.1 kHz
    sox(a / "sine_mono_s16.wav", src / "mono.wav")                      # 16-bit mono 16 kHz
    sox(a / "exo_bear.flac", src / "sub" / "c.wav")                     # 16-bit stereo 48 kHz
    sox(a / "pluck-pcm16.wav", src / "sub" / "deep" / "d.aiff")         # 16-bit stereo 11025 Hz
    (src / "sub" / "e.ogg").write_bytes((a / "exo_bear_vorbis.ogg").read_bytes())
    (src / "corrupt.flac").write_bytes(b"fLaC" + os.urandom(4000))
    (src / "notes.txt").write_text("not audio")
    (src / "clip.mp4").write_bytes((a / "tfio_gs-16b-2c-44100hz.mp4").read_bytes())
    return src


def test_audio_help_lists_the_flags(run_loom):
    text = run_loom("audio", "--help").stdout
    for flag in ("--rate", "--channels", "--format", "--bits", "--effects", "--jobs", "--overwrite"):
        assert flag in text, flag


def test_audio_folder_to_16k_mono_flac_equals_sox(run_loom, audio_folder, tmp_path):
    out = tmp_path / "out"
    result = run_loom("audio", audio_folder, "-o", out, "--rate", 16000, "--channels", 1, "--format", "flac",
                      "-j", 2)
    assert result.returncode == 1, result.stderr
    assert tree(out) == ["a.flac", "b.flac", "mono.flac", "sub/c.flac", "sub/deep/d.flac", "sub/e.flac"]
    assert f"{audio_folder / 'corrupt.flac'}: " in result.stderr
    assert "6 ok, 1 failed" in result.stderr and "files/s" in result.stderr
    bits = {"a": 16, "b": 24, "mono": 16, "sub/c": 16, "sub/deep/d": 16, "sub/e": 16}  # the input's width
    for rel, b in bits.items():
        got = out / f"{rel}.flac"
        info = sf.info(str(got))
        assert (info.samplerate, info.channels, info.subtype) == (16000, 1, f"PCM_{b}"), rel
        src = next(audio_folder.glob(f"{rel}.*"))
        ref = tmp_path / "ref" / f"{rel}.flac"
        ref.parent.mkdir(parents=True, exist_ok=True)
        sox("-D", src, "-r", 16000, "-c", 1, "-b", b, ref)  # no dither; the same libsox channels + rate
        assert_within_lsb(got, ref, b)
    # mono.wav was already 16 kHz mono: no processing, the samples are carried over bit for bit.
    assert np.array_equal(read_int32(out / "mono.flac")[0], read_int32(audio_folder / "mono.wav")[0])


def test_audio_up_mix_and_up_sample_equal_sox(run_loom, media, tmp_path):
    src = media / "audio" / "pluck-pcm16.wav"  # stereo 11025 Hz
    result = run_loom("audio", src, "-o", tmp_path / "out", "--rate", 22050, "--channels", 3, "--bits", 24)
    assert result.returncode == 0, result.stderr
    got = tmp_path / "out" / "pluck-pcm16.wav"
    assert (sf.info(str(got)).channels, sf.info(str(got)).subtype) == (3, "PCM_24")
    sox("-D", src, "-r", 22050, "-c", 3, "-b", 24, tmp_path / "ref.wav")
    assert_within_lsb(got, tmp_path / "ref.wav", 24)
    data = read_int32(got)[0]
    assert np.array_equal(data[:, 2], data[:, 0])  # the 3rd channel repeats the 1st (SoX "channels")


@pytest.mark.parametrize("chain,extra", [
    ("gain -3; lowpass 4000", []),
    ("highpass 200; compand 0.02,0.2 -60,-60,-30,-15,0,-5 -3; fade t 0.02 0 0.05",
     ["--rate", "8000", "--channels", "1"]),
    ("reverb 50; gain -n -1", ["--channels", "1"]),
    ("speed 1.25", ["--rate", "44100"]),  # the chain ends at 55125 Hz; --rate brings it back, as `sox` does
])
def test_audio_effects_equal_sox(run_loom, media, tmp_path, chain, extra):
    src = media / "audio" / "tfio_ZASFX_ADSR_no_sustain.s24.wav"  # 24-bit stereo 44.1 kHz
    result = run_loom("audio", src, "-o", tmp_path / "out", "--effects", chain, "--bits", 24, "--format", "wav",
                      *extra)
    assert result.returncode == 0, result.stderr
    sox_effects = [w for effect in chain.split(";") for w in effect.split()]
    opts = dict(zip(extra[::2], extra[1::2]))
    if "--channels" in opts:
        sox_effects += ["channels", opts["--channels"]]
    sox_effects += ["rate", "-h", opts.get("--rate", 44100)]
    sox("-D", src, "-b", 24, tmp_path / "ref.wav", *sox_effects)
    assert_within_lsb(tmp_path / "out" / "tfio_ZASFX_ADSR_no_sustain.s24.wav", tmp_path / "ref.wav", 24)
    plain = sf.read(str(src))[0]
    got = sf.read(str(tmp_path / "out" / "tfio_ZASFX_ADSR_no_sustain.s24.wav"))[0]
    assert got.shape != plain.shape or not np.allclose(got, plain, atol=1e-3)  # the chain did something


def test_audio_rate_without_rate_flag_is_where_the_chain_ends(run_loom, media, tmp_path):
    src = media / "audio" / "tfio_ZASFX_ADSR_no_sustain.wav"  # 44.1 kHz, 14336 frames
    result = run_loom("audio", src, "-o", tmp_path / "speed", "--effects", "speed 1.25")
    assert result.returncode == 0, result.stderr
    info = sf.info(str(tmp_path / "speed" / "tfio_ZASFX_ADSR_no_sustain.wav"))
    assert (info.samplerate, info.frames) == (55125, 14336)  # no automatic "rate" back to 44.1 kHz
    result = run_loom("audio", src, "-o", tmp_path / "rate", "--effects", "rate 16k")
    assert result.returncode == 0, result.stderr
    assert sf.info(str(tmp_path / "rate" / "tfio_ZASFX_ADSR_no_sustain.wav")).samplerate == 16000


def test_audio_unknown_effect_is_a_command_line_error(run_loom, audio_folder, tmp_path):
    # Checked once, while parsing: one message, status 2, no file read.
    result = run_loom("audio", audio_folder / "a.wav", audio_folder / "mono.wav", "-o", tmp_path / "out",
                      "--effects", "gain -3; frobnicate 2")
    assert result.returncode == 2
    assert result.stderr.startswith('--effects: SoX effect "frobnicate 2": libsox has no effect named "frobnicate"')
    assert str(audio_folder) not in result.stderr and " ok, " not in result.stderr
    assert not (tmp_path / "out").exists()


@pytest.mark.parametrize("bits,subtype", [("16", "PCM_16"), ("24", "PCM_24"), ("32", "PCM_32"), ("f32", "FLOAT")])
def test_audio_bits(run_loom, media, tmp_path, bits, subtype):
    src = media / "audio" / "pluck-pcm16.wav"
    result = run_loom("audio", src, "-o", tmp_path, "--bits", bits)
    assert result.returncode == 0, result.stderr
    got = tmp_path / "pluck-pcm16.wav"
    assert sf.info(str(got)).subtype == subtype
    # 16-bit samples fit every width exactly: widening is lossless.
    assert np.array_equal(sf.read(str(got), dtype="float64")[0], sf.read(str(src), dtype="float64")[0])


def test_audio_bits_narrowing_rounds_like_soundfile(run_loom, media, tmp_path):
    src = media / "audio" / "pluck-pcm24.wav"
    result = run_loom("audio", src, "-o", tmp_path, "--bits", "16", "--format", "flac")
    assert result.returncode == 0, result.stderr
    got = sf.read(str(tmp_path / "pluck-pcm24.flac"), dtype="int16")[0].astype(int)
    ref = sf.read(str(src), dtype="int16")[0].astype(int)  # libsndfile's 24 -> 16-bit conversion
    assert sf.info(str(tmp_path / "pluck-pcm24.flac")).subtype == "PCM_16"
    assert np.abs(got - ref).max() <= 1


def test_audio_default_format_and_width(run_loom, media, tmp_path):
    a = media / "audio"
    names = ["exo_bear.flac", "exo_bear.opus", "exo_bear_vorbis.ogg", "nasa_13013.mp4.audio.mp3", "pluck-pcm16.aiff",
             "pluck-ulaw.au", "exo_sample.adts", "tfio_ZASFX_ADSR_no_sustain.f32.wav", "pluck-pcm24.wav",
             "pluck-pcm8.wav", "tfio_gs-16b-2c-44100hz.mp4"]
    result = run_loom("audio", *[a / n for n in names], "-o", tmp_path / "out", "-j", 2)
    assert result.returncode == 0, result.stderr
    out = tmp_path / "out"
    assert tree(out) == sorted([
        "exo_bear.flac", "exo_bear.opus", "exo_bear_vorbis.ogg", "nasa_13013.mp4.audio.mp3", "pluck-pcm16.aiff",
        "pluck-ulaw.wav", "exo_sample.wav", "tfio_ZASFX_ADSR_no_sustain.f32.wav", "pluck-pcm24.wav",
        "pluck-pcm8.wav", "tfio_gs-16b-2c-44100hz.wav"])
    subtypes = {"exo_bear.flac": "PCM_16", "exo_bear_vorbis.ogg": "VORBIS", "pluck-pcm16.aiff": "PCM_16",
                "pluck-ulaw.wav": "PCM_16", "exo_sample.wav": "PCM_16", "tfio_ZASFX_ADSR_no_sustain.f32.wav": "FLOAT",
                "pluck-pcm24.wav": "PCM_24", "pluck-pcm8.wav": "PCM_16", "tfio_gs-16b-2c-44100hz.wav": "PCM_16",
                "exo_bear.opus": "OPUS", "nasa_13013.mp4.audio.mp3": "MPEG_LAYER_III"}
    for name, subtype in subtypes.items():
        assert sf.info(str(out / name)).subtype == subtype, name
    # Lossless inputs written without processing keep every sample.
    for src, dst in (("exo_bear.flac", "exo_bear.flac"), ("pluck-ulaw.au", "pluck-ulaw.wav"),
                     ("tfio_ZASFX_ADSR_no_sustain.f32.wav", "tfio_ZASFX_ADSR_no_sustain.f32.wav"),
                     ("pluck-pcm24.wav", "pluck-pcm24.wav"), ("pluck-pcm8.wav", "pluck-pcm8.wav")):
        assert np.array_equal(sf.read(str(out / dst))[0], sf.read(str(a / src))[0]), src
    # --bits without --format: inputs whose format cannot hold it (lossy, FLAC for 32) become WAV.
    bits = run_loom("audio", a / "exo_bear_vorbis.ogg", a / "exo_bear.flac", "-o", tmp_path / "b32", "--bits", "32")
    assert bits.returncode == 0, bits.stderr
    assert tree(tmp_path / "b32") == ["exo_bear.wav", "exo_bear_vorbis.wav"]
    assert sf.info(str(tmp_path / "b32" / "exo_bear.wav")).subtype == "PCM_32"


def test_audio_folder_scan_skips_video_containers_but_takes_them_as_files(run_loom, audio_folder, tmp_path):
    result = run_loom("audio", audio_folder / "sub", "-o", tmp_path / "o1", "--format", "wav")
    assert result.returncode == 0, result.stderr
    assert tree(tmp_path / "o1") == ["c.wav", "deep/d.wav", "e.wav"]
    result = run_loom("audio", audio_folder / "clip.mp4", "-o", tmp_path / "o2", "--rate", 8000)
    assert result.returncode == 0, result.stderr
    info = sf.info(str(tmp_path / "o2" / "clip.wav"))
    assert (info.samplerate, info.channels) == (8000, 2)


def test_audio_refuses_to_overwrite_unless_asked(run_loom, media, tmp_path):
    src = media / "audio" / "pluck-pcm16.wav"
    out = tmp_path / "out"
    out.mkdir()
    (out / "pluck-pcm16.flac").write_bytes(b"keep me")
    result = run_loom("audio", src, "-o", out, "--format", "flac")
    assert result.returncode == 1 and "already exists" in result.stderr
    assert (out / "pluck-pcm16.flac").read_bytes() == b"keep me"
    result = run_loom("audio", src, "-o", out, "--format", "flac", "--overwrite")
    assert result.returncode == 0, result.stderr
    assert np.array_equal(sf.read(str(out / "pluck-pcm16.flac"))[0], sf.read(str(src))[0])
    assert tree(out) == ["pluck-pcm16.flac"]  # no temporary files left


def test_audio_two_inputs_mapping_to_one_output_is_an_error(run_loom, audio_folder, tmp_path):
    sox(audio_folder / "mono.wav", audio_folder / "mono.aiff")
    result = run_loom("audio", audio_folder / "mono.aiff", audio_folder / "mono.wav", "-o", tmp_path / "out",
                      "--format", "flac")
    assert result.returncode == 1
    assert f"{audio_folder / 'mono.wav'}: its output {tmp_path / 'out' / 'mono.flac'} is also the output of " \
           f"{audio_folder / 'mono.aiff'}" in result.stderr
    assert "1 ok, 1 failed" in result.stderr
    assert tree(tmp_path / "out") == ["mono.flac"]


def test_audio_bad_command_lines_exit_2_before_any_file(run_loom, media, tmp_path):
    src = media / "audio" / "pluck-pcm16.wav"
    out = tmp_path / "out"
    cases = {
        ("--bits", "24", "--format", "mp3"): "--bits",
        ("--bits", "16", "--format", "opus"): "--bits",
        ("--bits", "f32", "--format", "ogg"): "--bits",
        ("--bits", "32", "--format", "flac"): "--bits",
        ("--bits", "f32", "--format", "flac"): "--bits",
        ("--bits", "12"): "--bits",
        ("--format", "wma"): "--format",
        ("--format", "wav", "--bit-rate", "128000"): "--bit-rate",
        ("--format", "opus", "--rate", "44100"): "--rate",
        ("--rate", "0"): "--rate",
        ("--rate", "fast"): "--rate",
        ("--channels", "0"): "--channels",
        ("--channels", "2000"): "--channels",
        ("--effects", "gain 'unterminated"): "--effects",
        ("-j", "-1"): "--jobs",
    }
    for args, word in cases.items():
        result = run_loom("audio", src, "-o", out, *args)
        assert result.returncode == 2, args
        assert word in result.stderr, (args, result.stderr)
        assert not out.exists(), args
    assert run_loom("audio", src).returncode == 2  # no -o
    assert run_loom("audio", "-o", out).returncode == 2  # no input


def test_audio_missing_input_is_reported_and_the_rest_converted(run_loom, media, tmp_path):
    result = run_loom("audio", tmp_path / "missing", media / "audio" / "pluck-pcm16.wav", "-o", tmp_path / "out")
    assert result.returncode == 1
    assert f"{tmp_path / 'missing'}: no such file or folder" in result.stderr
    assert "1 ok, 1 failed" in result.stderr and "1 input not found" in result.stderr  # the summary adds up
    assert tree(tmp_path / "out") == ["pluck-pcm16.wav"]


def test_audio_progress_bar_only_on_a_terminal(loom, audio_folder, tmp_path):
    proc, text = run_with_stderr_on_a_terminal([str(loom), "audio", str(audio_folder), "-o", str(tmp_path / "tty"), "--format", "wav"])
    assert proc.returncode == 1  # the corrupt file
    assert "[####" in text and "6 ok, 1 failed" in text
    quiet = subprocess.run([str(loom), "audio", str(audio_folder), "-o", str(tmp_path / "q"), "-q"],
                           capture_output=True, text=True, timeout=120)
    assert quiet.returncode == 1
    lines = quiet.stderr.splitlines()
    assert len(lines) == 1 and lines[0].startswith(f"{audio_folder / 'corrupt.flac'}: ")
    pipe = subprocess.run([str(loom), "audio", str(audio_folder), "-o", str(tmp_path / "p")],
                          capture_output=True, text=True, timeout=120)
    assert "[#" not in pipe.stderr and "6 ok, 1 failed" in pipe.stderr


@pytest.fixture(scope="module")
def long_wavs(tmp_path_factory):
    src = tmp_path_factory.mktemp("long_audio")
    rng = np.random.default_rng(0)
    for i in range(12):
        sf.write(str(src / f"{i:02d}.wav"), rng.uniform(-0.5, 0.5, (44100 * 30, 2)).astype(np.float32), 44100,
                 subtype="PCM_16")
    return src


@pytest.mark.parametrize("sig", [signal.SIGINT, signal.SIGTERM, signal.SIGKILL])
def test_killed_audio_run_leaves_no_partial_output(loom, long_wavs, tmp_path, sig):
    out = tmp_path / "out"
    args = [str(loom), "audio", str(long_wavs), "-o", str(out), "--rate", "48000", "--format", "flac", "-j", "2", "-q"]
    proc = subprocess.Popen(args, stderr=subprocess.DEVNULL)
    deadline = time.monotonic() + 60
    while time.monotonic() < deadline and proc.poll() is None and not any(out.rglob("*.flac")):
        time.sleep(0.01)
    time.sleep(0.1)
    proc.send_signal(sig)
    status = proc.wait(timeout=120)
    assert status in (-sig, 0), status  # 0 only if it finished before the signal landed
    for f in out.rglob("*.flac"):  # every output in place is complete
        info = sf.info(str(f))
        assert (info.samplerate, info.channels, info.frames) == (48000, 2, 48000 * 30), f
        assert sf.read(str(f), dtype="int16")[0].shape == (48000 * 30, 2)
    if sig != signal.SIGKILL:  # a catchable signal removes the temporary files too
        assert [p.name for p in out.rglob(".*.loom-*")] == []
    rerun = subprocess.run(args[:-1] + ["--overwrite", "-q"])
    assert rerun.returncode == 0
    assert len(list(out.glob("*.flac"))) == 12


# ---- info on audio ----

ENCODING_OF_CODEC = {"pcm_u8": "PCM_U", "pcm_mulaw": "ULAW", "pcm_alaw": "ALAW", "flac": "FLAC", "mp3": "MP3",
                     "vorbis": "VORBIS", "opus": "OPUS", "aac": "AAC"}


def expected_encoding(codec):
    if codec.startswith("pcm_s"):
        return "PCM_S"
    if codec.startswith("pcm_f"):
        return "PCM_F"
    if codec.startswith("adpcm"):
        return "ADPCM"
    return ENCODING_OF_CODEC[codec]


def test_info_on_every_audio_file_matches_ffprobe_and_soundfile(run_loom, media):
    files = sorted(p for p in (media / "audio").iterdir() if p.is_file())
    assert len(files) >= 20
    result, lines = info_lines(run_loom, *files)
    assert result.returncode == 0, result.stdout
    assert len(lines) == len(files)
    for path, line in zip(files, lines):
        assert line["path"] == str(path) and line["kind"] == "audio", line
        probe = ffprobe(path)
        stream = next(s for s in probe["streams"] if s["codec_type"] == "audio")
        assert line["stream_index"] == stream["index"], path
        assert line["codec"] == stream["codec_name"], path
        assert line["encoding"] == expected_encoding(stream["codec_name"]), path
        assert line["sample_rate"] == int(stream["sample_rate"]), path
        assert line["channels"] == stream["channels"], path
        bits = int(stream.get("bits_per_sample", 0)) or int(stream.get("bits_per_raw_sample", 0))
        assert line["bits_per_sample"] == bits, path
        duration = float(stream.get("duration", probe["format"]["duration"]))
        assert abs(line["duration"] - duration) < 1e-3, path
        if stream.get("time_base") == f"1/{stream['sample_rate']}" and "duration_ts" in stream:
            assert line["num_frames"] == stream["duration_ts"], path
        else:
            assert abs(line["num_frames"] - line["duration"] * line["sample_rate"]) <= 1, path
        try:
            sfi = sf.info(str(path))
        except RuntimeError:
            continue  # MP4, Matroska, ADTS: not soundfile's
        assert (line["sample_rate"], line["channels"]) == (sfi.samplerate, sfi.channels), path
        if sfi.subtype not in ("OPUS", "MPEG_LAYER_III"):  # these count decoded frames after trimming
            assert line["num_frames"] == sfi.frames, path
        width = {"PCM_U8": 8, "PCM_16": 16, "PCM_24": 24, "PCM_32": 32, "FLOAT": 32, "ULAW": 8, "ALAW": 8}
        if sfi.subtype in width:
            assert line["bits_per_sample"] == width[sfi.subtype], path


# ---- frames (video) ----

import av  # noqa: E402

# h264 with B-frames in its 4th stream (FFmpeg's best), HEVC with B-frames, and H.263 in 3GP with a
# variable frame rate (r_frame_rate 30000/1001, average 14.1) starting at 0.128 s.
FRAME_VIDEOS = ["nasa_13013.mp4", "h265_video.mp4", "exo_video_desks.3gp"]


def video_info(run_loom, path):
    result, lines = info_lines(run_loom, path)
    assert result.returncode == 0, result.stdout
    return lines[0]


def ffmpeg_frame(path, stream, index, size=None):
    """Frame `index` (presentation order) as ffmpeg's rgb24, with the decoder's swscale flags (bilinear)."""
    vf = "select=eq(n\\,%d)" % index
    if size:
        vf += ",scale=%d:%d:flags=bilinear" % size
    raw = subprocess.run(["ffmpeg", "-v", "error", "-noautorotate", "-i", str(path), "-map", "0:%d" % stream,
                          "-vf", vf, "-vsync", "0", "-frames:v", "1", "-sws_flags", "bilinear", "-pix_fmt", "rgb24",
                          "-f", "rawvideo", "-"], capture_output=True, check=True).stdout
    return np.frombuffer(raw, dtype=np.uint8)


def pyav_pts(path, stream):
    """Presentation times of every frame of the stream, sorted (frame index = position)."""
    with av.open(str(path), metadata_errors="ignore") as container:
        s = container.streams[stream]
        return sorted(float(f.pts * s.time_base) for f in container.decode(s))


def written(folder):
    """The frame files in `folder` (its frames.jsonl index aside)."""
    return sorted(p.name for p in Path(folder).glob("frame_*")) if Path(folder).exists() else []


def names(indices, ext="png"):
    return sorted("frame_%06d.%s" % (i, ext) for i in set(indices))


@pytest.mark.parametrize("name", FRAME_VIDEOS)
def test_frames_indices_equal_ffmpeg_rgb24(run_loom, media, tmp_path, name):
    path = media / "video" / name
    info = video_info(run_loom, path)
    n = info["num_frames"]
    asked = [n - 1, 3, 0, 3, -2]
    result = run_loom("frames", path, "-o", tmp_path, "--indices=" + ",".join(map(str, asked)))
    assert result.returncode == 0, result.stderr
    expected = sorted({i % n for i in asked})
    assert written(tmp_path) == names(expected)
    assert re.search(r"^%d ok, 0 failed" % len(expected), result.stderr, re.M), result.stderr
    for i in expected:
        with Image.open(tmp_path / ("frame_%06d.png" % i)) as im:
            got = np.asarray(im.convert("RGB"))
        assert got.shape == (info["height"], info["width"], 3)
        ref = ffmpeg_frame(path, info["stream_index"], i).reshape(got.shape)
        assert np.abs(got.astype(int) - ref).max() <= 2, (name, i)


@pytest.mark.parametrize("name", FRAME_VIDEOS)
def test_frames_times_pick_the_frame_pyav_says_is_played(run_loom, media, tmp_path, name):
    path = media / "video" / name
    info = video_info(run_loom, path)
    pts = pyav_pts(path, info["stream_index"])
    assert len(pts) == info["num_frames"]
    begin, end = info["begin"], info["end"]
    assert abs(begin - pts[0]) < 1e-6
    times = [begin, begin + (end - begin) * 0.37, (pts[1] + pts[2]) / 2, pts[5], end - 1e-3]
    result = run_loom("frames", path, "-o", tmp_path, "--times", ",".join("%.6f" % t for t in times))
    assert result.returncode == 0, result.stderr
    expected = [max(i for i, p in enumerate(pts) if p <= round(t, 6)) for t in times]
    assert written(tmp_path) == names(expected)
    # The same frames as asked by index.
    by_index = tmp_path / "by_index"
    assert run_loom("frames", path, "-o", by_index, "--indices", ",".join(map(str, expected))).returncode == 0
    for f in written(by_index):
        assert (tmp_path / f).read_bytes() == (by_index / f).read_bytes(), f


def test_frames_every_range_num_and_all(run_loom, media, tmp_path):
    path = media / "video" / "exo_video_desks.3gp"
    info = video_info(run_loom, path)
    n = info["num_frames"]
    pts = pyav_pts(path, info["stream_index"])
    # --every S: the frames played at begin, begin + S, ...
    result = run_loom("frames", path, "-o", tmp_path / "every", "--every", "0.5", "--format", "jpg")
    assert result.returncode == 0, result.stderr
    times = [info["begin"] + 0.5 * k for k in range(int((info["end"] - info["begin"]) / 0.5) + 1)
             if info["begin"] + 0.5 * k < info["end"]]
    assert written(tmp_path / "every") == names([max(i for i, p in enumerate(pts) if p <= t) for t in times], "jpg")
    # --range: Python slice semantics, negative bounds included.
    for spec, expected in [("5:20:4", range(5, 20, 4)), ("-10::3", range(n - 10, n, 3)), (":3", range(3)),
                           ("60:1000", range(60, n)), ("-1000:2", range(2)), ("10:5", [])]:
        out = tmp_path / ("range" + spec.replace(":", "_"))
        result = run_loom("frames", path, "-o", out, "--range", spec)
        assert result.returncode == 0, (spec, result.stderr)
        assert written(out) == names(expected), spec
    # --num N: torch.linspace(0, n - 1, N) truncated, as TorchCodec's regular sampling (the samplers'
    # tests cover the sizes where that differs from the exact k * (n - 1) / (N - 1)).
    import torch

    def linspace(num):
        return torch.linspace(0, n - 1, num).to(torch.int64).tolist()

    for num in (1, 7, n, n + 5):
        out = tmp_path / ("num%d" % num)
        assert run_loom("frames", path, "-o", out, "--num", num).returncode == 0
        assert written(out) == names(linspace(num)), num
    # No selector: every frame.
    result = run_loom("frames", path, "-o", tmp_path / "all", "-j", "2")
    assert result.returncode == 0
    assert written(tmp_path / "all") == names(range(n))


def test_frames_null_format_writes_nothing(run_loom, media, tmp_path):
    path = media / "video" / "h265_video.mp4"
    result = run_loom("frames", path, "--format", "null", "--range", "0:8")
    assert result.returncode == 0, result.stderr
    assert re.search(r"^8 ok, 0 failed", result.stderr, re.M)
    result = run_loom("frames", path, "-o", tmp_path / "out", "--format", "null")
    assert result.returncode == 0
    assert not (tmp_path / "out").exists()


@pytest.mark.parametrize("spec,size", [("100x60", (100, 60)), ("90", None)])
def test_frames_resize_in_the_colour_conversion(run_loom, media, tmp_path, spec, size):
    path = media / "video" / "nasa_13013.mp4"
    info = video_info(run_loom, path)
    if size is None:  # shorter side 90, aspect kept: 480x270 -> 160x90
        size = (round(90 * info["width"] / info["height"]), 90)
    result = run_loom("frames", path, "-o", tmp_path, "--indices", "0,100", "--resize", spec)
    assert result.returncode == 0, result.stderr
    for i in (0, 100):
        with Image.open(tmp_path / ("frame_%06d.png" % i)) as im:
            assert im.size == size
            got = np.asarray(im.convert("RGB"))
        ref = ffmpeg_frame(path, info["stream_index"], i, size).reshape(got.shape)
        assert np.abs(got.astype(int) - ref).max() <= 2


def test_frames_bad_arguments(run_loom, media, tmp_path):
    path = media / "video" / "h265_video.mp4"
    out = tmp_path / "out"
    for bad in (["--indices", "1", "--num", "3"], ["--times", "0.1", "--every", "1"], ["--indices", "1,,2"],
                ["--indices", "1,x"], ["--indices", "1.5"], ["--times", "0.1,nan"], ["--times", ""],
                ["--range", "1:2:0"], ["--range", "1:2:-1"], ["--range", "5"], ["--range", "a:3"],
                ["--range", "1:2:3:4"], ["--every", "0"], ["--every", "-1"], ["--num", "0"], ["--num", "2.5"],
                ["--resize", "12y4"], ["--resize", "4294967297x4294967297"], ["--resize", "1000001"],
                ["--format", "gif"], ["--seek", "fast"]):
        result = run_loom("frames", path, "-o", out, *bad)
        assert result.returncode == 2, (bad, result.stderr)
    assert run_loom("frames", path).returncode == 2  # no -o without --format null
    assert not out.exists()
    # Out of range for this file: a clear error, exit 1, nothing written.
    for bad in (["--indices", "3,10"], ["--indices=-11"], ["--times", "1.0"], ["--times=-0.5"]):
        result = run_loom("frames", path, "-o", out, *bad)
        assert result.returncode == 1, bad
        assert "out of range" in result.stderr or "outside the video" in result.stderr, result.stderr
        assert written(out) == []
    missing = run_loom("frames", tmp_path / "missing.mp4", "-o", out)
    assert missing.returncode == 1 and "missing.mp4" in missing.stderr


def test_frames_refuse_to_overwrite_unless_asked(run_loom, media, tmp_path):
    path = media / "video" / "h265_video.mp4"
    assert run_loom("frames", path, "-o", tmp_path, "--range", "0:4").returncode == 0
    before = (tmp_path / "frame_000002.png").read_bytes()
    (tmp_path / "frame_000002.png").write_bytes(b"mine")
    result = run_loom("frames", path, "-o", tmp_path, "--range", "0:4")
    assert result.returncode == 1 and "--overwrite" in result.stderr
    assert (tmp_path / "frame_000002.png").read_bytes() == b"mine"
    # Times are resolved to frames before anything is decoded: the same check, nothing written.
    pts = pyav_pts(path, video_info(run_loom, path)["stream_index"])
    result = run_loom("frames", path, "-o", tmp_path, "--times", "%.6f,%.6f" % (pts[2], pts[5]))
    assert result.returncode == 1 and "--overwrite" in result.stderr
    assert not (tmp_path / "frame_000005.png").exists()
    assert run_loom("frames", path, "-o", tmp_path, "--range", "0:4", "--overwrite").returncode == 0
    assert (tmp_path / "frame_000002.png").read_bytes() == before


def test_frames_of_a_truncated_video(run_loom, media, tmp_path):
    data = (media / "video" / "moviepy_transparent.webm").read_bytes()
    cut = tmp_path / "cut.webm"
    cut.write_bytes(data[:len(data) * 6 // 10])
    info = video_info(run_loom, cut)
    found = info["num_frames_from_content"]
    assert 0 < found < 150  # the scan finds the frames before the cut
    # Approximate mode believes the header (150 frames): frames up to the cut, then an error.
    out = tmp_path / "approx"
    result = run_loom("frames", cut, "-o", out, "--seek", "approximate")
    assert result.returncode == 1
    assert "truncated" in result.stderr and "(frame %d)" % found in result.stderr, result.stderr
    assert written(out) == names(range(found))
    # Exact mode: the scan sees the cut; a frame past it is out of range before anything is written.
    result = run_loom("frames", cut, "-o", tmp_path / "exact", "--indices", "0,%d" % found)
    assert result.returncode == 1 and "out of range" in result.stderr
    assert written(tmp_path / "exact") == []
    result = run_loom("frames", cut, "-o", tmp_path / "exact")
    assert result.returncode == 0 and written(tmp_path / "exact") == names(range(found))


def test_info_on_every_video_has_the_decoder_metadata(run_loom, media):
    files = sorted(p for p in (media / "video").iterdir() if p.is_file())
    result, lines = info_lines(run_loom, *files)
    assert result.returncode == 0, result.stdout
    for path, line in zip(files, lines):
        assert line["kind"] == "video", path
        for key in ("codec", "width", "height", "pixel_format", "color_space", "color_range", "color_primaries",
                    "rotation", "fps", "num_frames", "num_frames_from_header", "num_frames_from_content", "duration",
                    "begin", "end", "num_keyframes", "audio_streams", "audio", "stream_index"):
            assert key in line, (path, key)
        probe = json.loads(subprocess.run(
            ["ffprobe", "-v", "error", "-count_frames", "-select_streams", str(line["stream_index"]),
             "-show_streams", "-of", "json", str(path)], capture_output=True, text=True, check=True).stdout)
        stream = probe["streams"][0]
        assert line["codec"] == stream["codec_name"], path
        assert line["num_frames"] == line["num_frames_from_content"] == int(stream["nb_read_frames"]), path
        assert line["num_frames_from_header"] == int(stream.get("nb_frames", 0)), path
        assert 1 <= line["num_keyframes"] <= line["num_frames"]
        assert line["begin"] < line["end"]
        assert line["audio_streams"] == len(line["audio"])
        for a in line["audio"]:
            s = next(s for s in ffprobe(path)["streams"] if s["index"] == a["stream_index"])
            assert s["codec_type"] == "audio" and a["codec"] == s["codec_name"]
            assert (a["sample_rate"], a["channels"]) == (int(s["sample_rate"]), s["channels"])
        if line["color_range"] != "unknown":
            assert line["color_range"] == stream.get("color_range"), path
    rotated = next(line for line in lines if line["path"].endswith("decord_video_90.mov"))
    assert rotated["rotation"] == -90
    # --no-scan: headers only (WebM declares no frame count).
    result, fast = info_lines(run_loom, "--no-scan", media / "video" / "exo_bear-vp9.webm")
    assert result.returncode == 0
    assert fast[0]["num_frames"] == fast[0]["num_frames_from_header"] == 0
    assert fast[0]["num_frames_from_content"] is None and fast[0]["num_keyframes"] is None
