#!/usr/bin/env bash
# make test-long: the longer reliability checks, not in CI. Measured on a
# 2-core VM, per mode: lockrank ~1.7 min, race ~3 min, dist ~4 min; stress
# runs for STRESS_TIME; all four modes ~45 min. Each step prints its name;
# the first failure stops the run.
#   LONG_STEPS   which steps (default: slow dist lockrank race stress)
#   LONG_MODES   which GODEBUG modes (default: default numa slice all)
#   STRESS_TIME  how long the knob stress runs (default 10m)
set -euo pipefail
cd "$(dirname "$0")/.."
root=$PWD
goroot=$root/toolchain/goroot
export GOROOT=$goroot GOTOOLCHAIN=local PATH=$goroot/bin:$PATH
unset GOFLAGS GODEBUG
# The modes of the CI matrix (scripts/test-runtime.sh); LONG_MODES picks
# some of them by name (default: all four).
declare -A mode_godebug=(
	[default]=""
	[numa]="numa=1,numafake=2,numabind=1"
	[slice]="timeslice=1000,sysmontick=50,sysmonmaxtick=2000"
	[all]="numa=1,numafake=2,numabind=1,timeslice=1000,sysmontick=50,sysmonmaxtick=2000"
)
modes=()
for name in ${LONG_MODES:-default numa slice all}; do
	[ -n "${mode_godebug[$name]+set}" ] || { echo "test-long: unknown mode $name (want default, numa, slice or all)" >&2; exit 2; }
	modes+=("${mode_godebug[$name]}")
done
sched_tests='Sched|Steal|Preempt|NUMA|Sysmon|Timeslice|GoroutineParallelism|LockOSThread|ReadMetrics|StopTheWorld|GCFairness|TimerFairness'

step() { echo; echo "=== test-long: $*"; }

for s in ${LONG_STEPS:-slow dist lockrank race stress}; do
case $s in
slow)
	# The series' timing- and statistics-based runtime tests, which skip
	# under -short (and so in CI's runtime matrix).
	for m in "${modes[@]}"; do
		step "runtime tests that skip with -short (GODEBUG=$m)"
		GODEBUG=$m go test -count=1 -run '^(TestSysmonKnobsRate|TestNUMAStealLocality)$' -v runtime | grep -E '^(=== RUN|--- |ok|FAIL|PASS)'
	done
	;;
dist)
	tmpd=$(mktemp -d)
	# cmd/dist's own runtime tests (including runtime -cpu=1,2,4) for the
	# scheduler-adjacent packages. The api check and ../test need files the
	# release tree does not ship, so only these named tests run.
	for m in "${modes[@]}"; do
		step "dist test (GODEBUG=$m)"
		# -k: keep going past a failure so that every failure is listed.
		(cd "$goroot/src" && GODEBUG=$m go tool dist test -k -run \
			'^(runtime|runtime/metrics|sync|time|internal/trace|runtime:cpu[124])$') 2>&1 | tee "$tmpd/dist.log" || true
		if grep '^--- FAIL' "$tmpd/dist.log"; then
			echo "dist test (GODEBUG=$m): failures"
			exit 1
		fi
		echo "dist test (GODEBUG=$m): $(grep -c '^ok ' "$tmpd/dist.log") packages or variants ok"
	done
	;;
lockrank)
	for m in "${modes[@]}"; do
		step "GOEXPERIMENT=staticlockranking runtime tests (GODEBUG=$m)"
		GOEXPERIMENT=staticlockranking GODEBUG=$m go test -short -count=1 -timeout 40m runtime
	done
	;;
race)
	for m in "${modes[@]}"; do
		step "race: scheduler tests and workloads (GODEBUG=$m)"
		GODEBUG=$m go test -race -short -count=1 -timeout 40m -run "$sched_tests" runtime sync time
		GODEBUG=$m go test -race -count=1 -run '^$' -bench . -benchtime 3x ./benchmarks/workloads
	done
	;;
stress)
	step "stress: scheduler and preemption tests with random knobs for ${STRESS_TIME:-10m}"
	tmp=$(mktemp -d)
	trap 'rm -rf "$tmp"' EXIT
	go test -c -o "$tmp/runtime.test" runtime
	go build -o "$tmp/stress" golang.org/x/tools/cmd/stress
	# Each run draws its knobs from a fresh seed and prints it first; rerun
	# one with: SEED=<n> scripts/stress-knobs.sh <test binary> <args>.
	(cd "$goroot/src/runtime" && "$tmp/stress" -timeout 5m -failure 'FAIL|panic|fatal' \
		-o "$tmp/stress-" bash -c "exec $root/scripts/stress-knobs.sh $tmp/runtime.test -test.short -test.run '$sched_tests'") &
	pid=$!
	sleep "${STRESS_TIME:-10m}"
	# TERM, not INT: a background job of a non-interactive shell ignores
	# SIGINT, so stress would never stop.
	kill -TERM $pid 2>/dev/null || true
	wait $pid || true
	if ls "$tmp"/stress-* >/dev/null 2>&1; then
		echo "stress failures (each output starts with its seed and GODEBUG):"
		head -5 "$tmp"/stress-*
		exit 1
	fi
	;;
*) echo "test-long: unknown step $s" >&2; exit 2 ;;
esac
done
echo; echo "test-long: all steps passed"
