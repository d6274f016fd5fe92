#!/bin/sh
# Install everything Partita needs to build, run and test, idempotently.
# Used by `make run`, `make test` and CI (.ci/run). Runs as root or via sudo.
set -eu

SUDO=""
if [ "$(id -u)" != 0 ]; then
    if command -v sudo >/dev/null 2>&1; then SUDO="sudo"; else
        echo "setup: need root or sudo to install packages" >&2; exit 1; fi
fi

PKGS="make gcc gcc-arm-none-eabi libnewlib-arm-none-eabi device-tree-compiler \
qemu-system-arm libcmocka-dev libfdt-dev python3 python3-pytest xz-utils zstd \
u-boot-qemu u-boot-tools cpio gdb-multiarch e2fsprogs clang libclang-rt-dev \
gcc-arm-linux-gnueabihf libc6-dev-armhf-cross cppcheck"
# No version is part of a name: each is the release's own (Debian 12 and 13
# are tested; README, "The two commands").  clang's runtime for libFuzzer
# and the sanitizers is libclang-rt-dev, which follows the release's clang.
# armhf packages (after `dpkg --add-architecture armhf` below): Debian's
# U-Boot for Allwinner boards, booted from an SD card image on QEMU's
# orangepi-pc by the system tests
PKGS_ARMHF="u-boot-sunxi"

missing=""
for p in $PKGS; do
    dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "ok installed" || missing="$missing $p"
done

for p in $PKGS_ARMHF; do
    dpkg-query -W -f='${Status}' "$p:armhf" 2>/dev/null | grep -q "ok installed" || missing="$missing $p:armhf"
done

if ! dpkg --print-foreign-architectures | grep -qx armhf; then
    echo "setup: adding the armhf architecture (for libfdt-dev:armhf and the Linux payload)"
    $SUDO dpkg --add-architecture armhf
    need_update=1
fi

if [ -n "$missing" ] || [ "${need_update:-0}" = 1 ]; then
    echo "setup: installing:$missing"
    # a mirror caught mid-sync fails one index ("File has unexpected
    # size"): try again, then go on with what was fetched; the install
    # below fails clearly if a package really cannot be had
    for try in 1 2 3; do
        $SUDO apt-get update -q && break
        echo "setup: apt-get update failed (try $try of 3)" >&2
        [ "$try" = 3 ] || sleep 10
    done
    # a release that lacks one of them (neither Debian 12 nor 13): say which,
    # rather than leave apt-get's "Unable to locate package" to be read
    absent=""
    for p in $missing; do
        apt-cache show "$p" >/dev/null 2>&1 || absent="$absent $p"
    done
    if [ -n "$absent" ]; then
        . /etc/os-release 2>/dev/null || true
        echo "setup: ${PRETTY_NAME:-this system} offers no package named:$absent" >&2
        echo "setup: Partita is tested on Debian 12 and 13; install the equivalents by hand" >&2
        exit 1
    fi
    [ -z "$missing" ] || DEBIAN_FRONTEND=noninteractive $SUDO apt-get install -y -q $missing
fi
