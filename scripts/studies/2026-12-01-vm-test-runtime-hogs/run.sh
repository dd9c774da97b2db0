#!/usr/bin/env bash
# make test-runtime (every package and mode of the matrix, after the
# stock run) three times in a row, each with two CPU hogs running beside
# it on this 2-vCPU machine: the CI set must not flake on a loaded
# machine. Writes run-N.log (the make output) and times.txt into the
# folder (default results/2026-12-01-vm-test-runtime-hogs), then its
# metadata.json. Exits non-zero if any run fails.
set -uo pipefail
root=$(cd "$(dirname "$0")/../../.." && pwd)
cd "$root"
out=${1:-results/2026-12-01-vm-test-runtime-hogs}
runs=${RUNS:-3}
mkdir -p "$out"
: >"$out/times.txt"
started=$(date -u +%Y-%m-%dT%H:%M:%SZ)
failed=0
for i in $(seq 1 "$runs"); do
	hogs=()
	for _ in 1 2; do
		sh -c 'while :; do :; done' &
		hogs+=($!)
	done
	t0=$(date +%s)
	make test-runtime >"$out/run-$i.log" 2>&1
	rc=$?
	kill "${hogs[@]}" 2>/dev/null
	wait "${hogs[@]}" 2>/dev/null
	echo "run $i: exit $rc in $(($(date +%s) - t0)) s, two hogs beside it" | tee -a "$out/times.txt"
	[ "$rc" = 0 ] || failed=1
done
complete=()
[ "$failed" = 0 ] || complete=(-incomplete -note "a run failed: see times.txt")
.bin/schedlab metadata -force -out "$out" -started "$started" \
	-command "scripts/studies/2026-12-01-vm-test-runtime-hogs/run.sh $out" \
	-note "make test-runtime $runs times, each with two CPU hogs (sh busy loops) beside it" "${complete[@]}"
exit "$failed"
