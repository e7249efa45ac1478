"""loom.pack against `loom pack`: the same plan and byte-identical shards through the same C++ code."""
import hashlib
import json
import shutil
import tarfile
from pathlib import Path

import pytest

import loom
import loom.pack

FILES = {"cat": ["jpeg/hopper.jpg", "png/hopper_bw_500.png", "jpeg/flower.jpg"],
         "dog": ["jpeg/app13.jpg", "jpeg/iptc.jpg"]}


@pytest.fixture()
def data(media, tmp_path):
    root = tmp_path / "train"
    for cls, files in FILES.items():
        (root / cls).mkdir(parents=True)
        for f in files:
            shutil.copy(media / "images" / f, root / cls / Path(f).name)
    return root


def digests(folder):
    return {p.name: hashlib.sha256(p.read_bytes()).hexdigest() for p in sorted(folder.glob("*.tar"))}


def test_plan_sorts_labels_and_cuts_as_the_command_does(data):
    overlapping = loom.pack.plan([data / "dog", data], 2)  # keys "app13" and "dog/app13": no clash
    assert overlapping.errors == [] and len(overlapping.entries) == 7
    planned = loom.pack.plan([data], 2)
    assert planned.errors == []
    assert [e["relative"] for e in planned.entries] == [
        "cat/flower.jpg", "cat/hopper.jpg", "cat/hopper_bw_500.png", "dog/app13.jpg", "dog/iptc.jpg"]
    assert [e["label"] for e in planned.entries] == [0, 0, 0, 1, 1]
    assert [e["key"] for e in planned.entries][:2] == ["cat/flower", "cat/hopper"]
    assert planned.shards == [(0, 2), (2, 4), (4, 5)]
    assert planned.shard_entries(2)[0]["name"] == "jpg"
    json.dumps(planned.entries)  # entries travel as JSON (loom.ray's rows)


def test_plan_errors_are_listed(data, tmp_path):
    (data / "cat" / "hopper.png").write_bytes((data / "cat" / "hopper_bw_500.png").read_bytes())
    planned = loom.pack.plan([data, tmp_path / "missing"], 2)
    assert any("its key 'cat/hopper' is also the key of" in e for e in planned.errors)
    assert any("missing" in e for e in planned.errors)
    summary = loom.pack.pack([data], str(tmp_path / "o" / "s-%d.tar"), 2)
    assert summary["shards"] == [] and summary["errors"]
    assert not (tmp_path / "o").exists()
    with pytest.raises(loom.InvalidInputError, match="manifest"):
        loom.pack.plan([data, tmp_path / "rows.jsonl"], 2)
    with pytest.raises(loom.InvalidInputError):
        loom.pack.plan([data], 0)


@pytest.mark.parametrize("workers", [1, 2, 3])
def test_shards_equal_the_cli_shards(run_loom, data, tmp_path, workers):
    cli, py = tmp_path / "cli", tmp_path / "py"
    result = run_loom("pack", data, "-o", cli / "s-%04d.tar", "--shard-size", 2, "-q")
    assert result.returncode == 0, result.stderr
    written = 0
    for index in range(workers):
        summary = loom.pack.pack([data], str(py / "s-%04d.tar"), 2, num_shards=workers, shard_index=index,
                                 threads=2)
        assert summary["errors"] == []
        written += summary["samples"]
    assert written == 5
    assert digests(py) == digests(cli) and len(digests(cli)) == 3
    with tarfile.open(py / "s-0000.tar") as tar:
        assert tar.getnames() == ["cat/flower.jpg", "cat/flower.cls", "cat/hopper.jpg", "cat/hopper.cls"]


def test_a_sample_that_fails_fails_only_its_shard(run_loom, data, tmp_path):
    (data / "dog" / "broken.jpg").write_bytes(b"not an image\n" * 10)
    summary = loom.pack.pack([data], str(tmp_path / "s-%d.tar"), 2, verify=True)
    assert [s["ok"] for s in summary["shards"]] == [True, True, False]
    bad = summary["shards"][2]
    assert bad["failed_sample"] == 0 and bad["samples"] == 0
    assert bad["error"].startswith(str(data / "dog" / "broken.jpg") + ": ")
    assert summary["errors"] == [bad["error"]] and summary["samples"] == 4
    assert not (tmp_path / "s-2.tar").exists()
    result = run_loom("pack", data, "-o", tmp_path / "cli" / "s-%d.tar", "--shard-size", 2, "--verify", "-q")
    assert result.returncode == 1 and bad["error"] in result.stderr
    assert digests(tmp_path / "cli") == digests(tmp_path)


def test_shard_path_and_split_range():
    assert loom.pack.shard_path("out/s-%06d.tar", 12) == "out/s-000012.tar"
    assert loom.pack.shard_path("100%%-%d.tar", 3) == "100%-3.tar"
    with pytest.raises(loom.InvalidInputError, match="exactly one"):
        loom.pack.shard_path("s.tar", 0)
    assert [loom.pack.split_range(10, i, 3) for i in range(3)] == [(0, 3), (3, 6), (6, 10)]
