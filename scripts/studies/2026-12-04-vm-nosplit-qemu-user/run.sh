#!/usr/bin/env bash
# TestNUMAUnbindNoSplit (patch 0014) on the targets this VM cannot run
# natively: the patched toolchain's runtime test binary for arm, arm64 and
# 386, each run under qemu-user (Debian's qemu-user package; not a project
# dependency). The test disassembles its own binary, so it needs the real
# target's code. A stock go1.27.4 hello-world per target shows whether
# qemu-user can run Go there at all. Writes ARCH.txt, hello-ARCH.txt and
# summary.txt into the folder (default
# results/2026-12-04-vm-nosplit-qemu-user), then its metadata.json.
set -uo pipefail
root=$(cd "$(dirname "$0")/../../.." && pwd)
cd "$root"
rel=${1:-results/2026-12-04-vm-nosplit-qemu-user}
out=$rel
for q in qemu-arm qemu-aarch64 qemu-i386; do
	command -v "$q" >/dev/null || { echo "run.sh: $q not found: apt-get install qemu-user" >&2; exit 2; }
done
mkdir -p "$out"
out=$(cd "$out" && pwd)
started=$(date -u +%Y-%m-%dT%H:%M:%SZ)
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
goroot=$root/toolchain/goroot
stock=$(GOTOOLCHAIN=go1.27.4 go env GOROOT)
unset GOFLAGS GODEBUG
export GOTOOLCHAIN=local
printf 'package main\n\nimport (\n\t"fmt"\n\t"runtime"\n)\n\nfunc main() { fmt.Println("hello", runtime.Version(), runtime.GOARCH) }\n' >"$tmp/hello.go"
: >"$out/summary.txt"
for arch in arm arm64 386; do
	case $arch in
	arm) q=qemu-arm ;;
	arm64) q=qemu-aarch64 ;;
	386) q=qemu-i386 ;;
	esac
	(cd "$tmp" && GOARCH=$arch "$stock/bin/go" build -o "hello-$arch" hello.go && "$q" "./hello-$arch") >"$out/hello-$arch.txt" 2>&1
	echo "$arch: stock go1.27.4 hello-world under $q: exit $?" >>"$out/summary.txt"
	(cd "$goroot/src" && GOROOT=$goroot GOARCH=$arch "$goroot/bin/go" test -c -o "$tmp/runtime-$arch.test" runtime) >"$out/$arch.txt" 2>&1 || {
		echo "$arch: go test -c runtime failed" >>"$out/summary.txt"
		continue
	}
	# The test runs go tool objdump (a host binary) from PATH.
	(cd "$goroot/src/runtime" && GOROOT=$goroot PATH=$goroot/bin:$PATH "$q" "$tmp/runtime-$arch.test" -test.run '^TestNUMAUnbindNoSplit$' -test.v) >>"$out/$arch.txt" 2>&1
	echo "$arch: TestNUMAUnbindNoSplit under $q: exit $?" >>"$out/summary.txt"
done
cat "$out/summary.txt"
.bin/schedlab metadata -force -out "$out" -started "$started" \
	-command "scripts/studies/2026-12-04-vm-nosplit-qemu-user/run.sh $rel" \
	-note "TestNUMAUnbindNoSplit for arm, arm64 and 386 under qemu-user 7.2 on the amd64 VM"
