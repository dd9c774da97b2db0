#!/usr/bin/env bash
# make bench: the full suites, stock vs patched, each into its own results
# folder. SUITES and VARIANTS override the defaults; extra arguments go to
# schedlab bench.
set -euo pipefail
cd "$(dirname "$0")/.."
variants=()
for v in ${VARIANTS:-stock patched}; do variants+=(-variant "$v"); done
for suite in ${SUITES:-sched workloads external}; do
	out=results/$(date -u +%Y-%m-%d)-$(hostname -s)-$suite
	.bin/schedlab bench -suite "$suite" "${variants[@]}" -noreport -out "$out" "$@"
	.bin/schedlab report "$out"
	echo "results folder: $out"
done
