#!/usr/bin/env bash
# Fetches the test media corpus into DEST (default: ../shared/media, LOOM_MEDIA_DIR): every file of
# scripts/media_sources.tsv from its GitHub repository at the commit named there (raw.githubusercontent.com),
# each checked against its git blob hash, so the files are byte for byte the ones the tests expect.
# Files already present with the right hash are kept. Without network access it fails, naming the first
# file it could not fetch; the test suite then skips the tests that need the corpus (ctest label `media`).
# The licences of the sources are in the corpus' SOURCES.md.
#   scripts/fetch_media.sh [DEST]
set -euo pipefail
cd "$(dirname "$0")/.."
dest=${1:-${LOOM_MEDIA_DIR:-$(pwd)/../shared/media}}
fetched=0 kept=0
while IFS=$'\t' read -r file repo commit path blob; do
  case "$file" in '#'* | '') continue ;; esac
  target="$dest/$file"
  if [ -f "$target" ] && [ "$(git hash-object "$target")" = "$blob" ]; then
    kept=$((kept + 1))
    continue
  fi
  mkdir -p "$(dirname "$target")"
  url="https://raw.githubusercontent.com/$repo/$commit/$path"
  if ! curl -fsSL --retry 2 --connect-timeout 10 -o "$target.part" "$url"; then
    rm -f "$target.part"
    echo "fetch_media: cannot fetch $url (no network?); $fetched fetched, $kept already present" >&2
    exit 1
  fi
  if [ "$(git hash-object "$target.part")" != "$blob" ]; then
    rm -f "$target.part"
    echo "fetch_media: $url does not hash to $blob" >&2
    exit 1
  fi
  mv "$target.part" "$target"
  fetched=$((fetched + 1))
done <scripts/media_sources.tsv
echo "fetch_media: $fetched fetched, $kept already present in $dest"
