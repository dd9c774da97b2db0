#!/usr/bin/env bash
# with-trace.sh BIN ARGS...: run a Go test binary with the execution
# tracer on for its whole run, writing the trace to a temporary file that
# is removed afterwards. The trace-cost folders of older series ran
# their traced variants under it (schedlab bench -wrap
# 'name=scripts/with-trace.sh'), and it stays to rerun them; the study
# now uses schedlab bench -exectrace, which instruction counts can use
# too.
set -euo pipefail
f=$(mktemp "${TMPDIR:-/tmp}/schedlab-trace.XXXXXX")
trap 'rm -f "$f"' EXIT
"$@" -test.trace="$f"
