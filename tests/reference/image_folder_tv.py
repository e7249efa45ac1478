"""torchvision.datasets.ImageFolder / DatasetFolder listings, for tests/loader/folder_dataset_test.cc.

params.json: {"roots": [root, ...], "extensions": [".jpg", ...] or null (ImageFolder's own list)}.
Writes out_<k>.json for root k: {"classes": [...], "class_to_idx": {...}, "samples": [[path, label],
...]}, or {"error": exception type name, "message": its text} when torchvision refuses the folder.
"""
from torchvision.datasets import DatasetFolder, ImageFolder

from refutil import params, save_json

p = params()
for k, root in enumerate(p["roots"]):
    try:
        if p["extensions"] is None:
            dataset = ImageFolder(root)
        else:
            dataset = DatasetFolder(root, loader=lambda path: path, extensions=tuple(p["extensions"]))
        result = {"classes": dataset.classes, "class_to_idx": dataset.class_to_idx,
                  "samples": [[path, label] for path, label in dataset.samples]}
    except Exception as e:  # noqa: BLE001 - the test compares loom's refusal with torchvision's
        result = {"error": type(e).__name__, "message": str(e)}
    save_json(str(k), result)
