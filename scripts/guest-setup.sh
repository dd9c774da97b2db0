#!/usr/bin/env bash
# guest-setup.sh DIR: everything `schedlab vm` needs, from Debian's own
# packages: QEMU, busybox-static, numactl and cpio installed with apt-get
# where missing, and Debian's cloud kernel (NUMA, ACPI_NUMA and
# NUMA_BALANCING built in; boots in 3-5 s under TCG) unpacked into DIR as
# DIR/vmlinuz. The kernel's ABI number moves with Debian's updates, so it
# is resolved through the meta-package linux-image-cloud-amd64. Says in
# one line what failed.
set -euo pipefail
dir=${1:?usage: guest-setup.sh DIR}
here=$(cd "$(dirname "$0")" && pwd)
"$here/ensure-packages.sh" qemu-system-x86_64=qemu-system-x86 busybox=busybox-static numactl=numactl cpio=cpio
[ -s "$dir/vmlinuz" ] && exit 0
mkdir -p "$dir"
pkg=$(apt-cache depends linux-image-cloud-amd64 2>/dev/null | awk '/Depends: linux-image-/ {print $2; exit}')
if [ -z "$pkg" ]; then
	apt-get update -qq >/dev/null 2>&1 || true
	pkg=$(apt-cache depends linux-image-cloud-amd64 2>/dev/null | awk '/Depends: linux-image-/ {print $2; exit}')
fi
[ -n "$pkg" ] || { echo "guest-setup: cannot resolve linux-image-cloud-amd64 with apt-cache" >&2; exit 1; }
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
if ! (cd "$tmp" && apt-get download -q "$pkg" >/dev/null 2>&1); then
	echo "guest-setup: apt-get download $pkg failed" >&2
	exit 1
fi
dpkg-deb --fsys-tarfile "$tmp"/*.deb | tar -x -C "$tmp" --wildcards './boot/vmlinuz-*' './boot/config-*'
cp "$tmp"/boot/vmlinuz-* "$dir/vmlinuz.tmp"
cp "$tmp"/boot/config-* "$dir/config"
mv "$dir/vmlinuz.tmp" "$dir/vmlinuz"
echo "guest-setup: $pkg in $dir" >&2
