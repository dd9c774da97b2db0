#!/usr/bin/env bash
# The heap's exemption from the kernel's NUMA balancer (numaexempt=1) by
# the balancer's own counters: GCHeavy and PointerChase, the two
# workloads the balancer acts on (results/2026-12-01-vm-guest-numa-
# balancing1), in a 2-node guest with kernel.numa_balancing=1, stock,
# bind1, bind1-exempt, bind1-mem and bind1-mem-exempt, COUNT rounds
# (default 6). As make study STUDY=guest-numa does: test binaries built
# here (static) and run in the guest by a static schedlab. Writes the
# folder (default results/2026-12-01-vm-guest-exempt).
set -euo pipefail
root=$(cd "$(dirname "$0")/../../.." && pwd)
cd "$root"
out=${1:-results/2026-12-01-vm-guest-exempt}
count=${COUNT:-6}
in=.cache/guest-exempt-in
scripts/guest-setup.sh .cache/guest
rm -rf "$in"
bench='PointerChase|GCHeavy'
CGO_ENABLED=0 .bin/schedlab bench -suite workloads -bench "$bench" -variant stock -variant patched -build-only "$in"
env -u GOFLAGS CGO_ENABLED=0 go build -o .bin/schedlab-static ./src/cmd/schedlab
unset GODEBUG GOMAXPROCS GOGC GOTRACEBACK GONUMASYSFS
.bin/schedlab vm -nodes 2 -cpus 2 -mem 1024 -balancing 1 -timeout 60m -in "$in" -out "$out" -- \
	.bin/schedlab-static bench -prebuilt /in -suite workloads -bench "$bench" -count "$count" -benchtime 200ms -noreport -out /tmp/out \
	-variant stock -variant "bind1=patched:numa=1,numabind=1" \
	-variant "bind1-exempt=patched:numa=1,numabind=1,numaexempt=1" \
	-variant "bind1-mem=patched:numa=1,numabind=1,numamem=1" \
	-variant "bind1-mem-exempt=patched:numa=1,numabind=1,numamem=1,numaexempt=1"
.bin/schedlab report "$out"
