"""Pixels from `loom convert` equal Pillow's decode of the same files.

Every JPEG and PNG in ../shared/media/images is converted to PNG (lossless) by the loom CLI and read
back; the reference is Pillow 9.4 (Debian's python3-pil, built on the same libjpeg-turbo 2.1 with
ISLOW DCT and fancy upsampling). RGB mode must be bit-exact. Known, documented differences:
- 16-bit grayscale PNG: Pillow's convert("RGB") clips 16-bit values at 255; loom keeps the high byte,
  so the comparison there is against the high byte of Pillow's 16-bit samples.
- 12-bit JPEG: neither Pillow nor loom (8-bit libjpeg-turbo) decodes it; loom must report it.
"""
from pathlib import Path

import numpy as np
import pytest
from PIL import Image, ImageOps

SUBFOLDERS = ("jpeg", "png")


def sources(media):
    return sorted(p for sub in SUBFOLDERS for p in (media / "images" / sub).iterdir() if p.is_file())


def pillow_opens(path):
    try:
        with Image.open(path) as im:
            im.load()
        return True
    except Exception:
        return False


def convert_tree(run_loom, media, out, *args):
    """Converts each subfolder into out/<subfolder>; returns the exit statuses and stderr."""
    results = [run_loom("convert", media / "images" / sub, "-o", out / sub, "--format", "png", "-q", *args)
               for sub in SUBFOLDERS]
    return [r.returncode for r in results], "".join(r.stderr for r in results)


def converted(out, media, src):
    return out / src.relative_to(media / "images").with_suffix(".png")


def reference_rgb(src):
    with Image.open(src) as im:
        if im.mode in ("I", "I;16", "I;16B"):  # 16-bit gray: compare the high byte
            hi = (np.asarray(im).astype(np.uint32) >> 8).astype(np.uint8)
            return np.repeat(hi[:, :, None], 3, axis=2)
        return np.asarray(im.convert("RGB"))


def reference_unchanged(src):
    """What ImageReadMode.UNCHANGED gives, from Pillow: palettes expand, CMYK converts to RGB."""
    with Image.open(src) as im:
        if im.mode == "P":
            return np.asarray(im.convert("RGBA" if "transparency" in im.info else "RGB"))
        if im.mode == "1":
            return np.asarray(im.convert("L"))
        if im.mode == "CMYK":
            return np.asarray(im.convert("RGB"))
        return np.asarray(im)


@pytest.fixture(scope="module")
def rgb_out(run_loom, media, tmp_path_factory):
    out = tmp_path_factory.mktemp("rgb")
    return out, convert_tree(run_loom, media, out, "--mode", "rgb")


def test_rgb_mode_is_bit_exact(rgb_out, media):
    out, _ = rgb_out
    compared = 0
    for src in sources(media):
        if not pillow_opens(src):
            continue
        got = np.asarray(Image.open(converted(out, media, src)))
        ref = reference_rgb(src)
        assert got.shape == ref.shape, src.name
        assert np.array_equal(got, ref), f"{src.name}: max diff {np.abs(got.astype(int) - ref).max()}"
        compared += 1
    assert compared >= 40


def test_files_pillow_rejects_are_reported(rgb_out, media):
    out, (statuses, stderr) = rgb_out
    rejected = [src for src in sources(media) if not pillow_opens(src)]
    assert rejected, "the corpus has a 12-bit JPEG that neither decoder reads"
    assert statuses == [1, 0]  # jpeg/ holds the 12-bit file, png/ converts entirely
    for src in rejected:
        assert f"{src}:" in stderr
        assert not converted(out, media, src).exists()


def test_unchanged_mode_keeps_channels_and_depth(run_loom, media, tmp_path):
    statuses, _ = convert_tree(run_loom, media, tmp_path)
    assert statuses == [1, 0]  # the 12-bit JPEG
    for src in sources(media):
        if not pillow_opens(src):
            continue
        got = np.asarray(Image.open(converted(tmp_path, media, src)))
        ref = reference_unchanged(src)
        if ref.dtype != np.uint8:  # 16-bit gray stays 16-bit
            ref = ref.astype(np.uint16)
            got = got.astype(np.uint16)
        assert got.shape == ref.shape, src.name
        assert np.array_equal(got, ref), src.name


def test_exif_orientation_matches_exif_transpose(run_loom, media, tmp_path):
    files = sorted((media / "images" / "jpeg").glob("*orientation*.jpg")) + [media / "images" / "png" / "exif.png"]
    result = run_loom("convert", *files, "-o", tmp_path, "--format", "png", "--mode", "rgb", "--exif-orientation", "-q")
    assert result.returncode == 0, result.stderr
    rotated = 0
    for src in files:
        with Image.open(src) as im:
            upright = ImageOps.exif_transpose(im)
            rotated += upright.size != im.size or im.getexif().get(0x0112, 1) != 1
            ref = np.asarray(upright.convert("RGB"))
        got = np.asarray(Image.open(tmp_path / (src.stem + ".png")))
        assert np.array_equal(got, ref), src.name
    assert rotated >= 6


@pytest.mark.parametrize("interp,pil_filter", [("bilinear", Image.BILINEAR), ("bicubic", Image.BICUBIC)])
@pytest.mark.parametrize("size", ["100x80", "37x311", "300x300"])
def test_resize_within_one_of_pillow(run_loom, media, tmp_path, interp, pil_filter, size):
    # 8-bit PNG inputs: JPEG inputs would use DCT scaling, which Pillow's resize does not, and Pillow
    # reduces 16-bit RGB to 8 bits before resizing while loom resizes the 16-bit samples.
    files = [media / "images" / "png" / n for n in ("hopper.png", "test-card.png", "pil123rgba.png")]
    result = run_loom("convert", *files, "-o", tmp_path, "--mode", "rgb", "--resize", size, "--interp", interp, "-q")
    assert result.returncode == 0, result.stderr
    w, h = map(int, size.split("x"))
    for src in files:
        with Image.open(src) as im:
            ref = np.asarray(im.convert("RGB").resize((w, h), pil_filter)).astype(int)
        got = np.asarray(Image.open(tmp_path / src.name)).astype(int)
        assert got.shape == ref.shape
        assert np.abs(got - ref).max() <= 1, src.name
