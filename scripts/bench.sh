#!/usr/bin/env bash
# make bench: the full suites, stock vs patched, each into its own folder
# under runs/ (git-ignored). SUITES and VARIANTS override the defaults;
# extra arguments go to schedlab bench.
set -euo pipefail
cd "$(dirname "$0")/.."
. scripts/lib.sh
variants=()
for v in ${VARIANTS:-stock patched}; do variants+=(-variant "$v"); done
for suite in ${SUITES:-sched workloads external}; do
	out=$(fresh_dir "runs/$(stamp)-$suite")
	.bin/schedlab bench -suite "$suite" "${variants[@]}" -noreport -out "$out" "$@"
	.bin/schedlab report "$out"
	echo "results folder: $out"
done
