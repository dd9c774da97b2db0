#!/usr/bin/env bash
# The runtime's own instructions for numamem=2, per op and per span:
# ParallelAlloc and GCHeavy at GOMAXPROCS=1 under cachegrind with
# numa=1,numafake=2,numabind=1,numamem=2 (windows used, not placed), at
# N and 2N iterations (the N of <out>-instructions), and the
# instructions that the heap windows' own code executes, by source:
# runtime/numa_heap.go (inlined or not), numa_mem_linux.go's span
# counting, and the page allocator's window search (findFrom,
# allocWithin, allocToCacheWithin). attribute.py turns (2N - N) / N into
# per-op counts. Usage: attribute.sh <out-folder>
set -euo pipefail
root=$(cd "$(dirname "$0")/../../.." && pwd)
cd "$root"
dir=${1:?usage: attribute.sh <out-folder>}
mkdir -p "$dir"
goroot=$root/toolchain/goroot
test=$(mktemp -d)/workloads.test
(cd benchmarks/workloads && env -u GOFLAGS GOROOT="$goroot" GOTOOLCHAIN=local "$goroot/bin/go" test -c -o "$test" .)
: >"$dir/attribution.txt"
for b in ParallelAlloc:10600 GCHeavy:200; do
	name=${b%%:*} n=${b##*:}
	for iters in "$n" "$((2 * n))"; do
		GODEBUG=numa=1,numafake=2,numabind=1,numamem=2 GOMAXPROCS=1 valgrind --tool=cachegrind --cache-sim=no \
			--cachegrind-out-file="$dir/cg.out" "$test" -test.run '^$' -test.bench "^Benchmark$name\$" \
			-test.benchtime "${iters}x" >"$dir/bench.tmp" 2>/dev/null
		spans=$(grep -o '[0-9.e+]* numamem-spans/op' "$dir/bench.tmp" | awk '{print $1}')
		cg_annotate --auto=no --threshold=0 "$dir/cg.out" |
			awk -v b="$name" -v it="$iters" -v sp="$spans" '
				/file:function/ { p = 1; next }
				p && /^ *[0-9,]+ \(/ {
					gsub(",", "", $1)
					total += $1
					if ($NF ~ /runtime\/numa_heap\.go:/) heap += $1
					else if ($NF ~ /runtime\/numa_mem_linux\.go:/) mem += $1
					else if ($NF ~ /findFrom|allocWithin|allocToCacheWithin/) search += $1
				}
				END { printf "%s\t%d\t%s\t%.0f\t%.0f\t%.0f\t%.0f\n", b, it, sp, total, heap, mem, search }' >>"$dir/attribution.txt"
	done
done
rm -f "$dir/cg.out" "$dir/bench.tmp"
