#!/usr/bin/env bash
# Reproduces results/2026-11-30-vm-mutex-layout/bench.txt (on stdout):
# grpc's benchmark/primitives BenchmarkMapWithSyncMutexContention (issue
# 19's benchmark) built with the runtime of the series' prefixes ending at
# 0001 (upstream's runtime) and 0002 (the counters), each with the default
# layout (seed 0) and -ldflags=-randlayout=1..3, 10 shuffled interleaved
# rounds, -benchtime 500ms, GOMAXPROCS=2. Needs the worktrees that
# ../2026-11-30-vm-creategoroutines-layout/run.sh creates.
# Usage: run.sh [FOLDER] > bench.txt, FOLDER (default:
# results/2026-11-30-vm-mutex-layout) holding the go.mod it builds with.
set -euo pipefail
root=$(cd "$(dirname "$0")/../../.." && pwd)
dir=${1:-$root/results/2026-11-30-vm-mutex-layout}
wt=$root/toolchain/worktrees
work=$(mktemp -d)
cp "$dir/go.mod" "$work/go.mod"
cd "$work"
export GOTOOLCHAIN=local GOFLAGS=-mod=mod
GOROOT=$wt/p0001 "$wt/p0001/bin/go" get -t google.golang.org/grpc/benchmark/primitives@v1.85.0
for v in p0001 p0002; do
	for seed in 0 1 2 3; do
		flags=()
		[ "$seed" = 0 ] || flags=(-ldflags=-randlayout=$seed)
		GOROOT=$wt/$v "$wt/$v/bin/go" test -c -o "$work/$v-$seed.test" "${flags[@]}" google.golang.org/grpc/benchmark/primitives
	done
done
for r in $(seq 1 10); do
	for b in $(ls "$work"/*.test | shuf --random-source=<(yes $r)); do
		n=$(basename "$b" .test)
		layout=random
		[ "${n##*-}" = 0 ] && layout=default
		printf 'variant: %s\nprefix: %s\nlayout: %s\n' "$n" "${n%-*}" "$layout"
		"$b" -test.run='^$' -test.bench='^BenchmarkMapWithSyncMutexContention$' -test.benchtime=500ms -test.count=1 |
			grep '^BenchmarkMapWithSyncMutexContention'
	done
done
