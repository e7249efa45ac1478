#!/usr/bin/python3
"""Plots the results of image_decode.py, convert_resize.py and resize.py into one PNG (docs/performance_images.png).

Run with Debian's Python: /usr/bin/python3 (python3-matplotlib).

    /usr/bin/python3 bench/plot.py --decode decode.json --convert convert.json --resize resize.json \
        [-o docs/performance_images.png]

Left: single-thread decode throughput per file group (the group's total time of each tool), relative
to Pillow (Pillow = 1, higher is faster), for loom (HWC and CHW), Pillow and OpenCV.
Middle: `loom convert --resize 256` of large JPEGs vs Pillow with and without draft(), one thread,
relative to Pillow with draft; loom also less its process start-up (dotted), Pillow as a command
(dotted), and loom on every core (hatched), for context.
Right: uint8 RGB antialiased resize, one thread, relative to Pillow, for loom on each SIMD target,
OpenCV (INTER_AREA down, INTER_LINEAR up) and torchvision's uint8 tensor resize.
With --noise-normalize (noise_normalize.py's JSON) a second PNG (-o2, default
docs/performance_transforms.png) shows uint8 GaussianNoise and the fused normalize, one thread, as
each peer's time over loom's for each loom SIMD target (higher is faster for loom).
With --loader (loader.py's JSON) a third PNG (-o3, default docs/performance_loader.png) shows the
training pipeline's samples/s per tool, samples per CPU second and loom's RSS over epochs; --loader alone draws only that one
(loader.py --plot draws it too).
"""

import argparse
import json
import os

import matplotlib

matplotlib.use("Agg")
import matplotlib.pyplot as plt  # noqa: E402 -- after choosing the backend

DOCS = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "docs")
DEFAULT_OUT = os.path.join(DOCS, "performance_images.png")
DEFAULT_OUT2 = os.path.join(DOCS, "performance_transforms.png")
DEFAULT_OUT3 = os.path.join(DOCS, "performance_loader.png")
COLORS = {"loom": "#1f77b4", "loom CHW": "#9ecae1", "Pillow": "#ff7f0e", "OpenCV": "#2ca02c", "torchvision": "#d62728"}


def parse_args():
    p = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    p.add_argument("--decode", help="JSON written by image_decode.py --json")
    p.add_argument("--convert", help="JSON written by convert_resize.py --json")
    p.add_argument("--resize", help="JSON written by resize.py --json")
    p.add_argument("--noise-normalize", help="JSON written by noise_normalize.py --json (second figure)")
    p.add_argument("-o", "--output", default=DEFAULT_OUT, help="PNG to write (default: docs/performance_images.png)")
    p.add_argument("-o2", "--output2", default=DEFAULT_OUT2,
                   help="second PNG, with --noise-normalize (default: docs/performance_transforms.png)")
    p.add_argument("--loader", help="JSON written by loader.py --json (third figure)")
    p.add_argument("-o3", "--output3", default=DEFAULT_OUT3, help="third PNG, with --loader (default: docs/performance_loader.png)")
    args = p.parse_args()
    trio = [args.decode, args.convert, args.resize]
    if (any(trio) and not all(trio)) or (not any(trio) and not args.loader):
        p.error("--decode, --convert and --resize are required (unless only --loader is given)")
    return args


def load(path):
    with open(path, encoding="utf-8") as f:
        return json.load(f)


def label_bars(ax, bars):
    for b in bars:
        ax.annotate(f"{b.get_height():.2f}", (b.get_x() + b.get_width() / 2, b.get_height()),
                    ha="center", va="bottom", fontsize=7)


def grouped_bars(ax, series, count, colors):
    """One group of bars per x position (count of them), one bar per series entry."""
    width = 0.8 / len(series)
    for i, (tool, values) in enumerate(series.items()):
        xs = [x + (i - (len(series) - 1) / 2) * width for x in range(count)]
        label_bars(ax, ax.bar(xs, values, width, label=tool, color=colors(i, tool)))
    ax.set_xticks(range(count))
    ax.axhline(1.0, color="gray", lw=0.8, ls=":")


def plot_decode(ax, decode):
    """Grouped bars: throughput relative to Pillow (Pillow time / tool time) per file group."""
    groups = decode["groups"]
    names = list(groups)
    series = {
        "loom": [g["pillow_s"] / g["loom_s"] for g in groups.values()],
        "loom CHW": [g["pillow_s"] / g["loom_chw_s"] for g in groups.values()],
        "Pillow": [1.0 for _ in groups.values()],
        # OpenCV over the files it decodes, scaled by loom's time on those same files.
        "OpenCV": [(g["pillow_s"] / g["loom_s"]) * (g["loom_s_opencv_files"] / g["opencv_s"]) if g["opencv_s"] else 0
                   for g in groups.values()],
    }
    grouped_bars(ax, series, len(names), lambda i, tool: COLORS[tool])
    ax.set_xticklabels([f"{n}\n{groups[n]['files']} files, {groups[n]['megapixels']:.1f} MP" for n in names], fontsize=8)
    ax.set_ylabel("decode throughput relative to Pillow (higher is faster)")
    ax.set_title("JPEG/PNG decode to RGB uint8, one thread", fontsize=10)
    ax.legend(fontsize=8)


def plot_convert(ax, convert):
    """Bars: images per second relative to Pillow with draft()."""
    best = convert["best_s"]
    ref = best["pillow_draft"]
    bars = [("loom convert\n-j 1", best["loom"], COLORS["loom"], None),
            ("loom -j 1\nless start-up", best["loom"] - convert["loom_startup_s"], COLORS["loom"], ".."),
            ("Pillow\ndraft()", best["pillow_draft"], COLORS["Pillow"], None),
            ("Pillow draft()\nas a command", best["pillow_draft_proc"], COLORS["Pillow"], ".."),
            ("Pillow\nno draft", best["pillow_nodraft"], "#fdd0a2", None)]
    if "loom_all_cores" in best:
        bars.append(("loom convert\nall cores", best["loom_all_cores"], COLORS["loom CHW"], "//"))
    for i, (name, t, color, hatch) in enumerate(bars):
        label_bars(ax, ax.bar([i], [ref / t], 0.6, color=color, hatch=hatch))
    ax.set_xticks(range(len(bars)))
    ax.set_xticklabels([b[0] for b in bars], fontsize=8)
    ax.axhline(1.0, color="gray", lw=0.8, ls=":")
    ax.set_ylabel("images/s relative to Pillow draft()")
    ax.set_title(f"--resize 256 of {convert['files']} large JPEGs to JPEG q75", fontsize=10)


def plot_resize(ax, resize):
    """Grouped bars per case: throughput relative to Pillow for loom's targets and OpenCV."""
    targets = list(resize[0]["loom_ms"])
    series = {f"loom {t}": [r["pillow_ms"] / r["loom_ms"][t] for r in resize] for t in targets}
    series["Pillow"] = [1.0 for _ in resize]
    series["OpenCV"] = [r["pillow_ms"] / r["opencv_ms"] for r in resize]
    if all(r.get("torch_u8_ms") for r in resize):
        series["torchvision"] = [r["pillow_ms"] / r["torch_u8_ms"] for r in resize]
    shades = ["#08519c", "#3182bd", "#6baed6", "#9ecae1", "#c6dbef", "#deebf7"]
    grouped_bars(ax, series, len(resize), lambda i, tool: COLORS.get(tool, shades[i % len(shades)]))
    ax.set_xticklabels([f"{r['in']}\n-> {r['out']}\n({r['opencv_mode']})" for r in resize], fontsize=8)
    ax.set_ylabel("resize throughput relative to Pillow")
    ax.set_title("uint8 RGB antialiased bilinear resize, one thread", fontsize=10)
    ax.legend(fontsize=7)


def plot_noise_normalize(rows, machine, output):
    """Per op: grouped bars per image size, peer time / loom time for each loom target and peer."""
    ops = [("gaussian_noise_u8", "noise", "uint8 GaussianNoise (sigma 0.1)", ["torch", "numpy"]),
           ("normalize_u8_hwc_to_chw", "normalize", "normalize uint8 HWC -> float32 CHW", ["torch", "numpy", "opencv"])]
    fig, axes = plt.subplots(1, len(ops), figsize=(14, 4.6))
    shades = ["#08519c", "#3182bd", "#6baed6", "#9ecae1", "#c6dbef", "#deebf7"]
    for ax, (op, kind, title, peers) in zip(axes, ops):
        targets = list(rows[0]["loom_ms"][op])
        series = {f"{peer} / loom {t}": [r["peers_ms"][kind][peer] / r["loom_ms"][op][t] for r in rows]
                  for peer in peers[:1] for t in targets}
        for peer in peers[1:]:
            best = [min(r["loom_ms"][op].values()) for r in rows]
            series[f"{peer} / loom best"] = [r["peers_ms"][kind][peer] / b for r, b in zip(rows, best)]
        grouped_bars(ax, series, len(rows), lambda i, tool: shades[i % len(shades)] if "torch" in tool
                     else ("#2ca02c" if "opencv" in tool else "#ff7f0e"))
        ax.set_xticklabels([r["size"] for r in rows], fontsize=8)
        ax.set_yscale("log")
        ax.set_ylabel("peer time / loom time (higher: loom faster)")
        ax.set_title(f"{title}, one thread", fontsize=10)
        ax.legend(fontsize=7)
    fig.suptitle(f"loom vs torch {machine.get('torch') or ''} / NumPy {machine['numpy']} / OpenCV {machine['opencv']} -- {machine['cpu']}, "
                 f"{machine['cores']} cores, {machine['date'][:10]}", fontsize=10)
    fig.tight_layout()
    fig.savefig(output, dpi=110)
    print(f"wrote {output}")


LOADER_COLORS = {"loom": COLORS["loom"], "loom_crop": "#6baed6", "loom_decode": "#c6dbef", "torch": COLORS["Pillow"],
                 "torch_v2": COLORS["torchvision"], "dali": COLORS["OpenCV"], "dali_fused": "#98df8a"}


def loader_tick(name, result):
    """A short two-line x label for one of loader.py's tools."""
    v = result.get("versions") or {}
    short = {k: ".".join(str(x).split("+")[0].split(".")[:2]) for k, x in v.items() if x}
    return {"loom": "loom", "loom_crop": "loom\n--decode-crop", "loom_decode": "loom\ndecode-only",
            "torch": f"torch {short.get('torch', '')}\nPIL", "torch_v2": f"torch {short.get('torch', '')}\nv2 uint8",
            "dali": f"DALI {short.get('dali', '')}\nCPU", "dali_fused": f"DALI {short.get('dali', '')}\ndecode-crop"}.get(name, name)


def plot_loader(data, output):
    """loader.py's results: steady samples/s per tool (left), samples per CPU second (middle), loom's RSS
    over the epochs of its RSS runs (right)."""
    results, machine = data["results"], data["machine"]
    fig, (left, middle, right) = plt.subplots(1, 3, figsize=(19, 4.8), gridspec_kw={"width_ratios": [1.4, 1.4, 1]})
    names = list(results)
    ffcv = data.get("ffcv_per_core", 860.0)
    panels = [(left, {n: results[n]["steady_samples_per_second"] for n in names}, ffcv * data["threads"],
               f"FFCV {ffcv:.0f}/s per core x {data['threads']}", "samples/s, steady state (higher is faster)",
               f"wall clock, {data['threads']} threads"),
              (middle, {n: 1e3 / results[n]["steady_cpu_ms_per_sample"] for n in names
                        if results[n].get("steady_cpu_ms_per_sample")}, ffcv, f"FFCV {ffcv:.0f}/s per core",
               "samples per CPU second (higher is cheaper)", "CPU time of all the tool's threads and processes")]
    for ax, values, line, line_label, ylabel, title in panels:
        shown = [n for n in names if n in values]
        bars = ax.bar(range(len(shown)), [values[n] for n in shown], 0.7,
                      color=[LOADER_COLORS.get(n, "#999999") for n in shown])
        for n, bar in zip(shown, bars):
            if n == "loom_decode":
                bar.set_hatch("//")
            text = f"{bar.get_height():.0f}/s"
            if "loom" in values and not n.startswith("loom"):
                text += f"\nloom {values['loom'] / bar.get_height():.2f}x"
            ax.annotate(text, (bar.get_x() + bar.get_width() / 2, bar.get_height()), ha="center", va="bottom", fontsize=7)
        ax.axhline(line, color="gray", lw=0.8, ls=":")
        ax.annotate(line_label, (len(shown) - 0.5, line), ha="right", va="bottom", fontsize=7, color="gray")
        ax.set_xticks(range(len(shown)))
        ax.set_xticklabels([loader_tick(n, results[n]) for n in shown], fontsize=7)
        ax.set_ylabel(ylabel, fontsize=8)
        ax.set_title(title, fontsize=9)
    rss = data.get("rss") or {"runs": {}}
    for i, (label, run) in enumerate(rss["runs"].items()):
        if not run:
            continue
        color = [COLORS["loom"], "#6baed6"][i % 2]
        right.plot([t for t, _ in run["trace"]], [r / 2**20 for _, r in run["trace"]], lw=0.8, label=label, color=color)
        for e in run["epochs"][1:]:
            right.axvline(e["start_s"], color=color, lw=0.5, ls=":")
    if rss["runs"]:
        budget = rss["budget_bytes"] / 2**20
        right.axhline(budget, color="gray", lw=0.8, ls="--")
        right.annotate(f"prefetch budget {rss['prefetch']} x {rss['batch_bytes'] / 2**20:.1f} MiB", (right.get_xlim()[1], budget),
                       ha="right", va="top", fontsize=7, color="gray")
    right.set_xlabel("seconds (dotted: epoch boundaries)", fontsize=8)
    right.set_ylabel("RSS, MiB", fontsize=8)
    epochs = len(next(iter(rss["runs"].values()), {}).get("epochs", []))
    right.set_title(f"loom bench loader RSS, {epochs} epochs", fontsize=9)
    right.legend(fontsize=7, loc="lower right")
    ds = data["dataset"]
    versions = ", ".join(sorted({results[n]["label"].split(" DataLoader")[0].split(" CPU")[0]
                                 for n in names if not n.startswith("loom")}))
    fig.suptitle(f"decode, RandomResizedCrop 224, flip, normalize, batch {data['batch']}, {data['threads']} threads, "
                 f"{ds['images']} JPEGs ~{ds['mean_megapixels']:.2f} MP: loom vs {versions} -- {machine['cpu']}, "
                 f"{machine['cores']} cores, {machine['date'][:10]}", fontsize=10)
    fig.tight_layout()
    fig.savefig(output, dpi=110)
    print(f"wrote {output}")

def main():
    args = parse_args()
    if args.loader:
        plot_loader(load(args.loader), args.output3)
        if not args.decode:
            return
    decode, convert = load(args.decode), load(args.convert)["convert"]
    resize = load(args.resize)["resize"]
    machine = decode["machine"]
    fig, (left, middle, right) = plt.subplots(1, 3, figsize=(18, 4.8), gridspec_kw={"width_ratios": [2.2, 1.2, 2]})
    plot_decode(left, decode)
    plot_convert(middle, convert)
    plot_resize(right, resize)
    fig.suptitle(f"loom vs Pillow {machine['pillow']} vs OpenCV {machine['opencv']} -- {machine['cpu']}, "
                 f"{machine['cores']} cores, {machine['date'][:10]}", fontsize=10)
    fig.tight_layout()
    fig.savefig(args.output, dpi=110)
    print(f"wrote {args.output}")
    if args.noise_normalize:
        data = load(args.noise_normalize)
        plot_noise_normalize(data["noise_normalize"], data["machine"], args.output2)


if __name__ == "__main__":
    main()
