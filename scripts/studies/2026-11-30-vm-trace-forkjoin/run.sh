#!/usr/bin/env bash
# Reproduces results/2026-11-30-vm-trace-forkjoin: the Steal experiment's
# trace of a fork-join and timer program (internal/trace's
# testdata/testprog/steals.go, patch 0021) with two simulated NUMA nodes
# at GOMAXPROCS=8, the runtime/metrics steal counters over exactly the
# traced interval (counters.txt), and schedlab trace's analysis of the
# trace.
# Usage: run.sh [FOLDER] (default: results/2026-11-30-vm-trace-forkjoin),
# writing into FOLDER.
set -euo pipefail
root=$(cd "$(dirname "$0")/../../.." && pwd)
cd "${1:-$root/results/2026-11-30-vm-trace-forkjoin}"
goroot=$root/toolchain/goroot
export GOROOT=$goroot GOTOOLCHAIN=local
"$goroot/bin/go" build -o /tmp/steals-prog "$goroot/src/internal/trace/testdata/testprog/steals.go"
GODEBUG=tracesteal=1,numa=1,numafake=2 /tmp/steals-prog > forkjoin.trace 2> counters.txt
"$goroot/bin/go" version > toolchain.txt
"$root/.bin/schedlab" trace -out . forkjoin.trace | tee schedlab-trace.txt

# Which tools open which trace: the same program with the knob off, read
# by stock go1.27.4's go tool trace and by the patched one.
GODEBUG=numa=1,numafake=2 /tmp/steals-prog > forkjoin-off.trace 2> /dev/null
stock=$("$root/.bin/series" stock)
{
	for t in forkjoin-off.trace forkjoin.trace; do
		for tc in "$stock" "$goroot"; do
			echo "\$ $("$tc/bin/go" env GOVERSION) go tool trace -d=parsed $t | wc -l"
			env -u GOTOOLCHAIN GOROOT="$tc" "$tc/bin/go" tool trace -d=parsed "$t" 2>&1 | wc -l | sed 's/^/lines: /' || true
			env -u GOTOOLCHAIN GOROOT="$tc" "$tc/bin/go" tool trace -d=parsed "$t" 2>&1 | grep -m1 -i "unsupported\|error" || true
		done
	done
} > tools.txt
cat tools.txt

# The Work stealing page in a real browser (headless Chromium, Debian's
# chromium package), from the patched go tool trace's web UI.
GOROOT=$goroot "$goroot/bin/go" tool trace -http=127.0.0.1:8766 forkjoin.trace > /dev/null 2>&1 &
server=$!
trap 'kill $server' EXIT
sleep 6
chromium --headless --no-sandbox --disable-gpu --hide-scrollbars --window-size=1000,1500 \
	--screenshot="$PWD/steals-view.png" http://127.0.0.1:8766/steals
chromium --version > browser.txt
