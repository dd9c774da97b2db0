#!/usr/bin/env bash
# Reproduces results/2026-11-30-vm-mutex-bisect/bench.txt (on stdout):
# issue 19's benchmark (grpc v1.85.0 benchmark/primitives
# BenchmarkMapWithSyncMutexContention, -benchtime 500ms, GOMAXPROCS=2)
# built with stock go1.27.4 (run twice per round as
# "stock" and "stock2", the control) and with the runtime of the series'
# prefixes ending at each patch in $PREFIXES, compiled from source in
# worktrees of toolchain/goroot. $ROUNDS shuffled interleaved rounds.
# Usage: run.sh [FOLDER] > bench.txt, FOLDER (default:
# results/2026-11-30-vm-mutex-bisect) holding the go.mod it builds with.
set -euo pipefail
root=$(cd "$(dirname "$0")/../../.." && pwd)
dir=${1:-$root/results/2026-11-30-vm-mutex-bisect}
goroot=$root/toolchain/goroot
wt=$root/toolchain/worktrees
ROUNDS=${ROUNDS:-30}
PREFIXES=${PREFIXES:-"1 2 6 10 14 19 22"}
work=$(mktemp -d)
cp "$dir/go.mod" "$work/go.mod"
cd "$work"
export GOTOOLCHAIN=local GOFLAGS=-mod=mod
stock=$(GOTOOLCHAIN=go1.27.4 go env GOROOT)
GOROOT=$stock "$stock/bin/go" get -t google.golang.org/grpc/benchmark/primitives@v1.85.0
GOROOT=$stock "$stock/bin/go" test -c -o "$work/stock.test" google.golang.org/grpc/benchmark/primitives
for i in $PREFIXES; do
	v=p$(printf %04d "$i")
	if [ ! -d "$wt/$v" ]; then
		git -C "$goroot" worktree add -q --detach "$wt/$v" "$(git -C "$goroot" rev-list --reverse upstream..HEAD | sed -n ${i}p)"
		ln -s "$goroot/bin" "$wt/$v/bin"
		ln -s "$goroot/pkg" "$wt/$v/pkg"
	fi
	GOROOT=$wt/$v "$goroot/bin/go" test -c -o "$work/$v.test" google.golang.org/grpc/benchmark/primitives
done
variants="stock stock2"
for i in $PREFIXES; do variants="$variants p$(printf %04d "$i")"; done
for r in $(seq 1 "$ROUNDS"); do
	for v in $(printf '%s\n' $variants | shuf --random-source=<(yes $r)); do
		b=$work/$v.test
		[ "$v" = stock2 ] && b=$work/stock.test
		printf 'round: %d\nvariant: %s\n' "$r" "$v"
		"$b" -test.run='^$' -test.bench='^BenchmarkMapWithSyncMutexContention$' -test.benchtime=500ms -test.count=1 |
			grep '^BenchmarkMapWithSyncMutexContention'
	done
done
