#!/usr/bin/env bash
# Checks that every C/C++/CUDA source of the tree is clang-format clean with the repository's
# .clang-format (clang-format 14, Debian's clang-format-14). Prints the offending lines and exits 1
# otherwise. To fix: scripts/check_format.sh --fix
set -euo pipefail
cd "$(dirname "$0")/.."
format=$(command -v clang-format-14 || command -v clang-format)
if git rev-parse --is-inside-work-tree >/dev/null 2>&1; then
  mapfile -t files < <(git ls-files -- '*.cc' '*.h' '*.cu' '*.cuh')
else
  mapfile -t files < <(find . -path ./build\* -prune -o \( -name '*.cc' -o -name '*.h' -o -name '*.cu' \) -print)
fi
if [ "${1:-}" = "--fix" ]; then
  "$format" -i "${files[@]}"
  exit 0
fi
echo "== clang-format (${#files[@]} files)"
"$format" --dry-run --Werror "${files[@]}"
