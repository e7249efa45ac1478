"""Reference for loom's WebDataset shards: Python's tarfile writes and reads tars, and the grouping is
webdataset's (webdataset/tariterators.py: tar_file_iterator's skipping, base_plus_ext, group_by_keys),
restated here because Debian has no webdataset package.

  tar_shards.py write FORMAT OUT      the test shard, FORMAT gnu, pax or ustar; OUT ending in .gz, .bz2
                                      or .xz is compressed
  tar_shards.py bad CASE OUT          a damaged or unsafe shard (see BAD below)
  tar_shards.py pax_size OUT          a shard whose ustar headers say 0 bytes and whose pax records
                                      give the real sizes and a path longer than ustar holds
  tar_shards.py read SHARD            JSON on stdout: {"members": [[name, offset_data, size, hex]],
                                      "samples": [[key, [[name, hex], ...]], ...]}
  tar_shards.py split                 reads a JSON list of paths on stdin; prints [key, name] or null
                                      for each (base_plus_ext after the skip_meta test)
"""
import io
import json
import re
import sys
import tarfile

META = re.compile(r"__[^/]*__($|/)")
BASE_PLUS_EXT = re.compile(r"^((?:.*/|)[^.]+)[.]([^/]*)$")


def split(path):
    """webdataset: tar_file_iterator's metadata skip, then base_plus_ext and lcase (ASCII here)."""
    if "/" not in path and path.startswith("__") and path.endswith("__"):
        return None
    if META.match(path):
        return None
    m = BASE_PLUS_EXT.match(path)
    if not m:
        return None
    return [m.group(1), m.group(2).encode().lower().decode()]


def group(tar):
    """webdataset's group_by_keys over tar_file_iterator (regular files only)."""
    samples, current = [], None
    for info in tar:
        if not info.isreg():
            continue
        s = split(info.name)
        if s is None:
            continue
        data = tar.extractfile(info).read()
        key, name = s
        if current is None or key != current[0]:
            if current is not None:
                samples.append(current)
            current = [key, []]
        if any(n == name for n, _ in current[1]):
            raise ValueError(f"{info.name}: duplicate file name in tar file {name}")
        current[1].append([name, data.hex()])
    if current is not None:
        samples.append(current)
    return samples


def members():
    """The test shard: nested keys, multi-dot names, upper-case extensions, names past ustar's 100
    and 255 bytes, unicode, empty and block-sized members, and what webdataset skips (folders, no
    dot, metadata, a hidden name at the top)."""
    out = [
        ("cat/", None),
        ("cat/001.jpg", bytes(range(256)) * 3),
        ("cat/001.cls", b"0"),
        ("cat/001.json", b'{"boxes": [[1, 2, 3, 4]], "caption": "a cat"}'),
        ("cat/002.jpg", b"\xff\xd8" + b"j" * 1021),
        ("cat/002.cls", b" 1\n"),
        ("a/b/x.seg.png", b"s" * 512),
        ("a/b/x.JPG", b"x" * 513),
        ("README", b"not a sample"),
        ("__meta__/info.json", b"{}"),
        ("__index__", b""),
        (".hidden.txt", b"top-level hidden: no key"),
        ("plain/.hidden.txt", b"key plain/"),
        ("dir.d/.x.txt", b"no key either"),
        ("empty/zero.bin", b""),
        ("long/" + "d" * 120 + "/sample.txt", b"past 100 bytes"),
        ("unicode/\u00fcn\u00efc\u00f6d\u00e9/\u65e5\u672c.txt", "\u65e5\u672c".encode()),
        ("v1.0/data.tar.gz", b"dots in folders"),
    ]
    return out


def long_members():
    return [("deep/" + "e" * 300 + ".bin", b"past 255 bytes")]


def add(tar, name, data, **fields):
    info = tarfile.TarInfo(name)
    if data is None:
        info.type = tarfile.DIRTYPE
        tar.addfile(info)
        return
    info.size = len(data)
    info.mtime = 1700000000
    for k, v in fields.items():
        setattr(info, k, v)
    tar.addfile(info, io.BytesIO(data))


def write(fmt, out):
    formats = {"gnu": tarfile.GNU_FORMAT, "pax": tarfile.PAX_FORMAT, "ustar": tarfile.USTAR_FORMAT}
    mode = "w"
    for ext, m in ((".gz", "w:gz"), (".bz2", "w:bz2"), (".xz", "w:xz")):
        if out.endswith(ext):
            mode = m
    with tarfile.open(out, mode, format=formats[fmt]) as tar:
        items = members() + ([] if fmt == "ustar" else long_members())
        for name, data in items:
            add(tar, name, data)


def header(info, fmt=tarfile.GNU_FORMAT):
    return info.tobuf(fmt, "utf-8", "surrogateescape")


def pad(data):
    return data + b"\0" * (-len(data) % 512)


def end():
    return b"\0" * 1024


def regular(name, data):
    info = tarfile.TarInfo(name)
    info.size = len(data)
    return header(info) + pad(data)


def special(name, kind, target=""):
    info = tarfile.TarInfo(name)
    info.type = kind
    info.linkname = target
    return header(info)


def bad(case, out):
    """Unsafe or damaged shards, each one problem after two good samples."""
    good = regular("ok0.jpg", b"good") + regular("ok.jpg", b"good")
    cases = {
        "dotdot": good + regular("../../x.jpg", b"escape") + end(),
        "absolute": good + regular("/abs/x.jpg", b"absolute") + end(),
        "symlink": good + special("link.jpg", tarfile.SYMTYPE, "/etc/passwd") + end(),
        "hardlink": good + special("hard.jpg", tarfile.LNKTYPE, "ok.jpg") + end(),
        "chardev": good + special("dev.jpg", tarfile.CHRTYPE) + end(),
        "blockdev": good + special("blk.jpg", tarfile.BLKTYPE) + end(),
        "fifo": good + special("fifo.jpg", tarfile.FIFOTYPE) + end(),
        # The last member's data is cut in the middle.
        "truncated": good + regular("cut.jpg", b"c" * 2000)[: 512 + 1000],
        # A header cut in the middle.
        "truncated_header": good + regular("cut.jpg", b"c" * 10)[:300],
        # A member declaring 8 GiB with a few bytes after it.
        "huge": good + header(sized("huge.jpg", 8 << 30)) + b"h" * 1024 + end(),
        "duplicate_name": good + regular("a.jpg", b"1") + regular("a.JPG", b"2") + end(),
        "split_key": good + regular("a.jpg", b"1") + regular("b.jpg", b"2") + regular("a.cls", b"3") + end(),
        "empty": b"",
        "end_only": end() * 5,
        "not_tar": b"this is not a tar archive, only text that goes on for a while " * 20,
        "bad_checksum": good[:148] + b"0000000\0" + good[156:] + end(),
        "bad_cls": regular("x.jpg", b"j") + regular("x.cls", b"one") + end(),
        "bad_json": regular("x.jpg", b"j") + regular("x.json", b"[1, 2]") + end(),
    }
    with open(out, "wb") as f:
        f.write(cases[case])


def pax_size(out):
    """pax "size" and "path" records overriding the ustar header's fields."""
    def member(path, data):
        pax = tarfile.TarInfo._create_pax_generic_header({"size": str(len(data)), "path": path},
                                                         tarfile.XHDTYPE, "utf-8")
        info = tarfile.TarInfo("short.bin")
        info.size = 0
        return pax + info.tobuf(tarfile.USTAR_FORMAT) + pad(data)
    with open(out, "wb") as f:
        f.write(member("p/" + "q" * 200 + "/a.bin", b"hello") + member("p/b.bin", b"x" * 700) + end())


def sized(name, size):
    info = tarfile.TarInfo(name)
    info.size = size
    return info


def read(path):
    with tarfile.open(path, "r:*") as tar:
        listed = [[m.name, m.offset_data, m.size, tar.extractfile(m).read().hex() if m.isreg() else None]
                  for m in tar.getmembers()]
    with tarfile.open(path, "r|*") as tar:
        samples = group(tar)
    json.dump({"members": listed, "samples": samples}, sys.stdout)


def main():
    cmd = sys.argv[1]
    if cmd == "write":
        write(sys.argv[2], sys.argv[3])
    elif cmd == "pax_size":
        pax_size(sys.argv[2])
    elif cmd == "bad":
        bad(sys.argv[2], sys.argv[3])
    elif cmd == "read":
        read(sys.argv[2])
    elif cmd == "split":
        json.dump([split(p) for p in json.load(sys.stdin)], sys.stdout)
    else:
        sys.exit(f"unknown command {cmd}")


if __name__ == "__main__":
    main()
