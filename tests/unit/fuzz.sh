#!/bin/sh
# Fuzz with libFuzzer, each for a bounded time: the configuration parser,
# the host platform probe and the guest DT writer (tests/unit/fuzz_config.c),
# the trap decoders and the emulated UART (fuzz_decode.c), the virtual
# distributor model (fuzz_vgic.c), the network devices and their switch
# (fuzz_net.c), the gdb remote protocol (fuzz_rsp.c) and gdb's single-step
# decoder (fuzz_next.c).
#
# Usage: tests/unit/fuzz.sh [SECONDS] [extra libFuzzer options...]
#        SECONDS per target (default 60; FUZZ_TIME=N works too);
#        FUZZ_TARGETS="config decode vgic net rsp next" picks targets.  Run from anywhere.
# Needs clang with libFuzzer (Debian: clang, libclang-rt-14-dev), dtc and
# the host libfdt-dev.  Independent of the Makefile; everything it builds
# goes to build/fuzz.  The seed corpus is every unit-test fixture compiled
# to a DTB, regenerated into tests/unit/corpus/config; inputs libFuzzer
# finds go to build/fuzz/corpus (config) and build/fuzz/corpus-NAME, crashes
# to build/fuzz/crash-*.  A crash once fixed is kept as a seed
# (tests/unit/corpus/config/crash-*, tests/unit/corpus/NAME/crash-*), so
# every run replays it first.
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
    case "$name" in board-*) continue ;; esac   # whole board DTs: past -max_len, not seeds
    cmp -s "$out/fixtures/$name.dtb" "$seeds/$name.dtb" ||
        cp "$out/fixtures/$name.dtb" "$seeds/$name.dtb"
done

build() {    # build NAME SOURCES...
    name=$1; shift
    echo "fuzz.sh: building $out/fuzz_$name"
    "$CLANG" -g -O1 -fsanitize=fuzzer,address,undefined -fno-sanitize-recover=all \
        -Wall -Wextra -Werror -Wno-unused-parameter -std=gnu11 \
        -Iinclude -I. -Itests/unit -DHOST_TEST "$@" -lfdt -o "$out/fuzz_$name"
}

targets="${FUZZ_TARGETS:-config decode vgic net rsp next}"
for t in $targets; do
    case "$t" in
    config)
        build config tests/unit/fuzz_config.c hyp/config/config.c hyp/config/config_guest.c hyp/config/config_control.c hyp/config/config_channel.c hyp/config/config_network.c hyp/config/config_colour.c hyp/config/colour.c hyp/platform/platform.c hyp/platform/platform_uart.c hyp/platform/gic_quirks.c hyp/platform/soc_smp*.c hyp/dt/dt_reg.c \
            hyp/dt/dt_irq.c hyp/dt/dt_index.c hyp/dt/dt_lookup.c hyp/guest/guest_dt.c
        echo "fuzz.sh: fuzzing config for ${time_s}s (seeds: $(ls "$seeds" | wc -l) fixtures)"
        FUZZ_FIXTURES="$out/fixtures" "$out/fuzz_config" \
            -max_total_time="$time_s" -timeout=10 -rss_limit_mb=2048 -max_len=65536 \
            -dict=tests/unit/corpus/config.dict -print_final_stats=1 \
            -artifact_prefix="$out/" "$@" "$out/corpus" "$seeds"   # seeds include kept crashers, replayed first
        ;;
    decode)
        build decode tests/unit/fuzz_decode.c hyp/trap/mmio.c hyp/arch/insn.c hyp/guest/vuart.c
        ;;
    vgic)
        build vgic tests/unit/fuzz_vgic.c vgic/vgic_dist.c vgic/vgic_pt.c
        ;;
    net)
        build net tests/unit/fuzz_net.c hyp/guest/virtio_net.c hyp/guest/virtio_mmio.c \
            hyp/guest/virtq.c hyp/lib/ratelimit.c
        ;;
    rsp)
        build rsp tests/unit/fuzz_rsp.c hyp/console/gdb/rsp.c
        ;;
    next)
        build next tests/unit/fuzz_next.c hyp/console/gdb/arm_next.c hyp/arch/insn.c
        ;;
    *)
        echo "fuzz.sh: no target '$t' (config, decode, vgic, net, rsp, next)" >&2; exit 2 ;;
    esac
    if [ "$t" != config ]; then
        mkdir -p "$out/corpus-$t"
        echo "fuzz.sh: fuzzing $t for ${time_s}s"
        kept=""     # inputs that once crashed it, replayed first
        [ -d "tests/unit/corpus/$t" ] && kept="tests/unit/corpus/$t"
        "$out/fuzz_$t" -max_total_time="$time_s" -timeout=10 -rss_limit_mb=2048 \
            -max_len=4096 -print_final_stats=1 -artifact_prefix="$out/" "$@" "$out/corpus-$t" $kept
    fi
done
