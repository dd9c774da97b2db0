#!/usr/bin/env bash
# Issue 50's study: the scheduler's new queue, spinning and failed-steal
# units and go1.26's scheduler gauges, with intervals, on four workloads
# (LatencyProbe, BurstyProducer, ForkJoinTree, ChanPipeline), stock,
# stock2 (a second stock variant: the control), patched with no knob, and
# patched with timeslice=1000 (a 1 ms time slice); COUNT rounds (default
# 10), interleaved. LatencyProbe keeps GOMAXPROCS CPU hogs (goroutines)
# busy beside a sleeper, so a shorter time slice should wake the sleeper
# sooner. After the rounds, schedlab bench -trace traces one run of every
# benchmark per variant (tracesteal=1 on the patched ones), and this
# script draws the runnable→running delay heat maps of LatencyProbe's
# traces (schedlab trace -latency) into latency-<variant>/, converts the
# patched one for stock tools (-stock) and writes its Perfetto JSON, and
# draws BurstyProducer's patched trace, where local queues overflow.
# Writes results/2026-12-04-vm-sched-queues (or the folder given).
set -euo pipefail
root=$(cd "$(dirname "$0")/../../.." && pwd)
cd "$root"
out=${1:-results/2026-12-04-vm-sched-queues}
make -s harness
schedlab=$root/.bin/schedlab
unset GODEBUG GOFLAGS
if [[ ! -f $out/bench.txt ]]; then
	"$schedlab" bench -suite workloads -bench '^workloads\.(LatencyProbe|BurstyProducer|ForkJoinTree|ChanPipeline)$' \
		-count "${COUNT:-10}" -trace -out "$out" \
		-variant stock -variant stock2=stock -variant patched -variant slice1ms=patched:timeslice=1000
fi
for v in stock patched slice1ms; do
	mkdir -p "$out/latency-$v"
	"$schedlab" trace -latency -out "$out/latency-$v" "$out/traces/LatencyProbe-$v.trace" | tee "$out/latency-$v/stdout.txt"
done
mkdir -p "$out/latency-bursty-patched"
"$schedlab" trace -latency -out "$out/latency-bursty-patched" "$out/traces/BurstyProducer-patched.trace" | tee "$out/latency-bursty-patched/stdout.txt"
tr=$out/traces/LatencyProbe-patched.trace
"$schedlab" trace -stock "$out/traces/LatencyProbe-patched.stock.trace" "$tr"
"$schedlab" trace -perfetto "$out/traces/LatencyProbe-patched.perfetto.json" "$tr"
# Keep the folder committable: the traces of the other workloads (10-40
# MB each) and BurstyProducer's per-run latency.csv (50 MB) are removed;
# their analyses (traces/<name>/, latency-bursty-patched/) stay.
find "$out/traces" -maxdepth 1 -name '*.trace' -size +5M -print -delete
rm -f "$out/latency-bursty-patched/latency.csv"
