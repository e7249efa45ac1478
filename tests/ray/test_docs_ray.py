"""The Ray examples of docs/scaling-out.md (the ```python ray blocks) run on the local cluster, in order
and in one namespace: /data/train is a small ImageFolder tree of test media, /data/ a temporary folder."""
import re
import shutil
from pathlib import Path

import ray

DOC = Path(__file__).resolve().parents[2] / "docs" / "scaling-out.md"
TREE = {"cat": ["jpeg/hopper.jpg", "jpeg/flower.jpg"], "dog": ["jpeg/app13.jpg", "png/exif.png", "jpeg/iptc.jpg"]}


def test_ray_examples_run(cluster, media, tmp_path, monkeypatch):
    data = tmp_path / "data"
    for cls, files in TREE.items():
        (data / "train" / cls).mkdir(parents=True)
        for f in files:
            shutil.copy(media / "images" / f, data / "train" / cls)
    (data / "shards").mkdir()
    blocks = re.findall(r"```python ray\n(.*?)```", DOC.read_text(), flags=re.S)
    assert len(blocks) == 2
    monkeypatch.chdir(tmp_path)
    ray.shutdown()  # the first example connects itself (address="auto": the cluster's RAY_ADDRESS)
    namespace = {}
    for block in blocks:
        exec(compile(block.replace("/data/", f"{data}/"), f"{DOC.name} example", "exec"), namespace)
    assert namespace["summary"]["samples"] == 5 and not namespace["summary"]["errors"]
