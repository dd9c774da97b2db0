#!/usr/bin/env bash
# How long CPU-bound goroutines run before they are preempted, with and
# without GODEBUG timeslice (benchmarks/slicedist -mode=slice), at
# GOMAXPROCS=1 and 2, 10 interleaved repetitions of 2s per setting.
# "stock" is the patched runtime with no knob, which makes upstream's
# decisions. Usage: run.sh [OUTDIR] (default:
# results/2026-11-30-vm-slicedist)
set -euo pipefail
root=$(cd "$(dirname "$0")/../../.." && pwd)
out=${1:-$root/results/2026-11-30-vm-slicedist}
goroot=$root/toolchain/goroot
export GOTOOLCHAIN=local GOROOT=$goroot PATH=$goroot/bin:$PATH
exe=$(mktemp -d)/slicedist
(cd "$root" && go build -o "$exe" ./benchmarks/slicedist)
for procs in 1 2; do
	"$exe" -mode=slice -reps=10 -dur=2s -procs=$procs stock timeslice=1000 timeslice=2000 timeslice=5000 timeslice=10000 > "$out/slice-procs$procs.txt"
done
