"""loom.Tensor crossing into torch and numpy: shared memory (pointer equality and writes seen on both
sides), the legacy and the versioned DLPack protocol, the buffer protocol, lifetimes and output types.

Runs with Debian's /usr/bin/python3 (torch 1.13, numpy 1.24) on the build tree's loom package.
"""
import ctypes
import gc

import numpy as np
import pytest
import torch

import loom

_capsule_name = ctypes.pythonapi.PyCapsule_GetName
_capsule_name.restype = ctypes.c_char_p
_capsule_name.argtypes = [ctypes.py_object]
_capsule_pointer = ctypes.pythonapi.PyCapsule_GetPointer
_capsule_pointer.restype = ctypes.c_void_p
_capsule_pointer.argtypes = [ctypes.py_object, ctypes.c_char_p]


class DLTensor(ctypes.Structure):
    _fields_ = [("data", ctypes.c_void_p), ("device_type", ctypes.c_int32), ("device_id", ctypes.c_int32),
                ("ndim", ctypes.c_int32), ("code", ctypes.c_uint8), ("bits", ctypes.c_uint8),
                ("lanes", ctypes.c_uint16), ("shape", ctypes.POINTER(ctypes.c_int64)),
                ("strides", ctypes.POINTER(ctypes.c_int64)), ("byte_offset", ctypes.c_uint64)]


class DLManagedTensorVersioned(ctypes.Structure):
    """DLPack 1.0's struct, read from the capsule to check what loom put in it."""
    _fields_ = [("major", ctypes.c_uint32), ("minor", ctypes.c_uint32), ("manager_ctx", ctypes.c_void_p),
                ("deleter", ctypes.c_void_p), ("flags", ctypes.c_uint64), ("dl_tensor", DLTensor)]


@pytest.fixture(autouse=True)
def loom_output():
    loom.set_output_type("loom")
    yield
    loom.set_output_type("auto")


@pytest.fixture
def image(media):
    """hopper.png decoded: a 3 x 128 x 128 uint8 loom.Tensor."""
    return loom.io.decode_image(str(media / "images/png/hopper.png"))


def test_decode_returns_a_loom_tensor(image):
    assert isinstance(image, loom.Tensor)
    assert image.shape == (3, 128, 128)
    assert image.dtype == "uint8" and image.device == "cpu" and image.is_contiguous()
    assert image.strides == (image.shape[1] * image.shape[2], image.shape[2], 1)
    assert len(image) == 3 and image.nbytes == np.prod(image.shape)


def test_torch_shares_memory(image):
    t = torch.from_dlpack(image)
    assert t.data_ptr() == image.data_ptr
    assert tuple(t.shape) == image.shape and t.dtype == torch.uint8
    view = np.asarray(image)
    t[0, 0, 0] = 7
    assert view[0, 0, 0] == 7  # a write through torch is seen through numpy, the same memory
    view[2, 5, 9] = 201
    assert t[2, 5, 9].item() == 201


def test_numpy_shares_memory_through_buffer_and_dlpack(image):
    a = np.asarray(image)
    b = np.from_dlpack(image)
    assert a.ctypes.data == image.data_ptr == b.ctypes.data
    assert a.flags.writeable and a.dtype == np.uint8 and a.shape == image.shape
    a[1, 2, 3] = 99
    assert b[1, 2, 3] == 99


def test_legacy_capsule(image):
    capsule = image.__dlpack__()
    assert _capsule_name(capsule) == b"dltensor"
    t = torch.utils.dlpack.from_dlpack(capsule)
    assert t.data_ptr() == image.data_ptr
    assert _capsule_name(capsule) == b"used_dltensor"  # consumed: the consumer owns it now


def test_versioned_capsule(image):
    capsule = image.__dlpack__(max_version=(1, 0))
    assert _capsule_name(capsule) == b"dltensor_versioned"
    managed = DLManagedTensorVersioned.from_address(_capsule_pointer(capsule, b"dltensor_versioned"))
    assert (managed.major, managed.minor) == (1, 0)
    assert managed.flags == 0
    dl = managed.dl_tensor
    assert dl.data == image.data_ptr and dl.ndim == 3 and (dl.code, dl.bits, dl.lanes) == (1, 8, 1)
    assert [dl.shape[i] for i in range(3)] == list(image.shape)
    assert [dl.strides[i] for i in range(3)] == list(image.strides)
    # An older max_version gets the legacy capsule.
    assert _capsule_name(image.__dlpack__(max_version=(0, 8))) == b"dltensor"


class _Producer:
    """A DLPack producer handing out one given capsule (as numpy 2 / torch 2 would, versioned)."""

    def __init__(self, tensor, **kwargs):
        self.tensor, self.kwargs = tensor, kwargs

    def __dlpack__(self, *, max_version=None, **_):
        return self.tensor.__dlpack__(max_version=max_version, **self.kwargs)

    def __dlpack_device__(self):
        return self.tensor.__dlpack_device__()


def test_versioned_import_round_trip(image):
    back = loom.from_dlpack(_Producer(image))  # loom asks for (1, 0): a versioned capsule
    assert back.data_ptr == image.data_ptr and back.shape == image.shape


def test_copy_true_exports_a_copy_marked_copied(image):
    capsule = image.__dlpack__(max_version=(1, 0), copy=True)
    managed = DLManagedTensorVersioned.from_address(_capsule_pointer(capsule, b"dltensor_versioned"))
    assert managed.flags & 2  # DLPACK_FLAG_BITMASK_IS_COPIED
    assert managed.dl_tensor.data != image.data_ptr
    copied = loom.from_dlpack(_Producer(image, copy=True))
    assert copied.data_ptr != image.data_ptr
    assert np.array_equal(np.asarray(copied), np.asarray(image))


def test_dlpack_device_and_refusals(image):
    assert image.__dlpack_device__() == (1, 0)
    with pytest.raises(BufferError, match="own device"):
        image.__dlpack__(dl_device=(2, 0))
    with pytest.raises(BufferError, match="stream"):
        image.__dlpack__(stream=5)
    assert _capsule_name(image.__dlpack__(dl_device=(1, 0), copy=False)) == b"dltensor"


def test_imports_share_memory():
    t = torch.arange(24, dtype=torch.int32).reshape(2, 3, 4)
    from_torch = loom.from_dlpack(t)
    assert from_torch.data_ptr == t.data_ptr() and from_torch.dtype == "int32" and from_torch.shape == (2, 3, 4)
    a = np.linspace(0, 1, 12, dtype=np.float32).reshape(3, 4)
    from_numpy = loom.from_dlpack(a)
    assert from_numpy.data_ptr == a.ctypes.data and from_numpy.dtype == "float32"
    readonly = np.frombuffer(b"abcdef", dtype=np.uint8)  # numpy 1.x refuses DLPack for it: the buffer
    assert loom.from_dlpack(readonly).data_ptr == readonly.ctypes.data
    raw = bytearray(b"\x01\x02\x03")
    assert np.asarray(loom.from_dlpack(raw)).tolist() == [1, 2, 3]


def test_strided_views_keep_their_strides():
    t = torch.arange(60, dtype=torch.int16).reshape(3, 4, 5).permute(2, 0, 1)[:, ::2]
    view = loom.from_dlpack(t)
    assert view.shape == tuple(t.shape) and view.strides == t.stride() and not view.is_contiguous()
    assert view.data_ptr == t.data_ptr()
    assert np.array_equal(np.asarray(view), t.numpy())
    assert torch.equal(torch.from_dlpack(view), t)


def test_owners_outlive_the_other_side(media):
    image = loom.io.decode_image(str(media / "images/png/hopper.png"))
    expected = np.asarray(image).copy()
    t = torch.from_dlpack(image)
    del image
    gc.collect()
    assert np.array_equal(t.numpy(), expected)  # torch keeps loom's storage alive
    a = np.arange(10, dtype=np.float64)
    view = loom.from_dlpack(a)
    del a
    gc.collect()
    assert np.asarray(view).tolist() == list(range(10))  # loom keeps numpy's array alive


def test_dtypes_cross_both_ways():
    for dtype in (torch.uint8, torch.int16, torch.int32, torch.int64, torch.float16, torch.float32,
                  torch.float64, torch.bfloat16):
        t = torch.ones(2, 3, dtype=dtype)
        back = torch.from_dlpack(loom.from_dlpack(t))
        assert back.dtype == dtype and back.data_ptr() == t.data_ptr()
    with pytest.raises(BufferError, match="bfloat16"):
        memoryview(loom.from_dlpack(torch.ones(2, dtype=torch.bfloat16)))
    with pytest.raises(loom.UnsupportedError):
        loom.from_dlpack(torch.ones(2, dtype=torch.int8))
    with pytest.raises(TypeError, match="expected a tensor"):
        loom.from_dlpack(3.5)


def test_output_types(media):
    path = str(media / "images/png/hopper.png")
    loom.set_output_type("numpy")
    assert isinstance(loom.io.decode_image(path), np.ndarray) and loom.get_output_type() == "numpy"
    loom.set_output_type("torch")
    out = loom.io.decode_image(path)
    assert isinstance(out, torch.Tensor) and out.dtype == torch.uint8
    loom.set_output_type("auto")
    assert loom.get_output_type() == "torch"  # torch is importable here
    with pytest.raises(ValueError, match="output type"):
        loom.set_output_type("jax")
