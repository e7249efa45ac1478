"""loom.transforms.v2 against Debian's torchvision 0.14 (transforms v1 functional ops, which compute what
v2's do) and against the analytic box math, with the tolerances of loom's C++ parity tests:

  - flips, crops, pads, quarter turns, dtype conversions, grayscale, brightness/contrast/saturation/gamma
    on uint8: exact (tests/transforms/geometry_parity_test.cc, color_test.cc);
  - resize: uint8 within 1 level (Pillow's fixed-point arithmetic against torchvision's float
    interpolation, then rounding), float32 within 1e-4 (resize.h);
  - bilinear warps (rotate, affine, perspective): within 1 level; nearest warps: at most 2% of the
    pixels' values differ (torch samples at float32 positions, loom at double; half-pixel ties round
    apart with odd sizes);
  - float32 color ops: within 1e-6; gaussian_blur uint8: within 1 (a float rounding at .5);
    adjust_hue uint8: 0 to 1 above 0.14's (v2 truncates x * 255.999 where 0.14 truncates x * 255);
  - normalize of uint8: bit-identical with v2's to_dtype(scale=True) + normalize, computed here in torch;
  - box format conversion: torchvision.ops.box_convert within 1e-4 (float32) and 1e-9 (float64).

Random transforms: the parameters are derived from a clone of the call's Generator with the draws
docs/transforms.md lists (torchvision's order), then compared with the functional op at those
parameters; reproducibility is checked for explicit generators, the default generator and batches.
Runs with Debian's /usr/bin/python3 (torch 1.13, torchvision 0.14, numpy 1.24).
"""
import math

import numpy as np
import pytest
import torch
import torchvision.ops
import torchvision.transforms.functional as TF
from torchvision.transforms import InterpolationMode as TVMode

import loom
from loom.transforms import v2 as T
from loom.transforms.v2 import functional as F

H, W = 37, 53  # odd sizes on purpose, as the C++ parity tests


@pytest.fixture(autouse=True)
def torch_output():
    loom.set_output_type("torch")
    yield
    loom.set_output_type("auto")


@pytest.fixture
def image():
    return torch.from_numpy(np.random.default_rng(1).integers(0, 256, (3, H, W), dtype=np.uint8))


@pytest.fixture
def fimage(image):
    return image.float() / 255


@pytest.fixture
def hopper(media):
    return loom.io.decode_image(str(media / "images/png/hopper.png"))


def mismatch_fraction(ours, theirs, tolerance):
    """The values differing by more than `tolerance`, per pixel (as geometry_parity_test.cc counts)."""
    diff = (ours.int() - theirs.int()).abs()
    return (diff > tolerance).sum().item() / (ours.numel() / ours.shape[-3])


def max_diff(ours, theirs):
    return (ours.double() - theirs.double()).abs().max().item()


# ---- Deterministic geometry: pixels -------------------------------------------------------------

@pytest.mark.parametrize("ours, theirs", [
    (lambda x: F.horizontal_flip(x), lambda x: TF.hflip(x)),
    (lambda x: F.hflip(x), lambda x: TF.hflip(x)),
    (lambda x: F.vertical_flip(x), lambda x: TF.vflip(x)),
    (lambda x: F.vflip(x), lambda x: TF.vflip(x)),
    (lambda x: F.crop(x, 5, 7, 20, 30), lambda x: TF.crop(x, 5, 7, 20, 30)),
    (lambda x: F.crop(x, -4, 40, 30, 25), lambda x: TF.crop(x, -4, 40, 30, 25)),
    (lambda x: F.center_crop(x, [20, 31]), lambda x: TF.center_crop(x, [20, 31])),
    (lambda x: F.center_crop(x, [44, 60]), lambda x: TF.center_crop(x, [44, 60])),
    (lambda x: F.center_crop(x, 21), lambda x: TF.center_crop(x, 21)),
    (lambda x: F.pad(x, [3, 4, 5, 6], fill=9), lambda x: TF.pad(x, [3, 4, 5, 6], fill=9)),
    (lambda x: F.pad(x, 2), lambda x: TF.pad(x, 2)),
    (lambda x: F.pad(x, [3, 1], padding_mode="edge"), lambda x: TF.pad(x, [3, 1], padding_mode="edge")),
    (lambda x: F.pad(x, [3, 1, 2, 4], padding_mode="reflect"),
     lambda x: TF.pad(x, [3, 1, 2, 4], padding_mode="reflect")),
    (lambda x: F.pad(x, [3, 1, 2, 4], padding_mode="symmetric"),
     lambda x: TF.pad(x, [3, 1, 2, 4], padding_mode="symmetric")),
    (lambda x: F.rotate(x, 90, expand=True), lambda x: TF.rotate(x, 90, expand=True)),
    (lambda x: F.rotate(x, 180), lambda x: TF.rotate(x, 180)),
    (lambda x: F.resize(x, [24, 70], interpolation=T.InterpolationMode.NEAREST),
     lambda x: TF.resize(x, [24, 70], interpolation=TVMode.NEAREST)),
])
def test_exact_geometry_matches_torchvision(image, ours, theirs):
    out = ours(image)
    assert isinstance(out, torch.Tensor)
    assert torch.equal(out, theirs(image))


@pytest.mark.parametrize("size", [[24, 70], [50, 20], 24])
def test_resize_matches_torchvision(image, fimage, size):
    ours = F.resize(image, size)
    theirs = TF.resize(image, size, antialias=True)
    assert ours.shape == theirs.shape
    assert max_diff(ours, theirs) <= 1
    ours_f = F.resize(fimage, size, interpolation=TVMode.BICUBIC)  # torchvision's enum is accepted
    theirs_f = TF.resize(fimage, size, interpolation=TVMode.BICUBIC, antialias=True)
    assert max_diff(ours_f, theirs_f) <= 1e-4
    without = F.resize(fimage, size, antialias=False)
    assert max_diff(without, TF.resize(fimage, size, antialias=False)) <= 1e-4


def test_resize_pillow_exact(image):
    # A downscale of both axes runs vertical first by default and horizontal first with pillow_exact;
    # each single-axis resize is one pass, so the compositions spell out the two orders.
    size = [11, 17]
    vertical_first = F.resize(F.resize(image, [size[0], W]), size)
    horizontal_first = F.resize(F.resize(image, [H, size[1]], pillow_exact=True), size, pillow_exact=True)
    assert torch.equal(F.resize(image, size), vertical_first)
    assert torch.equal(F.resize(image, size, pillow_exact=True), horizontal_first)
    assert torch.equal(T.Resize(size, pillow_exact=True)(image), horizontal_first)
    assert max_diff(vertical_first, horizontal_first) <= 1


START = [[0, 0], [52, 0], [52, 36], [0, 36]]
END = [[3, 2], [49, 5], [50, 33], [1, 35]]


@pytest.mark.parametrize("interpolation, ours, theirs, tolerance, fraction", [
    ("nearest", lambda x, m: F.rotate(x, 30, m), lambda x, m: TF.rotate(x, 30, m), 0, 0.02),
    ("bilinear", lambda x, m: F.rotate(x, -40, m, expand=True, fill=[10, 20, 30]),
     lambda x, m: TF.rotate(x, -40, m, expand=True, fill=[10, 20, 30]), 1, 0.0),
    ("bilinear", lambda x, m: F.rotate(x, 12, m, center=[10, 30]),
     lambda x, m: TF.rotate(x, 12, m, center=[10, 30]), 1, 0.0),
    ("nearest", lambda x, m: F.affine(x, 20, [4, -3], 0.8, [10, 5], m),
     lambda x, m: TF.affine(x, 20, [4, -3], 0.8, [10, 5], m), 0, 0.02),
    ("bilinear", lambda x, m: F.affine(x, 33, [-5, 6], 1.1, [0, -12], m, fill=[0]),
     lambda x, m: TF.affine(x, 33, [-5, 6], 1.1, [0, -12], m, fill=[0]), 1, 0.0),
    ("bilinear", lambda x, m: F.affine(x, -15, [0, 2], 1.3, -8, m),
     lambda x, m: TF.affine(x, -15, [0, 2], 1.3, [-8, 0], m), 1, 0.0),
    ("bilinear", lambda x, m: F.perspective(x, START, END, m), lambda x, m: TF.perspective(x, START, END, m), 1, 0.0),
])
def test_warps_match_torchvision(image, interpolation, ours, theirs, tolerance, fraction):
    mode = TVMode(interpolation)
    a, b = ours(image, mode), theirs(image, mode)
    assert a.shape == b.shape
    assert mismatch_fraction(a, b, tolerance) <= fraction


# ---- Color, dtype and noise: pixels -------------------------------------------------------------

@pytest.mark.parametrize("ours, theirs", [
    (lambda x: F.rgb_to_grayscale(x), lambda x: TF.rgb_to_grayscale(x)),
    (lambda x: F.rgb_to_grayscale(x, 3), lambda x: TF.rgb_to_grayscale(x, 3)),
    (lambda x: F.to_grayscale(x), lambda x: TF.rgb_to_grayscale(x)),
    (lambda x: F.adjust_brightness(x, 1.7), lambda x: TF.adjust_brightness(x, 1.7)),
    (lambda x: F.adjust_brightness(x, 0.3), lambda x: TF.adjust_brightness(x, 0.3)),
    (lambda x: F.adjust_contrast(x, 0.4), lambda x: TF.adjust_contrast(x, 0.4)),
    (lambda x: F.adjust_contrast(x, 1.8), lambda x: TF.adjust_contrast(x, 1.8)),
    (lambda x: F.adjust_saturation(x, 0.0), lambda x: TF.adjust_saturation(x, 0.0)),
    (lambda x: F.adjust_saturation(x, 1.6), lambda x: TF.adjust_saturation(x, 1.6)),
    (lambda x: F.adjust_gamma(x, 0.6, 1.2), lambda x: TF.adjust_gamma(x, 0.6, 1.2)),
    (lambda x: F.adjust_gamma(x, 2.2), lambda x: TF.adjust_gamma(x, 2.2)),
])
def test_color_ops_match_torchvision(image, hopper, ours, theirs):
    for x in (image, torch.from_dlpack(hopper)):
        assert torch.equal(ours(x), theirs(x))
        f = x.float() / 255
        assert max_diff(ours(f), theirs(f)) <= 1e-6


@pytest.mark.parametrize("factor", [-0.3, 0.1, 0.45])
def test_adjust_hue_matches_torchvision(image, fimage, factor):
    assert max_diff(F.adjust_hue(fimage, factor), TF.adjust_hue(fimage, factor)) <= 1e-6
    step = F.adjust_hue(image, factor).int() - TF.adjust_hue(image, factor).int()
    assert step.min().item() >= 0 and step.max().item() <= 1  # v2's x * 255.999 against 0.14's x * 255


@pytest.mark.parametrize("kernel, sigma", [(5, 1.2), ((3, 7), (0.8, 2.0)), (9, None)])
def test_gaussian_blur_matches_torchvision(image, fimage, kernel, sigma):
    ours, theirs = F.gaussian_blur(image, kernel, sigma), TF.gaussian_blur(image, kernel, sigma)
    assert max_diff(ours, theirs) <= 1
    assert max_diff(F.gaussian_blur(fimage, kernel, sigma), TF.gaussian_blur(fimage, kernel, sigma)) <= 1e-6


def test_to_dtype_matches_torchvision(image, fimage):
    assert max_diff(F.to_dtype(image, torch.float32, scale=True), TF.convert_image_dtype(image, torch.float32)) <= 1e-6
    assert torch.equal(F.to_dtype(fimage, torch.uint8, scale=True), TF.convert_image_dtype(fimage, torch.uint8))
    assert torch.equal(F.to_dtype(image, "float64", scale=False), image.double())
    assert F.to_dtype(image).dtype == torch.float32  # torchvision's default: torch.float, scale=False
    assert torch.equal(F.to_dtype(image, np.float32), image.float())


def test_normalize_is_v2s_to_dtype_and_normalize(image, fimage):
    mean, std = [0.485, 0.456, 0.406], [0.229, 0.224, 0.225]
    m, s = torch.tensor(mean)[:, None, None], torch.tensor(std)[:, None, None]
    assert torch.equal(F.normalize(image, mean, std), image.float().mul_(1.0 / 255).sub_(m).div_(s))
    assert torch.equal(F.normalize(fimage, mean, std), TF.normalize(fimage, mean, std))
    hwc = F.normalize(image.permute(1, 2, 0).contiguous(), mean, std, layout="HWC", output_layout="CHW")
    assert torch.equal(hwc, F.normalize(image, mean, std))
    assert torch.equal(T.Normalize(mean, std)(image), F.normalize(image, mean, std))


def test_gaussian_noise_distribution_and_keys():
    flat = torch.full((3, 200, 200), 0.5)
    out = F.gaussian_noise(flat, sigma=0.1, clip=False, generator=T.Generator(4))
    noise = (out - flat).double()
    assert abs(noise.mean().item()) < 0.002 and abs(noise.std().item() - 0.1) < 0.002
    again = F.gaussian_noise(flat, sigma=0.1, clip=False, generator=T.Generator(4))
    assert torch.equal(out, again)
    assert not torch.equal(out, F.gaussian_noise(flat, sigma=0.1, clip=False, generator=T.Generator(5)))
    clipped = F.gaussian_noise(flat, sigma=1.0, generator=T.Generator(4))
    assert clipped.min().item() == 0.0 and clipped.max().item() == 1.0
    batch = F.gaussian_noise(flat[None].repeat(2, 1, 1, 1), sigma=0.1, generator=T.Generator(4))
    assert not torch.equal(batch[0], batch[1])  # the functional op draws per image


# ---- Batches, layouts, input and output types -------------------------------------------------------

def test_batches_are_per_image(image):
    batch = torch.stack([image, image.flip(-1), image.flip(-2)])
    out = F.rotate(batch, 30, expand=True)
    for i in range(3):
        assert torch.equal(out[i], F.rotate(batch[i], 30, expand=True))
    assert torch.equal(F.adjust_contrast(batch, 0.5)[1], F.adjust_contrast(batch[1], 0.5))


def test_random_transform_on_a_batch_draws_once(image):
    batch = torch.stack([image, image.flip(-1)])
    t = T.Compose([T.RandomResizedCrop(20), T.ColorJitter(0.5, 0.5, 0.5, 0.2)])
    g = T.Generator(9)
    out = t(batch, generator=g.clone())
    for i in range(2):
        assert torch.equal(out[i], t(batch[i], generator=g.clone()))
    after, single = g.clone(), g.clone()
    t(batch, generator=after)
    t(batch[0], generator=single)
    assert after.next() == single.next()  # the generator advanced as for one image
    noisy = T.GaussianNoise()(torch.stack([image, image]), generator=T.Generator(1))
    assert torch.equal(noisy[0], noisy[1])  # one draw per call: the same noise for each image (documented)


def test_hwc_layout(image):
    hwc = image.permute(1, 2, 0).contiguous()
    assert torch.equal(F.horizontal_flip(hwc, layout="HWC"), TF.hflip(image).permute(1, 2, 0))
    assert torch.equal(F.resize(hwc, [20, 30], layout="HWC").permute(2, 0, 1), F.resize(image, [20, 30]))
    out = T.RandomRotation(20)(hwc, generator=T.Generator(1), layout="HWC")
    assert torch.equal(out.permute(2, 0, 1), T.RandomRotation(20)(image, generator=T.Generator(1)))


def test_inputs_and_output_types(image):
    array = image.numpy()
    flipped = F.horizontal_flip(array)
    assert isinstance(flipped, torch.Tensor) and torch.equal(flipped, TF.hflip(image))
    strided = image[:, ::2, 1::3]  # a strided view is read as it is
    assert torch.equal(F.vertical_flip(strided), TF.vflip(strided))
    loom.set_output_type("numpy")
    out = T.CenterCrop(20)(image)
    assert isinstance(out, np.ndarray) and np.array_equal(out, TF.center_crop(image, 20).numpy())
    boxes = F.horizontal_flip(T.BoundingBoxes(np.array([[1.0, 2, 10, 20]], np.float32), format="XYXY",
                                              canvas_size=(H, W)))
    assert isinstance(boxes.data, np.ndarray)
    loom.set_output_type("loom")
    assert isinstance(F.adjust_brightness(array, 0.5), loom.Tensor)


def test_transform_returns_the_input_structure(image):
    boxes = T.BoundingBoxes(torch.tensor([[1.0, 2, 10, 20]]), format="XYXY", canvas_size=(H, W))
    points = T.KeyPoints(torch.tensor([[3.0, 4.0]]), canvas_size=(H, W))
    flip = T.RandomHorizontalFlip(p=1.0)
    img, b = flip(image, boxes)
    assert torch.equal(img, TF.hflip(image)) and isinstance(b, T.BoundingBoxes)
    sample = {"image": image, "boxes": boxes, "points": points, "labels": torch.tensor([7]), "name": "x"}
    out = flip(sample)
    assert set(out) == set(sample) and out["name"] == "x" and torch.equal(out["labels"], sample["labels"])
    assert isinstance(out["points"], T.KeyPoints)
    nested = flip((image, {"boxes": boxes, "extra": torch.zeros(2)}))
    assert isinstance(nested, tuple) and torch.equal(nested[1]["extra"], torch.zeros(2))
    assert torch.equal(nested[1]["boxes"].data, b.data)
    with pytest.raises(ValueError):
        flip(image, boxes, boxes)
    with pytest.raises(TypeError):
        F.horizontal_flip("not a tensor")


# ---- Boxes and keypoints ------------------------------------------------------------------------------

BOXES = [[1.0, 2.0, 10.0, 20.0], [30.0, 5.0, 52.0, 36.0], [0.0, 0.0, 53.0, 37.0]]


def xyxy(data=BOXES, dtype=torch.float32, canvas=(H, W)):
    return T.BoundingBoxes(torch.as_tensor(data, dtype=dtype), format="XYXY", canvas_size=canvas)


def test_boxes_and_keypoints_under_flips(image):
    points = torch.tensor([[0.0, 0.0], [3.5, 7.25], [52.0, 36.0]])
    b = torch.tensor(BOXES)
    out = F.horizontal_flip(xyxy())
    assert torch.equal(out.data, torch.stack([W - b[:, 2], b[:, 1], W - b[:, 0], b[:, 3]], 1))
    kp = F.horizontal_flip(T.KeyPoints(points, canvas_size=(H, W)))
    assert torch.equal(kp.data, torch.stack([W - 1 - points[:, 0], points[:, 1]], 1))
    out = F.vertical_flip(xyxy())
    assert torch.equal(out.data, torch.stack([b[:, 0], H - b[:, 3], b[:, 2], H - b[:, 1]], 1))
    rotated = T.BoundingBoxes(torch.tensor([[20.0, 15.0, 10.0, 6.0, 30.0]]), format="CXCYWHR", canvas_size=(H, W))
    flipped = F.horizontal_flip(rotated)
    assert torch.allclose(flipped.data, torch.tensor([[W - 20.0, 15.0, 10.0, 6.0, -30.0]]))
    assert flipped.format == T.BoundingBoxFormat.CXCYWHR


def test_boxes_under_crop_pad_and_resize():
    b = torch.tensor(BOXES)
    out = F.crop(xyxy(), 5, 7, 20, 30)
    expected = (b - torch.tensor([7.0, 5.0, 7.0, 5.0]))
    expected[:, 0::2] = expected[:, 0::2].clamp(0, 30)
    expected[:, 1::2] = expected[:, 1::2].clamp(0, 20)
    assert torch.equal(out.data, expected) and out.canvas_size == (20, 30)
    padded = F.pad(xyxy(), [3, 4, 5, 6])
    assert torch.equal(padded.data, b + torch.tensor([3.0, 4.0, 3.0, 4.0])) and padded.canvas_size == (H + 10, W + 8)
    kp = F.pad(T.KeyPoints(torch.tensor([[1.0, 2.0]]), canvas_size=(H, W)), [3, 4, 5, 6])
    assert torch.equal(kp.data, torch.tensor([[4.0, 6.0]]))
    resized = F.resize(xyxy(dtype=torch.float64), [24, 70])
    scale = torch.tensor([70 / W, 24 / H, 70 / W, 24 / H], dtype=torch.float64)
    assert torch.allclose(resized.data, b.double() * scale, atol=1e-12) and resized.canvas_size == (24, 70)


@pytest.mark.parametrize("op, centred", [
    (lambda x: F.horizontal_flip(x), False), (lambda x: F.vertical_flip(x), False),
    (lambda x: F.crop(x, 5, 7, 20, 30), False), (lambda x: F.crop(x, -4, 15, 30, 45), False),
    (lambda x: F.pad(x, [3, 4, 5, 6]), False), (lambda x: F.center_crop(x, [40, 56]), False),
    (lambda x: F.center_crop(x, [20, 31]), False), (lambda x: F.rotate(x, 90, expand=True), True),
    (lambda x: F.rotate(x, 180), True), (lambda x: F.rotate(x, 270, expand=True), True),
])
def test_annotations_follow_the_pixels(op, centred):
    """A filled rectangle and a marked pixel land where the transformed box and keypoint say (loom
    keeps annotations on its pixels, also where torchvision 0.24 is a pixel off, docs/transforms.md).
    Keypoints: flips use torchvision's pixel-index convention (x -> width - 1 - x), rotations map
    continuous coordinates as for boxes (torchvision 0.24 does both), so a rotated keypoint is checked
    at the pixel's centre (x + 0.5, y + 0.5)."""
    x1, y1, x2, y2 = 12, 6, 21, 30  # the rectangle covers columns x1..x2-1 and rows y1..y2-1
    rect = torch.zeros(1, H, W, dtype=torch.uint8)
    rect[0, y1:y2, x1:x2] = 255
    box = op(xyxy([[x1, y1, x2, y2]]))
    out = op(rect)[0]
    rows, cols = torch.nonzero(out, as_tuple=True)
    assert box.canvas_size == tuple(out.shape)
    assert box.data[0].tolist() == [cols.min().item(), rows.min().item(), cols.max().item() + 1, rows.max().item() + 1]
    px, py = 15, 8
    dot = torch.zeros(1, H, W, dtype=torch.uint8)
    dot[0, py, px] = 255
    shift = 0.5 if centred else 0.0
    point = op(T.KeyPoints(torch.tensor([[px + shift, py + shift]]), canvas_size=(H, W)))
    rows, cols = torch.nonzero(op(dot)[0], as_tuple=True)
    assert point.data[0].tolist() == [cols.item() + shift, rows.item() + shift]


def test_boxes_under_affine_match_torchvision_matrix():
    angle, translate, scale, shear = 20.0, [4.0, -3.0], 0.8, [10.0, 5.0]
    out = F.affine(xyxy(dtype=torch.float64), angle, translate, scale, shear)
    m = np.array(TF._get_inverse_affine_matrix([W * 0.5, H * 0.5], angle, translate, scale, shear,
                                               inverted=False)).reshape(2, 3)
    expected = []
    for x1, y1, x2, y2 in BOXES:
        corners = np.array([[x1, y1, 1], [x2, y1, 1], [x1, y2, 1], [x2, y2, 1]]) @ m.T
        lo, hi = corners.min(0), corners.max(0)
        expected.append([min(max(lo[0], 0), W), min(max(lo[1], 0), H), min(max(hi[0], 0), W), min(max(hi[1], 0), H)])
    assert np.allclose(out.data.numpy(), np.array(expected), atol=1e-9)


@pytest.mark.parametrize("dtype, tolerance", [(torch.float32, 1e-4), (torch.float64, 1e-9)])
@pytest.mark.parametrize("src, dst", [("xyxy", "xywh"), ("xyxy", "cxcywh"), ("xywh", "cxcywh"), ("cxcywh", "xyxy")])
def test_box_format_conversion_matches_torchvision_ops(dtype, tolerance, src, dst):
    data = torch.from_numpy(np.random.default_rng(3).uniform(1, 50, (20, 4))).to(dtype)
    ours = F.convert_bounding_box_format(data, src, dst)
    assert max_diff(ours, torchvision.ops.box_convert(data, src, dst)) <= tolerance
    wrapped = F.convert_bounding_box_format(T.BoundingBoxes(data, format=src, canvas_size=(H, W)), new_format=dst)
    assert wrapped.format.value == dst.upper() and torch.equal(wrapped.data, ours)


def test_rotated_box_formats():
    # A 40 x 20 box centred at (80, 30) at 30 degrees counter-clockwise (docs/transforms.md's example).
    box = torch.tensor([[80.0, 30.0, 40.0, 20.0, 30.0]], dtype=torch.float64)
    a = math.radians(30.0)
    width_side, height_side = np.array([math.cos(a), -math.sin(a)]) * 40, np.array([math.sin(a), math.cos(a)]) * 20
    first = np.array([80.0, 30.0]) - (width_side + height_side) / 2
    corners = np.array([first, first + width_side, first + width_side + height_side, first + height_side])
    xywhr = F.convert_bounding_box_format(box, "CXCYWHR", "XYWHR")
    assert np.allclose(xywhr.numpy(), [[*first, 40.0, 20.0, 30.0]], atol=1e-9)
    assert np.allclose(F.convert_bounding_box_format(box, "CXCYWHR", "XYXYXYXY").numpy(), [corners.ravel()], atol=1e-9)
    assert np.allclose(F.convert_bounding_box_format(xywhr, "XYWHR", "CXCYWHR").numpy(), box.numpy(), atol=1e-9)
    with pytest.raises(loom.InvalidInputError):
        F.convert_bounding_box_format(box, "CXCYWHR", "XYXY")  # no conversion across families


def test_clamp_and_sanitize():
    data = torch.tensor([[-5.0, 2.0, 10.0, 50.0], [10.0, 10.0, 10.5, 20.0], [60.0, 1.0, 70.0, 9.0],
                         [2.0, 3.0, 9.0, 8.0]])
    boxes = xyxy(data)
    clamped = F.clamp_bounding_boxes(boxes)
    assert torch.equal(clamped.data[0], torch.tensor([0.0, 2.0, 10.0, 37.0]))
    kept, valid = F.sanitize_bounding_boxes(boxes)
    assert valid.tolist() == [False, False, False, True] and torch.equal(kept.data, data[3:])
    labels = torch.tensor([1, 2, 3, 4])
    blank = torch.zeros(3, H, W, dtype=torch.uint8)
    out = T.SanitizeBoundingBoxes()({"image": blank, "boxes": boxes, "labels": labels})
    assert torch.equal(out["labels"], torch.tensor([4])) and torch.equal(out["boxes"].data, data[3:])
    points = torch.tensor([[-1.0, 3.0], [52.5, 36.5], [53.0, 2.0]])
    assert torch.equal(F.clamp_keypoints(T.KeyPoints(points, canvas_size=(H, W))).data,
                       torch.tensor([[0.0, 3.0], [52.0, 36.0], [52.0, 2.0]]))
    kept, valid = F.sanitize_keypoints(T.KeyPoints(points, canvas_size=(H, W)))
    assert valid.tolist() == [False, True, False]


def test_bounding_boxes_share_memory():
    data = torch.tensor(BOXES)
    boxes = T.BoundingBoxes(data, format=T.BoundingBoxFormat.XYXY, canvas_size=(H, W))
    assert boxes.data is data and len(boxes) == 3 and boxes.shape == (3, 4)
    assert torch.from_dlpack(boxes).data_ptr() == data.data_ptr()
    assert np.asarray(boxes).ctypes.data == data.data_ptr()
    one = T.BoundingBoxes(torch.tensor([1.0, 2.0, 3.0, 4.0]), format="xywh", canvas_size=(H, W))
    assert one.shape == (1, 4) and one.format == T.BoundingBoxFormat.XYWH
    with pytest.raises(ValueError):
        T.BoundingBoxes(data, format="XYZ", canvas_size=(H, W))


def test_boxes_only_inputs():
    out = T.RandomHorizontalFlip(p=1.0)(xyxy())
    assert isinstance(out, T.BoundingBoxes) and torch.equal(out.data, F.horizontal_flip(xyxy()).data)
    assert torch.equal(T.Normalize([0.5], [0.5])(xyxy()).data, xyxy().data)  # color ops pass boxes through


# ---- Random transforms: parameters derived from the generator --------------------------------------

def test_random_flips(image):
    seen = set()
    for seed in range(8):
        g = T.Generator(seed)
        flip = g.clone().bernoulli(0.5)
        seen.add(flip)
        out = T.RandomHorizontalFlip()(image, generator=g)
        assert torch.equal(out, TF.hflip(image) if flip else image)
        g = T.Generator(seed)
        flip = g.clone().bernoulli(0.3)
        assert torch.equal(T.RandomVerticalFlip(0.3)(image, generator=g), TF.vflip(image) if flip else image)
    assert seen == {False, True}


def test_random_resized_crop(image):
    for seed in range(5):
        g = T.Generator(seed)
        top, left, h, w = T.RandomResizedCrop.get_params(image, (0.08, 1.0), (3 / 4, 4 / 3), generator=g.clone())
        assert 0 <= top <= H - h and 0 <= left <= W - w
        out = T.RandomResizedCrop([20, 30])(image, generator=g)
        assert torch.equal(out, F.resized_crop(image, top, left, h, w, [20, 30]))
        assert max_diff(out, TF.resized_crop(image, top, left, h, w, [20, 30], antialias=True)) <= 1


def test_random_crop(image):
    g = T.Generator(2)
    d = g.clone()
    top, left = d.integer(0, H - 20 + 1), d.integer(0, W - 25 + 1)
    assert torch.equal(T.RandomCrop([20, 25])(image, generator=g), TF.crop(image, top, left, 20, 25))
    g = T.Generator(3)
    d = g.clone()
    padded = TF.pad(image, [2, 3], fill=5)
    top, left = d.integer(0, padded.shape[1] - 30 + 1), d.integer(0, padded.shape[2] - 50 + 1)
    out = T.RandomCrop([30, 50], padding=[2, 3], fill=5)(image, generator=g)
    assert torch.equal(out, TF.crop(padded, top, left, 30, 50))


def test_random_rotation_and_affine(image):
    g = T.Generator(4)
    angle = g.clone().uniform(-30, 30)
    out = T.RandomRotation(30)(image, generator=g)
    assert mismatch_fraction(out, TF.rotate(image, angle, fill=0), 0) <= 0.02
    g = T.Generator(5)
    d = g.clone()
    angle = d.uniform(-10, 10)
    tx, ty = round(d.uniform(-0.1 * W, 0.1 * W)), round(d.uniform(-0.2 * H, 0.2 * H))  # round: half to even
    scale = d.uniform(0.8, 1.2)
    shear_x, shear_y = d.uniform(-5, 5), d.uniform(2, 4)
    t = T.RandomAffine(10, translate=(0.1, 0.2), scale=(0.8, 1.2), shear=(-5, 5, 2, 4),
                       interpolation=T.InterpolationMode.BILINEAR)
    out = t(image, generator=g)
    theirs = TF.affine(image, angle, [tx, ty], scale, [shear_x, shear_y], TVMode.BILINEAR, fill=[0])
    assert mismatch_fraction(out, theirs, 1) == 0


def test_random_perspective(image):
    g = T.Generator(6)
    d = g.clone()
    assert d.bernoulli(1.0)
    bw, bh = int(0.5 * (W // 2)) + 1, int(0.5 * (H // 2)) + 1
    tl = [d.integer(0, bw), d.integer(0, bh)]
    tr = [d.integer(W - bw, W), d.integer(0, bh)]
    br = [d.integer(W - bw, W), d.integer(H - bh, H)]
    bl = [d.integer(0, bw), d.integer(H - bh, H)]
    out = T.RandomPerspective(0.5, p=1.0)(image, generator=g)
    start = [[0, 0], [W - 1, 0], [W - 1, H - 1], [0, H - 1]]
    theirs = TF.perspective(image, start, [tl, tr, br, bl], TVMode.BILINEAR, fill=[0])
    assert mismatch_fraction(out, theirs, 1) == 0


def test_color_jitter(fimage):
    t = T.ColorJitter(brightness=0.4, contrast=(0.5, 1.5), saturation=0.3, hue=0.1)
    for seed in range(4):
        g = T.Generator(seed)
        d = g.clone()
        order = d.permutation(4)
        factors = [d.uniform(0.6, 1.4), d.uniform(0.5, 1.5), d.uniform(0.7, 1.3), d.uniform(-0.1, 0.1)]
        ours = [F.adjust_brightness, F.adjust_contrast, F.adjust_saturation, F.adjust_hue]
        theirs = [TF.adjust_brightness, TF.adjust_contrast, TF.adjust_saturation, TF.adjust_hue]
        a = b = fimage
        for i in order:
            a, b = ours[i](a, factors[i]), theirs[i](b, factors[i])
        out = t(fimage, generator=g)
        assert torch.equal(out, a)
        assert max_diff(out, b) <= 1e-5  # four ops, each within 1e-6 of 0.14


def test_gaussian_blur_grayscale_and_noise_transforms(image, fimage):
    g = T.Generator(7)
    sigma = g.clone().uniform(0.1, 2.0)
    out = T.GaussianBlur(5)(fimage, generator=g)
    assert max_diff(out, TF.gaussian_blur(fimage, [5, 5], [sigma, sigma])) <= 1e-6
    seen = set()
    for seed in range(6):
        g = T.Generator(seed)
        gray = g.clone().bernoulli(0.5)
        seen.add(gray)
        out = T.RandomGrayscale(0.5)(image, generator=g)
        assert torch.equal(out, TF.rgb_to_grayscale(image, 3) if gray else image)
    assert seen == {False, True}
    assert torch.equal(T.Grayscale(3)(image), TF.rgb_to_grayscale(image, 3))
    g = T.Generator(8)
    d = g.clone()
    assert torch.equal(T.GaussianNoise(sigma=0.2)(image, generator=g), F.gaussian_noise(image, sigma=0.2, generator=d))
    assert g.next() == d.next()


def test_containers_draw_as_documented(image):
    flip, crop, resize = T.RandomHorizontalFlip(p=1.0), T.CenterCrop(20), T.Resize([30, 40])
    applied_seen, chosen_seen, orders_seen = set(), set(), set()
    for seed in range(8):
        g = T.Generator(seed)
        applied = g.clone().bernoulli(0.5)
        out = T.RandomApply([flip, crop], p=0.5)(image, generator=g)
        assert torch.equal(out, crop(flip(image)) if applied else image)
        applied_seen.add(applied)
        g = T.Generator(seed)
        first = g.clone().uniform() < 0.25
        out = T.RandomChoice([flip, crop], p=[1, 3])(image, generator=g)
        assert torch.equal(out, flip(image) if first else crop(image))
        chosen_seen.add(first)
        g = T.Generator(seed)
        order = g.clone().permutation(2)
        steps = [crop, resize]
        out = T.RandomOrder(steps)(image, generator=g)
        assert torch.equal(out, steps[order[1]](steps[order[0]](image)))
        orders_seen.add(tuple(order))
    assert applied_seen == {False, True} and chosen_seen == {False, True} and orders_seen == {(0, 1), (1, 0)}


def test_compose_with_python_callables(image):
    t = T.Compose([T.RandomHorizontalFlip(), lambda x: x + 1, T.RandomVerticalFlip()])
    g = T.Generator(11)
    d = g.clone()
    h, v = d.bernoulli(0.5), d.bernoulli(0.5)
    expected = image.flip(-1) if h else image
    expected = expected + 1
    expected = expected.flip(-2) if v else expected
    assert torch.equal(t(image, generator=g), expected)


# ---- Reproducibility --------------------------------------------------------------------------------

PIPELINE = [T.RandomResizedCrop(24), T.RandomHorizontalFlip(), T.RandomRotation(15), T.ColorJitter(0.4, 0.4, 0.4, 0.1),
            T.GaussianNoise()]


def test_same_generator_state_same_output(image):
    t = T.Compose(PIPELINE)
    boxes = xyxy()
    g = T.Generator(42)
    first = t(image, boxes, generator=g.clone())
    second = t(image, boxes, generator=g.clone())
    assert torch.equal(first[0], second[0]) and torch.equal(first[1].data, second[1].data)
    other = t(image, generator=T.Generator(43))
    assert not torch.equal(first[0], other)
    g.manual_seed(42)
    assert torch.equal(t(image, boxes, generator=g)[0], first[0])


def test_default_generator_and_manual_seed(image):
    t = T.Compose(PIPELINE)
    T.manual_seed(123)
    a, b = t(image), t(image)
    T.manual_seed(123)
    assert torch.equal(t(image), a) and torch.equal(t(image), b)
    assert not torch.equal(a, b)
    T.manual_seed(123)
    assert torch.equal(a, t(image, generator=T.Generator(123).fork(0)))
    torch.manual_seed(0)  # torch's generator is another one
    T.manual_seed(123)
    assert torch.equal(t(image), a)


def test_for_sample_keys():
    a = T.Generator.for_sample(7, 2, 100)
    assert a.next() == T.Generator.for_sample(7, 2, 100).next()
    sample = T.Generator.for_sample(7, 2, 100)
    fields = [sample.fork(f) for f in range(3)]  # the loader forks field 0, 1, ... in order
    for f in range(3):
        assert T.Generator.for_sample(7, 2, 100, field=f).next() == fields[f].next()
    draws = {T.Generator.for_sample(7, e, s).next() for e in range(3) for s in range(3)}
    assert len(draws) == 9


def test_threads_share_a_transform(image):
    from concurrent.futures import ThreadPoolExecutor

    t = T.Compose(PIPELINE)
    expected = [t(image, generator=T.Generator(s)) for s in range(8)]
    with ThreadPoolExecutor(4) as pool:
        results = list(pool.map(lambda s: t(image, generator=T.Generator(s)), range(8)))
    assert all(torch.equal(a, b) for a, b in zip(expected, results))


# ---- Arguments -----------------------------------------------------------------------------------------

def test_arguments_follow_torchvision(image):
    assert T.Resize(24)(image).shape == TF.resize(image, 24, antialias=True).shape
    assert T.Resize([20, 30])(image).shape == (3, 20, 30)
    assert torch.equal(T.Pad([1, 2])(image), TF.pad(image, [1, 2]))
    assert torch.equal(T.ToDtype(torch.float32, scale=True)(image), F.to_dtype(image, torch.float32, scale=True))
    assert torch.equal(T.ToDtype(torch.float32)(image), image.float())  # scale=False, torchvision's default
    assert repr(T.RandomHorizontalFlip(0.25)) == "RandomHorizontalFlip(p=0.25)"
    with pytest.raises(loom.InvalidInputError):
        T.RandomHorizontalFlip(p=2.0)
    with pytest.raises(ValueError):
        T.Resize(24, max_size=30)
    with pytest.raises(loom.InvalidInputError):
        F.gaussian_blur(image, 4, 1.0)  # even kernel
    with pytest.raises(TypeError):
        T.RandomHorizontalFlip()(image, generator=torch.Generator())  # loom never draws from torch's generator
    thing = object()
    assert T.CenterCrop(3)(thing) is thing  # what loom does not transform passes through, as in torchvision
    with pytest.raises(loom.InvalidInputError):
        F.horizontal_flip(torch.zeros(4, 4, dtype=torch.uint8))  # 2-D
