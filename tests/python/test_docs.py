"""The Python examples of docs/python.md run (a doc example that cannot run is a bug): each ```python
block, in order, in one namespace, in a temporary folder, with the media folder the tests are given."""
import os
import pathlib
import re

import loom

DOC = pathlib.Path(__file__).resolve().parents[2] / "docs" / "python.md"


def test_python_examples_run(media, tmp_path, monkeypatch):
    blocks = re.findall(r"```python\n(.*?)```", DOC.read_text(), flags=re.S)
    assert len(blocks) >= 3
    monkeypatch.chdir(tmp_path)
    namespace = {}
    try:
        for block in blocks:
            code = block.replace("../shared/media", os.fspath(media)).replace("/tmp/", f"{tmp_path}/")
            exec(compile(code, f"{DOC.name} example", "exec"), namespace)
    finally:
        loom.set_output_type("auto")
