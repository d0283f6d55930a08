#!/usr/bin/env bash
# Installs a schedcheck .deb on a clean Debian 12 and runs it there:
#
#   tests/deb-install.sh build/schedcheck_0.1.0_amd64.deb [MIRROR]
#
# The clean system is a minimal bookworm chroot made by debootstrap from
# MIRROR (default: the first Debian URI apt is configured with, else
# http://deb.debian.org/debian).  apt-get installs the package there with
# the dependencies it declares, and nothing else, so a dependency the
# package forgets shows up as a failure here.  Then, inside the chroot:
# the version and catalogue, a cpuload proof and a PELT proof (each must
# come out as the expected file says: exit 0), a simulation, and the
# oracle directory listing.  Needs root and the Debian archive; removes the
# chroot when done.  `make deb-test` runs it on the package `make deb` made.
set -euo pipefail

deb=${1:?usage: tests/deb-install.sh PACKAGE.deb [MIRROR]}
[ -f "$deb" ] || { echo "deb-install: $deb: no such file" >&2; exit 2; }
[ "$(id -u)" = 0 ] || { echo "deb-install: needs root (debootstrap, chroot)" >&2; exit 2; }
mirror=${2:-$(sed -n 's/^URIs: *\([^ ]*debian\)$/\1/p' /etc/apt/sources.list.d/debian.sources 2>/dev/null | head -1)}
mirror=${mirror:-http://deb.debian.org/debian}
command -v debootstrap >/dev/null || DEBIAN_FRONTEND=noninteractive apt-get install -y -qq debootstrap >/dev/null

root=$(mktemp -d /tmp/schedcheck-deb-root-XXXXXX)
cleanup() {
    for m in proc dev/pts dev; do umount "$root/$m" 2>/dev/null || true; done
    rm -rf --one-file-system "$root"
}
trap cleanup EXIT
trap 'exit 130' INT
trap 'exit 143' TERM

step() { printf 'deb-install: %s\n' "$*"; }
t0=$(date +%s)
step "debootstrap bookworm (minbase) from $mirror"
debootstrap --variant=minbase bookworm "$root" "$mirror" >"$root.log" 2>&1 || {
    tail -20 "$root.log" >&2; rm -f "$root.log"; exit 1; }
rm -f "$root.log"
mount -t proc proc "$root/proc"
mount --bind /dev "$root/dev"
mount --bind /dev/pts "$root/dev/pts"
cp /etc/resolv.conf "$root/etc/resolv.conf"
cp "$deb" "$root/tmp/schedcheck.deb"

in_root() { chroot "$root" env -i PATH=/usr/sbin:/usr/bin:/sbin:/bin HOME=/root DEBIAN_FRONTEND=noninteractive "$@"; }

step "apt-get install ./schedcheck.deb (declared dependencies only)"
in_root apt-get -o APT::Sandbox::User=root update -qq
in_root apt-get -o APT::Sandbox::User=root install -y -qq --no-install-recommends /tmp/schedcheck.deb >/dev/null 2>&1 || { echo "deb-install: apt-get install failed" >&2; exit 1; }
step "installed: $(in_root dpkg-query -W -f='${Package} ${Version}' schedcheck)"

step "schedcheck invariants"
in_root schedcheck invariants | sed -n '1,3p'
step "schedcheck prove --family cpuload --arch lp64"
in_root schedcheck prove --family cpuload --arch lp64 --jobs 2 | tail -3
step "schedcheck prove --variant pelt/v6.1 --invariant pelt.time_accounted"
in_root schedcheck prove --variant pelt/v6.1 --invariant pelt.time_accounted | tail -2
step "schedcheck simulate (a task running 1 ms of every 2 ms)"
printf '%s\n' '{"tick_hz": 0, "tasks": [{"name": "half", "phases": [{"duration": 4000000, "run": 1000000, "sleep": 1000000}]}]}' \
    >"$root/tmp/half.json"
in_root schedcheck simulate /tmp/half.json --variant pelt/v6.1 --oracle linux-6.1 | tail -2
step "schedcheck oracle list"
in_root schedcheck oracle list | sed -n '1,4p'
# The plug-in tooling: an oracle built from a kernel tarball with the
# package's headers and declared compiler, then used by equiv and simulate.
# The tarball is only recommended by the package: the host's copy is used.
tarball=/usr/src/linux-source-6.1.tar.xz
if [ -f "$tarball" ]; then
    cp "$tarball" "$root/tmp/"
    step "schedcheck oracle build --kernel linux-source-6.1.tar.xz --name t61"
    in_root sh -c 'cd /tmp && schedcheck oracle build --kernel /tmp/linux-source-6.1.tar.xz --name t61 --out oracles' \
        | sed -n '1,2p'
    step "schedcheck equiv --variant pelt/v6.1 --oracle t61"
    in_root sh -c 'cd /tmp && schedcheck equiv --variant pelt/v6.1 --oracle t61 --oracle-dir oracles --arch lp64' \
        | tail -2
    step "schedcheck simulate --oracle t61 --oracle-dir oracles"
    in_root sh -c 'cd /tmp && schedcheck simulate half.json --oracle linux-6.1 --oracle t61 --oracle-dir oracles' | tail -1
else
    step "no $tarball on this machine: oracle build not tried"
fi
step "passed in $(( $(date +%s) - t0 )) s"
