#!/bin/sh
# Run a make target of Partita inside a fresh root of another Debian
# release: `scripts/in-debian.sh trixie test` checks a change on Debian 13
# while this machine runs Debian 12, or the other way round.  The root is
# made once with mmdebstrap from Debian's own mirror (the one apt uses here)
# and kept in $PARTITA_ROOTS/RELEASE; each run clones the committed HEAD of
# this repository into it, so uncommitted changes are not tried.  Partita's
# own scripts/setup.sh then installs what that release offers, as on a new
# machine.
#
# Usage: scripts/in-debian.sh RELEASE [TARGET...]   (default: test)
#        PARTITA_ROOTS=/var/tmp/partita-roots   where the roots are kept
#        FRESH=1   make the root anew first
#        PYTEST_ADDOPTS="-k imx"   passed on to pytest there (make systest)
#        SYSTEST_TIMEOUT=3600      passed on to tests/run-all.sh there (a busy machine)
# Needs root (chroot, mounts) and mmdebstrap (installed if missing).
set -eu

release=${1:?usage: scripts/in-debian.sh RELEASE [TARGET...]}
shift
[ $# -gt 0 ] || set -- test
top=$(cd "$(dirname "$0")/.." && pwd)
roots=${PARTITA_ROOTS:-/var/tmp/partita-roots}
root=$roots/$release

[ "$(id -u)" = 0 ] || { echo "in-debian: needs root (chroot and mounts)" >&2; exit 1; }
command -v mmdebstrap >/dev/null 2>&1 || {
    apt-get update -q && DEBIAN_FRONTEND=noninteractive apt-get install -y -q mmdebstrap; }

# the mirror this machine's apt uses, so the root comes from the same place
mirror=$(sed -n 's/^URIs: *\([^ ]*\/debian\)$/\1/p' /etc/apt/sources.list.d/*.sources \
         2>/dev/null | head -n 1)
[ -n "$mirror" ] || mirror=$(sed -n 's/^deb \(\[[^]]*\] \)\{0,1\}\([^ ]*\/debian\) .*/\2/p' \
                             /etc/apt/sources.list 2>/dev/null | head -n 1)
[ -n "$mirror" ] || mirror=http://deb.debian.org/debian

if [ "${FRESH:-0}" = 1 ]; then rm -rf "$root"; fi
if [ ! -f "$root/.made" ]; then
    echo "in-debian: making a $release root in $root from $mirror"
    rm -rf "$root"
    mkdir -p "$roots"
    mmdebstrap --variant=apt --include=ca-certificates,git,make,procps,python3 \
        "$release" "$root" "$mirror"
    touch "$root/.made"
fi

mounted=""
cleanup() {
    for m in $mounted; do umount -l "$m" 2>/dev/null || true; done
}
trap cleanup EXIT INT TERM
for m in proc sys dev dev/pts; do
    case $m in
    proc) mount -t proc proc "$root/proc" ;;
    sys) mount -t sysfs sys "$root/sys" ;;
    dev) mount --bind /dev "$root/dev" ;;
    dev/pts) mount -t devpts devpts "$root/dev/pts" -o newinstance,ptmxmode=0666 ;;
    esac
    mounted="$root/$m $mounted"
done
cp /etc/resolv.conf "$root/etc/resolv.conf" 2>/dev/null || true

# the committed HEAD, its build folder kept from the last run (make knows
# what changed), unless FRESH=1 made the root anew
src=$root/src/partita
if [ -d "$src/.git" ]; then
    git -C "$src" fetch -q "$top" HEAD
    git -C "$src" checkout -q -f FETCH_HEAD
    git -C "$src" clean -fdxq -e build
else
    mkdir -p "$root/src"
    git clone -q "$top" "$src"
fi
echo "in-debian: make $* in $release ($(. "$root/etc/os-release"; echo "$PRETTY_NAME")," \
     "at $(git -C "$src" log --oneline -1))"
status=0
chroot "$root" /usr/bin/env -i PATH=/usr/sbin:/usr/bin:/sbin:/bin HOME=/root \
    LANG=C.UTF-8 TERM=dumb ${PYTEST_ADDOPTS:+PYTEST_ADDOPTS="$PYTEST_ADDOPTS"} \
    ${SYSTEST_TIMEOUT:+SYSTEST_TIMEOUT="$SYSTEST_TIMEOUT"} \
    sh -c 'cd /src/partita && make "$@"' make "$@" || status=$?
# a baseline recorded there (make bench-baseline) comes back to this tree;
# only one the run changed: this tree may have moved on meanwhile
for f in "$root"/src/partita/tests/bench/baselines/*.json; do
    git -C "$src" ls-files --error-unmatch "${f#$src/}" >/dev/null 2>&1 &&
        git -C "$src" diff --quiet -- "${f#$src/}" && continue
    cp "$f" "$top/tests/bench/baselines/" && echo "in-debian: new ${f##*/} in tests/bench/baselines"
done
exit $status
