#!/usr/bin/env bash
# numacheck's numamem check (src/guesttest/numacheck/numamem.go) three
# times each in 2-node guests with the kernel's NUMA balancer on and off
# and in a 4-node guest (balancer on): the share of recycled heap pages
# on the writer's node with numa=1,numabind=1 and with numamem=1 added.
# Writes checks.txt and version.txt into the folder (default
# results/2026-12-01-vm-guest-numamem-check).
set -euo pipefail
root=$(cd "$(dirname "$0")/../../.." && pwd)
cd "$root"
out=${1:-results/2026-12-01-vm-guest-numamem-check}
goroot=$root/toolchain/goroot
mkdir -p "$out"
scripts/guest-setup.sh .cache/guest
env -u GOFLAGS -u GODEBUG GOROOT="$goroot" GOTOOLCHAIN=local CGO_ENABLED=0 \
	"$goroot/bin/go" build -o .bin/numacheck ./src/guesttest/numacheck
{
	echo "toolchain: $("$goroot/bin/go" version)"
	echo "harness: $(git rev-parse HEAD)$(git diff --quiet HEAD -- src scripts || echo ' (dirty)')"
} >"$out/version.txt"
unset GODEBUG GOMAXPROCS GOGC GOTRACEBACK GONUMASYSFS
: >"$out/checks.txt"
for guest in "-nodes 2 -balancing 1" "-nodes 2 -balancing 0" "-nodes 4 -balancing 1"; do
	for i in 1 2 3; do
		# shellcheck disable=SC2086 # $guest is a list of flags
		line=$(.bin/schedlab vm $guest -timeout 10m -- .bin/numacheck numamem 2>/dev/null | grep '^numamem:' || echo "numamem: FAILED")
		echo "$guest run $i: $line" | tee -a "$out/checks.txt"
	done
done
python3 "$(dirname "$0")/tobench.py" "$out/checks.txt" >"$out/checks.bench.txt"
