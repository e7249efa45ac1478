"""torchvision.transforms.functional (tensors) for tests/transforms/color_test.cc.

Inputs: any tensors (C x H x W, uint8 or float32) by name. params: {"ops": [{"name", "op", "input", ...}]}:
each op runs on load(input) and writes out_<name>. Ops: to_dtype (dtype), normalize (mean, std; uint8 is
converted with convert_image_dtype first), rgb_to_grayscale (channels), adjust_brightness / adjust_contrast /
adjust_saturation / adjust_hue (factor), adjust_gamma (gamma, gain), gaussian_blur (kernel, sigma),
hue_v2 (torchvision 0.24's v2 adjust_hue formulas, copied below, run on this torch).
"""
import torch
import torchvision.transforms.functional as F

from refutil import load, params, save

DTYPES = {"uint8": torch.uint8, "float32": torch.float32, "float64": torch.float64}


def _rgb_to_hsv_v2(image):
    r, g, _ = image.unbind(dim=-3)
    minc, maxc = torch.aminmax(image, dim=-3)
    eqc = maxc == minc
    channels_range = maxc - minc
    ones = torch.ones_like(maxc)
    s = channels_range / torch.where(eqc, ones, maxc)
    channels_range_divisor = torch.where(eqc, ones, channels_range).unsqueeze_(dim=-3)
    rc, gc, bc = ((maxc.unsqueeze(dim=-3) - image) / channels_range_divisor).unbind(dim=-3)
    mask_maxc_neq_r = maxc != r
    mask_maxc_eq_g = maxc == g
    hg = rc.add(2.0).sub_(bc).mul_(mask_maxc_eq_g & mask_maxc_neq_r)
    hr = bc.sub_(gc).mul_(~mask_maxc_neq_r)
    hb = gc.add_(4.0).sub_(rc).mul_(mask_maxc_neq_r.logical_and_(mask_maxc_eq_g.logical_not_()))
    h = hr.add_(hg).add_(hb)
    h = h.mul_(1.0 / 6.0).add_(1.0).fmod_(1.0)
    return torch.stack((h, s, maxc), dim=-3)


def _hsv_to_rgb_v2(img):
    h, s, v = img.unbind(dim=-3)
    h6 = h.mul(6)
    i = torch.floor(h6)
    f = h6.sub_(i)
    i = i.to(dtype=torch.int32)
    sxf = s * f
    one_minus_s = 1.0 - s
    q = (1.0 - sxf).mul_(v).clamp_(0.0, 1.0)
    t = sxf.add_(one_minus_s).mul_(v).clamp_(0.0, 1.0)
    p = one_minus_s.mul_(v).clamp_(0.0, 1.0)
    i.remainder_(6)
    vpqt = torch.stack((v, p, q, t), dim=-3)
    select = torch.tensor([[0, 2, 1, 1, 3, 0], [3, 0, 0, 2, 1, 1], [1, 1, 3, 0, 0, 2]], dtype=torch.long)
    select = select[:, i.long()]  # torch 1.13 indexes with int64 only
    return vpqt.gather(-3, select)


def hue_v2(image, hue_factor):
    orig = image.dtype
    if orig == torch.uint8:
        image = image.to(torch.float32).mul_(1.0 / 255)
    image = _rgb_to_hsv_v2(image)
    h, s, v = image.unbind(dim=-3)
    h.add_(hue_factor).remainder_(1.0)
    out = _hsv_to_rgb_v2(torch.stack((h, s, v), dim=-3))
    if orig == torch.uint8:
        out = out.mul(255 + 1.0 - 1e-3).to(torch.uint8)
    return out


def run(op, x):
    kind = op["op"]
    if kind == "to_dtype":
        return F.convert_image_dtype(x, DTYPES[op["dtype"]])
    if kind == "normalize":
        return F.normalize(F.convert_image_dtype(x, torch.float32), op["mean"], op["std"])
    if kind == "rgb_to_grayscale":
        return F.rgb_to_grayscale(x, op["channels"])
    if kind in ("adjust_brightness", "adjust_contrast", "adjust_saturation", "adjust_hue"):
        return getattr(F, kind)(x, op["factor"])
    if kind == "adjust_gamma":
        return F.adjust_gamma(x, op["gamma"], op["gain"])
    if kind == "gaussian_blur":
        return F.gaussian_blur(x, op["kernel"], op["sigma"])
    if kind == "hue_v2":
        return hue_v2(x, op["factor"])
    raise ValueError(kind)


torch.set_num_threads(1)
for op in params()["ops"]:
    save(op["name"], run(op, torch.from_numpy(load(op["input"]))).contiguous().numpy())
