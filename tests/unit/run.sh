#!/bin/sh
# Run every host unit test binary; print one line of counts at the end.
# Usage: run.sh BUILD_UNIT_DIR TEST...
dir="$1"; shift
pass=0; fail=0; failed=""
for t in "$@"; do
    out="$dir/$(basename "$t").log"
    (cd "$dir" && "./$(basename "$t")") >"$out" 2>&1
    rc=$?
    p=$(sed -n 's/^\[  PASSED  \] \([0-9]*\) test.*/\1/p' "$out" | awk '{s+=$1} END {print s+0}')
    f=$(sed -n 's/^\[  FAILED  \] \([0-9]*\) test.*/\1/p' "$out" | awk '{s+=$1} END {print s+0}')
    if [ $rc -ne 0 ] && [ "$f" -eq 0 ]; then f=1; fi
    pass=$((pass + p)); fail=$((fail + f))
    if [ $rc -ne 0 ]; then failed="$failed $(basename "$t")"; cat "$out"; fi
done
echo "unit: $pass passed, $fail failed"
[ -z "$failed" ] || { echo "failing unit tests:$failed"; exit 1; }
