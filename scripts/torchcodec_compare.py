"""Compare loom's video decoding (through the `loom` CLI) with TorchCodec's VideoDecoder.

Plain script, no test framework. For every video in the media folder, in both seek modes
("exact" and "approximate", default stream), it compares:
  * metadata: num_frames, average_fps, duration_seconds, begin/end_stream_seconds, width, height, codec
    (loom: `loom info` for exact, `loom info --no-scan` for approximate);
  * get_frames_at for indices [0, 1, middle, last, 4 seeded random, repeated, unsorted]: pts_seconds and
    duration_seconds per frame (TorchCodec's values against the exact-mode frame table, as loom's CLI names
    frames by index and does not print pts) and the max abs pixel difference with loom's PNG;
  * get_frames_played_at for some times (at pts values, between them, near the end): the frame chosen
    (TorchCodec's returned pts mapped to an index in the exact frame table vs the index loom writes).
When a frame differs by more than PIX_SUSPECT, the neighbouring frames are searched to tell a colour
difference from a different frame choice.

Usage (with a Python that has TorchCodec from PyPI, which Debian does not package):
  python scripts/torchcodec_compare.py [--loom PATH] [--media DIR] [--json OUT.json]
Needs torch, torchcodec (with FFmpeg 4-7 shared libraries), numpy, Pillow.
"""
import argparse
import json
import math
import os
import random
import subprocess
import sys
import tempfile

import numpy as np
from PIL import Image

import torchcodec
from torchcodec.decoders import VideoDecoder

HERE = os.path.dirname(os.path.abspath(__file__))
DEFAULT_LOOM = os.path.join(HERE, "..", "build", "cli", "loom")
DEFAULT_MEDIA = os.path.join(HERE, "..", "..", "shared", "media", "video")
TOL_T = 1e-6          # seconds: timestamps equal below this
PIX_SUSPECT = 40      # max abs diff above which we look for a better matching neighbour frame


def run_loom(loom, args):
    p = subprocess.run([loom] + args, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    return p.returncode, p.stdout, p.stderr


def loom_info(loom, path, scan):
    rc, out, err = run_loom(loom, ["info", path] + ([] if scan else ["--no-scan"]))
    if rc != 0:
        return {"error": err.strip()}
    return json.loads(out.splitlines()[0])


def loom_frames(loom, path, mode, selector, value):
    """Returns ({index: HWC uint8 array}, error or None)."""
    with tempfile.TemporaryDirectory() as d:
        rc, out, err = run_loom(loom, ["frames", path, "-o", d, selector, value, "--seek", mode,
                                       "--format", "png", "-j", "1", "-q", "--compression", "0"])
        frames = {}
        for name in sorted(os.listdir(d)):
            if name.startswith("frame_") and name.endswith(".png"):
                frames[int(name[6:-4])] = np.asarray(Image.open(os.path.join(d, name)).convert("RGB"))
        return frames, (err.strip() or "rc=%d" % rc) if rc != 0 else None


def fnum(x):
    return None if x is None else float(x)


def close(a, b, tol=TOL_T):
    if a is None or b is None:
        return a is None and b is None
    if isinstance(a, float) or isinstance(b, float):
        if math.isnan(a) or math.isnan(b):
            return False
        return abs(float(a) - float(b)) <= tol * max(1.0, abs(float(a)))
    return a == b


def tc_metadata(dec):
    m = dec.metadata
    return {
        "num_frames": m.num_frames,
        "average_fps": fnum(m.average_fps),
        "duration_seconds": fnum(m.duration_seconds),
        "begin_stream_seconds": fnum(m.begin_stream_seconds),
        "end_stream_seconds": fnum(m.end_stream_seconds),
        "width": m.width,
        "height": m.height,
        "codec": m.codec,
    }


def loom_metadata(info):
    if "error" in info:
        return {k: "ERR" for k in ("num_frames", "average_fps", "duration_seconds", "begin_stream_seconds",
                                   "end_stream_seconds", "width", "height", "codec")}
    return {
        "num_frames": info.get("num_frames"),
        "average_fps": fnum(info.get("fps")),
        "duration_seconds": fnum(info.get("duration")),
        "begin_stream_seconds": fnum(info.get("begin")),
        "end_stream_seconds": fnum(info.get("end")),
        "width": info.get("width"),
        "height": info.get("height"),
        "codec": info.get("codec"),
    }


def index_of_pts(table, pts):
    """Index of pts in the exact frame table (nearest; None when farther than 1 ms)."""
    if table is None or len(table) == 0:
        return None
    i = int(np.argmin(np.abs(table - pts)))
    return i if abs(table[i] - pts) < 1e-3 else None


def choose_indices(n, seed):
    if n <= 0:
        return []
    rng = random.Random(seed)
    base = [0, min(1, n - 1), n // 2, n - 1] + [rng.randrange(n) for _ in range(4)]
    # unsorted, with repeats: last first, then middle twice, then 0 again
    seq = [base[3], base[0], base[2], base[1]] + base[4:] + [base[2], base[0]]
    return seq


def choose_times(table, durations, end):
    """(label, seconds) pairs; table is the exact pts table in presentation order."""
    n = len(table)
    out = []
    if n == 0:
        return out
    ks = sorted(set([0, min(1, n - 1), n // 2, n - 1]))
    for k in ks:
        out.append(("at pts[%d]" % k, float(table[k])))
    for k in sorted(set([0, n // 3, n // 2, n - 2])):
        if 0 <= k < n - 1:
            out.append(("mid pts[%d..%d]" % (k, k + 1), float((table[k] + table[k + 1]) / 2)))
    for k in sorted(set([1, n // 2])):
        if 0 < k < n:
            out.append(("pts[%d]-1us" % k, float(table[k] - 1e-6)))
    if end is not None:
        out.append(("end-1ms", float(end - 1e-3)))
        out.append(("end-1us", float(end - 1e-6)))
    last_end = float(table[-1] + durations[-1])
    out.append(("last pts+dur/2", float(table[-1] + durations[-1] / 2)))
    if end is None or abs(last_end - end) > 1e-9:
        out.append(("last pts+dur-1us", last_end - 1e-6))
    return out


def pixel_diff(tc_chw, loom_hwc):
    a = tc_chw.permute(1, 2, 0).numpy()
    if a.shape != loom_hwc.shape:
        return None, "shape tc %s loom %s" % (a.shape, loom_hwc.shape)
    d = np.abs(a.astype(np.int16) - loom_hwc.astype(np.int16))
    return int(d.max()), float(d.mean())


def best_neighbour(dec_exact, idx, loom_hwc, n):
    best = None
    for j in [idx] + [k for k in range(max(0, idx - 3), min(n, idx + 4)) if k != idx]:
        if j >= n:
            continue
        f = dec_exact.get_frame_at(j).data
        mx, mean = pixel_diff(f, loom_hwc)
        if mx is None:
            continue
        if best is None or mean < best[2]:
            best = (j, mx, mean)
    return best


def compare_file(loom, path, seed, report):
    name = os.path.basename(path)
    res = {"file": name, "modes": {}}
    try:
        dec_exact = VideoDecoder(path, seek_mode="exact")
        n_exact = dec_exact.metadata.num_frames
    except Exception as e:  # noqa: BLE001
        res["exact_open_error"] = str(e).splitlines()[0]
        dec_exact, n_exact = None, 0
    try:
        allf = dec_exact.get_frames_in_range(0, n_exact)
        table = allf.pts_seconds.double().numpy()
        durs = allf.duration_seconds.double().numpy()
    except (RuntimeError, AttributeError):
        # TorchCodec's num_frames counts packets; fewer frames may decode (e.g. VP9 hidden frames)
        pts, dd = [], []
        for i in range(n_exact):
            try:
                f = dec_exact.get_frame_at(i)
            except RuntimeError:
                break
            pts.append(float(f.pts_seconds))
            dd.append(float(f.duration_seconds))
        table, durs = np.array(pts), np.array(dd)
        res["decodable_frames"] = len(table)
    n_exact = len(table)
    res["pts_sorted"] = bool(np.all(np.diff(table) > 0))
    info_scan = loom_info(loom, path, True)
    info_noscan = loom_info(loom, path, False)

    for mode in ("exact", "approximate"):
        mres = {"metadata": {}, "indices": [], "times": [], "errors": []}
        try:
            dec = VideoDecoder(path, seek_mode=mode) if mode == "approximate" else dec_exact
            if dec is None:
                raise RuntimeError(res["exact_open_error"])
        except Exception as e:  # noqa: BLE001
            mres["errors"].append("torchcodec %s open: %s" % (mode, e))
            res["modes"][mode] = mres
            continue
        tcm = tc_metadata(dec)
        lm = loom_metadata(info_scan if mode == "exact" else info_noscan)
        for k in tcm:
            mres["metadata"][k] = {"tc": tcm[k], "loom": lm[k], "equal": close(tcm[k], lm[k])}

        # ---- get_frames_at
        n = tcm["num_frames"] or 0
        if isinstance(lm["num_frames"], int) and lm["num_frames"] > 0:
            n = min(n, lm["num_frames"]) if n else lm["num_frames"]
        idx = choose_indices(n, seed)
        tc_batch, tc_err = None, None
        if idx:
            try:
                tc_batch = dec.get_frames_at(indices=idx)
            except Exception as e:  # noqa: BLE001
                tc_err = str(e).splitlines()[0]
            lf, l_err = loom_frames(loom, path, mode, "--indices", ",".join(str(i) for i in idx))
            if tc_err or l_err:
                mres["errors"].append("get_frames_at %s: tc=%s loom=%s" % (idx, tc_err, l_err))
            for p, i in enumerate(idx):
                row = {"index": i, "exact_pts": float(table[i]) if i < len(table) else None,
                       "exact_dur": float(durs[i]) if i < len(durs) else None}
                if tc_batch is not None:
                    row["tc_pts"] = float(tc_batch.pts_seconds[p])
                    row["tc_dur"] = float(tc_batch.duration_seconds[p])
                    row["tc_index"] = index_of_pts(table, row["tc_pts"])
                if tc_batch is not None and i in lf:
                    mx, mean = pixel_diff(tc_batch.data[p], lf[i])
                    row["max_diff"], row["mean_diff"] = mx, mean
                    if mx is not None and mx > PIX_SUSPECT:
                        row["loom_best_match"] = best_neighbour(dec_exact, i, lf[i], n_exact)
                elif i not in lf:
                    row["loom_missing"] = True
                mres["indices"].append(row)

        # ---- get_frames_played_at
        for label, t in choose_times(table, durs, tcm["end_stream_seconds"]):
            row = {"label": label, "t": t}
            try:
                b = dec.get_frames_played_at(seconds=[t])
                row["tc_pts"] = float(b.pts_seconds[0])
                row["tc_index"] = index_of_pts(table, row["tc_pts"])
                tc_frame = b.data[0]
            except Exception as e:  # noqa: BLE001
                row["tc_error"] = str(e).splitlines()[0][:120]
                tc_frame = None
            lf, l_err = loom_frames(loom, path, mode, "--times", repr(t))
            if l_err:
                row["loom_error"] = l_err.splitlines()[0][:120]
            if lf:
                li = next(iter(lf))
                row["loom_index"] = li
                if tc_frame is not None:
                    row["max_diff"], row["mean_diff"] = pixel_diff(tc_frame, lf[li])
            row["same_choice"] = (row.get("tc_index") == row.get("loom_index")
                                  and ("tc_error" in row) == ("loom_error" in row))
            if not row["same_choice"] and row.get("mean_diff") is not None and "loom_error" not in row:
                # same frame when the pictures agree (colour conversion aside: bicubic vs bilinear chroma
                # on 10-bit gives a mean diff of 1-2): loom names frames by its own index, which in
                # approximate mode is the header-derived one, not the exact table's
                row["same_choice"] = row["mean_diff"] < 3.0
            mres["times"].append(row)
        res["modes"][mode] = mres
    report.append(res)
    return res


def fmt(v):
    if isinstance(v, float):
        return "%.6g" % v
    return str(v)


def print_file(res):
    print("=" * 100)
    print(res["file"], "" if res.get("pts_sorted", True) else "(pts table not increasing)",
          "(TorchCodec exact: only %d frames decode)" % res["decodable_frames"] if "decodable_frames" in res else "")
    if "exact_open_error" in res:
        print("  TorchCodec exact open failed:", res["exact_open_error"])
    for mode, m in res["modes"].items():
        print("  [%s]" % mode)
        for e in m["errors"]:
            print("    error:", e)
        diffs = ["%s tc=%s loom=%s" % (k, fmt(v["tc"]), fmt(v["loom"])) for k, v in m["metadata"].items()
                 if not v["equal"]]
        print("    metadata: %s" % ("all equal" if not diffs else "; ".join(diffs)))
        if m["indices"]:
            print("    %-6s %-12s %-12s %-10s %-10s %-8s %-8s %s" % ("index", "tc_pts", "exact_pts", "tc_dur",
                                                                    "exact_dur", "maxdiff", "meandiff", "note"))
            for r in m["indices"]:
                note = []
                if "tc_pts" in r and not close(r["tc_pts"], r["exact_pts"]):
                    note.append("TC pts != exact table (tc frame %s)" % r.get("tc_index"))
                if "tc_dur" in r and not close(r["tc_dur"], r["exact_dur"]):
                    note.append("dur differs")
                if r.get("loom_missing"):
                    note.append("loom wrote no frame")
                if r.get("loom_best_match"):
                    j, mx, mean = r["loom_best_match"]
                    note.append("loom best matches exact frame %d (max %d, mean %.2f)" % (j, mx, mean))
                print("    %-6d %-12s %-12s %-10s %-10s %-8s %-8s %s" % (
                    r["index"], fmt(r.get("tc_pts")), fmt(r["exact_pts"]), fmt(r.get("tc_dur")),
                    fmt(r["exact_dur"]), fmt(r.get("max_diff")),
                    "%.3f" % r["mean_diff"] if r.get("mean_diff") is not None else "-", "; ".join(note)))
        if m["times"]:
            print("    %-22s %-14s %-8s %-8s %-7s %s" % ("time", "t", "tc_idx", "loom_idx", "maxdiff", "note"))
            for r in m["times"]:
                note = []
                if "tc_error" in r:
                    note.append("tc error: " + r["tc_error"])
                if "loom_error" in r:
                    note.append("loom error: " + r["loom_error"])
                if not r["same_choice"]:
                    note.append("DIFFERENT CHOICE")
                print("    %-22s %-14.9g %-8s %-8s %-7s %s" % (r["label"], r["t"], fmt(r.get("tc_index")),
                                                             fmt(r.get("loom_index")), fmt(r.get("max_diff")),
                                                             "; ".join(note)))


def summarize(report):
    print("=" * 100)
    print("SUMMARY (torchcodec %s)" % torchcodec.__version__)
    hdr = "%-52s %-5s %-30s %-16s %-9s %-12s %-10s" % ("file", "mode", "metadata diffs", "index pts==exact",
                                                       "pix max", "times agree", "choice diff")
    print(hdr)
    for res in report:
        for mode, m in res["modes"].items():
            md = [k for k, v in m["metadata"].items() if not v["equal"]]
            rows = m["indices"]
            pts_ok = sum(1 for r in rows if "tc_pts" in r and close(r["tc_pts"], r["exact_pts"])
                         and close(r["tc_dur"], r["exact_dur"]))
            pix = [r["max_diff"] for r in rows if r.get("max_diff") is not None]
            choice = sum(1 for r in rows if r.get("loom_best_match") and r["loom_best_match"][0] != r["index"])
            tagree = sum(1 for r in m["times"] if r["same_choice"])
            print("%-52s %-5s %-30s %-16s %-9s %-12s %-10s" % (
                res["file"][:52], mode[:5], ",".join(md) or "-", "%d/%d" % (pts_ok, len(rows)),
                max(pix) if pix else "-", "%d/%d" % (tagree, len(m["times"])), choice))


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--loom", default=os.environ.get("LOOM", DEFAULT_LOOM))
    ap.add_argument("--media", default=DEFAULT_MEDIA)
    ap.add_argument("--json")
    ap.add_argument("--seed", type=int, default=0)
    ap.add_argument("files", nargs="*")
    a = ap.parse_args()
    files = a.files or sorted(os.path.join(a.media, f) for f in os.listdir(a.media)
                              if os.path.isfile(os.path.join(a.media, f)))
    report = []
    for f in files:
        res = compare_file(a.loom, f, a.seed, report)
        print_file(res)
        sys.stdout.flush()
    summarize(report)
    if a.json:
        with open(a.json, "w") as fh:
            json.dump(report, fh, indent=1, default=str)


if __name__ == "__main__":
    main()
