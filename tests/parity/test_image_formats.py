"""WebP, GIF, TIFF, AVIF, HEIF and BMP through `loom convert` equal their references.

Each file is converted to PNG (lossless) by the loom CLI and read back. The references, all from
Debian's packages:
- Pillow 9.4 (python3-pil) for WebP, GIF, TIFF and BMP, converted as ImageReadMode.UNCHANGED reads
  them (palettes to RGB, or RGBA with transparency);
- OpenCV (python3-opencv) for 16-bit TIFF (Pillow 9.4 reduces 16-bit RGB to 8 bits) and for the
  bitmaps Pillow 9.4 misreads or refuses: RLE4 (its decoder swaps nibbles of runs, fixed in later
  Pillow) and 32-bit bit-field BMPs with alpha (ImageMagick's `convert` there, which keeps alpha);
- avifdec -d 8 / -d 16 (libavif-bin) for AVIF and heif-convert (libheif-examples) for HEIF, the
  libraries' own tools, as Debian's Pillow reads neither.
Every comparison is bit-exact. Files come from ../shared/media/images/other and are generated here
with Pillow, ImageMagick, avifenc and heif-enc to cover what the corpus lacks (tiles, planar
configuration, 10/12-bit, alpha, gray, RLE8, interlaced and disposing GIF animations).
"""
import shutil
import subprocess
from pathlib import Path

import cv2
import numpy as np
import pytest
from PIL import Image, ImageOps
from test_image_parity import reference_unchanged as pillow_unchanged  # ImageReadMode.UNCHANGED

# Corpus files loom must read, by the reference each is compared with.
PILLOW_FILES = ["bmpsuite_pal8.bmp", "bmpsuite_rgb16-565.bmp", "chi.gif", "flower.webp", "hopper.bmp",
                "hopper.gif", "hopper.tif", "hopper.webp", "iss634.webp", "multipage.tiff"]
OPENCV_FILES = ["bmpsuite_pal4rle.bmp", "tiff_16bit_RGB.tiff"]
MAGICK_FILES = ["bmpsuite_rgba32.bmp"]
AVIF_FILES = ["hopper.avif", "rot1mir0.avif"]
HEIF_FILES = ["hopper.heif"]
UNSUPPORTED_FILES = {"hopper.qoi": "qoi", "test-card-lossless.jp2": "jpeg2000"}


def loom_png(run_loom, src, out_dir, *args):
    """`loom convert src` to PNG in out_dir; the decoded pixels as a numpy array (H x W [x C])."""
    out_dir.mkdir(parents=True, exist_ok=True)
    result = run_loom("convert", src, "-o", out_dir, "--format", "png", "-q", *args)
    assert result.returncode == 0, result.stderr
    return cv2_rgb(out_dir / (Path(src).stem + ".png"))


def cv2_rgb(path):
    """A PNG or other file as OpenCV reads it unchanged (any depth), channels turned to RGB(A)."""
    image = cv2.imread(str(path), cv2.IMREAD_UNCHANGED)
    assert image is not None, path
    if image.ndim == 3:
        image = cv2.cvtColor(image, cv2.COLOR_BGRA2RGBA if image.shape[2] == 4 else cv2.COLOR_BGR2RGB)
    return image


def tool_png(cmd, out):
    subprocess.run([*map(str, cmd), str(out)], check=True, capture_output=True)
    return cv2_rgb(out)


def assert_same(got, ref, name):
    assert got.shape == ref.shape, f"{name}: shape {got.shape} != {ref.shape}"
    assert got.dtype == ref.dtype, f"{name}: dtype {got.dtype} != {ref.dtype}"
    diff = np.abs(got.astype(np.int64) - ref.astype(np.int64))
    assert diff.max() == 0, f"{name}: {np.count_nonzero(diff)} samples differ, by up to {diff.max()}"


@pytest.fixture(scope="module")
def other(media):
    return media / "images" / "other"


# ---- The corpus -------------------------------------------------------------------------------


@pytest.mark.parametrize("name", PILLOW_FILES)
def test_corpus_equals_pillow(run_loom, other, tmp_path, name):
    assert_same(loom_png(run_loom, other / name, tmp_path), pillow_unchanged(other / name), name)


@pytest.mark.parametrize("name", OPENCV_FILES)
def test_corpus_equals_opencv(run_loom, other, tmp_path, name):
    assert_same(loom_png(run_loom, other / name, tmp_path), cv2_rgb(other / name), name)


@pytest.mark.parametrize("name", MAGICK_FILES)
def test_corpus_equals_imagemagick(run_loom, other, tmp_path, name):
    subprocess.run(["convert", str(other / name), f"PNG32:{tmp_path / 'ref.png'}"], check=True)
    assert_same(loom_png(run_loom, other / name, tmp_path / "loom"), cv2_rgb(tmp_path / "ref.png"), name)


@pytest.mark.parametrize("name", AVIF_FILES)
def test_corpus_avif_equals_avifdec(run_loom, other, tmp_path, name):
    ref = tool_png(["avifdec", "-d", "8", other / name], tmp_path / "ref.png")
    assert_same(loom_png(run_loom, other / name, tmp_path / "loom"), ref, name)


@pytest.mark.parametrize("name", HEIF_FILES)
def test_corpus_heif_equals_heif_convert(run_loom, other, tmp_path, name):
    ref = tool_png(["heif-convert", other / name], tmp_path / "ref.png")
    assert_same(loom_png(run_loom, other / name, tmp_path / "loom"), ref, name)


def test_every_corpus_image_is_covered(other):
    listed = set(PILLOW_FILES + OPENCV_FILES + MAGICK_FILES + AVIF_FILES + HEIF_FILES) | set(UNSUPPORTED_FILES)
    assert {p.name for p in other.iterdir() if p.is_file()} == listed


def test_unsupported_formats_are_named(run_loom, other, tmp_path):
    for name, format_name in UNSUPPORTED_FILES.items():
        result = run_loom("convert", other / name, "-o", tmp_path)
        assert result.returncode == 1
        assert f"{other / name}: {format_name} images are not supported" in result.stderr


def test_avif_rotation_is_applied_on_request(run_loom, other, tmp_path):
    """rot1mir0.avif carries irot (90 degrees anti-clockwise) then imir (top-bottom): a transpose.
    libheif applies it when it decodes the file; its colour conversion differs from libavif's by a
    few levels, so the orientation is checked by shape and by closeness to libheif's pixels."""
    stored = loom_png(run_loom, other / "rot1mir0.avif", tmp_path / "stored")
    upright = loom_png(run_loom, other / "rot1mir0.avif", tmp_path / "upright", "--exif-orientation")
    assert_same(upright, stored.transpose(1, 0, 2), "rot1mir0.avif transposed")
    libheif = tool_png(["heif-convert", other / "rot1mir0.avif"], tmp_path / "libheif.png")
    assert np.abs(upright.astype(int) - libheif).mean() < 2


# ---- Generated files --------------------------------------------------------------------------


def gradient(height, width, channels, dtype=np.uint8, seed=0):
    """A smooth image with noise (so lossy codecs have something to keep), H x W x C."""
    rng = np.random.default_rng(seed)
    y, x = np.mgrid[0:height, 0:width]
    top = np.iinfo(dtype).max
    planes = [(x * top // max(width - 1, 1)), (y * top // max(height - 1, 1)), ((x + y) * top // (width + height))]
    planes.append(np.where((x // 8 + y // 8) % 2 == 0, top, top // 3))  # alpha
    image = np.stack(planes[:channels], axis=2).astype(np.int64)
    image += rng.integers(-top // 16, top // 16, image.shape)
    return np.clip(image, 0, top).astype(dtype)


def pillow_image(mode, height=37, width=53):
    channels = {"L": 1, "LA": 2, "RGB": 3, "RGBA": 4}[mode]
    array = gradient(height, width, channels)
    return Image.fromarray(array[:, :, 0] if channels == 1 else array, mode)


def animation(transparency):
    """Four 40x30 palette frames: moving squares over a background, smaller frames, disposal 2 and 3."""
    frames = []
    for i in range(4):
        im = Image.new("P", (40, 30), 1)
        im.putpalette([0, 0, 0, 200, 30, 30, 30, 200, 30, 30, 30, 200, 240, 240, 0] + [0] * (256 - 5) * 3)
        for y in range(8):
            for x in range(8):
                im.putpixel((4 + 7 * i + x, 5 + 4 * i + y), 2 + (x + y + i) % 3)
        if transparency:
            for x in range(0, 40, 3):
                im.putpixel((x, 29 - i), 0)
        frames.append(im)
    return frames


def make_generated(folder):
    """Writes the generated files; returns {file name: reference pixels}."""
    refs = {}

    def pillow(name, image, **save):
        image.save(folder / name, **save)
        refs[name] = pillow_unchanged(folder / name)

    # WebP: lossy, lossless, with alpha (Pillow writes it through libwebp).
    pillow("lossy.webp", pillow_image("RGB"), quality=70)
    pillow("lossless_alpha.webp", pillow_image("RGBA"), lossless=True)
    pillow("lossy_alpha.webp", pillow_image("RGBA"), quality=90)
    # GIF: interlaced (Pillow's default) and not, gray, transparent animation with disposal.
    pillow("interlaced.gif", pillow_image("RGB", 64, 48).convert("P"))
    pillow("progressive_off.gif", pillow_image("RGB", 64, 48).convert("P"), interlace=False)
    pillow("gray.gif", pillow_image("L"))
    frames = animation(transparency=True)
    pillow("anim.gif", frames[0], save_all=True, append_images=frames[1:], transparency=0, disposal=[1, 2, 3, 1],
           duration=40, loop=0)
    # TIFF through Pillow (libtiff): compressions, gray, alpha, 1-bit, palette, CMYK.
    pillow("lzw.tif", pillow_image("RGB"), compression="tiff_lzw")
    pillow("deflate_rgba.tif", pillow_image("RGBA"), compression="tiff_adobe_deflate")
    pillow("gray.tif", pillow_image("L"), compression="packbits")
    pillow("bilevel.tif", pillow_image("L").convert("1"), compression="group4")
    pillow("palette.tif", pillow_image("RGB").convert("P"))
    pillow("cmyk.tif", pillow_image("RGB").convert("CMYK"))
    # TIFF through ImageMagick: tiles, planar configuration, 16 bits. The reference is the lossless
    # source itself (OpenCV misreads planar 16-bit TIFF), or for 8 bits ImageMagick's own reduction.
    source = folder / "source16.png"
    source_pixels = gradient(45, 70, 3, np.uint16)
    cv2.imwrite(str(source), cv2.cvtColor(source_pixels, cv2.COLOR_RGB2BGR))
    for name, args in {"tiled16.tif": ["-define", "tiff:tile-geometry=32x32", "-depth", "16"],
                       "planar16.tif": ["-interlace", "plane", "-depth", "16"],
                       "tiled8_planar.tif": ["-define", "tiff:tile-geometry=16x16", "-interlace", "plane",
                                             "-depth", "8"]}.items():
        subprocess.run(["convert", str(source), *args, str(folder / name)], check=True)
        if "16" in name:
            refs[name] = source_pixels
        else:
            subprocess.run(["convert", str(source), "-depth", "8", f"PNG24:{folder / 'source8.png'}"], check=True)
            refs[name] = cv2_rgb(folder / "source8.png")
    # BMP: Pillow's 1, 8 (gray and palette) and 24-bit, ImageMagick's RLE8 and 16-bit 5-6-5.
    pillow("bilevel.bmp", pillow_image("L").convert("1"))
    pillow("gray.bmp", pillow_image("L"))
    pillow("palette.bmp", pillow_image("RGB").convert("P"))
    pillow("rgb.bmp", pillow_image("RGB"))
    palette8 = folder / "palette8.png"
    pillow_image("RGB").convert("P").save(palette8)
    subprocess.run(["convert", str(palette8), "-compress", "RLE", f"BMP3:{folder / 'rle8.bmp'}"], check=True)
    refs["rle8.bmp"] = pillow_unchanged(folder / "rle8.bmp")
    subprocess.run(["convert", str(folder / "rgb.bmp"), "-define", "bmp:subtype=RGB565",
                    str(folder / "rgb565.bmp")], check=True)
    refs["rgb565.bmp"] = pillow_unchanged(folder / "rgb565.bmp")
    # AVIF (avifenc): 8-bit 4:2:0, 10-bit, 12-bit 4:4:4, with alpha, gray.
    rgba8 = folder / "rgba8.png"
    Image.fromarray(gradient(33, 47, 4)).save(rgba8)
    for name, args in {"yuv420.avif": ["-d", "8", "-y", "420"], "yuv444_12.avif": ["-d", "12", "-y", "444"],
                       "ten.avif": ["-d", "10"], "alpha.avif": [], "gray.avif": ["-d", "10", "-y", "400"]}.items():
        src = rgba8 if name == "alpha.avif" else source
        subprocess.run(["avifenc", *args, str(src), str(folder / name)], check=True, capture_output=True)
    # HEIF (heif-enc, x265): 8 and 10-bit.
    rgb8 = folder / "rgb8.png"
    pillow_image("RGB", 40, 64).save(rgb8)
    subprocess.run(["heif-enc", "-q", "80", str(rgb8), "-o", str(folder / "eight.heic")], check=True,
                   capture_output=True)
    subprocess.run(["heif-enc", "-b", "10", str(source), "-o", str(folder / "ten.heic")], check=True,
                   capture_output=True)
    return refs


@pytest.fixture(scope="module")
def generated(tmp_path_factory):
    folder = tmp_path_factory.mktemp("formats")
    return folder, make_generated(folder)


def test_generated_files_equal_their_references(run_loom, generated, tmp_path):
    folder, refs = generated
    assert len(refs) == 22
    for name, ref in refs.items():
        assert_same(loom_png(run_loom, folder / name, tmp_path / name.replace(".", "_")), ref, name)


@pytest.mark.parametrize("name,depth", [("yuv420.avif", 8), ("yuv444_12.avif", 16), ("ten.avif", 16),
                                        ("alpha.avif", 8), ("gray.avif", 16)])
def test_generated_avif_equals_avifdec(run_loom, generated, tmp_path, name, depth):
    folder, _ = generated
    ref = tool_png(["avifdec", "-d", str(depth), folder / name], tmp_path / "ref.png")
    got = loom_png(run_loom, folder / name, tmp_path / "loom")
    if name == "gray.avif":  # avifdec writes gray as RGB; loom keeps one channel
        assert np.array_equal(ref[..., 0], ref[..., 1]) and np.array_equal(ref[..., 0], ref[..., 2])
        ref = ref[..., 0]
    assert_same(got, ref, name)


@pytest.mark.parametrize("name", ["eight.heic", "ten.heic"])
def test_generated_heif_equals_heif_convert(run_loom, generated, tmp_path, name):
    folder, _ = generated
    ref = tool_png(["heif-convert", folder / name], tmp_path / "ref.png")
    assert_same(loom_png(run_loom, folder / name, tmp_path / "loom"), ref, name)
    assert ref.dtype == (np.uint16 if name == "ten.heic" else np.uint8)


@pytest.mark.parametrize("mode,pillow_mode", [("gray", "L"), ("rgb", "RGB"), ("rgba", "RGBA")])
def test_read_modes_equal_pillow_convert(run_loom, generated, other, tmp_path, mode, pillow_mode):
    """Gray from color uses Pillow's convert("L") weights; alpha is dropped or added opaque."""
    folder, _ = generated
    files = [folder / "lossless_alpha.webp", folder / "lossy.webp", folder / "anim.gif", folder / "lzw.tif",
             folder / "deflate_rgba.tif", folder / "palette.bmp", other / "hopper.bmp"]
    for src in files:
        with Image.open(src) as im:
            ref = np.asarray(im.convert(pillow_mode))
        got = loom_png(run_loom, src, tmp_path / src.suffix[1:] / src.stem, "--mode", mode)
        assert_same(got, ref, f"{src.name} --mode {mode}")


def test_webp_round_trips(run_loom, generated, tmp_path):
    """A PNG converted to WebP by loom decodes back (lossless: exactly) in Pillow and in dwebp."""
    folder, _ = generated
    png = folder / "rgba8.png"
    result = run_loom("convert", png, "-o", tmp_path, "--format", "webp", "--lossless", "-q")
    assert result.returncode == 0, result.stderr
    written = tmp_path / "rgba8.webp"
    assert_same(np.asarray(Image.open(written)), np.asarray(Image.open(png)), "lossless WebP in Pillow")
    assert_same(tool_png(["dwebp", written, "-o"], tmp_path / "dwebp.png"), cv2_rgb(png), "lossless WebP in dwebp")


def test_lossy_webp_equals_pillows_encoder(run_loom, generated, tmp_path):
    """`--format webp --quality Q` writes the bytes Pillow's save(quality=Q) writes (both libwebp, method 4)."""
    folder, _ = generated
    png = folder / "rgb8.png"
    for quality in (None, 55):
        out = tmp_path / f"q{quality}"
        result = run_loom("convert", png, "-o", out, "--format", "webp", "-q",
                          *(["--quality", quality] if quality else []))
        assert result.returncode == 0, result.stderr
        theirs = tmp_path / f"pillow{quality}.webp"
        Image.open(png).save(theirs, quality=quality or 80)  # Pillow's default quality is 80, as loom's
        assert (out / "rgb8.webp").read_bytes() == theirs.read_bytes(), quality


def test_lossless_needs_webp_output(run_loom, generated, tmp_path):
    folder, _ = generated
    result = run_loom("convert", folder / "rgb8.png", "-o", tmp_path, "--format", "png", "--lossless")
    assert result.returncode == 2
    assert "--lossless: applies to WebP output, not png" in result.stderr
    assert not any(tmp_path.iterdir())


def test_tiff_and_webp_orientation_on_request(run_loom, tmp_path):
    """Orientation 6 in a TIFF's own tag and in a WebP's EXIF chunk: the stored pixels by default, turned
    upright with --exif-orientation. The references: the written pixels themselves; for WebP Pillow's
    ImageOps.exif_transpose; for TIFF Pillow's decode, which (through libtiff) turns TIFFs upright as it
    loads them."""
    stored = gradient(30, 40, 3)
    exif = Image.Exif()
    exif[0x0112] = 6
    Image.fromarray(stored).save(tmp_path / "turned.tif", tiffinfo={0x0112: 6})
    Image.fromarray(stored).save(tmp_path / "turned.webp", lossless=True, exif=exif.tobytes())
    with Image.open(tmp_path / "turned.webp") as im:
        upright_webp = np.asarray(ImageOps.exif_transpose(im).convert("RGB"))
    with Image.open(tmp_path / "turned.tif") as im:
        upright_tiff = np.asarray(im.convert("RGB"))
    assert upright_webp.shape == upright_tiff.shape == (40, 30, 3)
    for name, upright in (("turned.tif", upright_tiff), ("turned.webp", upright_webp)):
        assert_same(loom_png(run_loom, tmp_path / name, tmp_path / "stored" / name.replace(".", "_")), stored, name)
        got = loom_png(run_loom, tmp_path / name, tmp_path / "upright" / name.replace(".", "_"), "--exif-orientation")
        assert_same(got, upright, name + " upright")
