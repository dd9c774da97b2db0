#!/usr/bin/env bash
# Build time of a Go package with GODEBUG's schedlab NUMA knobs exported
# in the shell, as a researcher would leave them (issue 20): does the
# build pay for binding? Each run builds TARGET from scratch (-a, an
# empty GOCACHE) with the patched toolchain, COUNT interleaved rounds in
# a rotating order. GOCMD=test runs "go test -a -run=^$ -count=1 TARGET"
# instead: the build of the test binaries, and a run of each that runs
# no test. VARIANTS picks variants (default: the first four):
#   numa0        GODEBUG unset
#   bind1        GODEBUG=numa=1,numafake=2,numabind=1 for the go command;
#                since the cmd/go patch (0028; 0017 before series
#                4c449e2e7e8f) the go command drops the knobs for the
#                tools it runs
#   numa0-tools  as numa0, through the -toolexec wrapper (its own cost)
#   bind1-tools  as bind1, and the wrapper gives every tool the knobs:
#                the build as it was before that patch, a multi-process
#                program whose every process binds its threads
#   numa1-tools, bind2-tools: the same with numa=1,numafake=2 (no
#                binding), and with numabind=2
#   bind1-fixed-tools, bind2-fixed-tools: as bind1-tools and
#                bind2-tools with numaplace=0, every process's P 0 on the
#                first CPU (the placement before numaplace)
# Writes bench.txt (Go benchmark format: sec/op is the build's wall time,
# cpu-sec/op its CPU time), percpu.tsv (each CPU's busy share during each
# run, from /proc/stat) and benchstat.txt into the results folder.
# Usage: benchmarks/gobuild/study.sh [OUT]
set -euo pipefail
cd "$(dirname "$0")/../.."
. scripts/lib.sh
out=${1:-$(fresh_dir "results/$(stamp)-gobuild")}
count=${COUNT:-10}
target=${TARGET:-./src/cmd/series}
goroot=$PWD/toolchain/goroot
export GOTOOLCHAIN=local GOROOT=$goroot PATH=$goroot/bin:$PATH
mkdir -p "$out"
wrapper=$(mktemp -d)/toolexec
go build -o "$wrapper" ./benchmarks/gobuild/toolexec
gocmd=${GOCMD:-build}
read -r -a variants <<< "${VARIANTS:-numa0 bind1 numa0-tools bind1-tools}"
# knobs prints the GODEBUG of variant $1.
knobs() {
	case ${1%-tools} in
	numa0) ;;
	numa1) echo numa=1,numafake=2 ;;
	bind1) echo numa=1,numafake=2,numabind=1 ;;
	bind2) echo numa=1,numafake=2,numabind=2 ;;
	bind1-fixed) echo numa=1,numafake=2,numabind=1,numaplace=0 ;;
	bind2-fixed) echo numa=1,numafake=2,numabind=2,numaplace=0 ;;
	*) echo "study.sh: unknown variant $1" >&2; exit 2 ;;
	esac
}
for v in "${variants[@]}"; do knobs "$v" > /dev/null; done
case $gocmd in
build) gocmdline='go build -a "$@" -o /dev/null '"$target" ;;
test) gocmdline='go test -a "$@" -run=^$ -count=1 '"$target" ;;
*) echo "study.sh: GOCMD=$gocmd: want build or test" >&2; exit 2 ;;
esac
{
	echo "# go $gocmd -a $target, fresh GOCACHE per run"
	echo "goos: linux"
	echo "pkg: gobuild"
	echo "series: $(.bin/series hash)"
	echo "toolchain: $(go version | cut -d' ' -f3)"
} > "$out/bench.txt"
printf 'round\tvariant\twall_s\tcpu_s' > "$out/percpu.tsv"
ncpu=$(grep -c '^cpu[0-9]' /proc/stat)
for c in $(seq 0 $((ncpu - 1))); do printf '\tcpu%d_busy' "$c" >> "$out/percpu.tsv"; done
echo >> "$out/percpu.tsv"
percpu() { awk '/^cpu[0-9]/ {print $2+$3+$4+$7+$8, $5+$6}' /proc/stat; }
for r in $(seq 1 "$count"); do
	n=${#variants[@]}
	for i in $(seq 0 $((n - 1))); do
		v=${variants[$(((i + r) % n))]}
		gd=$(knobs "$v") tool= flags=()
		case $v in
		*-tools) tool=$gd flags=(-toolexec "$wrapper") ;;
		esac
		cache=$(mktemp -d)
		mapfile -t before < <(percpu)
		t0=$(date +%s%N)
		# /usr/bin/time would be simpler; bash's times gives children's CPU.
		env ${gd:+GODEBUG=$gd} SCHEDLAB_TOOL_GODEBUG=$tool GOCACHE=$cache \
			bash -c "$gocmdline"' > /dev/null && times' _ "${flags[@]}" > "$cache.times"
		t1=$(date +%s%N)
		mapfile -t after < <(percpu)
		rm -rf "$cache"
		# times prints "0m0.000s 0m0.000s\nUSERm SYSs" for the shell, then its children.
		cpu=$(sed -n 2p "$cache.times" | awk '{split($1,u,"m"); split($2,s,"m"); sub("s","",u[2]); sub("s","",s[2]); print u[1]*60+u[2]+s[1]*60+s[2]}')
		rm -f "$cache.times"
		wall=$(awk -v a="$t0" -v b="$t1" 'BEGIN{printf "%.3f", (b-a)/1e9}')
		line=$(printf '%d\t%s\t%s\t%s' "$r" "$v" "$wall" "$cpu")
		for c in $(seq 0 $((ncpu - 1))); do
			read -r b0 i0 <<< "${before[$c]}"
			read -r b1 i1 <<< "${after[$c]}"
			line+=$(awk -v b=$((b1 - b0)) -v i=$((i1 - i0)) 'BEGIN{printf "\t%.3f", (b+i) ? b/(b+i) : 0}')
		done
		echo "$line" >> "$out/percpu.tsv"
		printf 'variant: %s\ngodebug: %s\nBenchmarkGoBuild\t1\t%s ns/op\t%s cpu-ns/op\n' "$v" "${gd:-none}" \
			"$(awk -v w="$wall" 'BEGIN{printf "%.0f", w*1e9}')" "$(awk -v c="$cpu" 'BEGIN{printf "%.0f", c*1e9}')" >> "$out/bench.txt"
		echo "round $r/$count $v: ${wall}s wall, ${cpu}s CPU" >&2
	done
done
bs=$(mktemp -d)/benchstat
go build -o "$bs" golang.org/x/perf/cmd/benchstat
# Each variant against its own base: numa0 for the go command's own
# variants, numa0-tools for those whose tools get the knobs (both through
# the wrapper), and each -fixed-tools variant also against its twin with
# the default placement.
(
	cd "$out"
	for v in "${variants[@]}"; do
		base=numa0
		case $v in
		numa0 | numa0-tools) continue ;;
		*-tools) base=numa0-tools ;;
		esac
		for b in $base $(case $v in *-fixed-tools) echo "${v%-fixed-tools}-tools" ;; esac); do
			if printf '%s\n' "${variants[@]}" | grep -qx "$b"; then
				"$bs" -col "variant@($b $v)" -ignore godebug -filter "variant:($b OR $v)" bench.txt
				echo
			fi
		done
	done
	echo "mean busy share of each CPU during the runs (percpu.tsv):"
	awk -F'\t' 'NR == 1 {for (i = 5; i <= NF; i++) h[i] = $i; nf = NF; next}
		{n[$2]++; for (i = 5; i <= nf; i++) b[$2, i] += $i}
		END {for (v in n) {printf "%-12s", v; for (i = 5; i <= nf; i++) printf " %s %.2f", h[i], b[v, i] / n[v]; print ""}}' percpu.tsv | sort
) > "$out/benchstat.txt"
cat "$out/benchstat.txt"
echo "results folder: $out"
