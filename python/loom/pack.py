"""loom pack from Python: the same plan and the same shard writer as the `loom pack` command.

plan(inputs, shard_size, ...) lists and sorts the inputs (files and folders, or manifests) and cuts
them into shards exactly as `loom pack` does; write_shard(path, entries) writes one shard of that plan
(and its .idx) through the same C++ code, so shard s is byte for byte the one `loom pack` writes, on any
machine and in any worker (only the .idx differs: it records the shard's mtime). pack(...) is the whole
command: the plan, this worker's part (num_shards, shard_index as --num-shards, --shard-index), each
shard written. Entries are dicts (path, relative, where, cls, key, name, size, label, annotations), so
they pickle and travel in a Ray Dataset or a multiprocessing queue.

Differences from the command: convert's image flags (--resize, --format, ...) are not offered (the
files' bytes are packed as they are); failures come back in the summary instead of on stderr.
"""

import os
from typing import Dict, List, NamedTuple, Optional, Sequence, Tuple

from ._loom import pack as _native

shard_path = _native.shard_path
split_range = _native.split_range


class Plan(NamedTuple):
    entries: List[dict]  # in pack order
    shards: List[Tuple[int, int]]  # (begin, end) positions in entries, in shard order
    errors: List[str]  # with any, nothing should be written: the shards depend on the whole list

    def shard_entries(self, shard: int) -> List[dict]:
        begin, end = self.shards[shard]
        return self.entries[begin:end]


def plan(inputs: Sequence, shard_size: int, *, shard_bytes: int = 0,
         extensions: Optional[Sequence[str]] = None) -> Plan:
    """The plan `loom pack INPUTS --shard-size N [--shard-bytes B] [--extensions ...]` makes.

    extensions: in folders, the extensions packed (".jpg"); None packs the image extensions (the
    command's default), [] every file. Raises loom.InvalidInputError for mixed manifests and files or
    shard_size < 1; problems with the inputs are listed in Plan.errors.
    """
    result = _native.plan([os.fspath(i) for i in inputs], shard_size, shard_bytes,
                          None if extensions is None else list(extensions))
    return Plan(result["entries"], list(result["shards"]), result["errors"])


def write_shard(path, entries: Sequence[dict], *, overwrite: bool = True, threads: int = 1,
                verify: bool = False) -> Dict:
    """Writes one shard of a plan: {'ok', 'samples', 'error', 'failed_sample'} (never raises for a bad
    input: a sample that cannot be read, or with verify=True does not decode, fails the shard, which is
    then not written). threads: samples read (and verified) in parallel; the GIL is released."""
    return _native.write_shard(os.fspath(path), list(entries), overwrite, threads, verify)


def pack(inputs: Sequence, output: str, shard_size: int, *, shard_bytes: int = 0,
         extensions: Optional[Sequence[str]] = None, num_shards: int = 1, shard_index: int = 0,
         overwrite: bool = True, threads: int = 1, verify: bool = False) -> Dict:
    """`loom pack INPUTS -o OUTPUT --shard-size N [--num-shards K --shard-index I]` in this process.

    Returns {'shards': [per-shard result with 'shard' and 'path'], 'samples': written, 'errors':
    [str]}. Planning errors are returned with nothing written, as the command exits 1 then.
    """
    planned = plan(inputs, shard_size, shard_bytes=shard_bytes, extensions=extensions)
    summary = {"shards": [], "samples": 0, "errors": list(planned.errors)}
    if planned.errors:
        return summary
    begin, end = split_range(len(planned.shards), shard_index, num_shards)
    for s in range(begin, end):
        path = shard_path(output, s)
        result = write_shard(path, planned.shard_entries(s), overwrite=overwrite, threads=threads,
                             verify=verify)
        summary["shards"].append(dict(result, shard=s, path=path))
        summary["samples"] += result["samples"] if result["ok"] else 0
        if not result["ok"]:
            summary["errors"].append(result["error"])
    return summary


__all__ = ["Plan", "pack", "plan", "shard_path", "split_range", "write_shard"]
