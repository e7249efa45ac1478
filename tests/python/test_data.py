"""loom.data: datasets and the Loader against torchvision's ImageFolder and DistributedSampler, resume,
error policies, zero-copy batches, fork/spawn/forkserver safety and the GIL.

Images are small JPEGs written with loom.io into a temporary ImageFolder; the loader's images are
compared exactly with loom.io.decode_image of the same files (the loader decodes with the same code).
"""

import multiprocessing
import os
import threading
import time

import numpy as np
import pytest
import torch
import torch.utils.data
import torchvision

import loom
import loom.data as ld

CHILD_TIMEOUT = 120  # seconds before a forked child counts as hung


@pytest.fixture(scope="module")
def folder(tmp_path_factory):
    root = tmp_path_factory.mktemp("folder")
    rng = np.random.default_rng(7)
    for c, name in enumerate(["cat", "dog", "eel"]):
        os.makedirs(root / name)
        for i in range(7 + c):
            h, w = 24 + 3 * i, 32 + 5 * c
            smooth = np.linspace(0, 255, h * w * 3).reshape(3, h, w)
            image = np.clip(smooth + rng.normal(0, 20, (3, h, w)), 0, 255).astype(np.uint8)
            loom.io.write_jpeg(torch.from_numpy(image), str(root / name / f"{i:02d}.jpg"), quality=90)
    return str(root)


def _epoch(loader, key="label"):
    return [b[key].tolist() for b in loader]


def test_folder_dataset_is_image_folder(folder):
    ds = ld.FolderDataset(folder)
    ref = torchvision.datasets.ImageFolder(folder)
    assert ds.classes == ref.classes
    assert ds.class_to_idx == ref.class_to_idx
    assert len(ds) == len(ref)
    for i, (path, label) in enumerate(ref.samples):
        record = ds.read(i)
        assert record["source"] == path
        assert record["label"] == label
        with open(path, "rb") as f:
            assert bytes(record["members"]["jpg"].numpy()) == f.read()


def test_default_fields_decode_exactly(folder):
    ds = ld.FolderDataset(folder)
    ref = torchvision.datasets.ImageFolder(folder)
    loader = ld.Loader(ds, batch_size=4, num_threads=2, metadata=True)
    assert len(loader) == (len(ds) + 3) // 4
    seen = []
    for batch in loader:
        # sizes differ between classes' images: "auto" collates a list then
        images = batch["image"]
        for image, index, label in zip(images, batch["__index__"], batch["label"].tolist()):
            path, want_label = ref.samples[index]
            assert label == want_label
            assert torch.equal(image, loom.io.decode_image(path, loom.io.ImageReadMode.RGB))
            seen.append(index)
    assert seen == list(range(len(ds)))


def test_normalize_is_torchvisions_up_to_float32_rounding(folder):
    import torchvision.transforms.functional as F

    ds = ld.FolderDataset(folder)
    fields = [ld.ImageField(normalize=(ld.IMAGENET_MEAN, ld.IMAGENET_STD)), ld.LabelField()]
    for batch in ld.Loader(ds, fields=fields, batch_size=1, metadata=True):
        path = ds.read(batch["__index__"][0])["source"]
        decoded = loom.io.decode_image(path, loom.io.ImageReadMode.RGB)
        want = F.normalize(decoded.float() / 255, ld.IMAGENET_MEAN, ld.IMAGENET_STD)
        assert batch["image"].dtype == torch.float32
        torch.testing.assert_close(batch["image"][0], want, rtol=0, atol=2e-6)


@pytest.mark.parametrize("world_size", [1, 2, 3])
def test_order_is_distributed_sampler(folder, world_size):
    ds = ld.FolderDataset(folder)
    for rank in range(world_size):
        loader = ld.Loader(ds, fields=[ld.LabelField()], batch_size=2, shuffle=True, seed=5, rank=rank,
                           world_size=world_size, metadata=True)
        for epoch in range(2):
            loader.set_epoch(epoch)
            got = [i for b in loader for i in b["__index__"]]
            sampler = torch.utils.data.DistributedSampler(range(len(ds)), num_replicas=world_size, rank=rank,
                                                          shuffle=True, seed=5)
            sampler.set_epoch(epoch)
            assert got == list(sampler)


def test_rank_and_world_from_torchrun_environment(folder, monkeypatch):
    ds = ld.FolderDataset(folder)
    monkeypatch.setenv("RANK", "1")
    monkeypatch.setenv("WORLD_SIZE", "2")
    from_env = ld.Loader(ds, fields=[ld.LabelField()], batch_size=2, metadata=True)
    explicit = ld.Loader(ds, fields=[ld.LabelField()], batch_size=2, rank=1, world_size=2, metadata=True)
    assert (from_env.rank, from_env.world_size) == (1, 2)
    assert [b["__index__"] for b in from_env] == [b["__index__"] for b in explicit]


def test_state_dict_resumes_with_the_next_batches(folder):
    ds = ld.FolderDataset(folder)
    fields = [ld.ImageField(random_resized_crop=16, horizontal_flip=0.5, layout="HWC",
                            normalize=(ld.IMAGENET_MEAN, ld.IMAGENET_STD)), ld.LabelField()]
    full = ld.Loader(ds, fields=fields, batch_size=3, shuffle=True, seed=1, num_threads=2)
    whole = [b for b in full]
    partial = ld.Loader(ds, fields=fields, batch_size=3, shuffle=True, seed=1, num_threads=1)
    it = iter(partial)
    for _ in range(2):
        next(it)
    state = partial.state_dict()
    resumed = ld.Loader(ds, fields=fields, batch_size=3, shuffle=True, seed=1, num_threads=2)
    resumed.load_state_dict(state)
    rest = [b for b in resumed]
    assert len(rest) == len(whole) - 2
    for a, b in zip(rest, whole[2:]):
        assert a["image"].shape == (3, 3, 16, 16) and a["image"].dtype == torch.float32
        assert torch.equal(a["image"], b["image"]) and torch.equal(a["label"], b["label"])
    other_seed = ld.Loader(ds, fields=fields, batch_size=3, shuffle=True, seed=2)
    with pytest.raises(loom.InvalidInputError):
        other_seed.load_state_dict(state)


def test_error_policies(tmp_path, folder):
    root = tmp_path / "broken"
    os.makedirs(root / "a")
    good = os.path.join(folder, "cat", "00.jpg")
    for i in range(5):
        with open(good, "rb") as src, open(root / "a" / f"{i}.jpg", "wb") as dst:
            data = src.read()
            dst.write(data if i != 2 else data[:40])  # 2.jpg is truncated
    ds = ld.FolderDataset(root)
    with pytest.raises(loom.Error, match="2.jpg"):
        for _ in ld.Loader(ds, batch_size=2):
            pass
    skip = ld.Loader(ds, batch_size=2, error_policy="skip")
    assert sum(len(b["label"]) for b in skip) == 4
    [report] = skip.skipped()
    assert report["index"] == 2 and report["name"].endswith("2.jpg") and report["replaced_by"] is None
    replace = ld.Loader(ds, batch_size=5, error_policy="replace")
    assert [len(b["label"]) for b in replace] == [5]
    assert replace.skipped()[0]["replaced_by"] is not None


def test_an_image_normalize_cannot_take_is_that_samples_error(tmp_path, folder, media):
    """A 16-bit PNG under normalize fails as its own sample (the error policy applies), not its batch."""
    root = tmp_path / "deep"
    os.makedirs(root / "a")
    for i in range(3):
        with open(os.path.join(folder, "cat", "00.jpg"), "rb") as src, open(root / "a" / f"{i}.jpg", "wb") as dst:
            dst.write(src.read())
    (root / "a" / "1.png").write_bytes((media / "images/png/mode_16bit.png").read_bytes())
    fields = [ld.ImageField("image", resize=(8, 8), normalize=(ld.IMAGENET_MEAN, ld.IMAGENET_STD)),
              ld.LabelField("label")]
    ds = ld.FolderDataset(root)
    with pytest.raises(loom.UnsupportedError, match=r"1\.png: normalize takes uint8 or float32 images, this one is uint16"):
        for _ in ld.Loader(ds, batch_size=4, fields=fields):
            pass
    skip = ld.Loader(ds, batch_size=4, fields=fields, error_policy="skip")
    assert [len(b["label"]) for b in skip] == [3]
    [report] = skip.skipped()
    assert report["name"].endswith("1.png") and "to_uint8" in report["error"]
    as_uint8 = [ld.ImageField("image", resize=(8, 8), to_uint8=True, normalize=(ld.IMAGENET_MEAN, ld.IMAGENET_STD)),
                ld.LabelField("label")]
    assert [len(b["label"]) for b in ld.Loader(ds, batch_size=4, fields=as_uint8)] == [4]


@pytest.fixture
def loom_cli(request):
    """The loom CLI (conftest's `loom` fixture, renamed: `loom` is the package here)."""
    return request.getfixturevalue("loom")


def test_manifest_and_shard_datasets(folder, tmp_path, loom_cli):
    import json
    import subprocess

    ref = torchvision.datasets.ImageFolder(folder)
    manifest = tmp_path / "train.jsonl"
    with open(manifest, "w", encoding="utf-8") as f:
        for i, (path, label) in enumerate(ref.samples):
            f.write(json.dumps({"path": path, "label": ref.classes[label], "i": i}) + "\n")
    ds = ld.ManifestDataset(manifest)
    assert ds.classes == ref.classes and len(ds) == len(ref)
    loader = ld.Loader(ds, fields=[ld.LabelField(), ld.AnnotationsField("meta")], batch_size=5)
    labels, metas = [], []
    for batch in loader:
        labels += batch["label"].tolist()
        metas += batch["meta"]
    assert labels == [label for _, label in ref.samples]
    assert [json.loads(m)["i"] for m in metas] == list(range(len(ref)))

    subprocess.run([loom_cli, "pack", folder, "-o", str(tmp_path / "shard-%02d.tar"), "--shard-size", "10"], check=True,
                   capture_output=True)
    shards = ld.ShardDataset(str(tmp_path / "shard-{00..02}.tar"))
    assert len(shards) == len(ref) and len(shards.shards) == 3
    loader = ld.Loader(shards, batch_size=4, shuffle="shards", seed=3, metadata=True)
    got = {}
    for batch in loader:
        for key, label in zip(batch["__key__"], batch["label"].tolist()):
            got[key] = label
    assert sorted(got.values()) == sorted(label for _, label in ref.samples)


def test_batches_are_not_copied(folder):
    ds = ld.FolderDataset(folder)
    fields = [ld.ImageField(random_resized_crop=16, normalize=(ld.IMAGENET_MEAN, ld.IMAGENET_STD)),
              ld.LabelField()]
    previous = loom.get_output_type()
    loom.set_output_type("loom")
    try:
        batch = next(iter(ld.Loader(ds, fields=fields, batch_size=4)))
    finally:
        loom.set_output_type(previous)
    image = batch["image"]
    assert isinstance(image, loom.Tensor)
    assert torch.from_dlpack(image).data_ptr() == image.data_ptr
    assert torch.from_dlpack(batch["label"]).data_ptr() == batch["label"].data_ptr


def test_stats_and_errors_of_arguments(folder):
    ds = ld.FolderDataset(folder)
    loader = ld.Loader(ds, fields=[ld.LabelField()], batch_size=4)
    n = sum(len(b["label"]) for b in loader)
    stats = loader.stats()
    assert stats["samples"] == n == len(ds) and stats["batches"] == len(loader)
    with pytest.raises(ValueError):
        ld.Loader(ds, error_policy="ignore")
    with pytest.raises(ValueError):
        ld.ImageField(decode_crop=True)
    with pytest.raises(loom.Error):
        ld.Loader(ds, batch_size=0)
    with pytest.raises(TypeError):
        import pickle

        pickle.dumps(loader)


# ---- processes ------------------------------------------------------------------------------------


def _wait(pid):
    """The child's exit code; a child still running after CHILD_TIMEOUT is killed and fails the test."""
    deadline = time.monotonic() + CHILD_TIMEOUT
    while time.monotonic() < deadline:
        done, status = os.waitpid(pid, os.WNOHANG)
        if done:
            return os.waitstatus_to_exitcode(status)
        time.sleep(0.02)
    os.kill(pid, 9)
    os.waitpid(pid, 0)
    pytest.fail("the forked child hung")


def _in_child(body):
    """Runs body() in a forked child: exit 0 when it returns True, 1 when False, 2 when it raises."""
    pid = os.fork()
    if pid == 0:
        code = 2
        try:
            code = 0 if body() else 1
        except BaseException as e:  # noqa: BLE001 - reported by the exit code
            print("child:", repr(e), flush=True)
        os._exit(code)
    return _wait(pid)


def test_decode_in_forked_child(folder):
    path = os.path.join(folder, "dog", "03.jpg")
    parent = loom.io.decode_image(path)
    assert _in_child(lambda: torch.equal(loom.io.decode_image(path), parent)) == 0


def test_decode_in_forked_children_while_a_parent_thread_decodes(folder):
    # Another thread allocates and frees large tensors (the codec's block cache) while fork() is
    # called: the child must find every lock free.
    big = loom.io.encode_jpeg(torch.zeros((3, 512, 512), dtype=torch.uint8))
    want = loom.io.decode_image(big)
    stop = threading.Event()

    def decode_loop():
        while not stop.is_set():
            loom.io.decode_image(big)

    thread = threading.Thread(target=decode_loop)
    thread.start()
    try:
        for _ in range(10):
            assert _in_child(lambda: torch.equal(loom.io.decode_image(big), want)) == 0
    finally:
        stop.set()
        thread.join()


def test_new_loader_in_forked_child_while_parent_loader_runs(folder):
    ds = ld.FolderDataset(folder)
    fields = [ld.ImageField(random_resized_crop=16, layout="HWC"), ld.LabelField()]

    def epoch():
        return [(b["image"].clone(), b["label"]) for b in ld.Loader(ds, fields=fields, batch_size=4,
                                                                  shuffle=True, num_threads=2)]

    want = epoch()
    running = ld.Loader(ds, fields=fields, batch_size=2, num_threads=2, prefetch=6)
    it = iter(running)
    next(it)  # its threads are building batches ahead when fork() is called

    def child():
        got = epoch()
        same = len(got) == len(want) and all(torch.equal(a[0], b[0]) and torch.equal(a[1], b[1])
                                             for a, b in zip(got, want))
        try:
            next(it)
            return False  # the parent's Loader must refuse to run here
        except loom.Error as e:
            return same and "forked child" in str(e)

    for _ in range(5):
        assert _in_child(child) == 0
    # the parent's loader goes on where it was: the rest of its epoch
    assert sum(len(b["label"]) for b in it) == len(ds) - 2


class DecodingDataset(torch.utils.data.Dataset):
    """Each item decoded by loom.io in whichever process asks (module level: spawn pickles it)."""

    def __init__(self, paths):
        self.paths = paths

    def __len__(self):
        return len(self.paths)

    def __getitem__(self, i):
        image = loom.io.decode_image(self.paths[i], loom.io.ImageReadMode.RGB)
        return image[:, :16, :16].contiguous(), i


@pytest.mark.parametrize("method", ["fork", "spawn", "forkserver"])
def test_torch_dataloader_workers(folder, method):
    ds = ld.FolderDataset(folder)
    # the parent has run a Loader and decoded before the workers start
    assert sum(len(b["label"]) for b in ld.Loader(ds, batch_size=4, num_threads=2)) == len(ds)
    paths = [ds.read(i)["source"] for i in range(len(ds))]
    dataset = DecodingDataset(paths)
    want = list(torch.utils.data.DataLoader(dataset, batch_size=4, num_workers=0))
    context = multiprocessing.get_context(method)
    got = list(torch.utils.data.DataLoader(dataset, batch_size=4, num_workers=2, multiprocessing_context=context,
                                           timeout=CHILD_TIMEOUT))
    assert len(got) == len(want)
    for (x, i), (y, j) in zip(got, want):
        assert torch.equal(x, y) and torch.equal(i, j)


# ---- the GIL --------------------------------------------------------------------------------------


def _counts_during(call, min_seconds=0.5):
    """How far a Python thread counts while the main thread runs call() again and again until
    min_seconds have passed (a single call can end within one GIL switch interval on a fast machine,
    where neither the call nor the baseline would let the counter run at all)."""
    count = [0]
    stop = threading.Event()

    def counter():
        while not stop.is_set():
            count[0] += 1

    thread = threading.Thread(target=counter)
    thread.start()
    time.sleep(0.05)
    before = count[0]
    start = time.perf_counter()
    call()
    while time.perf_counter() - start < min_seconds:
        call()
    seconds = time.perf_counter() - start
    counted = count[0] - before
    stop.set()
    thread.join()
    return counted, seconds


def _busy(seconds):
    end = time.perf_counter() + seconds
    while time.perf_counter() < end:
        pass


def test_loader_waits_release_the_gil(folder):
    """The loader's waits for batches let other Python threads run (test_io.py checks one long
    encode the same way)."""
    ds = ld.FolderDataset(folder)

    def call():
        for _ in ld.Loader(ds, batch_size=2, num_threads=1):
            pass

    counted, seconds = _counts_during(call)
    # Baseline: the same time spent in a Python busy loop, which holds the GIL except at the
    # interpreter's switch points, so the counter gets about half. A call that held the GIL
    # throughout would let it count only in the switch interval before the call took it (a C loop
    # holding the GIL, sum(range(...)), measured 0.44 of the baseline; the loader measures 1.7).
    baseline, _ = _counts_during(lambda: _busy(seconds), min_seconds=0)
    assert baseline > 0 and counted > 0.8 * baseline, (counted, baseline)


def test_cuda_in_a_child_forked_after_cuda_init_is_an_error():
    from loom._loom import data as native

    native._check_cuda_fork_safety("cuda")  # this process never initialised CUDA: allowed

    def child():
        # A child that initialises CUDA (as loom's device code records it), then forks: its own
        # child must refuse CUDA with loom.UnsupportedError, while it itself may go on using it.
        native._note_cuda_initialized()
        native._check_cuda_fork_safety("cuda")

        def grandchild():
            try:
                native._check_cuda_fork_safety("to_device")
            except loom.UnsupportedError as e:
                return "forked after CUDA was initialised" in str(e) and str(e).startswith("to_device")
            return False

        return _in_child(grandchild) == 0

    assert _in_child(child) == 0


def test_video_and_audio_fields(media, tmp_path):
    import json

    videos = tmp_path / "v.jsonl"
    videos.write_text("".join(json.dumps({"path": os.path.join(media, "video", name), "label": i}) + "\n"
                              for i, name in enumerate(["nasa_13013.mp4", "exo_video_1.mp4"])))
    loader = ld.Loader(ld.ManifestDataset(videos), batch_size=2, seed=4,
                       fields=[ld.VideoField(num_frames=4, frame_step=2, size=(64, 96)), ld.LabelField()])
    [batch] = list(loader)
    assert batch["video"].shape == (2, 4, 3, 64, 96) and batch["video"].dtype == torch.uint8
    assert batch["label"].tolist() == [0, 1]

    sounds = tmp_path / "a.jsonl"
    sounds.write_text("".join(json.dumps({"path": os.path.join(media, "audio", name)}) + "\n"
                              for name in ["exo_bear.flac", "exo_bear_vorbis.ogg"]))
    loader = ld.Loader(ld.ManifestDataset(sounds), batch_size=2,
                       fields=[ld.AudioField(duration=0.5, channels=1, sample_rate=16000)])
    [batch] = list(loader)
    assert batch["audio"].shape == (2, 1, 8000) and batch["audio"].dtype == torch.float32
    assert batch["audio"].abs().max() > 0
