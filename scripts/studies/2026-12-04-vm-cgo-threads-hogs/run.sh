#!/usr/bin/env bash
# Issue 49's second report: TestNUMABindCgoThreads (patch 0014) failed
# once among make test-runtime's runs beside two CPU hogs. This runs it
# COUNT times (default 50) in a row, beside two CPU hogs, with the
# runtime tests' "slice" mode's GODEBUG (timeslice=1000,sysmontick=50,
# sysmonmaxtick=2000), as test-runtime ran it. Writes test.log, summary.txt
# and metadata.json into the folder (default
# results/2026-12-04-vm-cgo-threads-hogs).
set -uo pipefail
root=$(cd "$(dirname "$0")/../../.." && pwd)
cd "$root"
out=${1:-results/2026-12-04-vm-cgo-threads-hogs}
count=${COUNT:-50}
goroot=$root/toolchain/goroot
mkdir -p "$out"
out=$(cd "$out" && pwd)
started=$(date -u +%Y-%m-%dT%H:%M:%SZ)
tmp=$(mktemp -d)
hogs=()
cleanup() {
	for p in "${hogs[@]}"; do kill "$p" 2>/dev/null || true; done
	rm -rf "$tmp"
}
trap cleanup EXIT
export GOROOT=$goroot GOTOOLCHAIN=local PATH=$goroot/bin:$PATH
unset GOFLAGS
(cd "$goroot/src/runtime" && go test -c -o "$tmp/runtime.test" .) || exit 1
for _ in 1 2; do
	(while :; do :; done) &
	hogs+=($!)
done
(cd "$goroot/src/runtime" && GODEBUG=timeslice=1000,sysmontick=50,sysmonmaxtick=2000 \
	"$tmp/runtime.test" -test.run 'TestNUMABindCgoThreads$' -test.count="$count" -test.v) >"$out/test.log" 2>&1
rc=$?
{
	echo "go test -run TestNUMABindCgoThreads -count=$count beside two CPU hogs: exit $rc"
	echo "passed: $(grep -c -- '^--- PASS: TestNUMABindCgoThreads' "$out/test.log")"
	echo "failed: $(grep -c -- '^--- FAIL: TestNUMABindCgoThreads' "$out/test.log")"
} >"$out/summary.txt"
cat "$out/summary.txt"
make -s harness
"$root/.bin/schedlab" metadata -out "$out" -command "scripts/studies/2026-12-04-vm-cgo-threads-hogs/run.sh ${1:-}" -started "$started"
