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
.bin/schedlab bench -suite quick -variant stock -variant patched -noreport -out "$out" "$@"
.bin/schedlab report "$out"
echo
echo "results folder: $out"
echo 'use the patched toolchain in this shell: eval "$(make -s env)"'
