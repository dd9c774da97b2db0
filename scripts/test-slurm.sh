#!/usr/bin/env bash
# make test-slurm [CAMPAIGN=dir]: schedlab campaign against a real Slurm.
# Installs Debian's Slurm and munge where missing, starts a one-machine
# cluster on loopback (its own config, ports and state under a temporary
# folder; munged only if none is running), and submits two campaigns:
#  1. the numa study narrowed to two workloads, two rounds, two array
#     tasks (they share the one node, one after the other: --exclusive);
#     the merged report must hold both tasks' folders;
#  2. a study that does not exist, one task: the merged report must name
#     the task and its exit status.
# Stops what it started. Needs root (the daemons, munge's user). Leaves
# the campaigns in CAMPAIGN and CAMPAIGN-failed (default: a temporary
# folder, removed).
set -euo pipefail
cd "$(dirname "$0")/.."
root=$PWD
if [ "$(id -u)" != 0 ]; then
	echo "test-slurm: needs root (it starts slurmctld, slurmd and munged)" >&2
	exit 1
fi
scripts/ensure-packages.sh slurmctld=slurmctld slurmd=slurmd munged=munge sbatch=slurm-client
work=$(mktemp -d /tmp/schedlab-slurm.XXXXXX)
campaign=${CAMPAIGN:-$work/campaign}
failed=${CAMPAIGN:+$CAMPAIGN-failed}
failed=${failed:-$work/failed}
started_munge=
t0=$(date +%s)

cleanup() {
	set +e
	if [ -n "${SLURM_CONF:-}" ]; then
		scancel --quiet --user=root 2>/dev/null
		for d in slurmd slurmctld; do
			[ -f "$work/$d.pid" ] && kill "$(cat "$work/$d.pid")" 2>/dev/null
		done
	fi
	[ -n "$started_munge" ] && kill "$started_munge" 2>/dev/null
	sleep 1
	if [ "${KEEP:-0}" = 1 ]; then
		echo "test-slurm: kept $work"
	else
		rm -rf "$work"
	fi
}
trap cleanup EXIT

# munge: the cluster's authentication. Use a running munged if there is
# one (a machine that is a Slurm node already), else start one.
if ! munge -n 2>/dev/null | unmunge >/dev/null 2>&1; then
	install -d -o munge -g munge -m 0755 /run/munge
	[ -f /etc/munge/munge.key ] || runuser -u munge -- mungekey --create
	runuser -u munge -- munged
	for _ in $(seq 50); do
		munge -n 2>/dev/null | unmunge >/dev/null 2>&1 && break
		sleep 0.1
	done
	started_munge=$(cat /run/munge/munged.pid)
fi

# A one-node cluster on loopback, on ports of its own.
host=$(hostname -s)
mkdir -p "$work/state" "$work/spool"
node=$(slurmd -C | head -n 1)
cat >"$work/slurm.conf" <<EOF
ClusterName=schedlab-test
SlurmctldHost=$host(127.0.0.1)
SlurmctldPort=46817
SlurmdPort=46818
SlurmUser=root
AuthType=auth/munge
StateSaveLocation=$work/state
SlurmdSpoolDir=$work/spool
SlurmctldPidFile=$work/slurmctld.pid
SlurmdPidFile=$work/slurmd.pid
SlurmctldLogFile=$work/slurmctld.log
SlurmdLogFile=$work/slurmd.log
ProctrackType=proctrack/linuxproc
TaskPlugin=task/none
SelectType=select/cons_tres
SelectTypeParameters=CR_Core
SchedulerType=sched/backfill
JobAcctGatherType=jobacct_gather/none
AccountingStorageType=accounting_storage/none
JobCompType=jobcomp/none
MpiDefault=none
ReturnToService=2
$node NodeAddr=127.0.0.1 State=UNKNOWN
PartitionName=schedlab Nodes=$host Default=YES MaxTime=INFINITE State=UP
EOF
export SLURM_CONF=$work/slurm.conf
slurmctld -c -f "$SLURM_CONF"
slurmd -f "$SLURM_CONF"
for i in $(seq 60); do
	state=$(sinfo -h -n "$host" -o %T 2>/dev/null || true)
	[ "$state" = idle ] && break
	if [ "$i" = 60 ]; then
		echo "test-slurm: node $host is '$state' after 60 s, not idle; logs in $work" >&2
		tail -n 20 "$work/slurmctld.log" "$work/slurmd.log" >&2
		exit 1
	fi
	sleep 1
done
echo "test-slurm: cluster up ($host idle) after $(($(date +%s) - t0)) s"

# wait_job ID SECONDS: until the job has left the queue.
wait_job() {
	local i
	for i in $(seq "$2"); do
		[ -z "$(squeue -h -j "$1" 2>/dev/null)" ] && return 0
		sleep 1
	done
	echo "test-slurm: job $1 still queued after $2 s:" >&2
	squeue >&2
	return 1
}
merge_job() { sed -n 's/^submitted: the merge is job \([0-9]*\) .*/\1/p' "$1"; }

# 1. Two array tasks of a two-workload numa study.
.bin/schedlab campaign -study numa -dir "$campaign" -tasks 2 -partition schedlab -time 20:00 \
	-count 2 -benchtime 20x -bench 'ForkJoinTree|ChanPipeline' -submit | tee "$work/submit1.txt"
wait_job "$(merge_job "$work/submit1.txt")" 1500
readme=$campaign/merged/README.md
fail=0
check() { # check <what> <command...>
	local what=$1
	shift
	if ! "$@" >/dev/null 2>&1; then
		echo "test-slurm: FAIL: $what" >&2
		fail=1
	fi
}
check "merged README" test -f "$readme"
check "README: 2 hosts" grep -q '^# schedlab results: suite workloads on 2 hosts' "$readme"
check "README: no missing machine" sh -c "! grep -q 'Machines that sent no results' '$readme'"
for n in 0 1; do
	check "task $n exit 0" grep -qx 'exit=0' "$campaign/tasks/$n.status"
	check "task $n folder" grep -q '^folder=' "$campaign/tasks/$n.status"
done
check "merged bench.txt: two host labels" sh -c "[ \$(grep '^host:' '$campaign/merged/bench.txt' | sort -u | wc -l) = 2 ]"
check "ForkJoinTree and ChanPipeline rows" sh -c "grep -q '^BenchmarkForkJoinTree' '$campaign/merged/bench.txt' && grep -q '^BenchmarkChanPipeline' '$campaign/merged/bench.txt'"

# 2. A study that fails: the report must say so.
.bin/schedlab campaign -study no-such-study -dir "$failed" -tasks 1 -partition schedlab -time 5:00 -submit | tee "$work/submit2.txt"
wait_job "$(merge_job "$work/submit2.txt")" 300
check "failed campaign: README names the task and its exit" grep -q "| task 0 ($host) | the study exited 2" "$failed/merged/README.md"

if [ "$fail" = 0 ]; then
	echo "test-slurm: ok in $(($(date +%s) - t0)) s: $readme"
else
	echo "test-slurm: logs in $work (kept)" >&2
	KEEP=1
	exit 1
fi
