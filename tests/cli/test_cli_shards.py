"""loom pack and the --shard-index/--num-shards split of convert, audio, frames and pack.

Shards are read back with Python's tarfile; labels are compared with torchvision's ImageFolder; a job
split among workers must write what one run writes, byte for byte.
"""
import csv
import hashlib
import json
import os
import posixpath
import tarfile
import wave
from pathlib import Path

import numpy as np
import pytest
from PIL import Image


def make_tree(root):
    """An ImageFolder tree: three classes (one with a sub-folder and a unicode name), PNG and JPEG
    files, a file name with dots, plus a file directly in the root (no class)."""
    rng = np.random.default_rng(5)
    files = {
        "cat/001.jpg": "JPEG", "cat/002.png": "PNG", "cat/sub/003.jpg": "JPEG",
        "dog/a.b.png": "PNG", "dog/004.JPG": "JPEG",
        "\u00e9l\u00e9phant/005.png": "PNG", "\u00e9l\u00e9phant/006.jpg": "JPEG",
        "bird/007.png": "PNG", "bird/008.png": "PNG", "bird/009.jpg": "JPEG",
    }
    for rel, fmt in files.items():
        path = root / rel
        path.parent.mkdir(parents=True, exist_ok=True)
        h, w = rng.integers(8, 40, size=2)
        Image.fromarray(rng.integers(0, 256, size=(h, w, 3), dtype=np.uint8)).save(path, fmt)
    return sorted(files)


def read_shard(path):
    """[(member name, bytes)] in archive order."""
    with tarfile.open(path) as tar:
        return [(m.name, tar.extractfile(m).read()) for m in tar.getmembers()]


def shard_files(folder):
    return sorted(p.name for p in folder.iterdir() if p.name.endswith(".tar"))


def digests(folder, suffix=".tar"):
    return {p.name: hashlib.sha256(p.read_bytes()).hexdigest() for p in folder.iterdir() if p.name.endswith(suffix)}


def index_samples(path):
    return json.loads(Path(str(path) + ".idx").read_text())["samples"]


def one_error(result):
    lines = [line for line in result.stderr.splitlines() if line and not line.startswith("Run with --help")]
    return len(lines) == 1, result.stderr


def test_pack_a_folder_reads_back_with_tarfile_and_imagefolder_labels(run_loom, tmp_path):
    from torchvision.datasets import ImageFolder

    root = tmp_path / "data"
    make_tree(root)
    result = run_loom("pack", root, "-o", tmp_path / "out" / "train-%06d.tar", "--shard-size", "4")
    assert result.returncode == 0, result.stderr
    assert shard_files(tmp_path / "out") == ["train-000000.tar", "train-000001.tar", "train-000002.tar"]

    members = []
    for name in shard_files(tmp_path / "out"):
        members += read_shard(tmp_path / "out" / name)
    folder = ImageFolder(str(root))
    want = []
    for path, label in sorted(folder.samples):  # loom's order: sorted by path
        rel = Path(path).relative_to(root)
        key = str(rel.parent / rel.stem.replace(".", "_"))
        want.append((key + rel.suffix.lower(), Path(path).read_bytes()))
        want.append((key + ".cls", str(label).encode()))
    assert members == want

    # The index beside each shard lists the same members at tarfile's offsets.
    with tarfile.open(tmp_path / "out" / "train-000000.tar") as tar:
        offsets = [[m.name, m.offset_data, m.size] for m in tar.getmembers()]
    listed = [[s["key"] + "." + m[0], m[1], m[2]] for s in index_samples(tmp_path / "out" / "train-000000.tar")
              for m in s["members"]]
    assert listed == offsets


def test_pack_passes_bytes_through_or_transforms_like_convert(run_loom, tmp_path):
    root = tmp_path / "data"
    make_tree(root)
    (root / "loose.png").write_bytes((root / "bird" / "007.png").read_bytes())  # no class: no .cls
    assert run_loom("pack", root, "-o", tmp_path / "raw-%d.tar", "--shard-size", "100").returncode == 0
    raw = dict(read_shard(tmp_path / "raw-0.tar"))
    assert raw["loose.png"] == (root / "loose.png").read_bytes()
    assert "loose.cls" not in raw

    result = run_loom("pack", root, "-o", tmp_path / "small-%d.tar", "--shard-size", "100", "--resize", "6x5",
                      "--format", "png", "-q")
    assert result.returncode == 0 and result.stderr == "", result.stderr
    assert run_loom("convert", root, "-o", tmp_path / "conv", "--resize", "6x5", "--format", "png", "-q").returncode == 0
    small = dict(read_shard(tmp_path / "small-0.tar"))
    for path in (tmp_path / "conv").rglob("*.png"):
        rel = path.relative_to(tmp_path / "conv")
        key = str(rel.parent / rel.stem.replace(".", "_")) if str(rel.parent) != "." else rel.stem.replace(".", "_")
        assert small[key + ".png"] == path.read_bytes(), rel
    assert all(name.endswith((".png", ".cls")) for name in small)


@pytest.mark.parametrize("extra", [[], ["--shard-bytes", "3K"]])
def test_pack_workers_together_write_what_one_run_writes(run_loom, tmp_path, extra):
    root = tmp_path / "data"
    make_tree(root)
    one = tmp_path / "one"
    assert run_loom("pack", root, "-o", one / "s-%04d.tar", "--shard-size", "3", *extra).returncode == 0
    split = tmp_path / "split"
    for i in range(4):
        result = run_loom("pack", root, "-o", split / "s-%04d.tar", "--shard-size", "3", *extra,
                          "--shard-index", i, "--num-shards", "4", "-j", str(1 + i % 2))
        assert result.returncode == 0, result.stderr
    assert len(digests(one)) >= 4
    assert digests(split) == digests(one)
    for name in shard_files(one):
        assert index_samples(split / name) == index_samples(one / name)


def test_pack_shard_index_from_slurm_and_kubernetes(run_loom, tmp_path):
    root = tmp_path / "data"
    make_tree(root)
    assert run_loom("pack", root, "-o", tmp_path / "one" / "s-%d.tar", "--shard-size", "2").returncode == 0
    for i, var in enumerate(["SLURM_ARRAY_TASK_ID", "JOB_COMPLETION_INDEX", "SLURM_ARRAY_TASK_ID"]):
        env = {k: v for k, v in os.environ.items() if k not in ("SLURM_ARRAY_TASK_ID", "JOB_COMPLETION_INDEX")}
        env[var] = str(i)
        result = run_loom("pack", root, "-o", tmp_path / "env" / "s-%d.tar", "--shard-size", "2", "--num-shards", "3",
                          env=env)
        assert result.returncode == 0, result.stderr
    assert digests(tmp_path / "env") == digests(tmp_path / "one")
    # Without --num-shards the variables are ignored: a plain run inside an array job does everything.
    env = dict(os.environ, SLURM_ARRAY_TASK_ID="7")
    assert run_loom("pack", root, "-o", tmp_path / "all" / "s-%d.tar", "--shard-size", "2", env=env).returncode == 0
    assert digests(tmp_path / "all") == digests(tmp_path / "one")
    env = dict(os.environ, SLURM_ARRAY_TASK_ID="x1")
    result = run_loom("pack", root, "-o", tmp_path / "bad" / "s-%d.tar", "--shard-size", "2", "--num-shards", "3",
                      env=env)
    assert result.returncode == 2 and "SLURM_ARRAY_TASK_ID" in result.stderr


def test_pack_refuses_what_would_not_read_back(run_loom, tmp_path):
    root = tmp_path / "data"
    make_tree(root)
    (root / "dog" / "a_b.png").write_bytes((root / "dog" / "a.b.png").read_bytes())  # same key as a.b.png
    result = run_loom("pack", root, "-o", tmp_path / "out" / "s-%d.tar", "--shard-size", "2")
    assert result.returncode == 1
    assert "its key 'dog/a_b' is also the key of" in result.stderr, result.stderr
    assert not (tmp_path / "out").exists()

    (root / "dog" / "a_b.png").unlink()
    assert run_loom("pack", root, "-o", tmp_path / "out" / "s-%d.tar", "--shard-size", "20").returncode == 0
    before = digests(tmp_path / "out")
    result = run_loom("pack", root, "-o", tmp_path / "out" / "s-%d.tar", "--shard-size", "20")
    assert result.returncode == 1 and "exists" in result.stderr, result.stderr
    assert digests(tmp_path / "out") == before
    assert run_loom("pack", root, "-o", tmp_path / "out" / "s-%d.tar", "--shard-size", "20", "--overwrite").returncode == 0
    assert digests(tmp_path / "out") == before


def test_pack_folder_labels_are_imagefolders_with_hidden_and_symlinked_class_folders(run_loom, tmp_path):
    """A hidden class folder still takes its index (ImageFolder counts it) though pack skips hidden
    names, and a symlinked class folder is walked as ImageFolder walks it."""
    from torchvision.datasets import ImageFolder

    root = tmp_path / "data"
    make_tree(root)
    (root / ".ipynb_checkpoints").mkdir()
    (root / ".ipynb_checkpoints" / "x.png").write_bytes((root / "bird" / "007.png").read_bytes())
    elsewhere = tmp_path / "elsewhere" / "zebra"
    elsewhere.mkdir(parents=True)
    (elsewhere / "z.png").write_bytes((root / "bird" / "008.png").read_bytes())
    (root / "zebra").symlink_to(elsewhere, target_is_directory=True)
    result = run_loom("pack", root, "-o", tmp_path / "out" / "s-%d.tar", "--shard-size", "100")
    assert result.returncode == 0, result.stderr
    packed = dict(read_shard(tmp_path / "out" / "s-0.tar"))

    folder = ImageFolder(str(root))
    assert folder.classes[0] == ".ipynb_checkpoints" and "zebra" in folder.classes
    want = {}
    for path, label in folder.samples:
        rel = Path(path).relative_to(root)
        if rel.parts[0].startswith("."):
            continue  # hidden names are not packed
        want[str(rel.parent / rel.stem.replace(".", "_")) + ".cls"] = str(label).encode()
    assert {name: data for name, data in packed.items() if name.endswith(".cls")} == want
    assert packed["zebra/z.png"] == (elsewhere / "z.png").read_bytes()


def manifest_key(path):
    """The key pack gives a manifest row: its path normalized, without a leading '/' or its extension,
    dots in the file name replaced by '_'."""
    rel = posixpath.normpath(path).lstrip("/")
    folder, name = posixpath.split(rel)
    stem, ext = posixpath.splitext(name)
    return posixpath.join(folder, stem.replace(".", "_")), ext[1:].lower()


def make_manifest_tree(root):
    """Images under root/img and root/more; returns their relative paths."""
    rng = np.random.default_rng(9)
    names = ["img/001.jpg", "img/002.png", "img/a.b.JPG", "more/deep/003.png", "more/004.jpg", "img/005.png",
             "img/006.jpg", "more/007.png", "img/008.png", "img/009.jpg"]
    for rel in names:
        path = root / rel
        path.parent.mkdir(parents=True, exist_ok=True)
        fmt = "JPEG" if rel.lower().endswith(".jpg") else "PNG"
        Image.fromarray(rng.integers(0, 256, size=(12, 10, 3), dtype=np.uint8)).save(path, fmt)
    return names


def expected_members(rows, base, classes):
    """What pack writes for JSON Lines `rows` (dicts) of a manifest in folder `base`, in row order:
    the file, then .cls when labelled, then .json (compact, in field order) when other fields remain."""
    members = []
    for row in rows:
        row = dict(row)
        path = row.pop("path")
        label = row.pop("label", None)
        key, ext = manifest_key(path)
        file = Path(path) if os.path.isabs(path) else base / path
        members.append((f"{key}.{ext}", file.read_bytes()))
        if label is not None:
            members.append((f"{key}.cls", str(classes.index(label) if isinstance(label, str) else label).encode()))
        if row:
            members.append((f"{key}.json", json.dumps(row, separators=(",", ":"), ensure_ascii=False).encode()))
    return members


def write_jsonl(path, rows):
    path.write_text("".join(json.dumps(row) + "\n" for row in rows))


def manifest_rows(root):
    """Rows in no sorted order: name and integer labels, none, boxes, nested fields, './', an absolute path."""
    return [
        {"path": "more/deep/003.png", "label": "dog", "boxes": [[1, 2, 5, 6], [0, 0, 3.5, 4]], "iscrowd": [0, 1]},
        {"path": "img/002.png", "label": "cat"},
        {"path": "./img/a.b.JPG", "label": "bird", "caption": "a bird, \u00e9crit"},
        {"path": "img/001.jpg"},
        {"path": str(root / "more" / "004.jpg"), "label": "cat", "meta": {"w": 10, "h": 12, "tags": ["x"]}},
        {"path": "img/005.png", "label": 7, "boxes": []},
        {"path": "img/006.jpg", "label": None, "keypoints": [[3, 4, 2]]},
        {"path": "more/007.png", "label": "dog"},
        {"path": "img/008.png", "label": "bird"},
        {"path": "img/009.jpg", "label": "cat"},
    ]


def test_pack_a_manifest_reads_back_with_tarfile(run_loom, tmp_path):
    root = tmp_path / "data"
    make_manifest_tree(root)
    rows = manifest_rows(root)
    write_jsonl(root / "train.jsonl", rows)
    result = run_loom("pack", root / "train.jsonl", "-o", tmp_path / "out" / "s-%d.tar", "--shard-size", "4", "-q")
    assert result.returncode == 0 and result.stderr == "", result.stderr
    assert shard_files(tmp_path / "out") == ["s-0.tar", "s-1.tar", "s-2.tar"]
    members = []
    for name in shard_files(tmp_path / "out"):
        members += read_shard(tmp_path / "out" / name)
    assert members == expected_members(rows, root, classes=["bird", "cat", "dog"])
    got = dict(members)
    assert json.loads(got["more/deep/003.json"]) == {"boxes": [[1, 2, 5, 6], [0, 0, 3.5, 4]], "iscrowd": [0, 1]}
    assert got["img/a_b.cls"] == b"0" and "img/001.cls" not in got and "img/001.json" not in got
    assert manifest_key(str(root / "more" / "004.jpg"))[0] + ".jpg" in got  # the absolute path, less its '/'


def test_pack_a_csv_manifest_puts_its_other_columns_in_json(run_loom, tmp_path):
    root = tmp_path / "data"
    make_manifest_tree(root)
    with open(root / "train.csv", "w", newline="") as f:
        writer = csv.writer(f)
        writer.writerow(["path", "label", "caption"])
        writer.writerow(["img/002.png", "3", "a cat, \"sitting\""])
        writer.writerow(["img/001.jpg", "", ""])
    result = run_loom("pack", root / "train.csv", "-o", tmp_path / "s-%d.tar", "--shard-size", "10")
    assert result.returncode == 0, result.stderr
    assert read_shard(tmp_path / "s-0.tar") == [
        ("img/002.png", (root / "img" / "002.png").read_bytes()), ("img/002.cls", b"3"),
        ("img/002.json", b'{"caption":"a cat, \\"sitting\\""}'),
        ("img/001.jpg", (root / "img" / "001.jpg").read_bytes()), ("img/001.json", b'{"caption":""}')]


@pytest.mark.parametrize("extra", [[], ["--shard-bytes", "1K"]])
def test_pack_manifest_workers_together_write_what_one_run_writes(run_loom, tmp_path, extra):
    root = tmp_path / "data"
    make_manifest_tree(root)
    write_jsonl(root / "train.jsonl", manifest_rows(root))
    one = tmp_path / "one"
    assert run_loom("pack", root / "train.jsonl", "-o", one / "s-%04d.tar", "--shard-size", "3", *extra).returncode == 0
    split = tmp_path / "split"
    for i in range(3):
        result = run_loom("pack", root / "train.jsonl", "-o", split / "s-%04d.tar", "--shard-size", "3", *extra,
                          "--shard-index", i, "--num-shards", "3", "-j", str(1 + i % 2))
        assert result.returncode == 0, result.stderr
    assert len(digests(one)) >= 3
    assert digests(split) == digests(one)
    for name in shard_files(one):
        assert index_samples(split / name) == index_samples(one / name)


def test_pack_several_manifests_share_one_class_list_in_path_order(run_loom, tmp_path):
    root = tmp_path / "data"
    make_manifest_tree(root)
    a = [{"path": "img/001.jpg", "label": "cat"}, {"path": "img/002.png", "label": "dog"}]
    b = [{"path": "more/004.jpg", "label": "bird"}, {"path": "more/007.png", "label": "cat"}]
    write_jsonl(root / "a.jsonl", a)
    write_jsonl(root / "b.jsonl", b)
    for order, out in (((root / "b.jsonl", root / "a.jsonl"), "ba"), ((root / "a.jsonl", root / "b.jsonl"), "ab")):
        result = run_loom("pack", *order, "-o", tmp_path / out / "s-%d.tar", "--shard-size", "10")
        assert result.returncode == 0, result.stderr
    assert digests(tmp_path / "ab") == digests(tmp_path / "ba")
    assert read_shard(tmp_path / "ab" / "s-0.tar") == expected_members(a + b, root, classes=["bird", "cat", "dog"])


def test_pack_refuses_bad_manifests_and_mixed_inputs(run_loom, tmp_path):
    root = tmp_path / "data"
    make_manifest_tree(root)
    out = tmp_path / "out" / "s-%d.tar"
    # The same key twice (one file listed twice; two spellings of one path): every problem, nothing written.
    write_jsonl(root / "dup.jsonl", [{"path": "img/001.jpg"}, {"path": "img/002.png"}, {"path": "img/./001.jpg"},
                                      {"path": "../outside.jpg"}])
    (tmp_path / "outside.jpg").write_bytes((root / "img" / "001.jpg").read_bytes())
    result = run_loom("pack", root / "dup.jsonl", "-o", out, "--shard-size", "2")
    assert result.returncode == 1
    assert f"(record 3 of {root / 'dup.jsonl'}): its key 'img/001' is also the key of" in result.stderr, result.stderr
    assert "(record 1 of" in result.stderr
    assert f"(record 4 of {root / 'dup.jsonl'}): member '../outside.jpg' has a '..' component" in result.stderr
    assert "nothing written" in result.stderr
    assert not (tmp_path / "out").exists()
    # A malformed row names the manifest and its line.
    (root / "bad.jsonl").write_text('{"path": "img/001.jpg"}\n{"path": 3}\n')
    result = run_loom("pack", root / "bad.jsonl", "-o", out, "--shard-size", "2")
    assert result.returncode == 1 and "bad.jsonl" in result.stderr and "line 2" in result.stderr, result.stderr
    assert not (tmp_path / "out").exists()
    # Manifests and folders together: a bad command line, one message.
    write_jsonl(root / "ok.jsonl", [{"path": "img/001.jpg"}])
    result = run_loom("pack", root / "img", root / "ok.jsonl", "-o", out, "--shard-size", "2")
    assert result.returncode == 2 and one_error(result)[0], result.stderr
    assert "is a manifest and" in result.stderr
    assert not (tmp_path / "out").exists()


def test_bench_loader_reads_packed_shards(run_loom, tmp_path):
    root = tmp_path / "data"
    make_tree(root)
    assert run_loom("pack", root, "-o", tmp_path / "out" / "s-%d.tar", "--shard-size", "4", "-q").returncode == 0
    for source in (tmp_path / "out" / "s-{0..2}.tar", tmp_path / "out" / "s-1.tar"):
        result = run_loom("bench", "loader", source, "--batch", "2", "--size", "8", "--threads", "2", "--epochs", "1")
        assert result.returncode == 0, result.stderr
        report = json.loads(result.stdout)
        assert report["samples"] == (10 if "{" in str(source) else 4), report
    result = run_loom("bench", "loader", tmp_path / "out" / "missing.tar", "--epochs", "1")
    assert result.returncode == 1 and "missing.tar" in result.stderr, result.stderr


def test_convert_workers_cover_every_input_once(run_loom, tmp_path):
    root = tmp_path / "data"
    make_tree(root)
    assert run_loom("convert", root, "-o", tmp_path / "one", "--format", "png", "-q").returncode == 0
    want = {p.relative_to(tmp_path / "one"): p.read_bytes() for p in (tmp_path / "one").rglob("*.png")}
    got = {}
    for i in range(3):
        out = tmp_path / f"part{i}"
        result = run_loom("convert", root, "-o", out, "--format", "png", "-q", "--shard-index", i, "--num-shards", "3")
        assert result.returncode == 0, result.stderr
        part = {p.relative_to(out): p.read_bytes() for p in out.rglob("*.png")}
        assert part and not (part.keys() & got.keys())
        got.update(part)
    assert got == want


def write_wav(path, seconds, rate=8000):
    t = np.arange(int(seconds * rate)) / rate
    samples = (np.sin(2 * np.pi * 440 * t) * 10000).astype("<i2")
    with wave.open(str(path), "wb") as w:
        w.setnchannels(1)
        w.setsampwidth(2)
        w.setframerate(rate)
        w.writeframes(samples.tobytes())


def test_audio_and_frames_workers_cover_everything_once(run_loom, media, tmp_path):
    (tmp_path / "wav").mkdir()
    for k in range(5):
        write_wav(tmp_path / "wav" / f"{k}.wav", 0.1 + k / 20)
    seen = []
    for i in range(2):
        out = tmp_path / f"audio{i}"
        result = run_loom("audio", tmp_path / "wav", "-o", out, "--format", "flac", "-q", "--shard-index", i,
                          "--num-shards", "2")
        assert result.returncode == 0, result.stderr
        seen += sorted(p.name for p in out.iterdir())
    assert sorted(seen) == [f"{k}.flac" for k in range(5)]

    video = media / "video" / "h265_video.mp4"
    assert run_loom("frames", video, "-o", tmp_path / "one", "--range", "0:7", "-q").returncode == 0
    frames = {}
    for i in range(3):
        out = tmp_path / f"frames{i}"
        result = run_loom("frames", video, "-o", out, "--range", "0:7", "-q", "--shard-index", i, "--num-shards", "3")
        assert result.returncode == 0, result.stderr
        part = {p.name: p.read_bytes() for p in out.glob("frame_*")}
        assert not (part.keys() & frames.keys())
        frames.update(part)
        # Each worker indexes its own part beside its frames.
        index = (out / f"frames-{i}-of-3.jsonl").read_text().splitlines()
        assert sorted(f"frame_{json.loads(line)['index']:06d}.png" for line in index) == sorted(part)
    assert frames == {p.name: p.read_bytes() for p in (tmp_path / "one").glob("frame_*")}


@pytest.mark.parametrize("args", [
    ["--shard-index", "1"],
    ["--num-shards", "2", "--shard-index", "2"],
    ["--num-shards", "0", "--shard-index", "0"],
    ["--num-shards", "2", "--shard-index", "-1"],
    ["--num-shards", "x"],
    ["--num-shards", "2"],  # no index, no environment
])
def test_bad_shard_flags_exit_2_with_one_message(run_loom, media, tmp_path, args):
    env = {k: v for k, v in os.environ.items() if k not in ("SLURM_ARRAY_TASK_ID", "JOB_COMPLETION_INDEX")}
    video = media / "video" / "h265_video.mp4"
    for command in (["convert", tmp_path, "-o", tmp_path / "o"], ["audio", tmp_path, "-o", tmp_path / "o"],
                    ["frames", video, "-o", tmp_path / "o"],
                    ["pack", tmp_path, "-o", tmp_path / "o" / "s-%d.tar", "--shard-size", "2"]):
        result = run_loom(*command, *args, env=env)
        assert result.returncode == 2, (command, args, result.stderr)
        assert one_error(result)[0], result.stderr
    assert not (tmp_path / "o").exists()


@pytest.mark.parametrize("args", [
    ["-o", "s.tar", "--shard-size", "2"],             # no shard number
    ["-o", "s-%d-%d.tar", "--shard-size", "2"],       # two
    ["-o", "s-%x.tar", "--shard-size", "2"],
    ["-o", "s-%d.tar"],                               # no --shard-size
    ["-o", "s-%d.tar", "--shard-size", "0"],
    ["-o", "s-%d.tar", "--shard-size", "2", "--shard-bytes", "12Q"],
    ["-o", "s-%d.tar", "--shard-size", "2", "--shard-bytes", "0"],
    ["-o", "s-%d.tar", "--shard-size", "2", "--resize", "0"],
])
def test_bad_pack_flags_exit_2_with_one_message(run_loom, tmp_path, args):
    result = run_loom("pack", tmp_path, *args, cwd=tmp_path)
    assert result.returncode == 2, (args, result.stderr)
    assert one_error(result)[0], result.stderr
    assert shard_files(tmp_path) == []
