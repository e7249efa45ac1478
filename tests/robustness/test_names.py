"""Names at the limits (CATALOG.md 55b): no input name, however encoded, can make loom abort.
"""
import json
import os
import subprocess


def test_a_missing_input_whose_name_is_not_utf8_is_reported(loom, tmp_path):
    name = os.fsencode(tmp_path) + b"/caf\xe9-\xff.jpg"  # Latin-1 bytes: not UTF-8
    result = subprocess.run([os.fsencode(loom), b"info", name], capture_output=True, timeout=60)
    assert result.returncode == 1, result.stderr
    line = json.loads(result.stdout.decode("utf-8"))  # valid UTF-8 JSON, one object
    # Invalid bytes become U+FFFD, the JSON replacement character; the rest of the name is kept.
    assert line["path"] == os.fsdecode(tmp_path) + "/caf\ufffd-\ufffd.jpg"
    assert "error" in line
