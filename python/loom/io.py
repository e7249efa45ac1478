"""Image and file I/O after torchvision.io.

The same names and arguments as torchvision.io: decode_image, decode_jpeg, decode_png, decode_webp,
decode_gif, decode_avif, decode_heic, encode_jpeg, encode_png, read_image, write_jpeg, write_png,
read_file, write_file and ImageReadMode. Decoders also take bytes and paths, and a keyword-only layout
("CHW", the default, or "HWC").

loom also reads WebP, GIF, TIFF, AVIF, HEIF and BMP through decode_image and read_image, and adds
decode_image_frames (every frame of an animation), encode_webp and write_webp.

Differences from torchvision: decode_jpeg runs on the CPU only (device="cpu"); write_* and write_file
write atomically (a file appears whole or not at all); errors are loom.Error subclasses (RuntimeError).
"""

from ._loom import io as _native

ImageReadMode = _native.ImageReadMode
decode_image = _native.decode_image
decode_image_frames = _native.decode_image_frames
decode_webp = _native.decode_webp
decode_gif = _native.decode_gif
decode_avif = _native.decode_avif
decode_heic = _native.decode_heic
decode_jpeg = _native.decode_jpeg
decode_png = _native.decode_png
encode_jpeg = _native.encode_jpeg
encode_png = _native.encode_png
encode_webp = _native.encode_webp
read_image = _native.read_image
write_jpeg = _native.write_jpeg
write_png = _native.write_png
write_webp = _native.write_webp
read_file = _native.read_file
write_file = _native.write_file

__all__ = [
    "ImageReadMode",
    "decode_image",
    "decode_avif",
    "decode_gif",
    "decode_heic",
    "decode_image_frames",
    "decode_webp",
    "decode_jpeg",
    "decode_png",
    "encode_jpeg",
    "encode_png",
    "encode_webp",
    "read_file",
    "read_image",
    "write_file",
    "write_jpeg",
    "write_png",
    "write_webp",
]
