#!/usr/bin/env bash
# make study STUDY=<name>: one of the ten studies behind docs/design and
# the README's results, each into results/<date>-<host>-<name>/. The
# same command runs unchanged on any Linux machine; only the NUMA study
# adapts, simulating two nodes (numafake=2) where the machine has one.
# COUNT (default 10) and BENCHTIME override the run size; BENCHTIME
# defaults to 400x (wake-ups) for the latency sweeps, which need many
# samples per run for a p99.9, and to 200ms for the rest. BENCH (a -bench
# regexp) narrows the studies that run the whole suite; RESULTS (default
# results) is the folder the study's folders go into (a Slurm campaign
# gives each task its own); BENCH also narrows the trace-cost study's
# instruction counts. PARTS narrows the cost and tracecost studies
# to some of their parts (cost: census instructions time; tracecost:
# time instructions), so that the timed part can run on a quiet machine
# and the counted parts beside other work. INSTR_COUNT (default 5) is
# the rounds of the instruction counts.
set -euo pipefail
cd "$(dirname "$0")/.."
. scripts/lib.sh
study=${1:?usage: study.sh cost|timeslice|sysmontick|numa|guest-numa|multiproc|steal|tracecost|pauses|timeline}
count=${COUNT:-10}
# Guest runs are emulated (~10x slower on memory) and their times decide
# nothing: three rounds show placement.
[ "$study" = guest-numa ] && count=${COUNT:-3}
case $study in
timeslice | sysmontick) benchtime=${BENCHTIME:-400x} ;;
*) benchtime=${BENCHTIME:-200ms} ;;
esac
results=${RESULTS:-results}
mkdir -p "$results"
prefix=$results/$(stamp)
run=(-count "$count" -benchtime "$benchtime" -noreport ${BENCH:+-bench "$BENCH"})

measure() { # measure bench|sweep <out> <flags of that schedlab command...>
	local cmd=$1 out
	out=$(fresh_dir "$2")
	shift 2
	.bin/schedlab "$cmd" "${run[@]}" -out "$out" "$@"
	.bin/schedlab report "$out"
	echo "results folder: $out"
}
bench() { measure bench "$@"; }
sweep() { measure sweep "$@"; }

# numa_setting prints the GODEBUG of NUMA-aware scheduling here: the real
# topology on a machine with two or more nodes, two simulated nodes
# (numafake=2) on a one-node machine.
numa_setting() {
	local nodes
	nodes=$(ls -d /sys/devices/system/node/node[0-9]* 2>/dev/null | wc -l)
	if [ "$nodes" -ge 2 ]; then echo numa=1; else echo numa=1,numafake=2; fi
}

# The runtime's stop-the-world and scheduling-latency histograms, as the
# workloads report them per run (benchmarks/workloads/pauses_test.go).
# sched-latency is not comparable with go1.25 or older numbers, nor the
# per-run runnable-to-running delay (golang/go#79391; the reports say so).
pause_metrics='p50-gc-stopping-ns,p99-gc-stopping-ns,p99-gc-pause-ns,p99-sched-latency-ns'

# part NAME succeeds if PARTS is unset or names NAME.
part() { [ -z "${PARTS:-}" ] || [[ " $PARTS " == *" $1 "* ]]; }

# The workloads whose instructions are counted: all but PointerChase,
# whose pointer walk the scheduler never touches and whose count under
# cachegrind takes most of the suite's time; it is still timed.
counted_workloads='FanOutSharedData|GCHeavy|RequestResponse|MutexContention|ForkJoinTree|BurstyProducer|ChanPipeline|TimerStorm|BlockingSyscall|ParallelAlloc|LatencyProbe|HTTPLoopback'

case $study in
cost)
	# Stock vs patched with no knobs: the price of carrying the series.
	# The primary verdict is in instructions (docs/census.md): the
	# census programs over five link layouts with the per-function
	# census, then the runtime's scheduler benchmarks and the workloads
	# as instructions/op at GOMAXPROCS=1. Timing follows, with its
	# detection limits. stock2 reruns stock as a control: its column is
	# the noise floor that a patched difference must clear, and the
	# self-check flags any row where it differs.
	if part census; then
		.bin/schedlab census -layouts 5 -funcs -out "$(fresh_dir "$prefix-census")"
	fi
	if part instructions; then
		for suite in quick workloads; do
			# Not through bench: its -benchtime would fix the iteration
			# count, which -measure instructions calibrates per benchmark.
			out=$(fresh_dir "$prefix-cost-$suite-instructions")
			narrow=()
			[ "$suite" = workloads ] && narrow=(-bench "$counted_workloads")
			.bin/schedlab bench -suite "$suite" "${narrow[@]}" -measure instructions -count "${INSTR_COUNT:-5}" -noreport \
				-variant stock -variant patched -variant stock2=stock -out "$out"
			.bin/schedlab report "$out"
		done
	fi
	if part time; then
		for suite in sched workloads external; do
			bench "$prefix-cost-$suite" -suite "$suite" -variant stock -variant patched -variant stock2=stock
		done
	fi
	;;
timeslice)
	# Tail wake-to-run delay and hog throughput against the time slice,
	# and how fast a GC's stop-the-world reaches every P (GCHeavy).
	sweep "$prefix-timeslice" -suite workloads -bench 'LatencyProbe|GCHeavy' \
		-knob timeslice=500,1000,2000,5000,10000 -variant stock -variant stock2=stock \
		-metric "p99-wake-ns,p99.9-wake-ns,hog-iters/s,$pause_metrics" \
		-tradeoff 'hog-iters/s:p99-wake-ns,hog-iters/s:p99.9-wake-ns'
	;;
sysmontick)
	# sysmon's own cost (wake-ups per second, process CPU) against tail
	# latency, over its minimum tick (sysmonmaxtick keeps its default
	# unless the tick exceeds it, in which case the tick wins), with the
	# GC's pauses (GCHeavy) and one block and mutex profile per setting:
	# where goroutines wait as the tick changes ...
	sweep "$prefix-sysmontick" -suite workloads -bench 'LatencyProbe|BurstyProducer|TimerStorm|GCHeavy' \
		-knob sysmontick=20,100,500,2000,10000 -variant stock -variant stock2=stock \
		-profile block,mutex \
		-metric "sysmon-wakeups/s,cpu-ns/op,p99-wake-ns,$pause_metrics" \
		-tradeoff 'sysmon-wakeups/s:p99-wake-ns,cpu-ns/op:p99-wake-ns'
	# ... and over its maximum sleep, which sets the preemption period of
	# a CPU-bound program (sysmon backs off to it while Ps stay busy).
	sweep "$prefix-sysmonmaxtick" -suite workloads -bench 'LatencyProbe|BurstyProducer|TimerStorm' \
		-knob sysmonmaxtick=1000,2000,5000,10000,20000 -variant stock -variant stock2=stock \
		-metric 'sysmon-wakeups/s,cpu-ns/op,p99-wake-ns,hog-iters/s' \
		-tradeoff 'sysmon-wakeups/s:p99-wake-ns,hog-iters/s:p99-wake-ns'
	;;
numa)
	# On a one-node machine, simulate two nodes at GOMAXPROCS=8 (4 Ps a
	# node, so that node-local steals are possible). On a real NUMA
	# machine use its topology at GOMAXPROCS = node 0's CPU count: the
	# oracle (below) then runs the same number of Ps on one node without
	# oversubscribing it; the ablation variants spread them over the
	# nodes (numaconfine=0) and the confine ones keep them on one. CPU overrides GOMAXPROCS (e.g. CPU=$(nproc) for all CPUs).
	nodes=$(ls -d /sys/devices/system/node/node[0-9]* 2>/dev/null | wc -l)
	numa=numa=1
	cpu=${CPU:-$(tr ',' '\n' </sys/devices/system/node/node0/cpulist 2>/dev/null |
		awk -F- 'NF { n += ($2 == "" ? 1 : $2 - $1 + 1) } END { if (n) print n }')}
	if [ "$nodes" -lt 2 ]; then
		numa=numa=1,numafake=2 # simulation: one real node
		cpu=${CPU:-8}
	fi
	# Reference rows where numactl exists: stock with its threads and
	# memory on node 0 (the locality bound an ablation variant can at
	# best reach) and with memory interleaved over all nodes. Without
	# numactl the doctor's warning in the report says they did not run.
	oracle=()
	if command -v numactl >/dev/null; then
		oracle=(-variant oracle-node0=stock -wrap 'oracle-node0=numactl --cpunodebind=0 --membind=0'
			-variant oracle-interleave=stock -wrap 'oracle-interleave=numactl --interleave=all')
	else
		echo "study.sh: numactl is not installed: no oracle rows (Debian: apt-get install numactl)" >&2
	fi
	# stock2 is the control: the same binary as stock, so that an effect
	# of a few percent can be told from the machine's drift.
	# An ablation of the spread placement (numaconfine=0): each variant
	# adds one mechanism to the one before; heap placement by node,
	# without binding (wake-mem, wake-mem2: numamem=1 acts, numamem=2
	# leaves the Ps on the shared heap) and with it (bind1-mem: pages
	# moved, numamem=1; bind1-mem2: heap windows by node, numamem=2), and
	# bind1-mem-exempt the heap's exemption from the kernel's NUMA
	# balancer (numaexempt=1); numamem=1 and numaexempt act only on the
	# kernel's own multi-node topology, numamem=2's windows are placed
	# only there. Then confinement to one node (numaconfine=1, the
	# default; it acts only where GOMAXPROCS fits one node) with
	# upstream's steal order and wakeups and no binding: alone, with
	# numamem=1 and 2, and as the peer ran it: heap windows by node and
	# the exemption (peer).
	# Every workload of the suite, so that no mechanism is judged on the
	# workload it was tuned on.
	bench "$prefix-numa" -suite workloads \
		${cpu:+-cpu "$cpu"} \
		-variant stock -variant stock2=stock \
		-variant "random=patched:$numa,numaconfine=0,numasteal=0,numawake=0" \
		-variant "localfirst=patched:$numa,numaconfine=0,numasteal=1,numawake=0" \
		-variant "leaveremote=patched:$numa,numaconfine=0,numasteal=2,numawake=0" \
		-variant "wake=patched:$numa,numaconfine=0" \
		-variant "wake-mem=patched:$numa,numaconfine=0,numamem=1" \
		-variant "wake-mem2=patched:$numa,numaconfine=0,numamem=2" \
		-variant "bind1=patched:$numa,numaconfine=0,numabind=1" \
		-variant "bind2=patched:$numa,numaconfine=0,numabind=2" \
		-variant "bind1-mem=patched:$numa,numaconfine=0,numabind=1,numamem=1" \
		-variant "bind1-mem2=patched:$numa,numaconfine=0,numabind=1,numamem=2" \
		-variant "bind1-mem-exempt=patched:$numa,numaconfine=0,numabind=1,numamem=1,numaexempt=1" \
		-variant "confine=patched:$numa,numasteal=0,numawake=0" \
		-variant "confine-mem=patched:$numa,numasteal=0,numawake=0,numamem=1" \
		-variant "confine-mem2=patched:$numa,numasteal=0,numawake=0,numamem=2" \
		-variant "peer=patched:$numa,numasteal=0,numawake=0,numamem=2,numaexempt=1" \
		"${oracle[@]}"
	;;
guest-numa)
	# The NUMA study's short form on a real multi-node kernel: 2-node
	# QEMU guests (docs/guest.md), 1 vCPU a node, the four memory-bound
	# workloads, with the kernel's NUMA balancer on and then off. The
	# test binaries are built here (static) and run in the guest by a
	# static schedlab (bench -prebuilt). What the guest shows is real:
	# numa_maps by node, /proc/vmstat's NUMA counters, binding against
	# the kernel's node CPU lists. Its times are the emulator's and
	# decide nothing. The oracle rows are numactl's: threads and memory
	# on node 0, memory interleaved, memory bound to node 1. A third
	# guest with 192 MiB a node (node 0 also holds the guest's files)
	# runs numactl --preferred=0, whose memory must spill to node 1.
	scripts/guest-setup.sh .cache/guest
	in=.cache/guest-numa-in
	rm -rf "$in"
	mem='FanOutSharedData|PointerChase|GCHeavy|RequestResponse'
	CGO_ENABLED=0 .bin/schedlab bench -suite workloads -bench "$mem" -variant stock -variant patched -build-only "$in"
	env -u GOFLAGS CGO_ENABLED=0 go build -o .bin/schedlab-static ./src/cmd/schedlab
	guest_bench() { # guest_bench <folder> <schedlab vm flags...> -- <schedlab bench flags...>
		local out vmflags=()
		out=$(fresh_dir "$1")
		shift
		while [ "$1" != -- ]; do
			vmflags+=("$1")
			shift
		done
		shift
		.bin/schedlab vm -nodes 2 -cpus 2 -timeout 90m "${vmflags[@]}" -in "$in" -out "$out" -- \
			.bin/schedlab-static bench -prebuilt /in -suite workloads -bench "$mem" "${run[@]}" -out /tmp/out "$@"
		.bin/schedlab report "$out"
		echo "results folder: $out"
	}
	# BALANCING (default "1 0") picks the balancer settings; PREFERRED=0
	# leaves out the --preferred guest.
	for bal in ${BALANCING:-1 0}; do
		guest_bench "$prefix-guest-numa-balancing$bal" -mem 1024 -balancing "$bal" -- \
			-variant stock -variant stock2=stock \
			-variant "wake=patched:numa=1" \
			-variant "bind1=patched:numa=1,numabind=1" \
			-variant "bind2=patched:numa=1,numabind=2" \
			-variant "bind1-mem=patched:numa=1,numabind=1,numamem=1" \
			-variant "bind1-mem2=patched:numa=1,numabind=1,numamem=2" \
			-variant "bind1-exempt=patched:numa=1,numabind=1,numaexempt=1" \
			-variant "bind1-mem-exempt=patched:numa=1,numabind=1,numamem=1,numaexempt=1" \
			-variant oracle-node0=stock -wrap 'oracle-node0=numactl --cpunodebind=0 --membind=0' \
			-variant oracle-interleave=stock -wrap 'oracle-interleave=numactl --interleave=all' \
			-variant oracle-membind1=stock -wrap 'oracle-membind1=numactl --membind=1'
	done
	if [ "${PREFERRED:-1}" != 0 ]; then
		guest_bench "$prefix-guest-numa-preferred" -mem 384 -balancing 0 -- \
			-variant stock -variant oracle-preferred0=stock -wrap 'oracle-preferred0=numactl --preferred=0'
	fi
	;;
multiproc)
	# Binding with several processes (issue 20): every run starts COPIES
	# (default 2) processes of the workload side by side, each at
	# GOMAXPROCS = all the machine's CPUs, as independent servers on one
	# machine would be. On a one-node machine the nodes are simulated
	# (numafake=2). Each binding runs with the fixed placement
	# (numaplace=0: every process puts its P 0 on the first node's first
	# CPU) and with the default, which starts each process's placement
	# at the CPU the kernel started it on. The per-CPU busy shares in
	# physical.txt show where the load went. WORKLOADS narrows the suite
	# (a -bench regexp); CPU sets every process's GOMAXPROCS (CPU=1: each
	# process runs one P, the case where a shared start piles them up).
	numa=numa=1
	nodes=$(ls -d /sys/devices/system/node/node[0-9]* 2>/dev/null | wc -l)
	[ "$nodes" -ge 2 ] || numa=numa=1,numafake=2
	copies=${COPIES:-2}
	name=multiproc
	[ "$copies" = 2 ] || name=$name-copies$copies
	bench "$prefix-$name${CPU:+-cpu$CPU}" -suite workloads -copies "$copies" ${WORKLOADS:+-bench "$WORKLOADS"} ${CPU:+-cpu "$CPU"} \
		-variant stock \
		-variant "numa1=patched:$numa" \
		-variant "bind1-fixed=patched:$numa,numabind=1,numaplace=0" \
		-variant "bind1=patched:$numa,numabind=1" \
		-variant "bind2-fixed=patched:$numa,numabind=2,numaplace=0" \
		-variant "bind2=patched:$numa,numabind=2"
	;;
steal)
	# Upstream's scheduling decisions (no knobs), seen through the counters.
	bench "$prefix-steal" -suite workloads -variant patched
	;;
pauses)
	# Stop-the-world pauses (how long until every P stopped, and in all)
	# and scheduling latency under every knob family: the time slice,
	# the sysmon tick, NUMA-aware scheduling and binding. NUMA placement
	# is known to lengthen GC pauses (golang/go#14406). stock2 is the
	# control. GC-heavy and scheduler workloads at GOMAXPROCS = the
	# machine's.
	numa=$(numa_setting)
	bench "$prefix-pauses" -suite workloads -bench 'GCHeavy|ParallelAlloc|ForkJoinTree|BurstyProducer' \
		-variant stock -variant stock2=stock -variant patched \
		-variant slice1ms=patched:timeslice=1000 -variant tick2ms=patched:sysmontick=2000 \
		-variant "numa=patched:$numa" -variant "bind1=patched:$numa,numabind=1"
	;;
timeline)
	# A per-P timeline of a fork-join run at GOMAXPROCS=4, stock and with
	# NUMA-aware scheduling (two simulated nodes on a one-node machine):
	# one traced run per variant; the figures are traces/*/timeline.svg.
	numa=$(numa_setting)
	bench "$prefix-timeline" -suite workloads -bench 'ForkJoinTree' -cpu 4 -count "${COUNT:-3}" -benchtime "${BENCHTIME:-100x}" -trace \
		-variant stock -variant "numa=patched:$numa"
	;;
tracecost)
	# What tracing costs, with and without the Steal experiment's events:
	# every run of the traced variants writes a trace (to a temporary
	# file, -exectrace); the base is tracing without the experiment,
	# trace2 its control, notrace the tracer off. Timed, then counted in
	# instructions at GOMAXPROCS=1, where the tracer's cost per operation
	# repeats within the census's floor instead of the machine's noise.
	traced=(-variant trace=patched -exectrace trace
		-variant "tracesteal=patched:tracesteal=1" -exectrace tracesteal
		-variant trace2=patched -exectrace trace2
		-variant notrace=patched)
	if part time; then
		bench "$prefix-tracecost" -suite workloads "${traced[@]}"
	fi
	if part instructions; then
		out=$(fresh_dir "$prefix-tracecost-instructions")
		.bin/schedlab bench -suite workloads -bench "${BENCH:-$counted_workloads}" -measure instructions -count "${INSTR_COUNT:-5}" -noreport \
			"${traced[@]}" -out "$out"
		.bin/schedlab report "$out"
	fi
	;;
*)
	echo "study.sh: unknown study $study (want cost, timeslice, sysmontick, numa, guest-numa, multiproc, steal, tracecost, pauses or timeline)" >&2
	exit 2
	;;
esac
