#!/usr/bin/env bash
# The project's main job: a quick stock-vs-patched comparison, interleaved,
# reported with benchstat. Extra arguments go to schedlab bench.
set -euo pipefail
cd "$(dirname "$0")/.."
. scripts/lib.sh
stock=$(.bin/series stock)
patched=$PWD/toolchain/goroot
echo "stock:   $(GOTOOLCHAIN=local GOROOT=$stock "$stock/bin/go" version)"
echo "patched: $(GOTOOLCHAIN=local GOROOT=$patched "$patched/bin/go" version)"
# runs/ is git-ignored: a local run leaves the tree clean (README says how
# to promote one into results/).
out=${OUT:-$(fresh_dir "runs/$(stamp)-quick")}
# stock2 reruns the stock binary, interleaved with the others: its column
# is this run's noise floor, and the report's self-check warns on every
# row where it differs from stock.
.bin/schedlab bench -suite quick -variant stock -variant patched -variant stock2=stock -noreport -out "$out" "$@"
.bin/schedlab report "$out"
echo
echo "How to read this: stock2 is the same stock binary run again, the control;"
echo "its verdict line is what noise alone does on this machine today. A row"
echo "that is significant before Holm's correction but not after it, or where"
echo "stock2 differs too (a self-check WARNING), is noise. For the '~' rows the"
echo "verdict gives the largest difference the run could have missed: '~' means"
echo "no difference above that bound, not no difference. A patched-only"
echo "difference that survives Holm is a candidate, not a verdict: rerun that"
echo "benchmark with -count 20 (.bin/schedlab bench -suite quick -bench NAME"
echo "-count 20 -variant stock -variant patched -variant stock2=stock) first."
echo "results folder: $out"
echo 'use the patched toolchain in this shell: eval "$(make -s env)"'
