#!/usr/bin/python3
"""The ImageNet training pipeline: loom's loader vs PyTorch's DataLoader (and DALI's CPU pipeline), same files, same run.

Run with Debian's Python: /usr/bin/python3 (python3-torch 1.13, python3-torchvision 0.14, python3-pil,
python3-numpy, python3-opencv, python3-matplotlib). The newest torch/torchvision and DALI run in their
own virtual environments outside the repository (bench/setup_loader_peers.sh makes them in /tmp):

    /usr/bin/python3 bench/loader.py --loom build/cli/loom [--threads 2] [--images 2000] [--epochs 3] \
        [--rounds 2] [--json out.json] [--plot docs/performance_loader.png] [--quick]

The pipeline, for every tool: decode the JPEG to RGB, RandomResizedCrop(224) (scale 0.08-1, ratio
3/4-4/3, antialiased bilinear), RandomHorizontalFlip(0.5), convert to float32 and Normalize with the
ImageNet mean/std into CHW, batches of 64, shuffled every epoch, `--threads` threads/workers:
  loom            `loom bench loader DIR --batch 64 --size 224 --threads T --epochs E` (C++; the
                  loader's epoch loop takes each batch and drops it)
  loom crop       the same with --decode-crop: the crop is decoded at a reduced JPEG DCT scale
                  (the same random draws, close but not equal pixels)
  loom decode     --decode-only: decode every image at full size into a list, nothing else; the
                  ceiling the pipeline is measured against
  torch 1.13      Debian's: DataLoader(ImageFolder(DIR, transform=Compose([RandomResizedCrop(224),
                  RandomHorizontalFlip(), ToTensor(), Normalize(...)])), batch_size=64, shuffle=True,
                  num_workers=T, persistent_workers=True) -- PIL decode and PIL resize
  torch (PyPI)    the newest torch + torchvision, v2 transforms on uint8 tensors: ImageFolder with
                  loader=decode_jpeg(read_file(path), RGB), v2.Compose([RandomResizedCrop(224,
                  antialias=True), RandomHorizontalFlip(), ToDtype(float32, scale=True),
                  Normalize(...)]), the same DataLoader settings
  DALI            CPU only (device_id=None): fn.readers.file(random_shuffle=True),
                  fn.decoders.image(device="cpu"), fn.random_resized_crop(antialias=True),
                  fn.crop_mirror_normalize(CHW float, mirror=fn.random.coin_flip()), num_threads=T
  DALI fused      fn.decoders.image_random_crop (DALI's decode-crop) + fn.resize instead
Each tool runs in its own process. The Python peers run with the interpreter of their environment
(--torch-python, --dali-python); a peer whose interpreter is missing or whose import fails is skipped,
and the reason is printed and stored. Every tool times whole epochs of the same files, which are in
the page cache (written just before): samples/s of epoch 1 (worker start-up, first touches) and the
steady state, the median over epochs 2..E. The tools take turns --rounds times; the best steady
figure of each counts. Ratios are loom samples/s over the peer's (> 1: loom is faster).

Data: --images JPEGs (default 2000) in --classes folders (default 10), made at set-up time into a
temporary folder and deleted afterwards: random crops of the real photos of <media>/images/jpeg (those
at least 400 pixels wide: xmp_test, iptc, sugarshack, exif-72dpi-int, flower, the CMYK sharp_* as RGB,
icc_profile_big) and one in eight of benchlib's synthetic images, resized (Lanczos) to ImageNet-like
sizes around 500x375 (longer side 420-580, aspect 1.25-1.5, a quarter portrait), light Gaussian
grain (sigma 3-6, as a camera's), saved at quality 90, 4:2:0. --data DIR uses an existing
ImageFolder instead.

RSS: `loom bench loader` runs --rss-epochs (5) epochs again, with and without --decode-crop, while
this script samples /proc/PID/status (VmRSS) every 10 ms; the epochs are placed on the samples from
the end of the run backwards with their durations (samples / epoch samples/s). Per epoch: the peak
and the last RSS (the last epoch's last sample is taken during teardown). The prefetch budget is prefetch x batch bytes, prefetch = max(2, 2 x threads)
(LoaderOptions' default), batch = 64 x 3 x 224 x 224 float32.

--quick: a smoke run (--images 200, 1 epoch, 1 round, 2 RSS epochs).
"""

import argparse
import json
import os
import statistics
import subprocess
import sys
import tempfile
import threading
import time

HERE = os.path.dirname(os.path.abspath(__file__))
DEFAULT_MEDIA = os.path.join(HERE, "..", "..", "shared", "media")
MEAN = [0.485, 0.456, 0.406]
STD = [0.229, 0.224, 0.225]
FFCV_PER_CORE = 860.0  # FFCV's images/s per core on pre-resized ImageNet (their ResNet-50 recipe)
PEERS = ("torch", "torch-v2", "dali", "dali-fused")
STAGES = ("read", "decode", "transform", "collate", "wait")


def parse_args():
    p = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    p.add_argument("--loom", help="path of the loom CLI (build/cli/loom); required unless --peer")
    p.add_argument("--media", default=DEFAULT_MEDIA, help="the shared media folder (default: %(default)s)")
    p.add_argument("--data", help="an existing ImageFolder to use instead of generating one")
    p.add_argument("--images", type=int, default=2000, help="JPEGs to generate (default: %(default)s)")
    p.add_argument("--classes", type=int, default=10, help="class folders (default: %(default)s)")
    p.add_argument("--threads", type=int, default=2, help="loader threads / DataLoader workers (default: %(default)s)")
    p.add_argument("--batch", type=int, default=64)
    p.add_argument("--size", type=int, default=224)
    p.add_argument("--epochs", type=int, default=4, help="epochs per timed run (default: %(default)s)")
    p.add_argument("--rounds", type=int, default=3, help="rounds; the best steady figure of each tool counts")
    p.add_argument("--rss-epochs", type=int, default=5, help="epochs of the RSS run (default: %(default)s)")
    p.add_argument("--torch-python", default="/tmp/bench-venv/bin/python",
                   help="Python of the newest torch/torchvision (default: %(default)s)")
    p.add_argument("--dali-python", default="/tmp/bench-dali-venv/bin/python",
                   help="Python with nvidia-dali (default: %(default)s)")
    p.add_argument("--skip", action="append", default=[], choices=PEERS, help="leave a peer out (repeatable)")
    p.add_argument("--json", help="also write the results as JSON here")
    p.add_argument("--plot", help="also draw the results into this PNG (e.g. docs/performance_loader.png)")
    p.add_argument("--quick", action="store_true", help="smoke run: 200 images, 1 epoch, 1 round, 2 RSS epochs")
    p.add_argument("--peer", choices=PEERS, help="internal: run one peer on --root and print its JSON line")
    p.add_argument("--root", help="internal: the ImageFolder of --peer")
    args = p.parse_args()
    if args.quick:
        args.images, args.epochs, args.rounds, args.rss_epochs = 200, 1, 1, 2
    if not args.peer and not args.loom:
        p.error("--loom is required")
    return args


# ---------------------------------------------------------------------------------------------------
# Peers (run in their own process, with their own Python: import only what the peer needs).


def cpu_seconds(pid="self"):
    """User + system CPU seconds of all threads of process `pid` so far (/proc/PID/stat), or 0 if gone."""
    try:
        with open(f"/proc/{pid}/stat", encoding="ascii") as f:
            fields = f.read().rsplit(")", 1)[1].split()
    except OSError:
        return 0.0
    return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")  # utime, stime: fields 14, 15


def epoch_loop(epochs, run_epoch, pids=lambda: ["self"]):
    """([samples/s of each epoch], [CPU ms per sample of each epoch]); run_epoch() consumes one epoch
    and returns its sample count; pids(): the processes whose CPU time counts (read at epoch ends)."""
    rates, cpu = [], []
    for _ in range(epochs):
        c0 = sum(cpu_seconds(p) for p in pids())
        t0 = time.perf_counter()
        n = run_epoch()
        rates.append(n / (time.perf_counter() - t0))
        cpu.append((sum(cpu_seconds(p) for p in pids()) - c0) / n * 1e3)
    return rates, cpu


def _decode_rgb(path):
    """torch-v2's ImageFolder loader (module level: DataLoader workers may need to pickle it)."""
    from torchvision.io import ImageReadMode, decode_jpeg, read_file

    return decode_jpeg(read_file(path), mode=ImageReadMode.RGB)


def run_torch(args, v2):
    import torch
    import torchvision
    from torchvision import datasets

    if v2:
        from torchvision.transforms import v2 as T

        tf = T.Compose([T.RandomResizedCrop(args.size, antialias=True), T.RandomHorizontalFlip(),
                        T.ToDtype(torch.float32, scale=True), T.Normalize(MEAN, STD)])
        ds = datasets.ImageFolder(args.root, transform=tf, loader=_decode_rgb)
    else:
        import torchvision.transforms as T

        tf = T.Compose([T.RandomResizedCrop(args.size), T.RandomHorizontalFlip(), T.ToTensor(),
                        T.Normalize(MEAN, STD)])
        ds = datasets.ImageFolder(args.root, transform=tf)
    dl = torch.utils.data.DataLoader(ds, batch_size=args.batch, shuffle=True, num_workers=args.threads,
                                     persistent_workers=args.threads > 0)

    def one_epoch():
        n = 0
        for images, _ in dl:
            n += images.shape[0]
        return n

    def pids():  # this process and the persistent workers (none before the first epoch starts them)
        workers = getattr(getattr(dl, "_iterator", None), "_workers", None) or []
        return ["self"] + [w.pid for w in workers]

    rates, cpu = epoch_loop(args.epochs, one_epoch, pids)
    try:
        capability = torch.backends.cpu.get_cpu_capability()  # torch >= 2.0
    except AttributeError:
        capability = None
    return {"epoch_samples_per_second": rates, "epoch_cpu_ms_per_sample": cpu, "samples": len(ds),
            "versions": {"torch": torch.__version__, "torchvision": torchvision.__version__,
                         "torch_cpu_capability": capability}}


def run_dali(args, fused):
    import math

    import nvidia.dali as dali
    from nvidia.dali import fn, pipeline_def, types

    @pipeline_def(batch_size=args.batch, num_threads=args.threads, device_id=None, seed=1234)
    def pipe():
        jpegs, labels = fn.readers.file(file_root=args.root, random_shuffle=True, name="Reader")
        if fused:
            images = fn.decoders.image_random_crop(jpegs, device="cpu", output_type=types.RGB,
                                                   random_area=[0.08, 1.0], random_aspect_ratio=[3 / 4, 4 / 3])
            images = fn.resize(images, resize_x=args.size, resize_y=args.size, antialias=True)
        else:
            images = fn.decoders.image(jpegs, device="cpu", output_type=types.RGB)
            images = fn.random_resized_crop(images, size=[args.size, args.size], random_area=[0.08, 1.0],
                                            random_aspect_ratio=[3 / 4, 4 / 3], antialias=True)
        images = fn.crop_mirror_normalize(images, dtype=types.FLOAT, output_layout="CHW",
                                          mean=[m * 255 for m in MEAN], std=[s * 255 for s in STD],
                                          mirror=fn.random.coin_flip(probability=0.5))
        return images, labels

    p = pipe()
    p.build()
    samples = p.epoch_size("Reader")
    iterations = math.ceil(samples / args.batch)

    def one_epoch():
        for _ in range(iterations):
            images, _ = p.run()
            images.as_tensor()  # one [N, C, H, W] tensor, as the other tools deliver
        return iterations * args.batch  # DALI fills the last batch from the next epoch: count what it made

    rates, cpu = epoch_loop(args.epochs, one_epoch)
    return {"epoch_samples_per_second": rates, "epoch_cpu_ms_per_sample": cpu, "samples": samples,
            "versions": {"dali": dali.__version__}}


def peer_main(args):
    if args.peer in ("torch", "torch-v2"):
        out = run_torch(args, v2=args.peer == "torch-v2")
    else:
        out = run_dali(args, fused=args.peer == "dali-fused")
    out["python"] = sys.version.split()[0]
    print(json.dumps(out))


# ---------------------------------------------------------------------------------------------------
# Data set.


def source_photos(media):
    """RGB arrays of the real photos of <media>/images/jpeg that are at least 400 pixels wide."""
    import glob
    import warnings

    import numpy as np
    from PIL import Image

    photos = []
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        for path in sorted(glob.glob(os.path.join(media, "images", "jpeg", "*"))):
            try:
                with Image.open(path) as im:
                    if max(im.size) >= 400:
                        photos.append((os.path.basename(path), np.asarray(im.convert("RGB"))))
            except Exception:  # noqa: BLE001 -- not a photo Pillow can read: not a source
                pass
    return photos


def make_image_folder(root, count, classes, media, seed=2024):
    """Writes `count` ImageNet-like JPEGs into root/class_XX/; returns a description of the set."""
    import numpy as np
    from PIL import Image

    import benchlib

    rng = np.random.default_rng(seed)
    photos = source_photos(media)
    if not photos:
        sys.exit(f"no source photos in {media}/images/jpeg")
    for c in range(classes):
        os.makedirs(os.path.join(root, f"class_{c:02d}"), exist_ok=True)
    total_bytes, pixels, portrait = 0, 0, 0
    for i in range(count):
        long_side = int(rng.integers(420, 581))
        short_side = int(round(long_side / rng.uniform(1.25, 1.5)))
        w, h = (long_side, short_side) if rng.random() >= 0.25 else (short_side, long_side)
        portrait += h > w
        if i % 8 == 7:  # one in eight synthetic
            arr = benchlib.synthetic_rgb(w, h, seed=i)
        else:
            _, src = photos[int(rng.integers(len(photos)))]
            sh, sw, _ = src.shape
            # The largest crop of the target's aspect inside the source, scaled by sqrt(area fraction).
            cw, ch = (sw, sw * h / w) if sw * h / w <= sh else (sh * w / h, sh)
            scale = np.sqrt(rng.uniform(0.3, 1.0))
            cw, ch = max(16, int(cw * scale)), max(16, int(ch * scale))
            x0, y0 = int(rng.integers(0, sw - cw + 1)), int(rng.integers(0, sh - ch + 1))
            im = Image.fromarray(src[y0:y0 + ch, x0:x0 + cw])
            if rng.random() < 0.5:
                im = im.transpose(Image.FLIP_LEFT_RIGHT)
            arr = np.asarray(im.resize((w, h), Image.LANCZOS)).astype(np.float32)
            arr += rng.normal(0.0, rng.uniform(3.0, 6.0), size=arr.shape).astype(np.float32)
            arr = np.clip(arr, 0, 255).astype(np.uint8)
        path = os.path.join(root, f"class_{i % classes:02d}", f"img_{i:05d}.jpg")
        Image.fromarray(arr).save(path, quality=90)
        total_bytes += os.path.getsize(path)
        pixels += w * h
    return {"images": count, "classes": classes, "mean_bytes": total_bytes / count,
            "mean_megapixels": pixels / count / 1e6, "portrait": portrait,
            "sources": [name for name, _ in photos], "synthetic": count // 8, "quality": 90}


def describe_folder(root):
    import glob

    from PIL import Image

    paths = sorted(glob.glob(os.path.join(root, "*", "*")))
    sizes = [Image.open(p).size for p in paths[:500]]
    return {"images": len(paths), "classes": len(glob.glob(os.path.join(root, "*"))),
            "mean_bytes": sum(os.path.getsize(p) for p in paths) / max(1, len(paths)),
            "mean_megapixels": sum(w * h for w, h in sizes) / max(1, len(sizes)) / 1e6, "given": root}


# ---------------------------------------------------------------------------------------------------
# Runs.


def steady(rates):
    """The steady-state samples/s: median of the epochs after the first (the only one if just one)."""
    return statistics.median(rates[1:]) if len(rates) > 1 else rates[0]


class RssSampler:
    """Samples /proc/PID/status VmRSS and /proc/PID/stat CPU time of a running process every `period`
    seconds in a thread."""

    def __init__(self, pid, period=0.01):
        self.pid, self.period = pid, period
        self.samples = []  # [(seconds since start, RSS bytes)]
        self.cpu = []      # [(seconds since start, CPU seconds)]
        self._stop = threading.Event()
        self._t0 = time.perf_counter()
        self._thread = threading.Thread(target=self._run, daemon=True)
        self._thread.start()

    def _run(self):
        path = f"/proc/{self.pid}/status"
        while not self._stop.is_set():
            try:
                with open(path, encoding="ascii") as f:
                    for line in f:
                        if line.startswith("VmRSS:"):
                            self.samples.append((time.perf_counter() - self._t0, int(line.split()[1]) * 1024))
                            break
            except OSError:
                return
            cpu = cpu_seconds(self.pid)
            if cpu:
                self.cpu.append((time.perf_counter() - self._t0, cpu))
            self._stop.wait(self.period)

    def stop(self):
        self._stop.set()
        self._thread.join()


def run_loom(args, root, *flags, epochs=None, sample_rss=False):
    """loom bench loader's JSON, plus epoch_cpu_ms_per_sample (and "rss" with sample_rss) measured
    from /proc while it runs: every 10 ms with sample_rss, else every 50 ms (less load from this script)."""
    cmd = [args.loom, "bench", "loader", root, "--batch", str(args.batch), "--size", str(args.size),
           "--threads", str(args.threads), "--epochs", str(epochs or args.epochs), *flags]
    proc = subprocess.Popen(cmd, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    sampler = RssSampler(proc.pid, period=0.01 if sample_rss else 0.05)
    out, err = proc.communicate()
    sampler.stop()
    if proc.returncode != 0:
        raise RuntimeError(f"{' '.join(cmd)} failed ({proc.returncode}): {err.strip()}")
    result = json.loads(out.strip().splitlines()[-1])
    bounds = epoch_bounds(sampler.samples, result["samples"], result["epoch_samples_per_second"])
    result["epoch_cpu_ms_per_sample"] = [(value_at(sampler.cpu, hi) - value_at(sampler.cpu, lo)) / result["samples"] * 1e3
                                         for lo, hi in bounds] if sampler.cpu else None
    if sample_rss:
        result["rss"] = rss_per_epoch(sampler.samples, bounds)
    return result


def epoch_bounds(samples, per_epoch, rates):
    """[(start, end)] seconds of each epoch on the sampler's clock, laid from the last sample (the
    process's exit, right after its last epoch) backwards with the epochs' durations."""
    end = samples[-1][0] if samples else 0.0
    bounds = []
    for rate in reversed(rates):
        start = end - per_epoch / rate
        bounds.append((start, end))
        end = start
    bounds.reverse()
    return bounds


def value_at(series, t):
    """The value of a sampled [(time, value)] series at time t (linear between samples)."""
    if t <= series[0][0]:
        return series[0][1]
    for (t0, v0), (t1, v1) in zip(series, series[1:]):
        if t <= t1:
            return v0 + (v1 - v0) * (t - t0) / (t1 - t0) if t1 > t0 else v1
    return series[-1][1]


def rss_per_epoch(samples, bounds):
    """Peak and last RSS of each epoch."""
    if not samples:
        return None
    epochs = []
    for lo, hi in bounds:
        inside = [r for t, r in samples if lo <= t <= hi] or [min(samples, key=lambda s: abs(s[0] - hi))[1]]
        epochs.append({"peak_bytes": max(inside), "last_bytes": inside[-1], "start_s": lo, "end_s": hi})
    return {"epochs": epochs, "peak_bytes": max(r for _, r in samples),
            "trace": [[round(t, 3), r] for t, r in samples[::max(1, len(samples) // 2000)]]}


def run_peer(args, root, peer, python):
    cmd = [python, os.path.abspath(__file__), "--peer", peer, "--root", root, "--threads", str(args.threads),
           "--batch", str(args.batch), "--size", str(args.size), "--epochs", str(args.epochs)]
    proc = subprocess.run(cmd, capture_output=True, text=True, check=False, env={**os.environ, "PYTHONWARNINGS": "ignore"})
    lines = [line for line in proc.stdout.splitlines() if line.startswith("{")]
    if proc.returncode != 0 or not lines:
        tail = (proc.stderr.strip().splitlines() or ["no output"])[-1]
        raise RuntimeError(f"exit {proc.returncode}: {tail}")
    return json.loads(lines[-1])


def tools(args):
    """[(name, label, how)] in the order they run in each round; how: ('loom', flags) or ('peer', peer, python)."""
    out = [("loom", "loom", ("loom", [])),
           ("loom_crop", "loom --decode-crop", ("loom", ["--decode-crop"])),
           ("loom_decode", "loom decode-only", ("loom", ["--decode-only"]))]
    peers = [("torch", "torch", "/usr/bin/python3"), ("torch_v2", "torch-v2", args.torch_python),
             ("dali", "dali", args.dali_python), ("dali_fused", "dali-fused", args.dali_python)]
    for name, peer, python in peers:
        if peer not in args.skip:
            out.append((name, peer, ("peer", peer, python)))
    return out


def label_of(name, result):
    v = result.get("versions", {}) if result else {}
    return {"loom": "loom", "loom_crop": "loom --decode-crop", "loom_decode": "loom decode-only",
            "torch": f"torch {v.get('torch', '?')} DataLoader (PIL)",
            "torch_v2": f"torch {v.get('torch', '?')} DataLoader (v2 uint8)",
            "dali": f"DALI {v.get('dali', '?')} CPU", "dali_fused": f"DALI {v.get('dali', '?')} CPU decode-crop"}[name]


def run_rounds(args, root):
    runs, failed = {}, {}
    for r in range(args.rounds):
        for name, _, how in tools(args):
            if name in failed:
                continue
            print(f"  round {r + 1}/{args.rounds}: {name}", file=sys.stderr)
            try:
                if how[0] == "loom":
                    res = run_loom(args, root, *how[1])
                else:
                    if not os.path.exists(how[2]):
                        raise RuntimeError(f"{how[2]} does not exist (bench/setup_loader_peers.sh makes it)")
                    res = run_peer(args, root, how[1], how[2])
            except (RuntimeError, OSError, json.JSONDecodeError) as e:
                failed[name] = str(e)
                print(f"    {name} skipped: {e}", file=sys.stderr)
                continue
            runs.setdefault(name, []).append(res)
    results = {}
    for name, rs in runs.items():
        best = max(rs, key=lambda x: steady(x["epoch_samples_per_second"]))
        cpu = [steady(x["epoch_cpu_ms_per_sample"]) for x in rs if x.get("epoch_cpu_ms_per_sample")]
        results[name] = {**best, "label": label_of(name, best), "steady_samples_per_second": steady(
            best["epoch_samples_per_second"]), "rounds_steady": [steady(x["epoch_samples_per_second"]) for x in rs],
            "steady_cpu_ms_per_sample": min(cpu) if cpu else None, "rounds_cpu_ms_per_sample": cpu}
    return results, failed


def ratios(results):
    def r(a, b):
        return results[a]["steady_samples_per_second"] / results[b]["steady_samples_per_second"] \
            if a in results and b in results else None

    def c(a, b):  # CPU time ratio b / a: > 1 when a needs less CPU per sample
        ca, cb = (results.get(x, {}).get("steady_cpu_ms_per_sample") for x in (a, b))
        return cb / ca if ca and cb else None

    out = {}
    for loom in ("loom", "loom_crop"):
        for peer in ("torch", "torch_v2", "dali", "dali_fused"):
            out[f"{loom}/{peer}"] = r(loom, peer)
            out[f"cpu {loom}/{peer}"] = c(loom, peer)
        out[f"{loom}/loom_decode"] = r(loom, "loom_decode")
        out[f"cpu {loom}/loom_decode"] = c(loom, "loom_decode")
    return out


def mib(b):
    return b / 2**20


def fmt(x, spec="5.2f"):
    return "  n/a" if x is None else format(x, spec)


def print_report(args, data, results, failed, ratio, rss):
    print(f"dataset: {data['images']} JPEGs in {data['classes']} classes, mean {data['mean_bytes'] / 1024:.0f} KiB, "
          f"{data['mean_megapixels']:.3f} MP; threads {args.threads}, batch {args.batch}, {args.size}x{args.size}, "
          f"{args.epochs} epochs x {args.rounds} rounds\n")
    print(f"{'tool':<42} {'epoch 1/s':>9} {'steady/s':>9} {'/thread':>8} {'loom/x':>7} {'crop/x':>7} "
          f"{'CPU ms':>7} {'CPU x/loom':>10} {'x/crop':>7}")
    cpu_loom = results.get("loom", {}).get("steady_cpu_ms_per_sample")
    cpu_crop = results.get("loom_crop", {}).get("steady_cpu_ms_per_sample")
    for name, res in results.items():
        eps = res["epoch_samples_per_second"]
        s = res["steady_samples_per_second"]
        lo = results["loom"]["steady_samples_per_second"] / s if "loom" in results else None
        cr = results["loom_crop"]["steady_samples_per_second"] / s if "loom_crop" in results else None
        cpu = res.get("steady_cpu_ms_per_sample")
        print(f"{res['label']:<42} {eps[0]:9.0f} {s:9.0f} {s / args.threads:8.0f} {fmt(lo):>7} {fmt(cr):>7} "
              f"{fmt(cpu, '7.3f')} {fmt(cpu / cpu_loom if cpu and cpu_loom else None):>10} "
              f"{fmt(cpu / cpu_crop if cpu and cpu_crop else None):>7}")
    for name, why in failed.items():
        print(f"{name}: not run: {why}")
    print("(samples/s; steady: median of epochs 2..E, best of rounds; loom/x, crop/x: loom's and loom "
          "--decode-crop's steady samples/s over the row's;\n CPU ms: user + system CPU per sample of every "
          "process and thread of the tool (DataLoader workers included), steady epochs, least of rounds;\n "
          "CPU x/loom, x/crop: the row's CPU per sample over loom's and loom --decode-crop's, > 1: loom needs less)\n")
    print(f"targets ({args.threads} threads; in brackets the same by CPU time per sample):")
    for loom in ("loom", "loom_crop"):
        if loom not in results:
            continue
        lab = results[loom]["label"]
        for peer in ("torch", "torch_v2"):
            x = ratio.get(f"{loom}/{peer}")
            if x is not None:
                print(f"  {lab} / {results[peer]['label']}: {x:.2f}x [{fmt(ratio.get(f'cpu {loom}/{peer}'))}x] "
                      f"(target >= 5): {'met' if x >= 5 else 'MISSED'}")
        x = ratio.get(f"{loom}/loom_decode")
        if x is not None:
            print(f"  {lab} / loom decode-only: {x:.2f} [{fmt(ratio.get(f'cpu {loom}/loom_decode'))}] (target >= 0.90): "
                  f"{'met' if x >= 0.9 else 'MISSED'}")
        per = results[loom]["steady_samples_per_second"] / args.threads
        cpu = results[loom].get("steady_cpu_ms_per_sample")
        per_cpu = 1e3 / cpu if cpu else None
        print(f"  {lab} per thread: {per:.0f}/s [per CPU second: {fmt(per_cpu, '.0f')}/s] vs FFCV's {FFCV_PER_CORE:.0f}/s "
              f"per core on pre-resized ImageNet: {per / FFCV_PER_CORE:.2f}x [{fmt(per_cpu / FFCV_PER_CORE if per_cpu else None)}x]")
    print("\nloom stage times (ms per sample, each stage summed over threads; wall: the epochs' seconds):")
    print(f"{'tool':<20} {'read':>7} {'decode':>7} {'transf':>7} {'collate':>7} {'wait':>7} {'wall s':>7}")
    for name in ("loom", "loom_crop", "loom_decode"):
        if name in results:
            r = results[name]
            n = r["samples"] * len(r["epoch_samples_per_second"])
            wall = sum(r["samples"] / x for x in r["epoch_samples_per_second"])
            print(f"{r['label']:<20} " + " ".join(f"{r[k + '_seconds'] / n * 1e3:7.3f}" for k in STAGES) + f" {wall:7.2f}")
    print("(transf: the crop's resize, flip and normalize; with --decode-crop the resize of the decoded region)")
    if rss:
        print(f"\nloom RSS over {args.rss_epochs} epochs (MiB; budget = prefetch {rss['prefetch']} x batch "
              f"{mib(rss['batch_bytes']):.1f} MiB = {mib(rss['budget_bytes']):.0f} MiB):")
        for name, r in rss["runs"].items():
            if not r:
                continue
            peaks = [mib(e["peak_bytes"]) for e in r["epochs"]]
            print(f"  {name:<18} peak per epoch {' '.join(f'{p:6.0f}' for p in peaks)}; last epoch / first: "
                  f"{peaks[-1] / peaks[0]:.3f} (target <= 1.05); peak - budget {mib(r['peak_bytes'] - rss['budget_bytes']):.0f}")


def measure_rss(args, root):
    prefetch = max(2, 2 * args.threads)
    batch_bytes = args.batch * 3 * args.size * args.size * 4
    runs = {}
    for label, flags in (("loom", []), ("loom --decode-crop", ["--decode-crop"])):
        print(f"  RSS: {label}, {args.rss_epochs} epochs", file=sys.stderr)
        try:
            res = run_loom(args, root, *flags, epochs=args.rss_epochs, sample_rss=True)
            runs[label] = {**res["rss"], "epoch_samples_per_second": res["epoch_samples_per_second"]}
        except RuntimeError as e:
            print(f"    skipped: {e}", file=sys.stderr)
    return {"prefetch": prefetch, "batch_bytes": batch_bytes, "budget_bytes": prefetch * batch_bytes, "runs": runs}


def main():
    args = parse_args()
    if args.peer:
        peer_main(args)
        return
    import benchlib

    with tempfile.TemporaryDirectory(prefix="loom-bench-loader-") as tmp:
        if args.data:
            root, data = os.path.abspath(args.data), describe_folder(args.data)
        else:
            root = os.path.join(tmp, "imagefolder")
            print(f"  writing {args.images} JPEGs into {root}", file=sys.stderr)
            data = make_image_folder(root, args.images, args.classes, args.media)
        load_before = os.getloadavg()
        results, failed = run_rounds(args, root)
        rss = measure_rss(args, root) if args.rss_epochs > 0 else None
        load_after = os.getloadavg()
    if "loom" not in results:
        sys.exit(f"loom did not run: {failed.get('loom')}")
    ratio = ratios(results)
    print_report(args, data, results, failed, ratio, rss)
    print(f"load average (1, 5, 15 min) before {' '.join(f'{x:.1f}' for x in load_before)}, after "
          f"{' '.join(f'{x:.1f}' for x in load_after)} on {os.cpu_count()} cores")
    import torch  # noqa: F401 -- for machine_info's torch version (Debian's)

    out = {"machine": benchlib.machine_info(), "threads": args.threads, "batch": args.batch, "size": args.size,
           "epochs": args.epochs, "rounds": args.rounds, "dataset": data, "results": results, "not_run": failed,
           "ratios": ratio, "rss": rss, "ffcv_per_core": FFCV_PER_CORE,
           "loadavg_before": load_before, "loadavg_after": load_after}
    if args.json:
        with open(args.json, "w", encoding="utf-8") as f:
            json.dump(out, f, indent=1)
    if args.plot:
        import plot

        plot.plot_loader(out, args.plot)


if __name__ == "__main__":
    main()
