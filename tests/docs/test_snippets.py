"""The docs cannot drift (a doc example that cannot run is a bug): every C++ example compiles against
loom's headers, and every `$ loom ...` example runs, in page order, in a folder of generated media
(`photos/`, `speech/`, `imagenet-val/`, ... as the examples name them; `media/` is the test corpus),
ending with the status the page shows and printing the error lines it shows. Timings, JSON values and
lines the page elides (`...`) are not compared. See snippets.py for what counts as an example."""
import os
import shutil
import subprocess
import wave

import numpy as np
import pytest
from PIL import Image

import snippets

ROOT = snippets.ROOT
MODULES = ("codec", "accel", "vision", "transforms", "audio", "video", "loader")


def public_headers():
    return sorted(str(h.relative_to(ROOT / m / "include")) for m in MODULES
                  for h in (ROOT / m / "include").rglob("*.h"))


@pytest.fixture(scope="module")
def cxx_command(pytestconfig):
    flags = ["g++", "-std=c++20", "-fsyntax-only", "-w"]
    flags += [f"-I{ROOT / m / 'include'}" for m in MODULES]
    for pkg in ("libavformat", "libavcodec", "libavutil"):
        flags += subprocess.run(["pkg-config", "--cflags", pkg], capture_output=True, text=True).stdout.split()
    return flags


@pytest.mark.parametrize("page", [p for p in snippets.pages() if snippets.cpp_blocks(p)], ids=lambda p: p.name)
def test_cpp_examples_compile(page, cxx_command, tmp_path):
    unit, programs = snippets.translation_unit(page, public_headers())
    for k, source in enumerate(([unit] if unit else []) + programs):
        path = tmp_path / f"example{k}.cc"
        path.write_text(source)
        result = subprocess.run([*cxx_command, str(path)], capture_output=True, text=True)
        assert result.returncode == 0, f"{page.name}: an example does not compile:\n{result.stderr[:3000]}"


# ---- CLI examples ----


def write_wav(path, seconds, rate=44100, channels=2):
    path.parent.mkdir(parents=True, exist_ok=True)
    t = np.arange(int(seconds * rate)) / rate
    samples = (np.sin(2 * np.pi * 440 * t)[:, None] * 8000 * np.ones(channels)).astype("<i2")
    with wave.open(str(path), "wb") as w:
        w.setnchannels(channels)
        w.setsampwidth(2)
        w.setframerate(rate)
        w.writeframes(samples.tobytes())


def write_jpeg(path, width=320, height=240, seed=0):
    path.parent.mkdir(parents=True, exist_ok=True)
    rng = np.random.default_rng(seed)
    y, x = np.mgrid[0:height, 0:width]
    image = np.stack([x % 256, y % 256, (x + y + seed * 40) % 256], axis=2) + rng.integers(0, 8, (height, width, 3))
    Image.fromarray(np.clip(image, 0, 255).astype(np.uint8)).save(path, quality=90)


def make_example_media(folder, media):
    """The folders the CLI examples name."""
    if media.is_dir():
        (folder / "media").symlink_to(media)
    for k, name in enumerate(("a.jpg", "b.jpg", "trip/c.jpg")):
        write_jpeg(folder / "photos" / name, seed=k)
    Image.open(folder / "photos/a.jpg").save(folder / "photos/d.png")
    write_wav(folder / "speech/day1/a.wav", 0.3)
    write_wav(folder / "speech/c.wav", 0.2, rate=22050, channels=1)
    write_wav(folder / "speech/b.wav", 0.33, rate=48000)
    (folder / "speech/day2").mkdir()
    subprocess.run(["sox", str(folder / "speech/b.wav"), "-b", "24", str(folder / "speech/day2/b.flac")], check=True)
    (folder / "speech/b.wav").unlink()
    # A RIFF/WAVE header with nothing FFmpeg can read behind it.
    (folder / "speech/broken.wav").write_bytes(b"RIFF$\0\0\0WAVEjunk\4\0\0\0abcd")
    for split, count in (("imagenet-val", 1000), ("train", 6)):  # 2000 images: 4 shards of 500
        for label in ("cat", "dog"):
            for k in range(count):
                write_jpeg(folder / split / label / f"{k:04d}.jpg", 96, 80, seed=k)
    for k in (1, 2):
        write_jpeg(folder / "img" / f"{k:04d}.jpg", 64, 48, seed=k)
    (folder / "train.jsonl").write_text('{"path": "img/0001.jpg", "label": "cat", "boxes": [[10, 20, 50, 80]]}\n'
                                        '{"path": "img/0002.jpg", "label": "dog"}\n')


def shown_error_lines(shown):
    """The error lines of an example's shown output, which must come out as they are: "PATH: message",
    "loom: ...", "--option: ..." and "Run ...". Not compared: JSON, summaries with timings, elisions,
    and "Name: value" lines that describe the machine (SIMD targets, CUDA)."""
    keep = []
    for line in shown:
        if "..." in line or " s (" in line:
            continue
        first = line.split(": ", 1)[0]
        if ": " in line and ("/" in first or "." in first or first.startswith("--") or first == "loom"):
            keep.append(line)
        elif line.startswith("Run "):
            keep.append(line)
    return keep


@pytest.mark.parametrize("page", [p for p in snippets.pages() if snippets.cli_examples(p)], ids=lambda p: p.name)
def test_cli_examples_run(page, loom, request, tmp_path):
    media = request.config.getoption("--media")
    make_example_media(tmp_path, snippets.Path(media))
    bin_dir = tmp_path / "bin"
    bin_dir.mkdir()
    os.symlink(loom, bin_dir / "loom")
    env = dict(os.environ, PATH=f"{bin_dir}:{os.environ['PATH']}")
    for example in snippets.cli_examples(page):
        if "media/" in example.command and not (tmp_path / "media").exists():
            continue  # the corpus is absent: the media tests are skipped
        result = subprocess.run(example.command, shell=True, cwd=tmp_path, env=env, capture_output=True,
                                text=True, timeout=300)
        where = f"{page.name}: `{example.command}`"
        assert result.returncode == example.status, f"{where} exited {result.returncode}:\n{result.stderr[-2000:]}"
        printed = result.stdout + result.stderr
        for line in shown_error_lines(example.output):
            assert line in printed, f"{where} no longer prints:\n{line}\nbut:\n{printed[-2000:]}"
    shutil.rmtree(tmp_path / "bin")
