#!/usr/bin/env bash
# Splits the bench.txt of a results folder of issue 19's command (the
# argument; default: results/2026-11-30-vm-mutex-final) by the state of
# each run, as ../2026-11-30-vm-mutex-bisect/modes.sh does: a run whose
# /__10 took under 500ns is "fast", otherwise "slow". Writes bench-fast.txt,
# bench-slow.txt, modes.txt (slow runs per variant) and
# benchstat-by-mode.txt into that folder. Needs benchstat (BENCHSTAT=path).
# Usage: modes.sh [FOLDER]
set -euo pipefail
root=$(cd "$(dirname "$0")/../../.." && pwd)
cd "${1:-$root/results/2026-11-30-vm-mutex-final}"
bs=${BENCHSTAT:-benchstat}
awk 'BEGIN { RS = "\n# round "; ORS = "" }
NR > 1 {
	if (match($0, /__10-2[ \t]+[0-9]+[ \t]+[0-9.]+/)) {
		n = split(substr($0, RSTART, RLENGTH), f, /[ \t]+/)
		mode = (f[3] < 500) ? "fast" : "slow"
		print "\n# round " $0 > ("bench-" mode ".txt")
	}
}' bench.txt
awk '/^variant:/ { v = $2 } /__10-2/ { n[v]++; if ($3 >= 500) s[v]++ }
END { for (k in n) printf "%s\t%d of %d runs slow (/__10 >= 500ns)\n", k, s[k], n[k] }' bench.txt | sort > modes.txt
{
	echo "# fast runs (/__10 < 500ns)"
	"$bs" -col 'variant@(stock patched stock2)' -ignore toolchain,godebug,series -filter '.unit:sec/op' bench-fast.txt
	echo
	echo "# slow runs (/__10 >= 500ns)"
	"$bs" -col 'variant@(stock patched stock2)' -ignore toolchain,godebug,series -filter '.unit:sec/op' bench-slow.txt
} > benchstat-by-mode.txt
