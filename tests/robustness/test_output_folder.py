"""Where outputs go (CATALOG.md 50a): the output folder is taken as named, and may be a symbolic link;
below it loom writes only into real folders, so a link planted as a sub-folder of the mirrored tree
cannot send outputs elsewhere.
"""
import pytest

INPUTS = {"convert": ("images/png/hopper.png", "hopper.png", []),
          "audio": ("audio/exo_bear.flac", "exo_bear.wav", ["--format", "wav"])}


@pytest.fixture
def tree(media, tmp_path):
    def make(command):
        source, _, _ = INPUTS[command]
        src = tmp_path / "src"
        for cls in ("cats", "dogs"):
            (src / cls).mkdir(parents=True)
            (src / cls / (media / source).name).write_bytes((media / source).read_bytes())
        return src

    return make


@pytest.mark.parametrize("command", INPUTS)
def test_a_symlinked_sub_folder_is_never_written_through(run_loom, tree, tmp_path, command):
    src, (_, output_name, extra) = tree(command), INPUTS[command]
    out, elsewhere = tmp_path / "out", tmp_path / "elsewhere"
    out.mkdir()
    elsewhere.mkdir()
    (out / "cats").symlink_to(elsewhere)
    result = run_loom(command, src, "-o", out, *extra, timeout=120)
    assert result.returncode == 1, result.stderr
    assert f": {out / 'cats'}: is a symbolic link inside the output folder" in result.stderr, result.stderr
    assert list(elsewhere.iterdir()) == []
    assert [p.name for p in (out / "dogs").iterdir()] == [output_name]  # the rest of the batch goes on


@pytest.mark.parametrize("command", INPUTS)
def test_the_output_folder_itself_may_be_a_link(run_loom, tree, tmp_path, command):
    src, (_, output_name, extra) = tree(command), INPUTS[command]
    real = tmp_path / "scratch"
    real.mkdir()
    (tmp_path / "out").symlink_to(real)
    result = run_loom(command, src, "-o", tmp_path / "out", *extra, timeout=120)
    assert result.returncode == 0, result.stderr
    assert sorted(p.relative_to(real).as_posix() for p in real.rglob("*.*")) == [f"cats/{output_name}",
                                                                                f"dogs/{output_name}"]
