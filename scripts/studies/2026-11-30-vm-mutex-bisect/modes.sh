#!/usr/bin/env bash
# Splits the bench.txt of results/2026-11-30-vm-mutex-bisect (or of
# FOLDER) by the mode of each run (issue 19's two machine
# states): a run whose /__10 took under 500ns is "fast", otherwise
# "slow". Writes bench-fast.txt, bench-slow.txt, modes.txt (the count of
# slow runs per variant) and benchstat-by-mode.txt. Needs benchstat
# (go run golang.org/x/perf/cmd/benchstat from the repository root).
# Usage: modes.sh [FOLDER], writing into FOLDER.
set -euo pipefail
root=$(cd "$(dirname "$0")/../../.." && pwd)
cd "${1:-$root/results/2026-11-30-vm-mutex-bisect}"
bs=${BENCHSTAT:-benchstat}
awk 'BEGIN { RS = "round: "; ORS = "" }
NR > 1 {
	if (match($0, /__10-2[ \t]+[0-9]+[ \t]+[0-9.]+/)) {
		n = split(substr($0, RSTART, RLENGTH), f, /[ \t]+/)
		mode = (f[3] < 500) ? "fast" : "slow"
		print "round: " $0 > ("bench-" mode ".txt")
	}
}' bench.txt
awk '/^variant:/ { v = $2 } /__10-2/ { n[v]++; if ($3 >= 500) s[v]++ }
END { for (k in n) printf "%s\t%d of %d runs slow (/__10 >= 500ns)\n", k, s[k], n[k] }' bench.txt | sort > modes.txt
cols='variant@(stock stock2 p0001 p0002 p0006 p0010 p0014 p0019 p0022)'
{
	echo "# fast runs (/__10 < 500ns)"
	"$bs" -col "$cols" -ignore round bench-fast.txt
	echo
	echo "# slow runs (/__10 >= 500ns)"
	"$bs" -col "$cols" -ignore round bench-slow.txt
} > benchstat-by-mode.txt
