#!/bin/sh
# MISRA C:2012 rule 15.6 (braces) over the given C files: clang-tidy's
# readability-braces-around-statements with -fix, then reindent.py gives the
# closing braces it adds their block's indentation.  Headers are fixed
# through the C files that include them, when they are under one of the
# folders of HEADER_DIRS (a regular expression, default: the folders of the
# given files and include/).  Review `git diff` afterwards (docs/misra.md).
# Usage: scripts/misra/fix/braces.sh FILE.c...
set -e
ROOT=$(cd "$(dirname "$0")/../../.." && pwd)
GCCINC=$(arm-none-eabi-gcc -print-file-name=include)
NEWLIB=$(dirname "$(arm-none-eabi-gcc -print-file-name=libc.a)")/../include
[ -d "$NEWLIB" ] || NEWLIB=/usr/lib/arm-none-eabi/include
DIRS=${HEADER_DIRS:-$(for f in "$@"; do dirname "$f"; done | sort -u | tr '\n' '|')include}
for f in "$@"; do
    clang-tidy -quiet -checks='-*,readability-braces-around-statements' -fix \
        -header-filter="$ROOT/($DIRS)/" "$ROOT/$f" -- \
        --target=armv7a-none-eabi -mcpu=cortex-a15 -mfloat-abi=soft -std=gnu11 \
        -fms-extensions -ffreestanding -isystem "$GCCINC" -isystem "$NEWLIB" \
        -I"$ROOT/include" -I"$ROOT" -I"$ROOT/hyp" -I"$ROOT/build/libfdt/include" \
        -I"$ROOT/build/include" >/dev/null 2>&1 || echo "braces: clang-tidy failed on $f"
done
cd "$ROOT" && /usr/bin/python3 scripts/misra/fix/reindent.py $(git diff --name-only -- '*.c' '*.h')
