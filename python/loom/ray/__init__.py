"""loom on Ray Data: pack shards on a Ray cluster, and feed training from a Ray Dataset.

An optional extra: it needs Ray (``pip install "ray[data]"``; scripts/ray_venv.sh makes a venv with the
pinned version and the build tree's loom). ``import loom`` never imports Ray.

Packing (``pack``): the driver plans the inputs once (``loom.pack.plan``: the sorted inputs cut into
shards exactly as ``loom pack`` does), makes a Ray Dataset with one row per shard (its index, its path
and its entries) and maps it with ``PackShards``, a class-based ``map_batches`` worker: each actor
imports loom once, and each call writes the shards of its batch (one with ``batch_size=1``) through the
same C++ writer as the command, so shard s is byte for byte the file ``loom pack ... --num-shards K
--shard-index I`` writes on whichever worker has it. A shard that fails (an unreadable file, an image
that does not decode with ``verify=True``) is a row of the summary, not an exception: the other shards
are written.

Training (``iter_batches``): batches of a Ray Dataset of encoded images (``ray.data.read_webdataset``
over loom's shards with ``decoder=None``, or any dataset with a bytes column), or of Ray Train's
``ray.train.get_dataset_shard(...)``, decoded by loom (DCT-scaled JPEG decode, resize to one size)
into one uint8 tensor per batch, with the other columns passed through.
"""

import json
from typing import Dict, Iterator, Optional, Sequence, Tuple

import ray

from .. import pack as _pack
from .._loom import ray as _native


class PackShards:
    """The ``map_batches`` worker: writes one shard per row of its batch.

    A batch has the columns ``shard`` (int), ``path`` (str: where the shard goes) and ``entries`` (str:
    the JSON list of the shard's entry dicts from ``loom.pack.plan``). Returns one row per shard:
    ``shard``, ``path``, ``ok``, ``samples`` (written), ``error`` ("" when ok). ``threads``: samples read
    (and verified) in parallel within the actor; ask Ray for as many CPUs (``num_cpus``).
    """

    def __init__(self, overwrite: bool = True, threads: int = 1, verify: bool = False):
        self._options = dict(overwrite=overwrite, threads=threads, verify=verify)

    def __call__(self, batch: Dict) -> Dict:
        out = {"shard": [], "path": [], "ok": [], "samples": [], "error": []}
        for shard, path, entries in zip(batch["shard"], batch["path"], batch["entries"]):
            result = _pack.write_shard(str(path), json.loads(str(entries)), **self._options)
            out["shard"].append(int(shard))
            out["path"].append(str(path))
            out["ok"].append(bool(result["ok"]))
            out["samples"].append(int(result["samples"]))
            out["error"].append(result["error"])
        return out


def shard_rows(inputs: Sequence, output: str, shard_size: int, *, shard_bytes: int = 0,
               extensions: Optional[Sequence[str]] = None) -> list:
    """The rows ``pack`` maps: one per shard of the plan, {shard, path, entries}. Raises
    loom.InvalidInputError listing the plan's errors (nothing should be written then)."""
    planned = _pack.plan(inputs, shard_size, shard_bytes=shard_bytes, extensions=extensions)
    if planned.errors:
        from .. import InvalidInputError
        raise InvalidInputError("nothing written: the shards depend on the whole input list:\n" +
                                "\n".join(planned.errors))
    return [{"shard": s, "path": _pack.shard_path(output, s),
             "entries": json.dumps(planned.shard_entries(s))} for s in range(len(planned.shards))]


def pack(inputs: Sequence, output: str, shard_size: int, *, shard_bytes: int = 0,
         extensions: Optional[Sequence[str]] = None, overwrite: bool = True, threads: int = 1,
         verify: bool = False, concurrency: Optional[int] = None) -> Dict:
    """``loom pack INPUTS -o OUTPUT --shard-size N`` on the Ray cluster ``ray.init`` connected to.

    One Ray task per shard on ``concurrency`` actors (default: Ray's choice), each with ``threads``
    CPUs (a ValueError when no node has that many: Ray would wait for one). Returns {'shards': [row per shard, by shard], 'samples': written, 'errors': [str]}; the job
    ends normally whatever the shards' fate. Unlike the command's --num-shards/--shard-index, there is no
    split to give: Ray spreads the shards over the cluster.
    """
    largest = max((node["Resources"].get("CPU", 0) for node in ray.nodes() if node["Alive"]), default=0)
    if threads > largest:
        # Ray would wait for such a node for ever.
        raise ValueError(f"threads={threads}: no node of this cluster has that many CPUs (largest: {largest:g})")
    rows = shard_rows(inputs, output, shard_size, shard_bytes=shard_bytes, extensions=extensions)
    summary = {"shards": [], "samples": 0, "errors": []}
    if not rows:
        return summary
    dataset = ray.data.from_items(rows, override_num_blocks=len(rows))
    written = dataset.map_batches(PackShards, batch_size=1, num_cpus=threads, concurrency=concurrency,
                                  fn_constructor_kwargs=dict(overwrite=overwrite, threads=threads,
                                                             verify=verify))
    for row in sorted(written.take_all(), key=lambda r: r["shard"]):
        row = {k: (v.item() if hasattr(v, "item") else v) for k, v in row.items()}
        summary["shards"].append(row)
        if row["ok"]:
            summary["samples"] += row["samples"]
        else:
            summary["errors"].append(row["error"])
    return summary


def iter_batches(dataset, batch_size: int, *, image: str = "jpg", size: Tuple[int, int] = (224, 224),
                 mode: str = "RGB", layout: str = "CHW", threads: int = 1, drop_last: bool = False,
                 prefetch_batches: int = 1) -> Iterator[Dict]:
    """Batches of ``dataset`` (a ray.data.Dataset or DataIterator, e.g. Ray Train's dataset shard)
    with its ``image`` column (encoded bytes) decoded by loom into one uint8 tensor of
    [N, C, H, W] (``layout="HWC"``: [N, H, W, C]); ``size`` = (height, width), every image resized to
    it (aspect not kept); ``mode`` "RGB", "GRAY" or "RGBA". Other columns come as Ray gives them
    (numpy). The tensor type follows loom.set_output_type (torch when importable, else numpy)."""
    batches = dataset.iter_batches(batch_size=batch_size, batch_format="numpy", drop_last=drop_last,
                                   prefetch_batches=prefetch_batches)
    for batch in batches:
        out = dict(batch)
        out[image] = _native.decode_batch(list(batch[image]), tuple(size), mode, layout, threads)
        yield out


__all__ = ["PackShards", "iter_batches", "pack", "shard_rows"]
