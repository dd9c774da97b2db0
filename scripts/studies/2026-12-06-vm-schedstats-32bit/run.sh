#!/usr/bin/env bash
# The scheduler counters on 32-bit targets (issue 49, finding 3): the
# patched toolchain's runtime tests that read them (SchedStat*,
# TestReadMetricsCumulative) and the alignment check of the runtime's
# 64-bit atomics (TestAtomicAlignment, which lists p.schedStats) for
# linux/arm and linux/mips, each under qemu-user (Debian's qemu-user
# package; not a project dependency). On those targets schedStatAdd and
# schedStatLoad are 64-bit atomics, which panic on an address that is
# not 8-byte aligned. Then TestSchedStatCarry, ten runs each, against a
# mutant whose schedStatAdd and schedStatLoad are the plain add and load
# on every platform (schedstats.go replaced through -overlay, the tree
# untouched): it must fail there. Writes ARCH.txt (the tests),
# ARCH-plain.txt (the mutant's build), ARCH-fixed-carry.txt and
# ARCH-plain-carry.txt (the ten runs of each) and summary.txt into the
# folder (default results/2026-12-06-vm-schedstats-32bit), then its
# metadata.json.
set -uo pipefail
root=$(cd "$(dirname "$0")/../../.." && pwd)
cd "$root"
rel=${1:-results/2026-12-06-vm-schedstats-32bit}
mkdir -p "$rel"
out=$(cd "$rel" && pwd)
started=$(date -u +%Y-%m-%dT%H:%M:%SZ)
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
goroot=$root/toolchain/goroot
unset GOFLAGS GODEBUG
export GOTOOLCHAIN=local
tests='^(TestSchedStats.*|TestSchedStatCarry|TestReadMetricsCumulative|TestAtomicAlignment)$'
# The mutant: the 32-bit arms of schedStatAdd and schedStatLoad replaced
# by the 64-bit ones.
awk '/^func schedStatAdd/ { f = 1 } /^func schedStatLoad/ { f = 2 }
	f == 1 && /if goarch.PtrSize == 8 \{/ { print "\tif goarch.PtrSize > 0 {"; next }
	f == 2 && /if goarch.PtrSize == 8 \{/ { print "\tif goarch.PtrSize > 0 {"; next }
	{ print }' "$goroot/src/runtime/schedstats.go" >"$tmp/schedstats-plain.go"
grep -c 'if goarch.PtrSize > 0 {' "$tmp/schedstats-plain.go" | grep -qx 2 || { echo "run.sh: the mutant did not apply" >&2; exit 2; }
printf '{"Replace": {"%s": "%s"}}\n' "$goroot/src/runtime/schedstats.go" "$tmp/schedstats-plain.go" >"$tmp/overlay.json"
: >"$out/summary.txt"
for arch in arm mips; do
	q=qemu-$arch
	command -v "$q" >/dev/null || { echo "run.sh: $q not found: apt-get install qemu-user" >&2; exit 2; }
	(cd "$goroot/src" && GOARCH=$arch "$goroot/bin/go" test -c -o "$tmp/runtime-$arch.test" runtime) >"$out/$arch.txt" 2>&1 || {
		echo "$arch: go test -c runtime failed" >>"$out/summary.txt"
		continue
	}
	# TestAtomicAlignment type-checks the runtime's source for GOARCH.
	(cd "$goroot/src/runtime" && GOROOT=$goroot GOARCH=$arch "$q" "$tmp/runtime-$arch.test" -test.short -test.run "$tests" -test.v) >>"$out/$arch.txt" 2>&1
	rc=$?
	echo "$arch: $(grep -c '^--- PASS' "$out/$arch.txt") tests passed, $(grep -c '^--- FAIL' "$out/$arch.txt") failed under $q: exit $rc" >>"$out/summary.txt"
	(cd "$goroot/src" && GOARCH=$arch "$goroot/bin/go" test -c -overlay "$tmp/overlay.json" -o "$tmp/plain-$arch.test" runtime) >"$out/$arch-plain.txt" 2>&1 || {
		echo "$arch: the mutant did not build" >>"$out/summary.txt"
		continue
	}
	for k in fixed plain; do
		bin=$tmp/runtime-$arch.test
		[ $k = plain ] && bin=$tmp/plain-$arch.test
		failed=0
		for i in $(seq 10); do
			(cd "$goroot/src/runtime" && "$q" "$bin" -test.run '^TestSchedStatCarry$' -test.v) >>"$out/$arch-$k-carry.txt" 2>&1 || failed=$((failed + 1))
		done
		echo "$arch: TestSchedStatCarry with the $k counters failed $failed of 10 runs under $q" >>"$out/summary.txt"
	done
done
cat "$out/summary.txt"
.bin/schedlab metadata -force -out "$out" -started "$started" \
	-command "scripts/studies/2026-12-06-vm-schedstats-32bit/run.sh $rel" \
	-note "runtime SchedStat tests and TestAtomicAlignment for linux/arm and linux/mips under qemu-user 7.2 on the amd64 VM"
