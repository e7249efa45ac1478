"""torch.utils.data.DistributedSampler, for tests/loader/order_test.cc.

params.json: {"cases": [{"n", "world", "seed", "epoch", "shuffle", "drop_last"}, ...]} (seeds may be
any Python int torch accepts). Writes out_<k>.npy for case k: what DistributedSampler(range(n),
num_replicas=world, rank=r, shuffle, seed, drop_last) yields after set_epoch(epoch), one row per rank r
(int64, world x num_samples; num_samples may be 0).
"""
import numpy as np
from torch.utils.data.distributed import DistributedSampler

from refutil import params, save

for k, case in enumerate(params()["cases"]):
    rows = []
    for rank in range(case["world"]):
        sampler = DistributedSampler(range(case["n"]), num_replicas=case["world"], rank=rank,
                                     shuffle=case["shuffle"], seed=case["seed"], drop_last=case["drop_last"])
        sampler.set_epoch(case["epoch"])
        rows.append(list(sampler))
    save(str(k), np.array(rows, dtype=np.int64).reshape(case["world"], -1 if rows[0] else 0))
