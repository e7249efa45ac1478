"""The installed libraries keep the layers and export loom's public API and nothing else.

Usage: /usr/bin/python3 check_libraries.py PREFIX SOURCE_DIR

Checks, for every libloom_*.so under PREFIX's lib folder (the modules, and the CLI's commands library):
- that it links only the loom libraries of the layers below it (docs/architecture.md: siblings such as
  video and audio, or transforms and vision, never link each other);
- that each exported (defined, dynamic) symbol is in namespace loom (or is the typeinfo/vtable of a loom
  type) and none comes from private code (the FFmpeg layer, the pending-files registry, detail and
  anonymous namespaces, a pimpl's members);
and that every public header of SOURCE_DIR declares its API between LOOM_API_BEGIN and LOOM_API_END.
Exits 1 with the offenders.
"""
import glob
import os
import re
import subprocess
import sys

ALLOWED = re.compile(r"^((typeinfo|typeinfo name|vtable|VTT) for )?loom::")
# Private code: the FFmpeg layer, the registry, detail and anonymous namespaces, and the members of a
# public class's pimpl (Impl, State, Storage: declared LOOM_HIDDEN in its public header).
PRIVATE = re.compile(r"loom::(ffmpeg|internal|pending_files)::|::detail::|\(anonymous namespace\)|"
                     r"::(Impl|State|Storage)::")


# What each library may link (NEEDED) among loom's own.
MAY_LINK = {
    "codec": set(),
    "accel": {"codec"},
    "vision": {"codec", "accel"},
    "audio": {"codec", "accel"},
    "video": {"codec", "accel"},
    "transforms": {"codec", "accel"},
    "loader": {"codec", "accel", "vision", "audio", "video", "transforms"},
    # the CLI's commands library (lib/loom/libloom_cli.so), loaded by the launcher: everything
    "cli": {"codec", "accel", "vision", "audio", "video", "transforms", "loader"},
}
# What each library exports besides loom's public API: the CLI's entry point only.
ENTRY_POINTS = {"cli": {"loom_cli_main"}}


def linked_loom_libraries(lib):
    out = subprocess.run(["readelf", "-d", lib], check=True, capture_output=True, text=True).stdout
    return set(re.findall(r"\(NEEDED\).*\[libloom_([a-z_]+)\.so", out))


def exported(lib):
    out = subprocess.run(["nm", "-DC", "--defined-only", lib], check=True, capture_output=True, text=True).stdout
    return [line.split(" ", 2)[2] for line in out.splitlines() if line.count(" ") >= 2]


def main(prefix, source_dir):
    problems = []
    libs = sorted(glob.glob(os.path.join(prefix, "lib*", "**", "libloom_*.so"), recursive=True))
    if len(libs) < 8:
        problems.append(f"expected the 7 loom libraries and the CLI's under {prefix}, found {libs}")
    for lib in libs:
        module = re.match(r"libloom_([a-z_]+)\.so", os.path.basename(lib)).group(1)
        for dep in sorted(linked_loom_libraries(lib) - MAY_LINK.get(module, set())):
            problems.append(f"{os.path.basename(lib)}: links libloom_{dep}, which its layer may not use")
        names = exported(lib)
        if not names:
            problems.append(f"{lib}: exports nothing")
        for name in names:
            if name in ENTRY_POINTS.get(module, set()):
                continue
            if not ALLOWED.match(name) or PRIVATE.search(name):
                problems.append(f"{os.path.basename(lib)}: exports {name}")
    for header in sorted(glob.glob(os.path.join(source_dir, "*", "include", "loom", "*", "*.h"))):
        text = open(header, encoding="utf-8").read()
        if header.endswith(os.path.join("codec", "api.h")):
            continue
        if "LOOM_API_BEGIN" not in text or "LOOM_API_END" not in text:
            problems.append(f"{header}: no LOOM_API_BEGIN/LOOM_API_END around its declarations")
    for p in problems:
        print(p)
    print(f"{len(libs)} libraries checked, {len(problems)} problems")
    return 1 if problems else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1], sys.argv[2]))
