"""The installed wheel in a venv without torch: numpy output (numpy 2, whose from_dlpack asks for the
versioned DLPack protocol), shared memory, loom's libraries linked in, errors."""
import pathlib

import numpy as np
import pytest

import loom


def test_installed_not_the_build_tree():
    path = pathlib.Path(loom.__file__)
    assert path.parent.parent.name == "site-packages", path


def test_numpy_output_without_torch(media):
    assert loom.get_output_type() == "numpy"
    image = loom.io.decode_image(media / "images/jpeg/hopper.jpg")
    assert isinstance(image, np.ndarray) and image.dtype == np.uint8 and image.shape[0] == 3


def test_numpy_2_dlpack_shares_memory(media):
    loom.set_output_type("loom")
    try:
        tensor = loom.io.decode_image(media / "images/png/hopper.png")
    finally:
        loom.set_output_type("auto")
    array = np.from_dlpack(tensor)  # numpy 2 passes max_version=(1, 0): the versioned capsule
    assert array.ctypes.data == tensor.data_ptr
    array[0, 0, 0] = 17
    assert np.asarray(tensor)[0, 0, 0] == 17
    back = loom.from_dlpack(array)  # and numpy 2 produces a versioned capsule for loom
    assert back.data_ptr == tensor.data_ptr


def test_read_only_arrays_cross(media):
    data = np.frombuffer((media / "images/jpeg/hopper.jpg").read_bytes(), dtype=np.uint8)
    assert not data.flags.writeable
    assert loom.io.decode_image(data).shape == loom.io.decode_image(media / "images/jpeg/hopper.jpg").shape


def test_errors():
    with pytest.raises(loom.InvalidInputError):
        loom.io.decode_image(b"not an image")
