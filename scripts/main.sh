#!/usr/bin/env bash
# The project's main job: a quick stock-vs-patched comparison.
set -euo pipefail
cd "$(dirname "$0")/.."
stock=$(.bin/series stock)
patched=$PWD/toolchain/goroot
echo "stock:   $(GOTOOLCHAIN=local GOROOT=$stock $stock/bin/go version)"
echo "patched: $(GOTOOLCHAIN=local GOROOT=$patched $patched/bin/go version)"
if [[ -x .bin/schedlab ]]; then
	out=results/$(date -u +%Y-%m-%d)-$(hostname -s)-quick
	.bin/schedlab bench -suite quick -variant stock -variant patched -out "$out"
	.bin/schedlab report "$out"
	echo "results: $out"
fi
echo 'use the patched toolchain in this shell: eval "$(make -s env)"'
