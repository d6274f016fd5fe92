#!/bin/sh
# `make test` after the build: the host unit tests (`make unit`), then the
# QEMU system tests (pytest, tests/system).  Both always run; the last line
# is the sum of both, "N passed, M failed[, K skipped]", and the exit status
# is non-zero if anything failed or if no test ran at all.
cd "$(dirname "$0")/.." || exit 1
MAKE=${MAKE:-make}
PYTHON=/usr/bin/python3         # Debian's, with python3-pytest (not a pyenv one)
# ends a hang of the whole run only (each test has its own deadline); the
# system tests take about 20 minutes alone on two cores
SYSTEST_TIMEOUT=${SYSTEST_TIMEOUT:-2700}
export PYTHONDONTWRITEBYTECODE=1

tmp=$(mktemp -d) || exit 1
trap 'rm -rf "$tmp"' EXIT INT TERM

# ---- unit tests: tests/unit/run.sh ends with "unit: N passed, M failed"
{ $MAKE --no-print-directory unit 2>&1; echo $? >"$tmp/unit.rc"; } | tee "$tmp/unit.log"
unit_rc=$(cat "$tmp/unit.rc")
line=$(grep -E '^unit: [0-9]+ passed, [0-9]+ failed' "$tmp/unit.log" | tail -n 1)
if [ -n "$line" ]; then
    unit_pass=$(echo "$line" | sed -E 's/^unit: ([0-9]+) passed.*/\1/')
    unit_fail=$(echo "$line" | sed -E 's/^unit: [0-9]+ passed, ([0-9]+) failed.*/\1/')
else
    unit_pass=0; unit_fail=0
fi
if [ "$unit_rc" -ne 0 ] && [ "$unit_fail" -eq 0 ]; then
    echo "run-all: \`make unit\` failed (status $unit_rc) before its tests reported" >&2
    unit_fail=1
fi

# ---- system tests: pytest -q ends with e.g. "3 failed, 29 passed, 1 skipped in 15.2s"
{ timeout -k 10 "$SYSTEST_TIMEOUT" "$PYTHON" -m pytest -q -p no:cacheprovider tests/system 2>&1
  echo $? >"$tmp/sys.rc"; } | tee "$tmp/sys.log"
sys_rc=$(cat "$tmp/sys.rc")
summary=$(grep -E '^(=+ )?(no tests ran|[0-9]+ [a-z]+(, [0-9]+ [a-z]+)*) in [0-9.]+s' "$tmp/sys.log" \
          | tail -n 1)
count() {   # count REGEX: the sum of "N word" in the pytest summary
    echo "$summary" | grep -oE "(^|[ =,])[0-9]+ ($1)\\b" | grep -oE '[0-9]+' \
        | awk '{ s += $1 } END { print s + 0 }'
}
sys_pass=$(count 'passed|xpassed')
sys_fail=$(count 'failed|errors?')
sys_skip=$(count 'skipped|xfailed')
if [ "$sys_rc" -ne 0 ] && [ "$sys_fail" -eq 0 ]; then
    case "$sys_rc" in
        124|137) why="timed out after ${SYSTEST_TIMEOUT}s" ;;
        5) why="collected no tests" ;;
        *) why="exited with status $sys_rc" ;;
    esac
    echo "run-all: the system tests $why" >&2
    sys_fail=1
fi

# ---- checks that are one test each: the layer order (no object calls
# into a later layer, scripts/check-layers.py), comments citing nothing
# outside the repository (scripts/check-citations.py), the size of files and
# functions (scripts/check-size.py), the worst-case stack depth of every
# entry (scripts/stack/stack-check.py), no new MISRA C:2012 finding
# (scripts/misra/misra.py, docs/misra.md), the benchmark regression guard
# (instruction counts under -icount are exact, so this is a check, not a
# timed test) and a fixed number of fuzzing inputs from a fixed seed for
# every fuzz target (tests/unit/fuzz.sh; the same inputs on every machine,
# replaying the kept corpus first)
check_pass=0; check_fail=0
check() {   # check NAME COMMAND...
    name=$1; shift
    if "$@" >"$tmp/$name.log" 2>&1; then
        check_pass=$((check_pass + 1)); echo "check $name: passed"
    else
        check_fail=$((check_fail + 1)); cat "$tmp/$name.log"; echo "check $name: FAILED"
    fi
}
check layers $MAKE --no-print-directory check-layers
check citations $MAKE --no-print-directory check-citations
check size /usr/bin/python3 scripts/check-size.py
check stack $MAKE --no-print-directory stack-check
check misra $MAKE --no-print-directory misra-check
check bench-check $MAKE --no-print-directory bench-check
check fuzz env FUZZ_RUNS="${FUZZ_RUNS:-100000}" sh tests/unit/fuzz.sh 0 -seed=1

pass=$((unit_pass + sys_pass + check_pass))
fail=$((unit_fail + sys_fail + check_fail))
result="$pass passed, $fail failed"
[ "$sys_skip" -eq 0 ] || result="$result, $sys_skip skipped"
echo "$result"
[ "$fail" -eq 0 ] && [ $((pass + fail)) -gt 0 ]
