#!/bin/sh
# The board readiness table for a kernel package (tests/boards/boards.mk,
# tests/system/test_board_table.py): docs/boards.md is the table of one
# kernel series (the one its first lines name), and each other series a
# Debian release ships has its own, docs/boards-linux-X.Y.md, since its
# device trees differ.  Usage: board-table-path.sh "PACKAGE VERSION"
# (build/dtbs/PACKAGE, e.g. "linux-image-6.12.117+deb13-armmp 6.12.117-1").
set -eu
top=$(cd "$(dirname "$0")/.." && pwd)
series() { sed -n 's/^[^ ]* \([0-9][0-9]*\.[0-9][0-9]*\).*/\1/p'; }
want=$(echo "$1" | series)
[ -n "$want" ] || { echo "board-table-path: no version in '$1'" >&2; exit 2; }
main=$(sed -n "s/.*Debian's \`\\([^\`]*\\)\`.*/\\1/p" "$top/docs/boards.md" | head -n 1 | series)
if [ "$want" = "$main" ]; then
    echo docs/boards.md
else
    echo "docs/boards-linux-$want.md"
fi
