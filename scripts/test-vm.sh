#!/usr/bin/env bash
# make test-vm: the patched runtime's NUMA support against a real
# multi-node kernel. src/guesttest/numacheck, built with the patched
# toolchain, runs in 2- and 4-node guests (schedlab vm; QEMU's software
# emulation, Debian's cloud kernel) against the kernel's own sysfs, with
# no GONUMASYSFS and no numafake. A program schedlab did not write
# (busybox) checks that schedlab vm passes output and exit status through,
# and the runtime package's tests run with heap placement by node on.
set -euo pipefail
cd "$(dirname "$0")/.."
scripts/guest-setup.sh .cache/guest
goroot=$PWD/toolchain/goroot
env -u GOFLAGS -u GODEBUG GOROOT="$goroot" GOTOOLCHAIN=local CGO_ENABLED=0 \
	"$goroot/bin/go" build -o .bin/numacheck ./src/guesttest/numacheck
export -n GODEBUG GOMAXPROCS 2>/dev/null || true
unset GODEBUG GOMAXPROCS GOGC GOTRACEBACK GONUMASYSFS
for nodes in 2 4; do
	echo "test-vm: numacheck in a $nodes-node guest"
	.bin/schedlab vm -nodes "$nodes" -timeout 5m -- .bin/numacheck
done
# Confinement needs two or more CPUs per node: a GOMAXPROCS that fits one
# node keeps every thread and the heap there (numacheck confine).
for guest in "2 4 1024" "4 8 2048"; do
	read -r nodes cpus mem <<<"$guest"
	echo "test-vm: numacheck confine in a $nodes-node guest with $cpus vCPUs"
	log=.cache/test-vm-confine-$nodes.log
	.bin/schedlab vm -nodes "$nodes" -cpus "$cpus" -mem "$mem" -timeout 5m -- .bin/numacheck confine | tee "$log"
	if grep -q '^skip confine' "$log"; then
		echo "test-vm: FAIL: numacheck confine skipped in a guest with two CPUs per node" >&2
		exit 1
	fi
done
echo "test-vm: busybox in a 2-node guest (output and exit status pass through)"
set +e
out=$(.bin/schedlab vm -nodes 2 -timeout 2m -- "$(command -v busybox)" sh -c 'cat /sys/devices/system/node/online; exit 5' 2>/dev/null)
rc=$?
set -e
if [ "$rc" != 5 ] || [ "$out" != "0-1" ]; then
	echo "test-vm: FAIL: busybox in the guest printed '$out' and exited $rc; want '0-1' and 5" >&2
	exit 1
fi
echo "test-vm: schedlab doctor in a 4-node guest"
env -u GOFLAGS CGO_ENABLED=0 go build -o .bin/schedlab-static ./src/cmd/schedlab
doc=$(.bin/schedlab vm -nodes 4 -timeout 2m -- .bin/schedlab-static doctor 2>/dev/null)
echo "$doc"
for want in "NUMA nodes:           4" "node 3: cpus 3, distances 30 30 20 10" "emulated:             QEMU TCG"; do
	if ! grep -qF "$want" <<<"$doc"; then
		echo "test-vm: FAIL: schedlab doctor in the guest does not say '$want'" >&2
		exit 1
	fi
done
# The runtime package's own tests with heap placement by node and
# confinement in effect (numamem and numaexempt act only on the kernel's
# own topology of two or more nodes, so CI's one-node machine cannot run
# them; GOMAXPROCS=2 fits one node of two CPUs, so every thread keeps to
# one node until a test raises GOMAXPROCS). The guest has no go command:
# tests that build programs skip; the in-process ones (GC, allocator,
# scheduler, the NUMA unit tests) run.
godebug=numa=1,numabind=1,numaconfine=1,numamem=2,numaexempt=1
echo "test-vm: the runtime's tests with $godebug and GOMAXPROCS=2 in a 2-node guest with 4 vCPUs"
in=.cache/test-vm-runtime-in
rm -rf "$in"
mkdir -p "$in"
env -u GOFLAGS -u GODEBUG GOROOT="$goroot" GOTOOLCHAIN=local CGO_ENABLED=0 \
	"$goroot/bin/go" test -c -o "$in/runtime.test" runtime
cp -r "$goroot/src/runtime/testdata" "$in/testdata"
set +e
.bin/schedlab vm -nodes 2 -cpus 4 -mem 2048 -timeout 30m -in "$in" \
	-env GODEBUG=$godebug -env GOMAXPROCS=2 -- \
	"$(command -v busybox)" sh -c 'cd /in && ./runtime.test -test.short -test.skip TestTracebackSystem -test.timeout 25m'
rc=$?
set -e
if [ "$rc" != 0 ]; then
	echo "test-vm: FAIL: the runtime's tests with $godebug exited $rc" >&2
	exit 1
fi
echo "test-vm: ok"
