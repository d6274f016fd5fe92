#!/bin/sh
# Fuzz with libFuzzer, each for a bounded time: the configuration parser,
# the host platform probe and the guest DT writer (tests/unit/fuzz_config.c),
# the trap decoders and the emulated UART (fuzz_decode.c), the virtual
# distributor model (fuzz_vgic.c), the network devices and their switch
# (fuzz_net.c), the virtio console (fuzz_vcon.c), the block request
# parser (fuzz_blk.c), a disk's devices and queue (fuzz_blkq.c), the gdb remote protocol
# (fuzz_rsp.c), the gdb stub's register and memory writes (fuzz_gdb_regs.c),
# gdb's single-step decoder (fuzz_next.c) and the management calls with the
# load stream (fuzz_manage.c).
#
# Usage: tests/unit/fuzz.sh [SECONDS] [extra libFuzzer options...]
#        SECONDS per target (default 60; FUZZ_TIME=N works too);
#        FUZZ_RUNS=N instead runs N inputs per target and keeps nothing it
#        finds: with -seed=S the same inputs on every machine, however fast
#        (what `make test` runs); FUZZ_KEEP=1 after a timed run merges what
#        it found that adds coverage into tests/unit/corpus/NAME (`make
#        fuzz`: the long exploratory run, whose finds later runs replay);
#        FUZZ_TARGETS="config decode vgic net vcon blk blkq rsp gdbregs next manage" picks targets.
#        Run from anywhere.
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
        -Wall -Wextra -Werror -Wno-unused-parameter -std=gnu11 -fms-extensions -Wno-microsoft-anon-tag \
        -Iinclude -I. -Itests/unit -DHOST_TEST "$@" -lfdt -o "$out/fuzz_$name"
}

# fuzz NAME WORK_CORPUS KEPT_CORPUS [options...]: one libFuzzer run of
# build/fuzz/fuzz_NAME, for FUZZ_RUNS inputs or time_s seconds
fuzz() {
    name=$1 work=$2 kept=$3; shift 3
    mkdir -p "$kept"
    if [ -n "${FUZZ_RUNS:-}" ]; then
        # a fixed number of inputs from the kept corpus alone: what it finds
        # goes to a scratch folder, emptied first, so every run is the same
        work="$out/replay-$name"
        rm -rf "$work"
        echo "fuzz.sh: fuzzing $name for $FUZZ_RUNS inputs"
        limit="-runs=$FUZZ_RUNS"
        # without address randomization: libFuzzer hashes code addresses
        # into its tables of compared values, so a moved binary mutates
        # differently from the same seed
        fixed="setarch $(uname -m) -R"
    else
        fixed=""
        echo "fuzz.sh: fuzzing $name for ${time_s}s"
        limit="-max_total_time=$time_s"
    fi
    mkdir -p "$work"
    $fixed "$out/fuzz_$name" "$limit" -reload=0 -timeout=10 -rss_limit_mb=2048 -print_final_stats=1 \
        -artifact_prefix="$out/" "$@" "$work" "$kept"
    if [ "${FUZZ_KEEP:-0}" = 1 ] && [ -z "${FUZZ_RUNS:-}" ]; then
        echo "fuzz.sh: keeping what $name found that adds coverage in $kept"
        "$out/fuzz_$name" -merge=1 -rss_limit_mb=2048 "$@" "$kept" "$work"
    fi
}

targets="${FUZZ_TARGETS:-config decode vgic net vcon blk blkq rsp gdbregs next manage}"
for t in $targets; do
    case "$t" in
    config)
        build config tests/unit/fuzz_config.c hyp/config/config.c hyp/config/config_image.c hyp/config/config_guest.c hyp/config/config_control.c hyp/config/config_channel.c hyp/config/config_member.c hyp/config/config_network.c hyp/config/config_disk.c hyp/config/config_colour.c hyp/config/config_budget.c hyp/config/config_health.c hyp/config/config_schedule.c hyp/config/colour.c hyp/platform/platform.c hyp/platform/platform_uart.c hyp/platform/gic_quirks.c hyp/platform/soc_smp*.c hyp/dt/dt_reg.c \
            hyp/dt/dt_irq.c hyp/dt/dt_index.c hyp/dt/dt_lookup.c hyp/guest/guest_dt.c
        # seeds include kept crashers, replayed first
        FUZZ_FIXTURES="$out/fixtures" fuzz config "$out/corpus" "$seeds" \
            -max_len=65536 -dict=tests/unit/corpus/config.dict "$@"
        ;;
    decode)
        build decode tests/unit/fuzz_decode.c hyp/vdev/mmio.c hyp/arch/insn.c hyp/vdev/vuart.c
        ;;
    vgic)
        build vgic tests/unit/fuzz_vgic.c vgic/vgic_dist.c vgic/vgic_setup.c vgic/vgic_pt.c
        ;;
    net)
        build net tests/unit/fuzz_net.c hyp/vdev/virtio_net.c hyp/vdev/virtio_mmio.c \
            hyp/vdev/virtq.c hyp/lib/ratelimit.c
        ;;
    vcon)
        build vcon tests/unit/fuzz_vcon.c hyp/vdev/virtio_console.c hyp/vdev/virtio_mmio.c \
            hyp/vdev/virtq.c
        ;;
    blk)
        build blk tests/unit/fuzz_blk.c hyp/vdev/blk_req.c
        ;;
    blkq)
        build blkq tests/unit/fuzz_blkq.c hyp/vdev/blk_backend.c hyp/vdev/virtio_blk.c \
            hyp/vdev/blk_req.c hyp/vdev/virtio_mmio.c hyp/vdev/virtq.c
        ;;
    rsp)
        build rsp tests/unit/fuzz_rsp.c hyp/gdb/rsp.c
        ;;
    gdbregs)
        build gdbregs tests/unit/fuzz_gdb_regs.c hyp/gdb/gdb_regs.c hyp/gdb/rsp.c \
            hyp/arch/psr.c hyp/arch/insn.c hyp/arch/vcpu_reg.c
        ;;
    next)
        build next tests/unit/fuzz_next.c hyp/arch/arm_next.c hyp/arch/insn.c
        ;;
    manage)
        build manage tests/unit/fuzz_manage.c hyp/lib/ratelimit.c hyp/sched/budget_ctl.c hyp/sched/cyclic_ctl.c hyp/sched/budget_pool.c hyp/config/config.c hyp/config/config_image.c hyp/config/config_guest.c \
            hyp/config/config_control.c hyp/config/config_channel.c hyp/config/config_member.c hyp/config/config_network.c hyp/config/config_disk.c \
            hyp/config/config_colour.c hyp/config/config_budget.c hyp/config/config_health.c hyp/config/config_schedule.c hyp/config/colour.c hyp/platform/platform.c \
            hyp/platform/platform_uart.c hyp/platform/gic_quirks.c hyp/platform/soc_smp*.c \
            hyp/dt/dt_reg.c hyp/dt/dt_irq.c hyp/dt/dt_index.c hyp/dt/dt_lookup.c
        ;;
    *)
        echo "fuzz.sh: no target '$t' (config, decode, vgic, net, vcon, blk, blkq, rsp, gdbregs, next, manage)" >&2; exit 2 ;;
    esac
    # the kept corpus: inputs that once crashed it or that a long run
    # found, replayed first
    [ "$t" = config ] || fuzz "$t" "$out/corpus-$t" "tests/unit/corpus/$t" -max_len=4096 "$@"
done
