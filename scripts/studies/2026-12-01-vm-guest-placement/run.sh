#!/usr/bin/env bash
# Where a P's heap pages land today (issue 29, part 4) and with heap
# placement by node (GODEBUG numamem, issue 30): src/guesttest/placement, built with the
# patched toolchain (static), in a 2-node guest (1 vCPU a node, so
# GOMAXPROCS=2 and one P a node) with the kernel's NUMA balancer on and
# then off, ROUNDS child processes per variant and pattern (default 3).
# Writes balancing-1/ and balancing-0/ (placement.tsv, summary.txt) and
# version.txt into the folder (default results/2026-12-01-vm-guest-placement).
set -euo pipefail
root=$(cd "$(dirname "$0")/../../.." && pwd)
cd "$root"
out=${1:-results/2026-12-01-vm-guest-placement}
rounds=${ROUNDS:-3}
goroot=$root/toolchain/goroot
mkdir -p "$out"
# Today's placement (off, numa1, bind1), then heap placement by node
# (numamem=1, issue 30) with and without binding, the balancer exemption
# (numaexempt=1) with and without it, and bind1 and bind1-mem with
# transparent huge pages off (nothp:, see placement's doc).
variants=(-v off= -v numa1=numa=1 -v bind1=numa=1,numabind=1
	-v numa1-mem=numa=1,numamem=1 -v bind1-mem=numa=1,numabind=1,numamem=1
	-v bind1-exempt=numa=1,numabind=1,numaexempt=1 -v bind1-mem-exempt=numa=1,numabind=1,numamem=1,numaexempt=1
	-v bind1-nothp=nothp:numa=1,numabind=1 -v bind1-mem-nothp=nothp:numa=1,numabind=1,numamem=1)
scripts/guest-setup.sh .cache/guest
env -u GOFLAGS -u GODEBUG GOROOT="$goroot" GOTOOLCHAIN=local CGO_ENABLED=0 \
	"$goroot/bin/go" build -o .bin/placement ./src/guesttest/placement
{
	echo "toolchain: $("$goroot/bin/go" version)"
	echo "series: $(cat "$goroot/VERSION" | head -1)"
	echo "harness: $(git rev-parse HEAD)$(git diff --quiet HEAD -- src scripts || echo ' (dirty)')"
	echo "command: schedlab vm -nodes 2 -cpus 2 -mem 1024 -balancing B -- placement -rounds $rounds ${variants[*]}"
} >"$out/version.txt"
unset GODEBUG GOMAXPROCS GOGC GOTRACEBACK GONUMASYSFS
for bal in 1 0; do
	mkdir -p "$out/balancing-$bal"
	.bin/schedlab vm -nodes 2 -cpus 2 -mem 1024 -balancing "$bal" -timeout 60m -out "$out/balancing-$bal" -- \
		.bin/placement -rounds "$rounds" "${variants[@]}" | tee "$out/balancing-$bal/summary.txt"
done
