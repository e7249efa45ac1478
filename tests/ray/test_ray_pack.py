"""loom.ray on a local Ray cluster (one machine, no network): shards written by Ray workers are byte
for byte those of `loom pack --num-shards N --shard-index I`, a corrupt input is reported in the summary
while the job goes on, and the Ray-fed loader decodes loom's shards back.

Runs in the Ray venv (scripts/ray_venv.sh; numpy 2, no torch), not with Debian's python3:
  BUILD/ray-venv/bin/python -m pytest -q tests/ray --loom=BUILD/cli/loom --media=../shared/media
"""
import hashlib
import os
import shutil
from pathlib import Path

import numpy as np
import pytest
import ray

import loom
import loom.pack
import loom.ray

SHARD_SIZE = 3
WORKERS = 2  # the CLI's --num-shards
IMAGES = {  # class folder -> media files
    "cat": ["jpeg/hopper.jpg", "jpeg/flower.jpg", "jpeg/hopper_gray.jpg", "png/hopper_bw_500.png"],
    "dog": ["jpeg/jfif_unit_cm.jpg", "jpeg/app13.jpg", "png/exif.png", "jpeg/iptc.jpg", "png/delay.png"],
}
BROKEN = "dog/broken.jpg"  # named .jpg, not an image: packs as bytes, fails a decode


@pytest.fixture(scope="module")
def data(media, tmp_path_factory):
    root = tmp_path_factory.mktemp("data") / "train"
    for cls, files in IMAGES.items():
        (root / cls).mkdir(parents=True)
        for f in files:
            shutil.copy(media / "images" / f, root / cls / Path(f).name)
    (root / BROKEN).write_bytes(b"not an image at all, though named .jpg\n" * 20)
    return root


@pytest.fixture(scope="module")
def cli_shards(run_loom, data, tmp_path_factory):
    """The folder of the shards `loom pack` writes, split among WORKERS workers."""
    out = tmp_path_factory.mktemp("cli")
    for index in range(WORKERS):
        result = run_loom("pack", data, "-o", out / "s-%03d.tar", "--shard-size", SHARD_SIZE, "--num-shards",
                          WORKERS, "--shard-index", index, "-q", timeout=120)
        assert result.returncode == 0, result.stderr
    return out


def digests(folder):
    return {p.name: hashlib.sha256(p.read_bytes()).hexdigest() for p in sorted(folder.glob("*.tar"))}


def samples_of(data):
    return sum(len(v) for v in IMAGES.values()) + 1


def test_ray_shards_equal_the_cli_shards(cluster, data, cli_shards, tmp_path):
    summary = loom.ray.pack([data], str(tmp_path / "s-%03d.tar"), SHARD_SIZE)  # Ray picks the actors
    assert summary["errors"] == []
    assert summary["samples"] == samples_of(data)
    expected = digests(cli_shards)
    assert len(expected) == -(-samples_of(data) // SHARD_SIZE)
    assert digests(tmp_path) == expected
    assert [row["shard"] for row in summary["shards"]] == list(range(len(expected)))
    assert all(row["ok"] and row["error"] == "" for row in summary["shards"])


def test_corrupt_input_is_in_the_summary_and_the_job_goes_on(cluster, run_loom, data, cli_shards, tmp_path):
    planned = loom.pack.plan([data], SHARD_SIZE)
    broken = next(i for i, e in enumerate(planned.entries) if e["relative"] == BROKEN)
    bad_shard = next(s for s, (b, e) in enumerate(planned.shards) if b <= broken < e)

    summary = loom.ray.pack([data], str(tmp_path / "s-%03d.tar"), SHARD_SIZE, verify=True, concurrency=2)
    assert len(summary["errors"]) == 1, summary
    assert str(data / BROKEN) in summary["errors"][0]
    bad = summary["shards"][bad_shard]
    assert not bad["ok"] and bad["error"] == summary["errors"][0]
    assert not (tmp_path / f"s-{bad_shard:03d}.tar").exists()
    # Every other shard is written, equal to the CLI's.
    expected = digests(cli_shards)
    del expected[f"s-{bad_shard:03d}.tar"]
    assert digests(tmp_path) == expected
    begin, end = planned.shards[bad_shard]
    assert summary["samples"] == samples_of(data) - (end - begin)
    # The cluster still takes work.
    assert ray.data.range(10).count() == 10

    # `loom pack --verify` refuses the same shard with the same message, and writes the rest.
    cli = tmp_path / "cli"
    result = run_loom("pack", data, "-o", cli / "s-%03d.tar", "--shard-size", SHARD_SIZE, "--verify", "-q",
                      timeout=120)
    assert result.returncode == 1
    assert summary["errors"][0] in result.stderr
    assert digests(cli) == expected


def test_ray_fed_loader_decodes_loom_shards(cluster, data, cli_shards):
    """read_webdataset over the CLI's shards (a column per member name; no decoder), the JPEG samples
    but the broken one, through loom.ray.iter_batches: every sample once, with its label."""
    planned = loom.pack.plan([data], SHARD_SIZE)
    broken_key = BROKEN.rsplit(".", 1)[0]
    labels = {e["key"]: e["label"] for e in planned.entries if e["name"] == "jpg" and e["key"] != broken_key}
    shards = [str(p) for p in sorted(cli_shards.glob("*.tar"))]
    dataset = ray.data.read_webdataset(shards, decoder=None).filter(
        lambda row: isinstance(row.get("jpg"), bytes) and row["__key__"] != broken_key)
    seen = {}
    for batch in loom.ray.iter_batches(dataset, 4, size=(40, 56), threads=2):
        images = batch["jpg"]
        assert isinstance(images, np.ndarray) and images.dtype == np.uint8
        assert images.shape == (len(batch["__key__"]), 3, 40, 56)
        for key, cls in zip(batch["__key__"], batch["cls"]):
            assert str(key) not in seen
            seen[str(key)] = int(bytes(cls))
    assert seen == labels
    # A DataIterator (what Ray Train's get_dataset_shard returns) feeds it the same way.
    keys = [str(k) for b in loom.ray.iter_batches(dataset.iterator(), 5, size=(8, 8)) for k in b["__key__"]]
    assert sorted(keys) == sorted(labels)


def test_more_threads_than_a_node_has_is_an_error_not_a_wait(cluster, data, tmp_path):
    with pytest.raises(ValueError, match="threads=3: no node"):
        loom.ray.pack([data], str(tmp_path / "x-%06d.tar"), SHARD_SIZE, threads=3)
    assert list(tmp_path.iterdir()) == []


def test_a_plan_with_errors_starts_nothing(data, tmp_path):
    with pytest.raises(loom.InvalidInputError, match="nothing written"):
        loom.ray.shard_rows([data, tmp_path / "missing"], str(tmp_path / "s-%d.tar"), SHARD_SIZE)
    rows = loom.ray.shard_rows([data], str(tmp_path / "s-%d.tar"), SHARD_SIZE)
    assert [r["shard"] for r in rows] == list(range(len(rows)))
    assert rows[1]["path"] == str(tmp_path / "s-1.tar")


def test_decode_batch_at_full_size_is_the_decode(media):
    """The native step against loom.io: at an image's own size nothing is scaled or resized, so each
    slot of the batch equals loom.io.decode_image (numpy 2 output through the buffer protocol)."""
    encoded = (media / "images" / "jpeg" / "hopper.jpg").read_bytes()
    single = loom.io.decode_image(encoded, mode="RGB")
    assert isinstance(single, np.ndarray)
    _, height, width = single.shape
    batch = loom.ray._native.decode_batch([encoded, encoded], (height, width), "RGB", "CHW", 2)
    assert batch.shape == (2, 3, height, width)
    np.testing.assert_array_equal(batch[0], single)
    np.testing.assert_array_equal(batch[1], single)
    hwc = loom.ray._native.decode_batch([encoded], (height, width), "RGB", "HWC", 1)
    np.testing.assert_array_equal(hwc[0], single.transpose(1, 2, 0))
    # Resized: the same picture at another size (mean within 2 levels of the full-size mean).
    small = loom.ray._native.decode_batch([encoded], (height // 3, width // 2), "RGB", "CHW", 1)
    assert small.shape == (1, 3, height // 3, width // 2)
    assert abs(small.mean() - single.mean()) < 2.0
    with pytest.raises(loom.Error, match="image 1 of the batch"):
        loom.ray._native.decode_batch([encoded, b"garbage"], (8, 8), "RGB", "CHW", 1)
