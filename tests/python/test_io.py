"""loom.io against torchvision.io (Debian's torchvision 0.14, on the same libjpeg-turbo and libpng) and
Pillow: the same pixels for every JPEG and PNG in the test media, the same read modes, and encoders
whose output the references decode back."""
import io as pyio
import threading

import numpy as np
import pytest
import torch
import torchvision.io as tvio
from PIL import Image

import loom

def images(media):
    return sorted(p for sub in ("jpeg", "png") for p in (media / "images" / sub).iterdir() if p.is_file())


def torchvision_decode(data, mode):
    try:
        return tvio.decode_image(torch.frombuffer(bytearray(data), dtype=torch.uint8),
                                 getattr(tvio.ImageReadMode, mode))
    except RuntimeError:
        return None


@pytest.fixture(autouse=True)
def torch_output():
    loom.set_output_type("torch")
    yield
    loom.set_output_type("auto")


def pillow_rgba(path):
    with Image.open(path) as im:
        return np.asarray(im.convert("RGBA")).transpose(2, 0, 1)


def test_decode_image_equals_torchvision(media):
    """Every file torchvision 0.14 decodes, in every mode, gives the same tensor from loom, except where
    0.14 ignores what newer torchvision and Pillow honour; those cases equal Pillow instead:
    - alpha: transparency (tRNS) becomes alpha in loom, which 0.14 makes opaque, and an added alpha is
      255 where 0.14 fills 1-bit images with 1; alpha channels are compared with Pillow's;
    - UNCHANGED expands palettes to RGB(A) in loom; 0.14 returns the palette indices (1 channel);
    - CMYK converts to RGB in loom (next test); 0.14 returns 4 inverted channels.
    """
    compared = 0
    for path in images(media):
        data = path.read_bytes()
        if torchvision_decode(data, "UNCHANGED") is None:
            continue  # 0.14 refuses it (12-bit JPEG; loom and Pillow refuse it too)
        with Image.open(path) as im:
            mode = im.mode
        for read_mode in ("UNCHANGED", "GRAY", "GRAY_ALPHA", "RGB", "RGB_ALPHA"):
            expected = torchvision_decode(data, read_mode)
            if expected is None:
                continue  # a mode 0.14 does not convert this file to (loom's C++ tests cover it)
            actual = loom.io.decode_image(torch.frombuffer(bytearray(data), dtype=torch.uint8), read_mode)
            where = f"{path.name} {read_mode}"
            if mode == "CMYK" and read_mode == "UNCHANGED":
                assert actual.shape[0] == 3, where
            elif mode == "P" and read_mode == "UNCHANGED":
                assert torch.equal(actual, torch.from_numpy(pillow_rgba(path)[:actual.shape[0]].copy())), where
            elif read_mode.endswith("ALPHA"):
                assert torch.equal(actual[:-1], expected[:-1]), where
                assert torch.equal(actual[-1], torch.from_numpy(pillow_rgba(path)[3].copy())), where
            else:
                assert torch.equal(actual, expected), where
            compared += 1
    assert compared > 150


def test_cmyk_jpeg_converts_as_pillow(media):
    for path in sorted((media / "images/jpeg").glob("*CMYK*")) + [media / "images/jpeg/pil_sample_cmyk.jpg"]:
        with Image.open(path) as im:
            expected = np.asarray(im.convert("RGB"))
        actual = loom.io.decode_image(path, "RGB", layout="HWC")
        assert np.array_equal(actual.numpy(), expected), path.name


def test_sources_agree(media):
    """A path, bytes, a read_file tensor and a numpy array of the same file decode alike."""
    path = media / "images/jpeg/hopper.jpg"
    from_path = loom.io.decode_image(path)
    assert torch.equal(loom.io.decode_image(str(path)), from_path)
    assert torch.equal(loom.io.decode_image(path.read_bytes()), from_path)
    assert torch.equal(loom.io.decode_jpeg(loom.io.read_file(path)), from_path)
    assert torch.equal(loom.io.decode_image(np.fromfile(path, dtype=np.uint8)), from_path)
    assert torch.equal(loom.io.read_image(path), from_path)


def test_read_modes_by_name_and_enum(media):
    path = media / "images/png/pil123rgba.png"
    by_enum = loom.io.decode_image(path, loom.io.ImageReadMode.RGB)
    assert by_enum.shape[0] == 3
    assert torch.equal(loom.io.decode_image(path, "rgb"), by_enum)
    assert torch.equal(loom.io.decode_image(path, tvio.ImageReadMode.RGB), by_enum)  # torchvision's enum
    assert loom.io.decode_image(path, mode=loom.io.ImageReadMode.GRAY_ALPHA).shape[0] == 2
    with pytest.raises(ValueError, match="ImageReadMode"):
        loom.io.decode_image(path, "CMYK")


def test_hwc_layout(media):
    path = media / "images/jpeg/hopper.jpg"
    chw = loom.io.decode_image(path)
    hwc = loom.io.decode_image(path, layout="HWC")
    assert torch.equal(hwc, chw.permute(1, 2, 0))
    with Image.open(path) as im:
        assert np.array_equal(hwc.numpy(), np.asarray(im.convert("RGB")))


def test_sixteen_bit_png(media):
    """uint16 in loom and numpy; int32 with the same values for a torch without uint16, as torchvision."""
    path = media / "images/png/mode_16bit.png"
    with Image.open(path) as im:
        expected = np.asarray(im)
    loom.set_output_type("numpy")
    as_numpy = loom.io.decode_image(path)  # RGBA, 16 bits a sample; Pillow reads 8 (the high byte)
    assert as_numpy.dtype == np.uint16
    assert np.array_equal((as_numpy >> 8).astype(np.uint8), expected.transpose(2, 0, 1))
    loom.set_output_type("torch")
    as_torch = loom.io.decode_image(path)
    assert as_torch.dtype == (torch.uint16 if hasattr(torch, "uint16") else torch.int32)
    assert np.array_equal(as_torch.numpy(), as_numpy)


def test_exif_orientation_matches_pillow(media):
    from PIL import ImageOps
    for n in (2, 3, 4, 6, 7, 8):
        path = media / f"images/jpeg/hopper_orientation_{n}.jpg"
        upright = loom.io.decode_image(path, "RGB", apply_exif_orientation=True)
        with Image.open(path) as im:
            expected = np.asarray(ImageOps.exif_transpose(im).convert("RGB"))
        assert np.array_equal(upright.permute(1, 2, 0).numpy(), expected), n


def test_batched_decode_and_encode(media):
    paths = [media / "images/jpeg/hopper.jpg", media / "images/jpeg/flower.jpg"]
    data = [loom.io.read_file(p) for p in paths]
    decoded = loom.io.decode_jpeg(data)
    assert isinstance(decoded, list) and len(decoded) == 2
    assert all(torch.equal(d, loom.io.decode_jpeg(x)) for d, x in zip(decoded, data))
    encoded = loom.io.encode_jpeg(decoded, quality=90)
    assert isinstance(encoded, list) and all(e.dtype == torch.uint8 and e.ndim == 1 for e in encoded)


def test_encode_jpeg_decodes_back_in_torchvision_and_pillow(media):
    image = loom.io.decode_image(media / "images/png/hopper.png", "RGB")
    for quality in (50, 75, 95):
        encoded = loom.io.encode_jpeg(image, quality=quality)
        reference = tvio.encode_jpeg(image, quality=quality)
        back = tvio.decode_jpeg(encoded)
        ref_back = tvio.decode_jpeg(reference)
        # Same libjpeg-turbo, quality and 4:2:0 subsampling: the same pixels after decoding.
        assert torch.equal(back, ref_back), quality
        with Image.open(pyio.BytesIO(encoded.numpy().tobytes())) as im:
            assert im.format == "JPEG" and im.size == (image.shape[2], image.shape[1])


def test_encode_png_is_lossless(media):
    loom.set_output_type("loom")  # 16-bit stays uint16 (torch 1.13 would see int32)
    for name in ("hopper.png", "pil123rgba.png", "mode_16bit.png"):
        image = loom.io.decode_image(media / "images/png" / name)
        for level in (0, 6, 9):
            encoded = loom.io.encode_png(image, compression_level=level)
            assert np.array_equal(np.asarray(loom.io.decode_png(encoded)), np.asarray(image)), (name, level)
        if image.dtype == "uint8":  # torchvision 0.14 reads 8-bit PNGs only
            reference = tvio.decode_png(torch.from_dlpack(loom.io.encode_png(image)))
            assert np.array_equal(reference.numpy(), np.asarray(image)), name


def test_write_and_read_files(tmp_path, media):
    image = loom.io.decode_image(media / "images/jpeg/hopper.jpg")
    loom.io.write_png(image, tmp_path / "a.png")
    loom.io.write_jpeg(image, str(tmp_path / "a.jpg"), quality=90)
    assert torch.equal(loom.io.read_image(tmp_path / "a.png"), image)
    with Image.open(tmp_path / "a.jpg") as im:
        assert im.format == "JPEG"
    data = loom.io.read_file(tmp_path / "a.png")
    loom.io.write_file(tmp_path / "copy.png", data)
    assert (tmp_path / "copy.png").read_bytes() == (tmp_path / "a.png").read_bytes()
    loom.io.write_file(tmp_path / "bytes.bin", b"\x00\x01\x02")
    assert (tmp_path / "bytes.bin").read_bytes() == b"\x00\x01\x02"
    assert sorted(p.name for p in tmp_path.iterdir()) == ["a.jpg", "a.png", "bytes.bin", "copy.png"]


def test_failed_write_leaves_nothing(tmp_path):
    bad = torch.zeros(5, 4, 4, dtype=torch.uint8)  # 5 channels: no JPEG for that
    with pytest.raises(loom.InvalidInputError):
        loom.io.write_jpeg(bad, tmp_path / "bad.jpg")
    with pytest.raises(loom.IoError):
        loom.io.write_png(torch.zeros(3, 4, 4, dtype=torch.uint8), tmp_path / "missing" / "x.png")
    assert list(tmp_path.iterdir()) == []


def test_bad_arguments():
    with pytest.raises(loom.InvalidInputError, match="1-D contiguous uint8"):
        loom.io.decode_image(torch.zeros(2, 3, dtype=torch.uint8))
    with pytest.raises(TypeError):
        loom.io.decode_image(12)
    with pytest.raises(ValueError, match="layout"):
        loom.io.decode_image(b"\xff\xd8", layout="NCHW")


def test_long_calls_release_the_gil(media):
    """A Python thread keeps running while the main thread is inside one long loom call."""
    image = torch.from_numpy(np.random.default_rng(0).integers(0, 256, (3, 2048, 2048), dtype=np.uint8))
    counter = [0]
    stop = threading.Event()

    def count():
        while not stop.is_set():
            counter[0] += 1

    worker = threading.Thread(target=count)
    worker.start()
    try:
        before = counter[0]
        loom.io.encode_png(image, compression_level=9)  # about a second of zlib on noise
        during = counter[0] - before
    finally:
        stop.set()
        worker.join()
    # With the GIL held the whole time the counter could move only at the call's edges (a handful of
    # switch intervals); released, it counts freely for the whole call.
    assert during > 100_000, during


def pillow_frames(path):
    """Every frame as Pillow's ImageSequence shows it, converted as loom's UNCHANGED mode reads it."""
    with Image.open(path) as im:
        first_mode = "RGBA" if (im.mode == "RGBA" or "transparency" in im.info) else "RGB"
        from PIL import ImageSequence
        return np.stack([np.asarray(frame.convert(first_mode)) for frame in ImageSequence.Iterator(im)])


@pytest.mark.parametrize("name", ["chi.gif", "iss634.webp", "hopper.gif", "flower.webp"])
def test_decode_image_frames_equals_pillow_image_sequence(media, name):
    frames = loom.io.decode_image_frames(media / "images/other" / name, layout="HWC").numpy()
    reference = pillow_frames(media / "images/other" / name)
    assert frames.shape == reference.shape
    assert np.array_equal(frames, reference)
    first = loom.io.decode_image(media / "images/other" / name, layout="HWC").numpy()
    assert np.array_equal(frames[0], first)


def test_generated_gif_animation_equals_pillow(tmp_path):
    """Transparency, smaller frames and every disposal method, as Pillow composites them."""
    frames = []
    for i in range(5):
        im = Image.new("P", (24, 20), 1)
        im.putpalette([0, 0, 0, 200, 30, 30, 30, 200, 30, 30, 30, 200] + [90] * 252 * 3)
        for y in range(6):
            for x in range(6):
                im.putpixel((2 + 3 * i + x, 1 + 3 * i + y), 2 + (x + i) % 2)
        im.putpixel((i, 19), 0)
        frames.append(im)
    path = tmp_path / "anim.gif"
    frames[0].save(path, save_all=True, append_images=frames[1:], transparency=0, disposal=[0, 1, 2, 3, 2],
                   duration=20, optimize=False)
    got = loom.io.decode_image_frames(path, layout="HWC").numpy()
    assert np.array_equal(got, pillow_frames(path))


def test_encode_webp_lossy_bytes_equal_pillow(media):
    image = loom.io.decode_image(media / "images/other/hopper.tif", layout="HWC").numpy()
    for quality, method in ((80, 4), (50, 6), (95, 0)):
        ours = loom.io.encode_webp(torch.from_numpy(image).permute(2, 0, 1).contiguous(), quality=quality,
                                   method=method).numpy().tobytes()
        theirs = pyio.BytesIO()
        Image.fromarray(image).save(theirs, "WEBP", quality=quality, method=method)
        assert ours == theirs.getvalue(), (quality, method)


def test_write_webp_lossless_round_trips(tmp_path, media):
    image = loom.io.decode_image(media / "images/png/pil123rgba.png")
    loom.io.write_webp(image, tmp_path / "a.webp", lossless=True)
    assert torch.equal(loom.io.read_image(tmp_path / "a.webp"), image)
    with Image.open(tmp_path / "a.webp") as im:
        assert np.array_equal(np.asarray(im).transpose(2, 0, 1), image.numpy())


def test_per_format_decoders_check_the_format(media):
    other = media / "images/other"
    for decode, name in ((loom.io.decode_webp, "hopper.webp"), (loom.io.decode_avif, "hopper.avif"),
                         (loom.io.decode_heic, "hopper.heif"), (loom.io.decode_gif, "hopper.gif")):
        assert torch.equal(decode(other / name), loom.io.decode_image(other / name)), name
        with pytest.raises(loom.Error, match="not a"):
            decode(media / "images/jpeg/hopper.jpg")
    animation = loom.io.decode_gif(other / "chi.gif")
    assert animation.shape == (31, 4, 240, 320)
    assert torch.equal(animation, loom.io.decode_image_frames(other / "chi.gif"))
