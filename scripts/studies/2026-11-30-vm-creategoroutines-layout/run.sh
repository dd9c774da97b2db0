#!/usr/bin/env bash
# Reproduces results/2026-11-30-vm-creategoroutines-layout/
# runs-default-and-seeds-1-4.txt (on stdout): the runtime test binary of
# the series' prefixes ending at 0001 (go.env only: upstream's runtime)
# and 0002 (the steal and sysmon counters), each linked with the default
# layout (seed 0) and with -ldflags=-randlayout=1..4, run interleaved in
# a shuffled order, 12 rounds, BenchmarkCreateGoroutinesParallel at
# GOMAXPROCS=2, -benchtime 200ms. One line per run: round, binary, ns/op.
set -euo pipefail
root=$(cd "$(dirname "$0")/../../.." && pwd)
goroot=$root/toolchain/goroot
wt=$root/toolchain/worktrees
bins=$(mktemp -d)
for i in 1 2; do
	v=p000$i
	git -C "$goroot" worktree remove --force "$wt/$v" 2>/dev/null || rm -rf "$wt/$v"
	git -C "$goroot" worktree add -q --detach "$wt/$v" "$(git -C "$goroot" rev-list --reverse upstream..HEAD | sed -n ${i}p)"
	ln -s "$goroot/bin" "$wt/$v/bin"
	ln -s "$goroot/pkg" "$wt/$v/pkg"
	for seed in 0 1 2 3 4; do
		flags=()
		[ "$seed" = 0 ] || flags=(-ldflags=-randlayout=$seed)
		(cd "$wt/$v/src" && GOROOT="$wt/$v" GOTOOLCHAIN=local GOFLAGS= "$goroot/bin/go" test -c -o "$bins/$v-$seed.test" "${flags[@]}" runtime)
	done
done
cd "$wt/p0001/src/runtime"
for r in $(seq 1 12); do
	for b in $(ls "$bins"/*.test | shuf --random-source=<(yes $r)); do
		ns=$("$b" -test.run='^$' -test.bench='^BenchmarkCreateGoroutinesParallel$' -test.benchtime=200ms -test.count=1 |
			awk '/^BenchmarkCreateGoroutinesParallel/ {print $3}')
		echo "$r $(basename "$b" .test) $ns"
	done
done
