#!/bin/sh
# scripts/board-dtbs.sh LINUX_DIR OUTDIR
# Extract every board device tree (*.dtb) of the Debian armmp kernel package
# that guests/linux/build.sh downloaded into LINUX_DIR/dl (named in
# LINUX_DIR/dl/SELECTED) into OUTDIR, flat, as shipped (unmodified).
# OUTDIR/PACKAGE names the package and version they came from.
set -eu
linux=$1 out=$2
dl=${PARTITA_LINUX_DL:-$linux/dl}
read -r kdeb _ < "$dl/SELECTED" || { echo "board-dtbs: no $dl/SELECTED" >&2; exit 1; }
deb=$dl/$kdeb
[ -f "$deb" ] || { echo "board-dtbs: $deb missing (run guests/linux/build.sh)" >&2; exit 1; }
tmp=$(mktemp -d "${TMPDIR:-/tmp}/dtbs.XXXXXX")
trap 'rm -rf "$tmp"' EXIT
dpkg-deb --fsys-tarfile "$deb" | tar -x -C "$tmp" --wildcards '*.dtb'
rm -rf "$out"
mkdir -p "$out"
find "$tmp" -name '*.dtb' -exec cp {} "$out/" \;
echo "$(dpkg-deb -f "$deb" Package) $(dpkg-deb -f "$deb" Version)" > "$out/PACKAGE"
echo "board-dtbs: $(ls "$out" | grep -c '\.dtb$') device trees from $(cat "$out/PACKAGE")" >&2
