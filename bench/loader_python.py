#!/usr/bin/python3
"""loom.data.Loader (Python) vs `loom bench loader` (C++): the same job, the same files, the same run.

    PYTHONPATH=build/python /usr/bin/python3 bench/loader_python.py --loom build/cli/loom \
        [--threads 2] [--images 400] [--epochs 4] [--rounds 5] [--decode-crop] [--data DIR]

The job is bench/loader.py's and docs/PERFORMANCE.md's "Loader" pipeline: an ImageFolder of JPEGs,
shuffled as torch's DistributedSampler, each decoded to RGB HWC, RandomResizedCrop(224), random
horizontal flip, normalized with the ImageNet mean/std into float32 CHW batches of 64, on --threads
loader threads. The C++ side is `loom bench loader DIR --batch 64 --size 224 --threads T --epochs E`
(its epoch loop takes each batch and drops it); the Python side is loom.data.Loader with the same
options, its loop taking each batch as a dict of torch tensors and dropping it. Each side runs in its
own fresh process; the two take turns, --rounds times, in alternating order.

Per run: the steady samples/s (the median of epochs 2..E; epoch 1 starts the threads) and the CPU time
per sample (user + system of every thread: getrusage of the finished C++ process; time.process_time()
around the Python side's epochs, which leaves out starting Python and importing torch). Reported: each
side's median over rounds, the ratio Python / C++ of each round and their median (1.0: as fast), and
the Python side's own cost per batch (an epoch built ahead in full, then timed as the loop drains it).

Data: --images JPEGs (default 400) in 10 classes, made by bench/loader.py's make_image_folder (crops
of the real photos in <media>/images/jpeg resized to ImageNet-like sizes) into a temporary folder,
deleted afterwards; --data DIR uses an existing ImageFolder instead.
"""

import argparse
import json
import os
import resource
import statistics
import subprocess
import sys
import tempfile
import time

HERE = os.path.dirname(os.path.abspath(__file__))
DEFAULT_MEDIA = os.path.join(HERE, "..", "..", "shared", "media")


def parse_args():
    p = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    p.add_argument("--loom", help="the loom CLI (build/cli/loom)")
    p.add_argument("--media", default=DEFAULT_MEDIA)
    p.add_argument("--data", help="an existing ImageFolder instead of generated JPEGs")
    p.add_argument("--images", type=int, default=400)
    p.add_argument("--threads", type=int, default=2)
    p.add_argument("--batch", type=int, default=64)
    p.add_argument("--size", type=int, default=224)
    p.add_argument("--epochs", type=int, default=4)
    p.add_argument("--rounds", type=int, default=5)
    p.add_argument("--decode-crop", action="store_true", help="both sides decode only the crop")
    p.add_argument("--json", help="also write the results here")
    p.add_argument("--python-worker", metavar="DIR", help="internal: run the Python side on DIR, print JSON")
    args = p.parse_args()
    if not args.python_worker and not args.loom:
        p.error("--loom is required")
    return args


def python_worker(args):
    """The Python side, in its own process: one JSON line like `loom bench loader`'s."""
    import torch  # noqa: F401 -- loom imports it at the first batch: here, before the timers start

    import loom.data as ld

    dataset = ld.FolderDataset(args.python_worker)
    loader = ld.Loader(dataset, batch_size=args.batch, shuffle=True, num_threads=args.threads, fields=[
        ld.ImageField("image", layout="HWC", random_resized_crop=args.size, decode_crop=args.decode_crop,
                      horizontal_flip=0.5, normalize=(ld.IMAGENET_MEAN, ld.IMAGENET_STD)),
        ld.LabelField("label"),
    ])
    rates = []
    cpu_start = time.process_time()  # every thread of this process, from here: the loader's work only
    for _ in range(args.epochs):
        start = time.perf_counter()
        samples = 0
        for batch in loader:
            samples += batch["label"].shape[0]
        rates.append(samples / (time.perf_counter() - start))
    cpu = time.process_time() - cpu_start
    # The Python side's own cost per batch: with every batch of an epoch built ahead, the time the
    # loop takes to go through them (next(), the dict, two tensors through torch.from_dlpack).
    ready = ld.Loader(dataset, batch_size=args.batch, shuffle=True, num_threads=args.threads,
                      prefetch=len(loader), fields=loader.fields)
    next(iter(ready))  # starts the pipeline; one batch taken
    while ready.stats()["ready_batches"] < len(ready) - 1:
        time.sleep(0.01)
    start = time.perf_counter()
    drained = sum(1 for _ in ready)
    overhead_us = (time.perf_counter() - start) / drained * 1e6
    print(json.dumps({"epoch_samples_per_second": rates, "samples": len(dataset), "cpu_seconds": cpu,
                      "python_us_per_batch": overhead_us,
                      "stats": loader.stats()}))


def run_child(cmd, env=None):
    """(the child's last JSON line, its CPU seconds: user + system of the process and its threads)."""
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    proc = subprocess.run(cmd, capture_output=True, text=True, env=env, check=False)
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    if proc.returncode != 0:
        raise RuntimeError(f"{' '.join(cmd)} failed ({proc.returncode}): {proc.stderr.strip()}")
    cpu = (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime)
    return json.loads(proc.stdout.strip().splitlines()[-1]), cpu


def steady(rates):
    return statistics.median(rates[1:]) if len(rates) > 1 else rates[0]


def run_cpp(args, root):
    cmd = [args.loom, "bench", "loader", root, "--batch", str(args.batch), "--size", str(args.size), "--threads",
           str(args.threads), "--epochs", str(args.epochs)] + (["--decode-crop"] if args.decode_crop else [])
    result, cpu = run_child(cmd)
    return steady(result["epoch_samples_per_second"]), cpu / (result["samples"] * args.epochs) * 1e3


def run_python(args, root):
    cmd = [sys.executable, os.path.abspath(__file__), "--python-worker", root, "--batch", str(args.batch), "--size",
           str(args.size), "--threads", str(args.threads), "--epochs", str(args.epochs)]
    cmd += ["--decode-crop"] if args.decode_crop else []
    # CPU from inside: the epochs only, not starting Python and importing torch (about 1.5 s here),
    # which the C++ side does not pay (its figure includes listing the folder: milliseconds).
    result, _ = run_child(cmd, env=dict(os.environ))
    return (steady(result["epoch_samples_per_second"]),
            result["cpu_seconds"] / (result["samples"] * args.epochs) * 1e3, result["python_us_per_batch"])


def main():
    args = parse_args()
    if args.python_worker:
        return python_worker(args)
    sys.path.insert(0, HERE)
    import loader as loader_bench  # bench/loader.py's data set
    import benchlib

    with tempfile.TemporaryDirectory(prefix="loom-loader-python-") as tmp:
        root = args.data
        if root is None:
            root = os.path.join(tmp, "images")
            loader_bench.make_image_folder(root, args.images, 10, args.media)
        rounds = []
        for r in range(args.rounds):
            first_python = r % 2 == 1
            order = ("python", "cpp") if first_python else ("cpp", "python")
            got = {}
            for side in order:
                if side == "cpp":
                    got["cpp"] = run_cpp(args, root)
                else:
                    got["python"] = run_python(args, root)
            rounds.append({"cpp_samples_per_second": got["cpp"][0], "cpp_cpu_ms_per_sample": got["cpp"][1],
                           "python_samples_per_second": got["python"][0],
                           "python_cpu_ms_per_sample": got["python"][1], "python_us_per_batch": got["python"][2],
                           "ratio": got["python"][0] / got["cpp"][0],
                           "cpu_ratio": got["python"][1] / got["cpp"][1]})
            x = rounds[-1]
            print(f"round {r + 1}: C++ {x['cpp_samples_per_second']:7.1f}/s ({x['cpp_cpu_ms_per_sample']:.3f} ms CPU)"
                  f"  Python {x['python_samples_per_second']:7.1f}/s ({x['python_cpu_ms_per_sample']:.3f} ms CPU)"
                  f"  Python/C++ {x['ratio']:.3f} (CPU {x['cpu_ratio']:.3f})", flush=True)
        med = {k: statistics.median(x[k] for x in rounds) for k in rounds[0]}
        load = os.getloadavg()
        print(f"median of {args.rounds} rounds ({args.threads} threads, {args.epochs} epochs, batch {args.batch}, "
              f"{'decode-crop, ' if args.decode_crop else ''}{args.images if not args.data else 'given'} images):")
        print(f"  C++ `loom bench loader`: {med['cpp_samples_per_second']:.1f} samples/s, "
              f"{med['cpp_cpu_ms_per_sample']:.3f} ms CPU/sample")
        print(f"  Python loom.data.Loader: {med['python_samples_per_second']:.1f} samples/s, "
              f"{med['python_cpu_ms_per_sample']:.3f} ms CPU/sample")
        print(f"  Python's own cost: {med['python_us_per_batch']:.1f} us per batch of {args.batch} (every batch "
              f"built ahead: next(), the dict, the tensors through torch.from_dlpack)")
        print(f"  Python / C++: {med['ratio']:.3f} wall (median of the rounds' ratios), CPU {med['cpu_ratio']:.3f}")
        print(f"  load average {load[0]:.2f} {load[1]:.2f} {load[2]:.2f}")
        if args.json:
            with open(args.json, "w", encoding="utf-8") as f:
                json.dump({"machine": benchlib.machine_info(), "args": vars(args), "rounds": rounds, "median": med}, f, indent=1)
    return 0


if __name__ == "__main__":
    sys.exit(main())
