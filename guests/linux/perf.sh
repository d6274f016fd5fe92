#!/bin/bash
# guests/linux/perf.sh OUTDIR
#
# Debian's own `perf` for the Linux guest (`perf stat` on the guest's
# PMU, tests/system/test_linux.py): linux-perf:armhf and the shared
# libraries it loads, taken from their bookworm packages, as
# OUTDIR/perf.cpio.gz - an archive the kernel unpacks after the initramfs
# it is appended to (the initramfs format allows several,
# buffer-format.rst).  OUTDIR/initrd-perf.cpio.gz is OUTDIR/initrd.cpio.gz
# (build.sh) followed by it; only the configurations that run perf use it,
# so the other Linux boots stay small.
# The .debs are cached in OUTDIR/dl/perf.
set -euo pipefail

log() { echo "linux-perf: $*" >&2; }
die() { log "error: $*"; exit 1; }

[ $# -eq 1 ] || { echo "usage: $0 OUTDIR" >&2; exit 2; }
OUT=$(cd "$1" && pwd)
[ -f "$OUT/initrd.cpio.gz" ] || die "$OUT/initrd.cpio.gz missing (guests/linux/build.sh first)"
DL=$OUT/dl/perf
mkdir -p "$DL"
READELF=${READELF:-arm-linux-gnueabihf-readelf}
command -v "$READELF" >/dev/null || die "$READELF not found"

# the package and every library package it depends on, directly or not
if ! ls "$DL"/linux-perf_*.deb >/dev/null 2>&1; then
	pkgs=$(apt-cache depends --recurse --no-recommends --no-suggests --no-conflicts \
	       --no-breaks --no-replaces --no-enhances linux-perf:armhf 2>/dev/null |
	       grep -E '^(lib|zlib|linux-perf).*:armhf$' | sort -u)
	[ -n "$pkgs" ] || die "apt-cache knows no linux-perf:armhf (apt-get update?)"
	sandbox=()
	[ "$(id -u)" -ne 0 ] || sandbox=(-o APT::Sandbox::User=root)
	log "apt-get download linux-perf:armhf and $(echo "$pkgs" | wc -l) library packages"
	# shellcheck disable=SC2046
	(cd "$DL" && apt-get download -qq "${sandbox[@]}" $pkgs >&2) ||
		die "apt-get download failed"
fi

tmp=$(mktemp -d "$OUT/.perf.XXXXXX")
trap 'rm -rf "$tmp"' EXIT
for deb in "$DL"/*.deb; do
	dpkg-deb -x "$deb" "$tmp/x"
done
# /usr/bin/perf, or perf_VERSION behind a wrapper script: the ELF one
perf=
for f in "$tmp"/x/usr/bin/perf*; do
	[ -f "$f" ] && [ ! -L "$f" ] && "$READELF" -h "$f" >/dev/null 2>&1 && { perf=${f#"$tmp/x/"}; break; }
done
[ -n "$perf" ] || die "no perf program in linux-perf"

root=$tmp/root
mkdir -p "$root/usr/bin" "$root/lib"
cp "$tmp/x/$perf" "$root/usr/bin/perf"
libdirs="lib/arm-linux-gnueabihf usr/lib/arm-linux-gnueabihf lib usr/lib"

# the NEEDED closure of perf, each library from the extracted packages
declare -A have=()
pending=("$root/usr/bin/perf")
while [ ${#pending[@]} -gt 0 ]; do
	f=${pending[0]}; pending=("${pending[@]:1}")
	for lib in $("$READELF" -d "$f" | sed -n 's/.*(NEEDED).*\[\(.*\)\]/\1/p'); do
		[ -n "${have[$lib]:-}" ] && continue
		src=
		for d in $libdirs; do
			[ -e "$tmp/x/$d/$lib" ] && { src=$tmp/x/$d/$lib; break; }
		done
		[ -n "$src" ] || die "perf needs $lib, which no package provides"
		mkdir -p "$root/lib/arm-linux-gnueabihf"
		cp -L "$src" "$root/lib/arm-linux-gnueabihf/$lib"
		have[$lib]=1
		pending+=("$root/lib/arm-linux-gnueabihf/$lib")
	done
done
# the dynamic loader perf names (PT_INTERP)
interp=$("$READELF" -l "$root/usr/bin/perf" | sed -n 's/.*Requesting program interpreter: \(.*\)\]/\1/p')
# (Debian 13's libc6 ships it under /usr alone: the merged /usr)
loader=
for f in "$tmp/x$interp" "$tmp/x/usr$interp"; do
	[ -e "$f" ] && { loader=$f; break; }
done
[ -n "$interp" ] && [ -n "$loader" ] || die "no dynamic loader $interp"
mkdir -p "$root$(dirname "$interp")"
cp -L "$loader" "$root$interp"

epoch=$(stat -c %Y "$OUT/initrd.cpio.gz")
find "$root" -exec touch -h -d "@$epoch" {} +
(cd "$root" && find . -mindepth 1 | LC_ALL=C sort |
	cpio --quiet -o -H newc -R 0:0 --reproducible) | gzip -9 -n >"$tmp/perf.cpio.gz"
cat "$OUT/initrd.cpio.gz" "$tmp/perf.cpio.gz" >"$tmp/initrd-perf.cpio.gz"
mv -f "$tmp/perf.cpio.gz" "$OUT/perf.cpio.gz"
mv -f "$tmp/initrd-perf.cpio.gz" "$OUT/initrd-perf.cpio.gz"
log "$OUT/initrd-perf.cpio.gz: $(stat -c %s "$OUT/initrd-perf.cpio.gz") bytes" \
    "(perf $(dpkg-deb -f "$DL"/linux-perf_*.deb Version), ${#have[@]} libraries)"
