#!/usr/bin/python3
"""The training loop in Python: a tiny torch model trained for a few steps (CPU) on batches from
loom.data.Loader over an ImageFolder written with loom.io into a temporary folder.

    PYTHONPATH=build/python /usr/bin/python3 samples/train_loop.py [STEPS]

Two classes, told apart by colour: red-ish and blue-ish noisy images. The loader RandomResizedCrops
each to 32x32 (decoding only the crop), flips at random and normalizes into float32 CHW batches of 16,
shuffled as DistributedSampler (rank and world size from torchrun's RANK / WORLD_SIZE when set).
Checks, as it goes: the loss goes down, and no batch is copied on the way in (the loader yields
loom.Tensor; torch.from_dlpack shares its memory).
"""

import os
import sys
import tempfile

import numpy as np
import torch

import loom
import loom.data as ld


def write_dataset(root, per_class=48):
    rng = np.random.default_rng(0)
    for label, name in enumerate(["blue", "red"]):
        os.makedirs(os.path.join(root, name))
        for i in range(per_class):
            h, w = rng.integers(40, 72, 2)
            image = rng.normal(110, 40, (3, h, w))
            image[2 if label == 0 else 0] += 90  # the class is in the colour
            pixels = torch.from_numpy(np.clip(image, 0, 255).astype(np.uint8))
            loom.io.write_jpeg(pixels, os.path.join(root, name, f"{i:03d}.jpg"), quality=90)


def main():
    steps = int(sys.argv[1]) if len(sys.argv) > 1 else 30
    torch.manual_seed(0)
    with tempfile.TemporaryDirectory() as root:
        write_dataset(root)
        dataset = ld.FolderDataset(root)
        print(f"{len(dataset)} images in classes {dataset.classes}")
        loader = ld.Loader(dataset, batch_size=16, shuffle=True, seed=0, num_threads=2, drop_last=True, fields=[
            ld.ImageField("image", layout="HWC", random_resized_crop=32, scale=(0.5, 1.0), decode_crop=True,
                          horizontal_flip=0.5, normalize=(ld.IMAGENET_MEAN, ld.IMAGENET_STD)),
            ld.LabelField("label"),
        ])
        model = torch.nn.Sequential(torch.nn.Conv2d(3, 8, 3, stride=2), torch.nn.ReLU(),
                                    torch.nn.AdaptiveAvgPool2d(1), torch.nn.Flatten(), torch.nn.Linear(8, 2))
        optimizer = torch.optim.SGD(model.parameters(), lr=0.1, momentum=0.9)
        loom.set_output_type("loom")  # batches as loom.Tensor, to show that torch shares their memory
        losses = []
        epoch = 0
        while len(losses) < steps:
            loader.set_epoch(epoch)
            for batch in loader:
                x, y = torch.from_dlpack(batch["image"]), torch.from_dlpack(batch["label"])
                assert x.data_ptr() == batch["image"].data_ptr, "the image batch was copied"
                assert y.data_ptr() == batch["label"].data_ptr, "the label batch was copied"
                assert x.shape == (16, 3, 32, 32) and x.dtype == torch.float32 and y.dtype == torch.int64
                loss = torch.nn.functional.cross_entropy(model(x), y)
                optimizer.zero_grad()
                loss.backward()
                optimizer.step()
                losses.append(loss.item())
                if len(losses) == steps:
                    break
            epoch += 1
        first, last = np.mean(losses[:5]), np.mean(losses[-5:])
        print(f"{steps} steps over {epoch} epochs: loss {first:.3f} -> {last:.3f}; "
              f"{loader.stats()['samples_per_second']:.0f} samples/s; resume state {loader.state_dict()}")
        assert last < 0.7 * first, f"the loss did not go down: {first:.3f} -> {last:.3f}"
    return 0


if __name__ == "__main__":
    sys.exit(main())
