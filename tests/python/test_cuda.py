"""loom.cuda and the CUDA paths of loom.data.Loader and __dlpack__.

Without a GPU (or in a build without CUDA) the device requests must fail with loom.UnsupportedError and
the CPU paths must be unchanged; the tests marked `gpu` run on a device (the GPU check script runs them
with -m gpu) and are skipped elsewhere, saying why.
"""

import os

import numpy as np
import pytest
import torch

import loom
import loom.data as ld

gpu = pytest.mark.skipif(not loom.cuda.is_available(), reason="no CUDA device")


@pytest.fixture(scope="module")
def folder(tmp_path_factory):
    root = tmp_path_factory.mktemp("folder")
    rng = np.random.default_rng(11)
    for c, name in enumerate(["a", "b"]):
        os.makedirs(root / name)
        for i in range(9):
            image = rng.integers(0, 256, (3, 40 + i, 48 + 3 * c), dtype=np.uint8)
            loom.io.write_jpeg(torch.from_numpy(image), str(root / name / f"{i}.jpg"), quality=92)
    return str(root)


def _fields():
    return [ld.ImageField("image", random_resized_crop=24, normalize=([0.5, 0.4, 0.3], [0.2, 0.25, 0.3])),
            ld.LabelField("label")]


def test_the_device_report_is_consistent():
    n = loom.cuda.device_count()
    assert n >= 0 and loom.cuda.is_available() == (n > 0)
    if not loom.cuda.is_built():
        assert n == 0
    stats = loom.cuda.memory_stats()
    assert set(stats) == {"in_use_bytes", "cached_bytes", "allocations", "reuses"}
    assert loom.cuda.empty_cache() >= 0


def test_device_names_are_checked():
    x = torch.arange(6, dtype=torch.float32)
    for bad in ["gpu", "cuda:", "cuda:x", "cuda:-1", "CUDA"]:
        with pytest.raises(ValueError, match="'cpu', 'cuda' or 'cuda:N'"):
            loom.cuda.to_device(x, bad)
    y = loom.cuda.to_device(x, "cpu")
    assert torch.equal(y, x) and y.data_ptr() != x.data_ptr()


@pytest.mark.skipif(loom.cuda.is_available(), reason="a CUDA device is present")
def test_without_a_device_cuda_requests_are_unsupported(folder):
    with pytest.raises(loom.UnsupportedError, match="cuda"):
        loom.cuda.to_device(torch.zeros(4), "cuda")
    with pytest.raises(loom.UnsupportedError, match="device cuda:0 is not usable"):
        ld.Loader(ld.FolderDataset(folder), batch_size=4, device="cuda")
    with pytest.raises(ValueError):
        ld.Loader(ld.FolderDataset(folder), batch_size=4, device="tpu")


def test_a_cpu_tensor_takes_no_stream():
    t = loom.from_dlpack(np.arange(4, dtype=np.uint8))
    with pytest.raises(BufferError, match="stream must be None"):
        t.__dlpack__(stream=1)
    assert t.__dlpack__(stream=-1) is not None


@gpu
@pytest.mark.gpu
def test_to_device_round_trips_through_torch():
    x = torch.arange(3 * 5 * 7, dtype=torch.float32).reshape(3, 5, 7)
    on_gpu = loom.cuda.to_device(x, "cuda:0")
    assert on_gpu.device == torch.device("cuda:0")
    assert torch.equal(on_gpu.cpu(), x)
    back = loom.cuda.to_device(on_gpu, "cpu")
    assert back.device == torch.device("cpu") and torch.equal(back, x)
    assert loom.cuda.memory_stats()["allocations"] >= 1


@gpu
@pytest.mark.gpu
def test_loader_batches_on_the_gpu_equal_the_cpu_batches(folder):
    ds = ld.FolderDataset(folder)
    cpu = ld.Loader(ds, _fields(), batch_size=5, shuffle=True, seed=4, num_threads=2)
    dev = ld.Loader(ds, _fields(), batch_size=5, shuffle=True, seed=4, num_threads=2, device="cuda")
    for a, b in zip(cpu, dev):
        assert b["image"].device == torch.device("cuda:0") and b["label"].device == torch.device("cuda:0")
        assert torch.equal(a["image"], b["image"].cpu()) and torch.equal(a["label"], b["label"].cpu())


@gpu
@pytest.mark.gpu
def test_a_torch_side_stream_sees_the_batch(folder):
    ds = ld.FolderDataset(folder)
    cpu = ld.Loader(ds, _fields(), batch_size=6, num_threads=1)
    dev = ld.Loader(ds, _fields(), batch_size=6, num_threads=1, device="cuda")
    side = torch.cuda.Stream()
    with torch.cuda.stream(side):  # torch.from_dlpack passes this stream: loom makes it wait for the copy
        for a, b in zip(cpu, dev):
            total = (b["image"] * 2).sum()
            assert torch.allclose(total.cpu(), (a["image"] * 2).sum(), rtol=1e-5)
    side.synchronize()


@gpu
@pytest.mark.gpu
def test_torch_cuda_tensors_cross_both_ways_without_a_copy_and_run_loom_ops():
    import loom.transforms.v2.functional as F

    x = torch.arange(1000, device="cuda", dtype=torch.float32)
    t = loom.from_dlpack(x)
    assert t.device == "cuda:0" and t.data_ptr == x.data_ptr()
    assert torch.from_dlpack(t).data_ptr() == x.data_ptr()
    image = torch.randint(0, 256, (3, 120, 160), dtype=torch.uint8, device="cuda")
    resized = F.resize(image, [60, 72], antialias=True)
    assert resized.device == image.device
    assert torch.equal(resized.cpu(), F.resize(image.cpu(), [60, 72], antialias=True))
    normalized = F.normalize(image, [0.5, 0.4, 0.3], [0.25, 0.2, 0.3], output_layout="HWC")  # uint8 in, fused
    expected = F.normalize(image.cpu(), [0.5, 0.4, 0.3], [0.25, 0.2, 0.3], output_layout="HWC")
    assert normalized.device == image.device and torch.equal(normalized.cpu(), expected)
