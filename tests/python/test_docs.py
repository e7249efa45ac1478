"""The Python examples of the docs run (a doc example that cannot run is a bug): in each page with
```python blocks (docs/*.md, README.md), every block, in order, in one namespace per page, in a
temporary folder, with the media folder the tests are given."""
import os
import pathlib
import re

import loom

import pytest

ROOT = pathlib.Path(__file__).resolve().parents[2]
PAGES = [p for p in sorted((ROOT / "docs").glob("*.md")) + [ROOT / "README.md"] if "```python" in p.read_text()]


def test_the_pages_with_python_examples_are_found():
    assert {"python.md", "transforms.md", "README.md"} <= {p.name for p in PAGES}


@pytest.mark.parametrize("page", PAGES, ids=lambda p: p.name)
def test_python_examples_run(page, media, tmp_path, monkeypatch):
    blocks = re.findall(r"```python\n(.*?)```", page.read_text(), flags=re.S)
    monkeypatch.chdir(tmp_path)
    namespace = {}
    try:
        for block in blocks:
            code = block.replace("../shared/media", os.fspath(media)).replace("/tmp/", f"{tmp_path}/")
            exec(compile(code, f"{page.name} example", "exec"), namespace)
    finally:
        loom.set_output_type("auto")
