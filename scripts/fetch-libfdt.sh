#!/bin/sh
# Extract Debian's libfdt-dev:armhf into the build tree (it conflicts with the
# host's libfdt-dev, so it is never installed). Usage: fetch-libfdt.sh OUTDIR
set -eu
out="$1"
[ -f "$out/lib/libfdt.a" ] && exit 0
tmp="$(mktemp -d)"; chmod 755 "$tmp"
trap 'rm -rf "$tmp"' EXIT
(cd "$tmp" && apt-get download libfdt-dev:armhf >/dev/null)
dpkg-deb -x "$tmp"/libfdt-dev_*_armhf.deb "$tmp/x"
mkdir -p "$out/lib" "$out/include"
cp "$tmp"/x/usr/include/*.h "$out/include/"
# Debian builds it hard-float; it passes no floats, so drop the ABI tag
# that would otherwise stop the soft-float link.
arm-none-eabi-objcopy --remove-section=.ARM.attributes \
    "$tmp"/x/usr/lib/arm-linux-gnueabihf/libfdt.a "$out/lib/libfdt.a"
echo "fetched libfdt (armhf) into $out"
