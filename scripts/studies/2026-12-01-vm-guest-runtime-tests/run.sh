#!/usr/bin/env bash
# The runtime package's own tests with heap placement by node on, where
# it takes effect: a 2-node guest (1 vCPU a node), the runtime test
# binary built here (static) and run with
# GODEBUG=numa=1,numabind=1,numamem=1,numaexempt=1 and -test.short.
# The guest has no go command, so the tests that build programs
# (testprog and the like) skip; the rest run in-process with the knobs
# in effect, from a copy of the package's testdata/ (busybox runs the
# binary from there), verbose into verbose.txt with a count at the end of
# log.txt. TestTracebackSystem reads its own source file by
# its build path and is skipped. Writes log.txt and version.txt into
# the folder (default results/2026-12-01-vm-guest-runtime-tests).
set -euo pipefail
root=$(cd "$(dirname "$0")/../../.." && pwd)
cd "$root"
out=${1:-results/2026-12-01-vm-guest-runtime-tests}
goroot=$root/toolchain/goroot
godebug=numa=1,numabind=1,numamem=1,numaexempt=1
mkdir -p "$out"
scripts/guest-setup.sh .cache/guest
in=.cache/guest-runtime-in
rm -rf "$in"
mkdir -p "$in"
env -u GOFLAGS -u GODEBUG GOROOT="$goroot" GOTOOLCHAIN=local CGO_ENABLED=0 \
	"$goroot/bin/go" test -c -o "$in/runtime.test" runtime
cp -r "$goroot/src/runtime/testdata" "$in/testdata"
{
	echo "toolchain: $("$goroot/bin/go" version)"
	echo "harness: $(git rev-parse HEAD)$(git diff --quiet HEAD -- src scripts || echo ' (dirty)')"
	echo "command: schedlab vm -nodes 2 -cpus 2 -mem 2048 -in DIR -out FOLDER -env GODEBUG=$godebug -- busybox sh -c 'cd /in && ./runtime.test -test.v -test.short -test.skip TestTracebackSystem -test.timeout 40m >\$OUT/verbose.txt 2>&1; ...'"
} >"$out/version.txt"
unset GODEBUG GOMAXPROCS GOGC GOTRACEBACK GONUMASYSFS
set +e
.bin/schedlab vm -nodes 2 -cpus 2 -mem 2048 -timeout 45m -in "$in" -out "$out" -env "GODEBUG=$godebug" -- \
	"$(command -v busybox)" sh -c 'cd /in && ./runtime.test -test.v -test.short -test.skip TestTracebackSystem -test.timeout 40m >$OUT/verbose.txt 2>&1; rc=$?; grep -v "^=== \|^    \|^--- PASS\|^--- SKIP" $OUT/verbose.txt | tail -40; for k in PASS FAIL SKIP; do echo "$k: $(grep -c "^--- $k" $OUT/verbose.txt) top-level tests"; done; exit $rc' 2>&1 | tee "$out/log.txt"
rc=${PIPESTATUS[0]}
echo "exit status $rc" | tee -a "$out/log.txt"
exit "$rc"
