#!/usr/bin/env bash
# What GODEBUG numamem=1 costs a single P that allocates (issue 30, part
# 5), in three folders:
#   <out>-2node, <out>-4node: ParallelAlloc and GCHeavy at GOMAXPROCS=1
#     in a 2-node and a 4-node guest (1 vCPU a node, balancer off), the
#     only place here where numamem takes effect: bind1 (numa=1,
#     numabind=1), bind1-mem (also numamem=1) and bind1b, a second bind1
#     as the control, COUNT rounds (default 10), interleaved. The rows
#     that count are the runtime's own: numamem-pages/op (pages of the
#     spans taken that were looked up with move_pages) and
#     numamem-moved/op. Times are the emulator's and decide nothing.
#   <out>-movepages: BenchmarkNUMAMovePages (the runtime's numaMovePages
#     over one span, the work numamem adds per span taken) on this
#     machine's own kernel, COUNT runs, and its user-space instructions
#     per op under valgrind (cachegrind, runs of N and 2N ops).
# Default <out>: results/2026-12-02-vm-numamem-cost.
set -euo pipefail
root=$(cd "$(dirname "$0")/../../.." && pwd)
cd "$root"
out=${1:-results/2026-12-02-vm-numamem-cost}
count=${COUNT:-10}
self="scripts/studies/2026-12-02-vm-numamem-cost/run.sh $out"
unset GODEBUG GOMAXPROCS GOGC GOTRACEBACK GONUMASYSFS

# Host: numaMovePages per span, time and instructions.
host=$out-movepages
mkdir -p "$host"
started=$(date -u +%Y-%m-%dT%H:%M:%SZ)
goroot=$root/toolchain/goroot
test=$(mktemp -d)/runtime.test
(cd "$goroot/src" && GOROOT=$goroot GOTOOLCHAIN=local GOFLAGS= ../bin/go test -c -o "$test" runtime)
GOMAXPROCS=1 "$test" -test.run '^$' -test.bench 'NUMAMovePages' -test.count "$count" -test.benchtime 20000x | tee "$host/bench.txt"
# Instructions per op: valgrind counts user space only; the system
# calls' kernel time is in bench.txt's ns/op. At GOMAXPROCS=1 a run's
# count repeats within about 0.2%, 70k instructions here, under 1 per op
# at these N.
: >"$host/instructions.txt"
for b in local/pages=2 local/pages=16 local/pages=64 local/pages=128 fresh/pages=2 fresh/pages=16; do
	for n in 100000 200000; do
		GOMAXPROCS=1 valgrind --tool=cachegrind --cache-sim=no --cachegrind-out-file=/dev/null \
			"$test" -test.run '^$' -test.bench "NUMAMovePages/$b\$" -test.benchtime ${n}x -test.count 1 \
			2>"$host/cg.tmp" >/dev/null
		printf '%s\t%s\t%s\n' "$b" "$n" "$(awk '/I *refs:/ { gsub(",", "", $NF); print $NF }' "$host/cg.tmp")" >>"$host/instructions.txt"
	done
done
rm -f "$host/cg.tmp"
awk -F'\t' '$2 == 100000 { a[$1] = $3 } $2 == 200000 { printf "BenchmarkNUMAMovePages/%s 100000 %.1f instructions/op\n", $1, ($3 - a[$1]) / 100000 }' \
	"$host/instructions.txt" >"$host/instructions-bench.txt"
.bin/schedlab metadata -force -out "$host" -started "$started" -command "$self" \
	-note "runtime BenchmarkNUMAMovePages on this machine's kernel, $count runs of 20000x at GOMAXPROCS=1; instructions/op from cachegrind runs of 100000x and 200000x"

# Guests: what an allocating P pays per op, counted by the runtime.
in=.cache/numamem-cost-in
scripts/guest-setup.sh .cache/guest
rm -rf "$in"
bench='ParallelAlloc|GCHeavy'
CGO_ENABLED=0 .bin/schedlab bench -suite workloads -bench "$bench" -variant patched -build-only "$in"
env -u GOFLAGS CGO_ENABLED=0 go build -o .bin/schedlab-static ./src/cmd/schedlab
for nodes in 2 4; do
	dir=$out-${nodes}node
	.bin/schedlab vm -nodes "$nodes" -cpus "$nodes" -mem $((nodes * 512)) -balancing 0 -timeout 80m -in "$in" -out "$dir" -- \
		.bin/schedlab-static bench -prebuilt /in -suite workloads -bench "$bench" -cpu 1 -count "$count" -benchtime 200ms -noreport -out /tmp/out \
		-variant "bind1=patched:numa=1,numabind=1" \
		-variant "bind1-mem=patched:numa=1,numabind=1,numamem=1" \
		-variant "bind1b=patched:numa=1,numabind=1"
	.bin/schedlab report "$dir"
done

# Host base (added after the first three folders were written, and run
# on its own): the two workloads' time per op at GOMAXPROCS=1 on this
# machine, stock and a stock2 control, the denominator for what the
# lookups of <out>-movepages would add per op.
.bin/schedlab bench -suite workloads -bench "$bench" -cpu 1 -count "$count" -benchtime 200ms \
	-variant stock -variant stock2=stock -out "$out-hostbase"

# The cost per op those lookups imply, from the folders above (a model:
# see estimate.py).
python3 scripts/studies/2026-12-02-vm-numamem-cost/estimate.py "$out" >"$out-movepages/estimate.txt"
