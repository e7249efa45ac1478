"""Datasets and the prefetching Loader: loom's C++ loader (loom::loader) from Python.

    ds = loom.data.FolderDataset("train")                    # torchvision ImageFolder's listing
    loader = loom.data.Loader(ds, batch_size=64, shuffle=True, num_threads=8, fields=[
        loom.data.ImageField("image", random_resized_crop=224, decode_crop=True, horizontal_flip=0.5,
                             layout="HWC", normalize=(IMAGENET_MEAN, IMAGENET_STD)),
        loom.data.LabelField("label")])
    for epoch in range(epochs):
        loader.set_epoch(epoch)
        for batch in loader:                                   # {"image": float32 [64, 3, 224, 224],
            train(batch["image"], batch["label"])              #  "label": int64 [64]}

Batches are dicts of tensors (torch, numpy or loom.Tensor per loom.set_output_type), made by the C++
loader on its own threads and handed over without a copy. Waiting for a batch releases the GIL.

Order and partition: shuffle=True is torch.utils.data.DistributedSampler's order bit for bit
(torch.randperm seeded with seed + epoch), and rank r of world_size W takes DistributedSampler's share.
rank and world_size default to torchrun's RANK and WORLD_SIZE environment variables (0 and 1 when they
are not set). Every random draw of a sample (crop, flip, clip start) depends only on (seed, epoch, its
global position), so batches are the same for any num_threads, and at a fixed global batch
(batch_size * world_size) for any number of ranks.

Processes: a Loader runs only in the process that made it; using it in a forked child raises loom.Error
(make a new Loader in the child: that works, as do loom's decoders). A Loader is not picklable.
"""

import os

from ._loom import data as _native
from ._loom import Error

IMAGENET_MEAN = (0.485, 0.456, 0.406)
IMAGENET_STD = (0.229, 0.224, 0.225)


def _pair(value, what):
    """(height, width) from an int (a square) or a pair, as torchvision's size arguments."""
    if isinstance(value, int):
        return (value, value)
    try:
        h, w = value
    except (TypeError, ValueError):
        raise TypeError(f"{what} must be an int or an (height, width) pair, not {value!r}") from None
    return (int(h), int(w))


def _members(members):
    if members is None:
        return []
    if isinstance(members, str):
        return [members]
    return list(members)


# ---------------------------------------------------------------------------------------------------
# Fields: what each batch holds. Every field has a `name` (its key in the batch dict), `members` (the
# record members to read it from, the first present wins; None: the kind's defaults, see below) and
# `collate` ("auto": stack into one [N, ...] tensor when every shape is equal, else a list; "list":
# always a list; "pad": stack, zero-padding to the batch's largest, with each sample's shape before
# padding under "<name>.lengths", int64 [N, ndim]).


class ImageField:
    """A decoded image: uint8 (or float32 after normalize) [C, H, W], collated [N, C, H, W].

    members: default jpg jpeg png ppm pgm bmp tif tiff webp.
    mode: "RGB" (default), "GRAY", "GRAY_ALPHA", "RGB_ALPHA" or "UNCHANGED" (torchvision.io.ImageReadMode).
    layout: "CHW" (default) or "HWC": the layout the image is decoded to and transformed in. "HWC" is
        faster for crops, resizes and flips (one pass over interleaved pixels); with normalize the batch
        is still CHW (normalize_layout).
    apply_exif_orientation: rotate as the EXIF tag says (off by default, as torchvision).
    to_uint8: 16-bit PNGs keep their high byte (default False: uint16).
    random_resized_crop: size (int or (h, w)) of torchvision's RandomResizedCrop, applied first;
        scale and ratio are its other arguments (defaults (0.08, 1.0) and (3/4, 4/3)); antialiased
        bilinear, as RandomResizedCrop(antialias=True).
    decode_crop: with random_resized_crop, JPEGs decode only the crop's region at a reduced DCT scale
        (the same random draws; close, not equal pixels: see docs/loader.md). Default False.
    resize, center_crop, horizontal_flip, vertical_flip: the transforms applied after the crop, in this
        order: Resize(resize) (an int resizes the shorter side, as torchvision), CenterCrop(center_crop),
        RandomHorizontalFlip(p), RandomVerticalFlip(p) (p = 0: none).
    normalize: (mean, std), 1 value or one per channel: the image becomes float32 (x / 255 - mean) / std
        in normalize_layout ("CHW" by default), written straight into the batch: bit for bit the values
        of loom's Normalize applied last (torchvision's ToTensor + Normalize up to float32 rounding).
    boxes_format: "XYXY", "XYWH", "CXCYWH", ...: the record's {"boxes", "keypoints"} annotations travel
        with the image through the transforms and come back as "<name>.boxes" and "<name>.keypoints".
    """

    def __init__(self, name="image", members=None, *, mode="RGB", layout="CHW", apply_exif_orientation=False,
                 to_uint8=False, random_resized_crop=None, scale=(0.08, 1.0), ratio=(3.0 / 4.0, 4.0 / 3.0),
                 decode_crop=False, resize=None, center_crop=None, horizontal_flip=0.0, vertical_flip=0.0,
                 normalize=None, normalize_layout="CHW", boxes_format=None, collate="auto"):
        if normalize is not None:
            mean, std = normalize
            normalize = ([float(v) for v in mean], [float(v) for v in std])
        if isinstance(resize, int):
            resize = (resize, 0)  # the shorter side
        elif resize is not None:
            resize = _pair(resize, "resize")
        mode = getattr(mode, "name", mode)  # an ImageReadMode or its name
        self.name = name
        self._spec = _native._image_field(
            name, _members(members), collate, str(mode).upper(), layout, apply_exif_orientation, to_uint8,
            None if random_resized_crop is None else _pair(random_resized_crop, "random_resized_crop"),
            tuple(map(float, scale)), tuple(map(float, ratio)), decode_crop, resize,
            None if center_crop is None else _pair(center_crop, "center_crop"), float(horizontal_flip),
            float(vertical_flip), normalize, normalize_layout, boxes_format)

    def __repr__(self):
        return repr(self._spec)


class LabelField:
    """The record's label (the class index for folders, the manifest's label, a shard's .cls): int64,
    collated [N]. A sample without a label fails (see Loader's error_policy)."""

    def __init__(self, name="label", *, collate="auto"):
        self.name = name
        self._spec = _native._plain_field(name, "label", [], collate)

    def __repr__(self):
        return repr(self._spec)


class BytesField:
    """A member's bytes, undecoded: uint8 [size], collated as a list (members: which member, e.g. "txt")."""

    def __init__(self, name, members=None, *, collate="list"):
        self.name = name
        self._spec = _native._plain_field(name, "bytes", _members(members), collate)

    def __repr__(self):
        return repr(self._spec)


class AnnotationsField:
    """The record's annotations JSON text (a manifest's other fields, a shard's .json): a list of str."""

    def __init__(self, name="annotations"):
        self.name = name
        self._spec = _native._plain_field(name, "annotations", [], "list")

    def __repr__(self):
        return repr(self._spec)


class VideoField:
    """A clip of num_frames frames, frame_step apart (1: consecutive), from a random start: uint8
    [T, C, H, W] (layout "CHW") or [T, H, W, C] ("HWC"), collated [N, T, ...].

    members: default mp4 mkv webm avi mov. size: resize frames while decoding ((h, w) or int).
    policy: what a clip that runs past the end does: "repeat_last" (default), "wrap" or "error".
    """

    def __init__(self, name="video", members=None, *, num_frames=8, frame_step=1, layout="CHW", size=None,
                 policy="repeat_last", collate="auto"):
        self.name = name
        self._spec = _native._video_field(name, _members(members), collate, num_frames, frame_step, layout,
                                          None if size is None else _pair(size, "size"), policy)

    def __repr__(self):
        return repr(self._spec)


class AudioField:
    """A clip of samples: float32 [channels, frames], collated [N, channels, frames].

    members: default wav flac mp3 ogg opus m4a. duration: seconds (0: the whole track).
    random_offset: start at a random frame (else 0); the clip always fits. channels: 1 mixes down to
    mono, n > 1 repeats a mono track, 0 keeps the file's. sample_rate: resample to it (0 keeps the file's).
    """

    def __init__(self, name="audio", members=None, *, duration=0.0, random_offset=True, channels=0,
                 sample_rate=0, collate="auto"):
        self.name = name
        self._spec = _native._audio_field(name, _members(members), collate, float(duration), random_offset,
                                          channels, sample_rate)

    def __repr__(self):
        return repr(self._spec)


# ---------------------------------------------------------------------------------------------------
# Datasets


class _Dataset:
    def __init__(self, native):
        self._native = native

    def __len__(self):
        return len(self._native)

    @property
    def fingerprint(self):
        """Identifies the listing: equal fingerprints, equal records at equal indices (resume checks it)."""
        return self._native.fingerprint

    def name(self, index):
        """'<source>:<key>' (or the file) of record `index`, as error reports name it."""
        return self._native.name(index)

    def read(self, index):
        """Record `index`, undecoded: {"key", "source", "label" (int or None), "annotations" (JSON text),
        "members": {name: uint8 tensor of its bytes}}."""
        return self._native.read(index)


class _ClassDataset(_Dataset):
    """A dataset with named classes: classes (names by index) and class_to_idx, as ImageFolder."""

    @property
    def classes(self):
        return self._native.classes

    @property
    def class_to_idx(self):
        return {name: i for i, name in enumerate(self._native.classes)}


class FolderDataset(_ClassDataset):
    """root/<class>/**/<file>, listed as torchvision.datasets.ImageFolder(root) lists it: the same
    classes, class_to_idx, order and labels (index i is ImageFolder's sample i).

    extensions: the file name endings kept (with the dot, case-insensitive); default torchvision's
    IMG_EXTENSIONS. Raises loom.Error where ImageFolder raises FileNotFoundError (no class folder, a
    class folder without images; see docs/loader.md).
    """

    def __init__(self, root, extensions=None):
        super().__init__(_native._open_folder(root, None if extensions is None else list(extensions)))
        self.root = os.fspath(root)


class ManifestDataset(_ClassDataset):
    """One record per row of a JSON Lines (.jsonl, .ndjson) or CSV (.csv) manifest.

    path_field: the column with each file's path (relative to the manifest's folder unless absolute).
    label_field: the label column (an integer, or a class name); optional per row.
    classes: class names in index order, for labels given as names (default: sorted unique names).
    Every other column comes back as the record's annotations (AnnotationsField, ImageField.boxes_format).
    """

    def __init__(self, path, path_field="path", label_field="label", classes=None):
        super().__init__(_native._open_manifest(path, path_field, label_field, list(classes or [])))


class ShardDataset(_Dataset):
    """WebDataset tar shards, read by index (uncompressed .tar). urls: a path, a brace pattern
    ("train-{000000..000127}.tar") or a list of them. Each shard's index is read from (or written to)
    "<shard>.idx", or into index_folder when the shard's folder is read-only; write_index=False never
    writes one. Use shuffle="shards" in the Loader for webdataset's shard-then-buffer shuffle."""

    def __init__(self, urls, index_folder="", write_index=True):
        patterns = [os.fspath(urls)] if isinstance(urls, (str, os.PathLike)) else [os.fspath(u) for u in urls]
        super().__init__(_native._open_shards(patterns, index_folder, write_index))

    @property
    def shards(self):
        return self._native.shards


# ---------------------------------------------------------------------------------------------------
# The loader


def _env_int(name, default):
    value = os.environ.get(name)
    return default if value in (None, "") else int(value)


class Loader:
    """Batches of `dataset` built ahead on C++ threads.

    dataset: a FolderDataset, ManifestDataset or ShardDataset.
    fields: the batch's fields (ImageField, LabelField, BytesField, AnnotationsField, VideoField,
        AudioField); default [ImageField("image"), LabelField("label")]: uint8 RGB CHW and int64.
    batch_size: samples per batch on this rank.
    shuffle: False (dataset order), True or "torch" (DistributedSampler's / torch.randperm's order),
        "native" (a keyed O(1)-memory permutation, not torch's), "shards" (shards in random order
        through a shuffle buffer of shuffle_buffer samples, as webdataset).
    seed: DistributedSampler's seed. rank, world_size: this process's share; default torchrun's RANK
        and WORLD_SIZE environment variables, else 0 and 1.
    drop_last: drop this rank's last incomplete batch of each epoch (DataLoader's drop_last).
    partition_drop_last: DistributedSampler's drop_last (drop the tail so every rank gets n // W
        samples instead of padding by repeating from the start).
    num_threads: loader threads (0: one per core). prefetch: batches built ahead (0: 2 per thread).
    max_bytes_in_flight: when > 0, build fewer batches ahead when their bytes would pass it.
    ordered: deliver batches in order (False: as they finish; state_dict() is then refused mid-epoch).
    error_policy: "raise" (a failing sample raises loom.Error when its batch is due, naming it; the
        batches before it come first), "skip" (drop it: its batch is one smaller) or "replace" (the next
        readable sample takes its place, up to max_replacements tries). skipped() lists them.
    collate: None, or a callable applied to each batch dict before it is yielded (as DataLoader's
        collate_fn, but on the already stacked batch).
    metadata: add "__key__" (record keys), "__index__" (dataset indices), "__position__" (global
        positions), "__epoch__" and "__step__" to each batch.
    device: "cpu" (default), or "cuda" / "cuda:N": each batch is collated into pinned memory and copied to
        that GPU on a stream of the loader's own, overlapped with the next batches' CPU work (DataLoader's
        pin_memory plus .to(device, non_blocking=True), done by the loader). The batch's tensors are on
        the device; torch.from_dlpack (what loom does for torch outputs) makes torch's current stream wait
        for the copy. A GPU that is not usable raises loom.UnsupportedError here.

    Iterating yields the rest of the current epoch; an epoch consumed to its end moves the loader to the
    next, so `for epoch ...: for batch in loader` trains epoch after epoch (set_epoch() chooses).
    len(loader) is the number of batches per epoch on this rank. Thread safety: one consumer at a time
    (other threads wait); stats() and skipped() may be called from any thread.
    """

    def __init__(self, dataset, fields=None, batch_size=1, shuffle=False, seed=0, rank=None, world_size=None,
                 drop_last=False, num_threads=0, prefetch=0, error_policy="raise", collate=None, *,
                 partition_drop_last=False, max_bytes_in_flight=0, ordered=True, max_replacements=16,
                 shuffle_buffer=1000, metadata=False, device="cpu"):
        if not isinstance(dataset, _Dataset):
            raise TypeError("dataset must be a loom.data FolderDataset, ManifestDataset or ShardDataset")
        if fields is None:
            fields = [ImageField("image"), LabelField("label")]
        if shuffle is True:
            shuffle = "torch"
        elif shuffle is False or shuffle is None:
            shuffle = "none"
        rank = _env_int("RANK", 0) if rank is None else int(rank)
        world_size = _env_int("WORLD_SIZE", 1) if world_size is None else int(world_size)
        if collate is not None and not callable(collate):
            raise TypeError("collate must be callable")
        self.dataset = dataset
        self.fields = list(fields)
        self.batch_size = batch_size
        self.rank, self.world_size, self.seed = rank, world_size, seed
        self._collate = collate
        self._native = _native.Loader(dataset._native, [f._spec for f in self.fields], batch_size, shuffle,
                                      seed % (1 << 64), rank, world_size, drop_last, partition_drop_last,
                                      num_threads, prefetch, max_bytes_in_flight, ordered, error_policy,
                                      max_replacements, shuffle_buffer, metadata, str(device))

    def __iter__(self):
        next_batch, collate = self._native.next, self._collate
        while True:
            batch = next_batch()
            if batch is None:
                return
            yield batch if collate is None else collate(batch)
            del batch  # hold no batch while the next is awaited: the pool keeps buffers for one

    def __len__(self):
        return len(self._native)

    @property
    def epoch(self):
        """The epoch the next iteration reads."""
        return self._native.epoch

    def set_epoch(self, epoch):
        """Start the next iteration at the beginning of `epoch` (DistributedSampler.set_epoch)."""
        self._native.set_epoch(epoch)

    def state_dict(self):
        """Where the epoch stands, O(1): {"loader_state": the C++ LoaderState JSON text}. A Loader over the
        same dataset and seed resumes from it with exactly the batches that would have come next, for any
        num_threads, and for any world_size at the same global batch."""
        return {"loader_state": self._native.state()}

    def load_state_dict(self, state):
        """Resume from state_dict()'s result (before the next batch is asked for). loom.Error when the
        dataset's fingerprint or the seed differ, or the position is not at a batch boundary."""
        self._native.restore(state["loader_state"] if isinstance(state, dict) else state)

    def skipped(self):
        """Samples skipped or replaced so far (error_policy "skip" / "replace"): a list of dicts with
        epoch, position, index, name, code, error and replaced_by (None unless replaced)."""
        return self._native.skipped()

    def stats(self):
        """samples, batches, seconds, samples_per_second since the first batch; read/decode/transform/
        collate seconds summed over threads; wait_seconds the consumer waited; ready_batches,
        batches_in_flight, bytes_in_flight now."""
        return self._native.stats()

    def close(self):
        """Stop the threads and free the prefetched batches now (also done when the Loader is collected)."""
        self._native.close()

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        self.close()

    def __reduce__(self):
        raise TypeError("a loom.data.Loader cannot be pickled: make one in each process")


__all__ = [
    "AnnotationsField",
    "AudioField",
    "BytesField",
    "Error",
    "FolderDataset",
    "IMAGENET_MEAN",
    "IMAGENET_STD",
    "ImageField",
    "LabelField",
    "Loader",
    "ManifestDataset",
    "ShardDataset",
    "VideoField",
]
