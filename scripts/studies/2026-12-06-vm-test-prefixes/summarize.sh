#!/usr/bin/env bash
# Summarize a test-prefixes log (scripts/test-prefixes.sh output, one or
# more runs) into the counts the folder's README quotes:
#   scripts/studies/2026-12-06-vm-test-prefixes/summarize.sh results/2026-12-06-vm-test-prefixes
set -euo pipefail
dir=$1
awk '
/^=== prefix [0-9]+: ok in [0-9]+s$/ { ok++; s = $6; sub(/s$/, "", s); s += 0
	if (min == "" || s < min) min = s; if (s > max) max = s; next }
/^=== prefix [0-9]+: FAIL$/ { fail++; next }
END {
	printf "prefixes passed: %d\n", ok
	printf "prefixes failed: %d\n", fail + 0
	printf "fastest prefix: %d s\n", min
	printf "slowest prefix: %d s\n", max
}' "$dir/log.txt" > "$dir/summary.txt"
cat "$dir/summary.txt"
