"""Names at the limits (CATALOG.md 55b-55c): every legal output name can be written, and no input name,
however encoded, can make loom abort.
"""
import json
import os
import subprocess

NAME_MAX = 255


def test_a_255_byte_output_name_is_written(run_loom, media, tmp_path):
    src = tmp_path / "src"
    src.mkdir()
    stem = "n" * (NAME_MAX - len(".png"))
    (src / f"{stem}.png").write_bytes((media / "images" / "png" / "tiny.png").read_bytes())
    out = tmp_path / "out"
    result = run_loom("convert", src, "-o", out, "--format", "png", timeout=60)
    assert result.returncode == 0, result.stderr
    assert [p.name for p in out.iterdir()] == [f"{stem}.png"]  # in place, and no temporary left behind
    assert len(os.fsencode(f"{stem}.png")) == NAME_MAX


def test_a_missing_input_whose_name_is_not_utf8_is_reported(loom, tmp_path):
    name = os.fsencode(tmp_path) + b"/caf\xe9-\xff.jpg"  # Latin-1 bytes: not UTF-8
    result = subprocess.run([os.fsencode(loom), b"info", name], capture_output=True, timeout=60)
    assert result.returncode == 1, result.stderr
    line = json.loads(result.stdout.decode("utf-8"))  # valid UTF-8 JSON, one object
    # Invalid bytes become U+FFFD, the JSON replacement character; the rest of the name is kept.
    assert line["path"] == os.fsdecode(tmp_path) + "/caf\ufffd-\ufffd.jpg"
    assert "error" in line
