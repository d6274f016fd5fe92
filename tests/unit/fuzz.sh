#!/bin/sh
# Fuzz the configuration parser, the host platform probe and the guest DT
# writer (tests/unit/fuzz_config.c) with libFuzzer, for a bounded time.
#
# Usage: tests/unit/fuzz.sh [SECONDS] [extra libFuzzer options...]
#        (default 60 s; FUZZ_TIME=N works too).  Run from anywhere.
# Needs clang with libFuzzer (Debian: clang, libclang-rt-14-dev), dtc and
# the host libfdt-dev.  Independent of the Makefile; everything it builds
# goes to build/fuzz.  The seed corpus is every unit-test fixture compiled
# to a DTB, regenerated into tests/unit/corpus/config; inputs libFuzzer
# finds go to build/fuzz/corpus, crashes to build/fuzz/crash-*.
# Exit status: 0 when nothing was found, libFuzzer's otherwise.
set -eu

root="$(cd "$(dirname "$0")/../.." && pwd)"
cd "$root"
time_s="${1:-${FUZZ_TIME:-60}}"
[ $# -gt 0 ] && shift
out=build/fuzz
seeds=tests/unit/corpus/config
CLANG="${CLANG:-clang}"

command -v "$CLANG" >/dev/null 2>&1 || {
    echo "fuzz.sh: $CLANG not found (apt-get install clang libclang-rt-14-dev)" >&2; exit 2; }
command -v dtc >/dev/null 2>&1 || {
    echo "fuzz.sh: dtc not found (apt-get install device-tree-compiler)" >&2; exit 2; }

mkdir -p "$out/fixtures" "$out/corpus" "$seeds"

# fixtures, compiled as the Makefile does (config fixtures /incbin/ files
# next to them); the harness reads qemu-virt.dtb and config-good.dtb
for dts in tests/unit/fixtures/*.dts; do
    name="$(basename "$dts" .dts)"
    dtc -q -I dts -O dtb -o "$out/fixtures/$name.dtb" "$dts"
    cmp -s "$out/fixtures/$name.dtb" "$seeds/$name.dtb" ||
        cp "$out/fixtures/$name.dtb" "$seeds/$name.dtb"
done

echo "fuzz.sh: building $out/fuzz_config"
"$CLANG" -g -O1 -fsanitize=fuzzer,address,undefined -fno-sanitize-recover=all \
    -Wall -Wextra -Werror -Wno-unused-parameter -std=gnu11 \
    -Iinclude -I. -Itests/unit -DHOST_TEST \
    tests/unit/fuzz_config.c hyp/config.c hyp/config_channel.c hyp/platform.c hyp/dt_index.c hyp/guest_dt.c \
    -lfdt -o "$out/fuzz_config"

echo "fuzz.sh: fuzzing for ${time_s}s (seeds: $(ls "$seeds" | wc -l) fixtures)"
FUZZ_FIXTURES="$out/fixtures" "$out/fuzz_config" \
    -max_total_time="$time_s" -timeout=10 -rss_limit_mb=2048 -max_len=65536 \
    -dict=tests/unit/corpus/config.dict -print_final_stats=1 \
    -artifact_prefix="$out/" "$@" "$out/corpus" "$seeds"   # seeds include kept crashers, replayed first
