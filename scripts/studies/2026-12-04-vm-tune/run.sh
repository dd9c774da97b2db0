#!/usr/bin/env bash
# schedlab tune on two workloads it was not written for, each measured
# against the full grid of the same candidates at the same n (20 rounds):
#
#   latencyprobe: workloads.LatencyProbe beside two CPU hogs (-hogs 2),
#     minimise the p99 wake-up delay (p99-wake-sec), with the hogs'
#     throughput as the limit (hog-iters/s>=-5%);
#   chanpipeline: workloads.ChanPipeline, a throughput workload, minimise
#     sec/op within cpu-sec/op<=+3%.
#
# Both use tune's default search space (one knob at a time, 10
# candidates on one node). Writes four folders under results/ (PREFIX,
# default results/2026-12-04-vm-tune): PREFIX-latencyprobe and
# PREFIX-chanpipeline (the searches, with their confirmations in
# confirm/) and PREFIX-latencyprobe-grid and PREFIX-chanpipeline-grid
# (tune -grid). Each is resumable: rerun the script and a folder whose
# tune.json exists is skipped, an interrupted one resumed.
set -euo pipefail
root=$(cd "$(dirname "$0")/../../.." && pwd)
cd "$root"
prefix=${PREFIX:-results/2026-12-04-vm-tune}
make -s harness
schedlab=$root/.bin/schedlab
unset GODEBUG GOFLAGS

run() { # folder, then tune's flags
	local dir=$1
	shift
	if [[ -f $dir/tune.json ]]; then
		echo "run.sh: $dir done, skipped" >&2
		return
	fi
	"$schedlab" tune -out "$dir" "$@"
}

lp=(-bench '^BenchmarkLatencyProbe$' -minimize p99-wake-sec -limit 'hog-iters/s>=-5%' -hogs 2 -benchtime 100x)
cp=(-bench '^BenchmarkChanPipeline$' -minimize sec/op -limit 'cpu-sec/op<=+3%' -benchtime 300ms)
run "$prefix-latencyprobe" "${lp[@]}" -budget "${BUDGET:-12m}"
run "$prefix-latencyprobe-grid" "${lp[@]}" -grid
run "$prefix-chanpipeline" "${cp[@]}" -budget "${BUDGET:-12m}"
run "$prefix-chanpipeline-grid" "${cp[@]}" -grid
