"""The C++ examples and CLI examples of the docs (docs/*.md, README.md), extracted so that they can be
checked (tests/docs/test_snippets.py).

C++: every ```cpp block is an example and must compile; its #include lines go to the top of the
translation unit and the rest into one function per page, each block in a scope nested in the one
before, so that a later block may use (or redeclare) what an earlier one declared, as a reader reads
them. A block with `int main(` is a whole program. A block that lists declarations from a header (an
API synopsis, with names such as `T` left open) is fenced ```cpp synopsis and is not compiled: the
header itself is.

CLI: every line starting with `$ loom ` in a ```text, ```sh or ```console block (with its `\\`
continuation lines), the output the block shows after it and the status it implies (CliExample).
"""
import re
from pathlib import Path
from typing import List, NamedTuple

ROOT = Path(__file__).resolve().parents[2]
FENCE = re.compile(r"^```([^\n]*)\n(.*?)^```", re.S | re.M)


def pages():
    return sorted((ROOT / "docs").glob("*.md")) + [ROOT / "README.md"]


def cpp_blocks(page):
    """The C++ example blocks of `page`, in order."""
    return [body for info, body in FENCE.findall(page.read_text()) if info.split() == ["cpp"]]


def translation_unit(page, headers):
    """One C++ translation unit holding every example of `page` (None when it has none), and the
    whole programs among them (each its own unit)."""
    blocks = cpp_blocks(page)
    programs = [b for b in blocks if "int main(" in b]
    fragments = [b for b in blocks if "int main(" not in b]
    if not fragments:
        return None, programs
    includes, body = [], []
    for block in fragments:
        body.append("{")
        for line in block.splitlines():
            (includes if line.startswith("#include") else body).append(line)
    body += ["}"] * len(fragments)
    standard = ["<cstdint>", "<cstdio>", "<filesystem>", "<iostream>", "<memory>", "<span>", "<string>", "<vector>"]
    unit = "\n".join([*(f"#include {h}" for h in standard), *(f'#include "{h}"' for h in headers), *includes,
                      "using namespace loom;",
                      "namespace vision = loom::vision;", "namespace transforms = loom::transforms;",
                      "namespace audio = loom::audio;", "namespace video = loom::video;",
                      "namespace loader = loom::loader;", "namespace accel = loom::accel;",
                      "[[maybe_unused]] static void examples() {", *body, "}", ""])
    return unit, programs


class CliExample(NamedTuple):
    command: str
    status: int         # what the page shows with `$ echo $?`; else 2 when it shows a command-line
                        # error ("Run with --help"), 1 when its summary counts failures, else 0
    output: List[str]   # the lines the page shows after the command


def cli_examples(page):
    """Every `$ loom ...` example of the page's shell blocks, in order."""
    out = []
    for info, body in FENCE.findall(page.read_text()):
        if info.split()[:1] not in (["text"], ["sh"], ["console"]):
            continue
        lines = body.splitlines()
        steps = []  # (command, shown output)
        i = 0
        while i < len(lines):
            if lines[i].startswith("$ "):
                command = lines[i][2:]
                while command.endswith("\\") and i + 1 < len(lines):
                    i += 1
                    command = command[:-1] + " " + lines[i].strip()
                steps.append((command.strip(), []))
            elif steps:
                steps[-1][1].append(lines[i])
            i += 1
        for k, (command, shown) in enumerate(steps):
            if not command.startswith("loom"):
                continue
            if k + 1 < len(steps) and steps[k + 1][0] == "echo $?" and steps[k + 1][1]:
                status = int(steps[k + 1][1][0])
            elif any(line.startswith(("Run with --help", "Run 'loom --help'")) for line in shown):
                status = 2
            elif any(re.search(r"\b[1-9]\d* failed\b", line) for line in shown):
                status = 1
            else:
                status = 0
            out.append(CliExample(command, status, shown))
    return out
