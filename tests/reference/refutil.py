"""Python side of tests/common/python_reference.h.

A reference script is run as `python3 <script> <folder>`; it reads inputs with `load(name)` (a NumPy
array from <folder>/<name>.npy) and `params()` (<folder>/params.json), and writes each result with
`save(name, array)` (<folder>/out_<name>.npy) or `save_json(name, value)` (<folder>/out_<name>.json),
which the C++ test then compares with loom's output.
"""
import json
import os
import sys

import numpy as np

FOLDER = sys.argv[1]


def load(name):
    return np.load(os.path.join(FOLDER, name + ".npy"))


def params():
    with open(os.path.join(FOLDER, "params.json")) as f:
        return json.load(f)


def save(name, array):
    np.save(os.path.join(FOLDER, "out_" + name + ".npy"), np.ascontiguousarray(np.asarray(array)))


def save_json(name, value):
    with open(os.path.join(FOLDER, "out_" + name + ".json"), "w") as f:
        json.dump(value, f)
