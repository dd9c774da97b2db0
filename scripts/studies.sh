#!/usr/bin/env bash
# make studies: the headline studies behind README and docs/results.md,
# one after another, on the series toolchain/goroot holds: cost (the
# census and the instruction and timing costs), steal, timeslice,
# sysmontick (with the sysmonmaxtick sweep), pauses, numa, tracecost and
# guest-numa, each by scripts/study.sh into its own results folders.
#
# Resumable: a study that finished is recorded in
# .cache/studies/<series>/<study>.done with the folders it wrote, and a
# rerun skips it, so an interrupted run goes on from the study it was
# in. A new series starts afresh. Progress goes to standard output as
# "studies: [i/n] <study>: ...". STUDIES (names separated by spaces)
# selects and orders; DRY=1 prints what would run without running it.
# A full run takes hours on two cores (docs/user-guide.md).
set -euo pipefail
cd "$(dirname "$0")/.."
all="cost steal timeslice sysmontick pauses numa tracecost guest-numa"
studies=${STUDIES:-$all}
results=${RESULTS:-results}
for s in $studies; do
	case " $all " in
	*" $s "*) ;;
	*) echo "studies: unknown study $s (want some of: $all)" >&2; exit 2 ;;
	esac
done
series=$(.bin/series hash)
state=.cache/studies/$series
mkdir -p "$state" "$results"
n=$(wc -w <<<"$studies")
i=0
for s in $studies; do
	i=$((i + 1))
	if [ -e "$state/$s.done" ]; then
		echo "studies: [$i/$n] $s: done earlier on series $series: $(cat "$state/$s.done")"
		continue
	fi
	echo "studies: [$i/$n] $s: starting at $(date -u +%H:%M:%S) UTC on series $series"
	if [ -n "${DRY:-}" ]; then
		echo "studies: [$i/$n] $s: would run scripts/study.sh $s"
		continue
	fi
	before=$(ls -d "$results"/*/ 2>/dev/null | sort)
	start=$(date +%s)
	scripts/study.sh "$s"
	new=$(comm -13 <(echo "$before") <(ls -d "$results"/*/ | sort) | tr '\n' ' ')
	echo "$new" >"$state/$s.done"
	echo "studies: [$i/$n] $s: done in $(($(date +%s) - start))s: $new"
done
[ -n "${DRY:-}" ] || echo "studies: all $n done on series $series; run make index, then update the README rows and docs/results.md that cite these studies"
