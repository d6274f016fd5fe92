#!/bin/bash
# guests/linux/build.sh OUTDIR
#
# Builds the Linux guest payload from Debian bookworm's armhf packages:
#   OUTDIR/zImage          the kernel of linux-image-<abi>-armmp, as shipped
#   OUTDIR/initrd.cpio.gz  busybox-static + virtio-mmio/virtio-blk/ext4/evdev/virtio-net
#                          modules of that kernel + /init and
#                          /etc/partita/shutdown (this directory's init, shutdown)
#                          + /usr/bin/partita-chan, /usr/bin/partita-blkd and
#                          /usr/bin/partita (tools/partita-chan.c,
#                          tools/partita-blkd.c, tools/partita.c, built statically with
#                          Debian's armhf cross compiler) + the bare-metal
#                          images $PARTITA_IMAGES in /usr/share/partita
#                          + /usr/bin/partita-net and /usr/bin/partita-blkbench
#                          (tools/partita-net, tools/partita-blkbench: scripts)
#   OUTDIR/VERSION         package names and versions
# The .debs are cached in OUTDIR/dl (or $PARTITA_LINUX_DL): once there, no
# apt look-up or download is done again (PARTITA_LINUX_REFRESH=1 re-resolves
# the current kernel package). Needs root (or sudo) only when armhf has to be
# added to dpkg or the apt lists fetched. Safe to re-run.
set -euo pipefail

here=$(cd "$(dirname "$0")" && pwd)
tools=$here/tools     # the programs the payload carries in /usr/bin

# Modules wanted in the initramfs; their dependencies are added from the
# modules' own "depends=" info and loaded first. crc32c_generic: ext4 and jbd2
# ask the crypto API for "crc32c" (metadata_csum, journal checksums).
# evdev: channel doorbells reach partita-chan as key events (gpio-keys).
# virtio_net: the device of a Partita network (docs/networks.md);
# virtio_console: hvc0, a guest's virtio-console (docs/networks.md).
MODULES="virtio_mmio virtio_blk crc32c_generic ext4 evdev virtio_net virtio_console"

log() { echo "linux-guest: $*" >&2; }
die() { log "error: $*"; exit 1; }

[ $# -eq 1 ] || { echo "usage: $0 OUTDIR" >&2; exit 2; }
mkdir -p "$1"
OUT=$(cd "$1" && pwd)
DL=${PARTITA_LINUX_DL:-$OUT/dl}
mkdir -p "$DL"

SUDO=
if [ "$(id -u)" -ne 0 ]; then
	SUDO=sudo
fi

XCC=${XCC:-arm-linux-gnueabihf-gcc}
for tool in dpkg dpkg-deb cpio gzip awk "$XCC"; do
	command -v "$tool" >/dev/null || die "$tool not found"
done

# ---- the packages --------------------------------------------------------

ensure_apt() {
	local update=0
	if ! dpkg --print-foreign-architectures | grep -qx armhf; then
		log "dpkg --add-architecture armhf"
		$SUDO dpkg --add-architecture armhf
		update=1
	fi
	if [ $update -eq 0 ] &&
	   ! { apt-cache show linux-image-armmp:armhf &&
	       apt-cache show busybox-static:armhf; } >/dev/null 2>&1; then
		update=1
	fi
	if [ $update -eq 1 ]; then
		log "apt-get update"
		$SUDO apt-get update -qq || die "apt-get update failed"
	fi
}

# The concrete kernel package behind the linux-image-armmp meta-package.
resolve_kernel() {
	local pkg
	pkg=$(apt-cache depends linux-image-armmp:armhf 2>/dev/null |
	      sed -n 's/^ *Depends: *\(linux-image-[^ :]*-armmp\)\(:armhf\)\{0,1\}$/\1/p' |
	      awk 'NR == 1')
	if [ -z "$pkg" ]; then
		pkg=$(apt-cache search --names-only '^linux-image-[0-9.]+-[0-9]+-armmp$' |
		      awk '{ print $1 }' | sort -V | awk 'END { print }')
	fi
	[ -n "$pkg" ] || die "cannot resolve the linux-image-*-armmp:armhf package"
	echo "$pkg"
}

download() {	# download PACKAGE -> prints the .deb's path
	local pkg=$1 tmp deb
	tmp=$(mktemp -d "$DL/.get.XXXXXX")
	# As root, apt drops to its _apt user, which may not reach $DL.
	local sandbox=()
	[ "$(id -u)" -ne 0 ] || sandbox=(-o APT::Sandbox::User=root)
	log "apt-get download $pkg:armhf"
	(cd "$tmp" && apt-get download -qq "${sandbox[@]}" "$pkg:armhf" >&2) ||
		{ rm -rf "$tmp"; die "apt-get download $pkg:armhf failed"; }
	deb=$(ls "$tmp"/*.deb)
	mv "$deb" "$DL/"
	rmdir "$tmp"
	echo "$DL/${deb##*/}"
}

# $DL/SELECTED names the cached kernel and busybox .debs.
kdeb='' bbdeb=''
if [ -z "${PARTITA_LINUX_REFRESH:-}" ] && [ -r "$DL/SELECTED" ]; then
	read -r kdeb bbdeb <"$DL/SELECTED" || true
	[ -n "$kdeb" ] && [ -f "$DL/$kdeb" ] && [ -n "$bbdeb" ] && [ -f "$DL/$bbdeb" ] ||
		kdeb='' bbdeb=''
fi
if [ -z "$kdeb" ]; then
	ensure_apt
	kpkg=$(resolve_kernel)
	log "kernel package: $kpkg"
	kdeb=$(download "$kpkg"); kdeb=${kdeb##*/}
	bbdeb=$(download busybox-static); bbdeb=${bbdeb##*/}
	echo "$kdeb $bbdeb" >"$DL/SELECTED"
fi
kdeb=$DL/$kdeb
bbdeb=$DL/$bbdeb

kpkg=$(dpkg-deb -f "$kdeb" Package)
kver=$(dpkg-deb -f "$kdeb" Version)
bbpkg=$(dpkg-deb -f "$bbdeb" Package)
bbver=$(dpkg-deb -f "$bbdeb" Version)
[ "$(dpkg-deb -f "$kdeb" Architecture)" = armhf ] || die "$kdeb is not armhf"
[ "$(dpkg-deb -f "$bbdeb" Architecture)" = armhf ] || die "$bbdeb is not armhf"

# ---- extract -------------------------------------------------------------

tmp=$(mktemp -d "$OUT/.build.XXXXXX")
trap 'rm -rf "$tmp"' EXIT
log "extracting $kpkg $kver and $bbpkg $bbver"
dpkg-deb -x "$kdeb" "$tmp/k"
dpkg-deb -x "$bbdeb" "$tmp/bb"

set -- "$tmp"/k/boot/vmlinuz-*
{ [ $# -eq 1 ] && [ -f "$1" ]; } || die "no single /boot/vmlinuz-* in $kpkg"
vmlinuz=$1
rel=${vmlinuz##*/vmlinuz-}
moddir=
for d in "$tmp/k/lib/modules/$rel" "$tmp/k/usr/lib/modules/$rel"; do
	[ -d "$d" ] && moddir=$d
done
[ -n "$moddir" ] || die "no modules directory for $rel in $kpkg"
# /bin/busybox in Debian 12's package, /usr/bin/busybox in Debian 13's (the
# merged /usr)
busybox=
for b in "$tmp/bb/bin/busybox" "$tmp/bb/usr/bin/busybox"; do
	[ -f "$b" ] && busybox=$b
done
[ -n "$busybox" ] || die "no /bin/busybox or /usr/bin/busybox in $bbpkg"

# ---- modules and their dependencies --------------------------------------

declare -A modpath=()	# module name -> path relative to $moddir
while IFS= read -r f; do
	b=${f##*/}
	b=${b%%.ko*}
	modpath[${b//-/_}]=$f
done < <(cd "$moddir" && find . \( -name '*.ko' -o -name '*.ko.xz' -o \
	-name '*.ko.zst' -o -name '*.ko.gz' \) -printf '%P\n' | LC_ALL=C sort)

modfield() {	# modfield PATH FIELD: the values of FIELD in .modinfo
	local f=$moddir/$1
	case $f in
	*.ko.xz) xz -dc "$f" ;;
	*.ko.zst) zstd -dcq "$f" ;;
	*.ko.gz) gzip -dc "$f" ;;
	*) cat "$f" ;;
	esac | tr '\0' '\n' | awk -v k="$2=" 'index($0, k) == 1 { print substr($0, length(k) + 1) }'
}

builtin_mod() {
	[ -f "$moddir/modules.builtin" ] &&
		sed 's,.*/,,; s,\.ko$,,; s,-,_,g' "$moddir/modules.builtin" | grep -qx "$1"
}

declare -A state=() deps=()
order=()	# dependencies before their users
visit() {
	local m=$1 d dl
	case ${state[$m]:-} in
	done) return ;;
	active) die "module dependency cycle at $m" ;;
	esac
	state[$m]=active
	if [ -z "${modpath[$m]:-}" ]; then
		builtin_mod "$m" || die "module $m not found in $kpkg"
		log "$m is built in"
		state[$m]='done'
		return
	fi
	dl=$(modfield "${modpath[$m]}" depends | awk 'NR == 1')
	deps[$m]=${dl//,/ }
	for d in ${deps[$m]}; do
		visit "$d"
	done
	state[$m]='done'
	order+=("$m")
}
for m in $MODULES; do
	visit "$m"
done

closure() {	# all (indirect) dependencies of $1, users first (depmod's order)
	local m=$1 d more
	declare -A seen=()
	local pending out=()
	read -ra pending <<<"${deps[$m]:-}"
	while [ ${#pending[@]} -gt 0 ]; do
		d=${pending[0]}; pending=("${pending[@]:1}")
		[ -n "${seen[$d]:-}" ] && continue
		seen[$d]=1
		[ -n "${modpath[$d]:-}" ] && out+=("${modpath[$d]}")
		read -ra more <<<"${deps[$d]:-}"
		pending+=("${more[@]}")
	done
	echo "${out[*]:-}"
}

# ---- the initramfs -------------------------------------------------------

root=$tmp/root
mkdir -p "$root"/{bin,sbin,usr/bin,usr/sbin,dev,proc,sys,tmp,mnt,root,run,etc/partita}
install -m 0755 "$busybox" "$root/bin/busybox"
ln -s busybox "$root/bin/sh"
install -m 0755 "$here/init" "$root/init"
install -m 0755 "$here/shutdown" "$root/etc/partita/shutdown"
install -m 0755 "$tools/partita-net" "$root/usr/bin/partita-net"
install -m 0755 "$tools/partita-blkbench" "$root/usr/bin/partita-blkbench"
# The channel program: static, so it needs nothing of the initramfs.
log "building partita-chan, partita-blkd, partita, cntvct, perfstat and hwbp with $XCC"
"$XCC" -static -O2 -Wall -Wextra -Werror -I"$here/../../include" -o "$root/usr/bin/partita-chan" \
	"$tools/partita-chan.c" || die "cannot build partita-chan"
"$XCC" -static -O2 -Wall -Wextra -Werror -I"$here/../../include" -o "$root/usr/bin/partita-blkd" \
	"$tools/partita-blkd.c" || die "cannot build partita-blkd"
"$XCC" -static -O2 -Wall -Wextra -Werror -I"$here/../../include" -o "$root/usr/bin/partita" \
	"$tools/partita.c" || die "cannot build partita"
# bare-metal images for `partita load` (PARTITA_IMAGES: paths, from guests.mk)
mkdir -p "$root/usr/share/partita"
for img in ${PARTITA_IMAGES:-}; do
	install -m 0644 "$img" "$root/usr/share/partita/" || die "cannot copy $img"
done
"$XCC" -static -O2 -Wall -Wextra -Werror -o "$root/usr/bin/cntvct" "$tools/cntvct.c" ||
	die "cannot build cntvct"
"$XCC" -static -O2 -Wall -Wextra -Werror -o "$root/usr/bin/perfstat" "$tools/perfstat.c" ||
	die "cannot build perfstat"
"$XCC" -static -O2 -marm -Wall -Wextra -Werror -o "$root/usr/bin/hwbp" "$tools/hwbp.c" ||
	die "cannot build hwbp"
# The kernel opens /dev/console before /init runs (/init reopens it from
# devtmpfs if this node could not be made).
mknod -m 0600 "$root/dev/console" c 5 1 2>/dev/null ||
	log "warning: cannot mknod dev/console (not root?); /init copes"

mroot=$root/lib/modules/$rel
mkdir -p "$mroot"
: >"$root/etc/partita/modules"
: >"$mroot/modules.dep"
: >"$mroot/modules.alias"
for m in "${order[@]}"; do
	f=${modpath[$m]}
	mkdir -p "$mroot/$(dirname "$f")"
	cp "$moddir/$f" "$mroot/$f"
	echo "$f" >>"$root/etc/partita/modules"
	dl=$(closure "$m")
	echo "$f:${dl:+ $dl}" >>"$mroot/modules.dep"
	modfield "$f" alias | awk -v m="$m" '{ print "alias " $0 " " m }' >>"$mroot/modules.alias"
done
if [ -f "$moddir/modules.builtin" ]; then
	cp "$moddir/modules.builtin" "$mroot/modules.builtin"
fi
# Keep only the modules we ship in modules.order.
if [ -f "$moddir/modules.order" ]; then
	grep -Fxf "$root/etc/partita/modules" "$moddir/modules.order" \
		>"$mroot/modules.order" || true
fi

cat >"$root/etc/inittab" <<'EOF'
# busybox init, entered by /init when no partita.cmd is given.
::respawn:/bin/cttyhack /bin/sh -l
::ctrlaltdel:/sbin/reboot
::shutdown:/bin/sh /etc/partita/shutdown
EOF
cat >"$root/etc/profile" <<'EOF'
export PATH=/sbin:/bin:/usr/sbin:/usr/bin
export HOME=/root
export PS1='\h:\w\$ '
cd "$HOME"
EOF
echo 'root:x:0:0:root:/root:/bin/sh' >"$root/etc/passwd"
echo 'root:x:0:' >"$root/etc/group"
echo partita-linux >"$root/etc/hostname"

cat >"$tmp/VERSION" <<EOF
$kpkg $kver
$bbpkg $bbver
kernel-release $rel
modules ${order[*]}
EOF
cp "$tmp/VERSION" "$root/etc/partita/VERSION"

# Reproducible archive: fixed times, owners and inode numbers, sorted names.
epoch=$(stat -c %Y "$vmlinuz")
find "$root" -exec touch -h -d "@$epoch" {} +
(cd "$root" && find . -mindepth 1 | LC_ALL=C sort |
	cpio --quiet -o -H newc -R 0:0 --reproducible) | gzip -9 -n >"$tmp/initrd.cpio.gz"

# ---- outputs (each replaced atomically) ----------------------------------

cp "$vmlinuz" "$OUT/.zImage.tmp" && mv -f "$OUT/.zImage.tmp" "$OUT/zImage"
mv -f "$tmp/initrd.cpio.gz" "$OUT/initrd.cpio.gz"
mv -f "$tmp/VERSION" "$OUT/VERSION"
log "$OUT/zImage: $(stat -c %s "$OUT/zImage") bytes ($kpkg $kver, $rel)"
log "$OUT/initrd.cpio.gz: $(stat -c %s "$OUT/initrd.cpio.gz") bytes (modules: ${order[*]})"
