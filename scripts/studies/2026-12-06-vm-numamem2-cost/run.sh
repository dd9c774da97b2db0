#!/usr/bin/env bash
# What GODEBUG numamem=2 (heap windows by node, patch 0024) costs a
# single P that allocates (issue 48, part 4), in three folders:
#   <out>-instructions: ParallelAlloc and GCHeavy at GOMAXPROCS=1 on this
#     machine under cachegrind (instructions/op, user space only): stock,
#     bind1 (numa=1,numafake=2,numabind=1), bind1-mem2 (also numamem=2:
#     on a numafake topology the windows are used, routing and all, but
#     not placed, so no system call) and bind1b, a second bind1 as the
#     control; attribute.sh adds attribution.txt, the instructions that
#     numamem=2's own code executes there, per op and per span.
#   <out>-2node, <out>-4node: the same workloads at GOMAXPROCS=1 in 2-
#     and 4-node guests (1 vCPU a node, balancer off), where the windows
#     are placed: bind1, bind1-mem (numamem=1), bind1-mem2 and bind1b,
#     COUNT rounds (default 3). The rows that count are the runtime's:
#     numamem-syscalls/op and numamem-spans/op. The guests' times decide
#     nothing.
#   <out>-mbind: the price of the one system call numamem=2 makes per
#     heap growth, mbind(MPOL_PREFERRED) over a freshly mapped 4 MiB and
#     64 MiB range, on this machine's kernel (mbindprice, COUNT runs).
# estimate.py then writes <out>-mbind/estimate.txt: the added
# instructions and the system calls per op times their price, against
# the host's stock time per op (results/2026-12-02-vm-numamem-cost-hostbase:
# stock is the same go1.27.4 there).
# Default <out>: results/2026-12-06-vm-numamem2-cost.
set -euo pipefail
root=$(cd "$(dirname "$0")/../../.." && pwd)
cd "$root"
out=${1:-results/2026-12-06-vm-numamem2-cost}
count=${COUNT:-3}
here=scripts/studies/2026-12-06-vm-numamem2-cost
self="$here/run.sh $out"
unset GODEBUG GOMAXPROCS GOGC GOTRACEBACK GONUMASYSFS
bench='ParallelAlloc|GCHeavy'
fake=numa=1,numafake=2,numabind=1

# Host: the runtime's own instructions per op.
.bin/schedlab bench -suite workloads -bench "$bench" -measure instructions -count "$count" \
	-variant stock -variant "bind1=patched:$fake" -variant "bind1-mem2=patched:$fake,numamem=2" \
	-variant "bind1b=patched:$fake" -out "$out-instructions"
# ... and the part of them that numamem=2's own code executes.
"$here/attribute.sh" "$out-instructions"

# Host: mbind's price.
mkdir -p "$out-mbind"
started=$(date -u +%Y-%m-%dT%H:%M:%SZ)
go test -run '^$' -bench MbindPreferred -benchtime 2000x -count "$((count > 5 ? count : 10))" "./$here/mbindprice" | tee "$out-mbind/bench.txt"
.bin/schedlab metadata -force -out "$out-mbind" -started "$started" -command "$self" \
	-note "mbind(MPOL_PREFERRED, node 0) over a freshly mapped range, this machine's kernel, 2000 calls a run"

# Guests: system calls and spans per op, counted by the runtime.
in=.cache/numamem2-cost-in
scripts/guest-setup.sh .cache/guest
rm -rf "$in"
CGO_ENABLED=0 .bin/schedlab bench -suite workloads -bench "$bench" -variant patched -build-only "$in"
env -u GOFLAGS CGO_ENABLED=0 go build -o .bin/schedlab-static ./src/cmd/schedlab
for nodes in 2 4; do
	dir=$out-${nodes}node
	.bin/schedlab vm -nodes "$nodes" -cpus "$nodes" -mem $((nodes * 512)) -balancing 0 -timeout 80m -in "$in" -out "$dir" -- \
		.bin/schedlab-static bench -prebuilt /in -suite workloads -bench "$bench" -cpu 1 -count "$count" -benchtime 200ms -noreport -out /tmp/out \
		-variant "bind1=patched:numa=1,numabind=1" \
		-variant "bind1-mem=patched:numa=1,numabind=1,numamem=1" \
		-variant "bind1-mem2=patched:numa=1,numabind=1,numamem=2" \
		-variant "bind1b=patched:numa=1,numabind=1"
	.bin/schedlab report "$dir"
done

python3 "$here/estimate.py" "$out" >"$out-mbind/estimate.txt"
cat "$out-mbind/estimate.txt"
