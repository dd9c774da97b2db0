#!/usr/bin/env bash
# Issue 49's exec report, taken apart: does a program that syscall.Exec
# starts from a process with NUMA binding get the process's CPU mask?
# A Go program keeps both Ps busy for 50 ms (so that their threads are
# bound), then execs, RUNS times per case, beside two CPU hogs, with
# GODEBUG=numa=1,numafake=2,numabind=B GOMAXPROCS=2 (B = 1 and 2):
#
#   grep:      execs /bin/grep Cpus_allowed_list /proc/self/status: the
#              mask execve gave the new program, with no Go runtime in it;
#   self:      execs itself, GODEBUG inherited (the issue's check): the
#              new program prints its Cpus_allowed_list, the mask of its
#              main thread, which its own runtime may have bound by then;
#   self-clean: execs itself with GODEBUG removed: the same print from a
#              program that binds nothing.
#
# Writes counts.txt (uniq -c of each case's lines), version.txt and
# metadata.json into the folder (default results/2026-12-04-vm-exec-mask).
set -euo pipefail
root=$(cd "$(dirname "$0")/../../.." && pwd)
cd "$root"
out=${1:-results/2026-12-04-vm-exec-mask}
runs=${RUNS:-200}
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
cat >"$tmp/go.mod" <<'GOMOD'
module execmask

go 1.26
GOMOD
cat >"$tmp/main.go" <<'GO'
package main

import (
	"fmt"
	"os"
	"runtime"
	"strings"
	"sync"
	"syscall"
	"time"
)

func main() {
	if len(os.Args) > 1 && os.Args[1] == "child" {
		b, _ := os.ReadFile("/proc/self/status")
		for _, l := range strings.Split(string(b), "\n") {
			if strings.HasPrefix(l, "Cpus_allowed_list:") {
				fmt.Println(l)
			}
		}
		return
	}
	var wg sync.WaitGroup
	stop := time.Now().Add(50 * time.Millisecond)
	for range runtime.GOMAXPROCS(0) * 2 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for x := 0; time.Now().Before(stop); x++ {
			}
		}()
	}
	wg.Wait()
	exe, _ := os.Executable()
	argv, env := []string{exe, "child"}, os.Environ()
	switch os.Getenv("EXECMASK_CASE") {
	case "grep":
		exe = "/bin/grep"
		argv = []string{exe, "Cpus_allowed_list", "/proc/self/status"}
	case "self-clean":
		env = []string{"PATH=" + os.Getenv("PATH")}
	}
	fmt.Println("exec failed:", syscall.Exec(exe, argv, env))
}
GO
(cd "$tmp" && env -u GOFLAGS GOROOT="$goroot" GOTOOLCHAIN=local "$goroot/bin/go" build -o execmask .)
"$goroot/bin/go" version >"$out/version.txt"
for _ in 1 2; do
	(while :; do :; done) &
	hogs+=($!)
done
: >"$out/counts.txt"
for bind in 1 2; do
	for c in grep self self-clean; do
		echo "# numabind=$bind case=$c runs=$runs" >>"$out/counts.txt"
		for _ in $(seq "$runs"); do
			EXECMASK_CASE=$c GODEBUG=numa=1,numafake=2,numabind=$bind GOMAXPROCS=2 "$tmp/execmask" 2>&1
		done | sort | uniq -c >>"$out/counts.txt"
	done
done
cat "$out/counts.txt"
make -s harness
"$root/.bin/schedlab" metadata -out "$out" -command "scripts/studies/2026-12-04-vm-exec-mask/run.sh ${1:-}" -started "$started"
