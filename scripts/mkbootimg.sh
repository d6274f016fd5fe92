#!/bin/sh
# Wrap a Partita image (partita.bin, a zImage-style image that runs wherever
# it is loaded, 4 KiB aligned) for U-Boot's bootm:
#   mkbootimg.sh uimage IN.bin OUT.uImage   legacy image (mkimage -T kernel_noload)
#   mkbootimg.sh fit    IN.bin OUT.itb      FIT image from boot/partita.its
#
# A legacy image puts its 64-byte header before the data, and kernel_noload
# runs the data in place: so the data starts with 4096 - 64 bytes of padding
# and the entry point is that offset.  Loaded at any 4 KiB aligned address,
# the uImage puts Partita's first byte 4 KiB aligned.
set -eu
kind=$1 in=$2 out=$3
tmp=$out.tmp
mkdir -p "$(dirname "$out")"
case $kind in
uimage)
    pad=$((4096 - 64))
    { head -c $pad /dev/zero; cat "$in"; } > "$tmp.bin"
    mkimage -q -A arm -O linux -T kernel_noload -C none -a 0 -e "$(printf %x $pad)" \
        -n "Partita" -d "$tmp.bin" "$tmp" >/dev/null
    rm -f "$tmp.bin"
    ;;
fit)
    its=$(dirname "$0")/../boot/partita.its
    sed "s|@IMAGE@|$(realpath "$in")|" "$its" > "$tmp.its"
    mkimage -q -E -B 0x1000 -f "$tmp.its" "$tmp" >/dev/null
    rm -f "$tmp.its"
    ;;
*)
    echo "mkbootimg.sh: unknown kind '$kind' (uimage or fit)" >&2
    exit 1
    ;;
esac
mv "$tmp" "$out"
