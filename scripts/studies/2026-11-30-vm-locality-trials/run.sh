#!/usr/bin/env bash
# Locality trials of the fork-join test program behind TestNUMAStealLocality
# (runtime/testdata/testprog, NUMAStealLocality: 10 warm-up trees, then 50
# trees of depth 10 at GOMAXPROCS=8, printing the stolen goroutines and how
# many stayed on their node). One trial = 3 processes, as in the test.
# Usage: run.sh [OUTDIR [TRIALS]] (default OUTDIR:
# results/2026-11-30-vm-locality-trials; TRIALS: 20)
set -euo pipefail
root=$(cd "$(dirname "$0")/../../.." && pwd)
out=${1:-$root/results/2026-11-30-vm-locality-trials}
trials=${2:-20}
goroot=$root/toolchain/goroot
export GOTOOLCHAIN=local PATH=$goroot/bin:$PATH
exe=$(mktemp -d)/testprog
(cd "$goroot/src/runtime/testdata/testprog" && go build -o "$exe" .)
go version > "$out/version.txt"
printf 'variant\tgodebug\ttrial\tstolen\tlocal\tremote\tshare\n' > "$out/trials.tsv"
for t in $(seq 1 "$trials"); do
	for v in random:numasteal=0 localfirst:numasteal=1 leaveremote:numasteal=2; do
		name=${v%%:*} knob=${v#*:}
		gd=numa=1,numafake=2,$knob
		s=0 l=0 r=0
		for _ in 1 2 3; do
			# "stolen=S local=L remote=R"; since the series counts goroutines
			# readied by timer steals by node, "stolen=S timergs=T local=L
			# remote=R", and S+T goroutines moved.
			read -r ps pt pl pr < <(GODEBUG=$gd "$exe" NUMAStealLocality | sed -En 's/^stolen=([0-9]+)( timergs=([0-9]+))? local=([0-9]+) remote=([0-9]+)$/\1 \3 \4 \5/p' | awk '{if (NF == 3) print $1, 0, $2, $3; else print}')
			ps=$((ps + pt))
			s=$((s + ps)) l=$((l + pl)) r=$((r + pr))
		done
		printf '%s\t%s\t%d\t%d\t%d\t%d\t%s\n' "$name" "$gd" "$t" "$s" "$l" "$r" "$(awk -v l=$l -v s=$s 'BEGIN{printf "%.4f", l/s}')" >> "$out/trials.tsv"
	done
done
# Median and range of the share per variant.
awk -F'\t' 'NR>1 {v[$1]=v[$1]" "$7} END {for (k in v) print k, v[k]}' "$out/trials.tsv" |
	while read -r name vals; do
		printf '%s\t%s\n' "$name" "$(echo $vals | tr ' ' '\n' | sort -n | awk '{a[NR]=$1} END {m=(NR%2)?a[(NR+1)/2]:(a[NR/2]+a[NR/2+1])/2; printf "median %.1f%%, range %.1f-%.1f%%, n=%d", 100*m, 100*a[1], 100*a[NR], NR}')"
	done | sort > "$out/summary.txt"
cat "$out/summary.txt"
