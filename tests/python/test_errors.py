"""loom.Error and its subclasses: mapped from loom::Error codes, messages unchanged."""
import pytest

import loom


def test_hierarchy():
    assert issubclass(loom.Error, RuntimeError)
    assert issubclass(loom.InvalidInputError, loom.Error) and issubclass(loom.InvalidInputError, ValueError)
    assert issubclass(loom.UnsupportedError, loom.Error) and issubclass(loom.UnsupportedError, ValueError)
    assert issubclass(loom.IoError, loom.Error) and issubclass(loom.IoError, OSError)
    assert issubclass(loom.LimitExceededError, loom.Error) and issubclass(loom.LimitExceededError, ValueError)
    assert issubclass(loom.InternalError, loom.Error)


def test_invalid_input_names_the_input():
    with pytest.raises(loom.InvalidInputError) as caught:
        loom.io.decode_image(b"definitely not an image")
    error = caught.value
    assert error.code == "invalid_input" and error.input == "decode_image"
    assert str(error) == f"{error.input}: {error.message}"


def test_truncated_jpeg(media):
    data = (media / "images/jpeg/hopper.jpg").read_bytes()[:500]
    with pytest.raises(loom.InvalidInputError, match="decode_jpeg"):
        loom.io.decode_jpeg(data)


def test_missing_file_is_an_os_error(tmp_path):
    missing = tmp_path / "missing.png"
    with pytest.raises(OSError) as caught:
        loom.io.read_image(missing)
    assert isinstance(caught.value, loom.IoError)
    assert caught.value.code == "io" and caught.value.input == str(missing)
    assert str(missing) in str(caught.value)


def test_unsupported_device():
    with pytest.raises(loom.UnsupportedError, match="device 'cuda'"):
        loom.io.decode_jpeg(b"\xff\xd8", device="cuda")
