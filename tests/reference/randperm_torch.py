"""torch.randperm and its two CPU algorithms written out over NumPy's MT19937, for
tests/loader/order_test.cc.

params.json: {"cases": [{"n", "seed"}, ...]}. For case k writes (int64):
- out_torch_<k>.npy: torch.randperm(n, generator=torch.Generator().manual_seed(seed));
- out_forward_<k>.npy, out_inside_out_<k>.npy: the forward (n < 2**32 // 20 in torch) and inside-out
  (larger n, in torch releases after PR #143682; not in Debian's 1.13) shuffles of randperm_cpu, drawing raw
  32-bit words from numpy.random.RandomState(seed % 2**32), which seeds MT19937 as torch does
  (init_genrand), so that both can be checked on small n.
"""
import numpy as np
import torch

from refutil import params, save


def draws(seed):
    state = np.random.RandomState(seed % 2**32)
    while True:
        for word in np.frombuffer(state.bytes(4 * 4096), dtype="<u4"):
            yield int(word)


def forward(n, seed):
    words, r = draws(seed), list(range(n))
    for i in range(n - 1):
        z = next(words) % (n - i)
        r[i], r[i + z] = r[i + z], r[i]
    return r


def inside_out(n, seed):
    words, r = draws(seed), [0] * n
    for i in range(n):
        high = next(words)
        z = ((high << 32) | next(words)) % (i + 1)
        r[i] = r[z]
        r[z] = i
    return r


for k, case in enumerate(params()["cases"]):
    n, seed = case["n"], case["seed"]
    save("torch_%d" % k, torch.randperm(n, generator=torch.Generator().manual_seed(seed)).numpy())
    save("forward_%d" % k, np.array(forward(n, seed), dtype=np.int64))
    save("inside_out_%d" % k, np.array(inside_out(n, seed), dtype=np.int64))
