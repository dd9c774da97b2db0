#!/usr/bin/env bash
# Upstream's own tests with the patched toolchain in every schedlab mode,
# after one stock run of the same set (a failure stock shares is reported
# as upstream's), then the packages the series adds. Knobs: TEST_PKGS,
# TEST_MODES (space-separated names), SERIES_PKGS.
set -euo pipefail
cd "$(dirname "$0")/.."
root=$PWD
stock=$(.bin/series stock)
pkgs=${TEST_PKGS:-runtime runtime/metrics runtime/trace sync time internal/trace}
declare -A godebug=(
	[default]=""
	[numa]="numa=1,numafake=2,numabind=1,numamem=2"
	[slice]="timeslice=1000,sysmontick=50,sysmonmaxtick=2000"
	[all]="numa=1,numafake=2,numabind=1,numamem=2,timeslice=1000,sysmontick=50,sysmonmaxtick=2000,tracesteal=1"
)
modes=${TEST_MODES:-default numa slice all}
args=()
for m in $modes; do
	[[ -v godebug[$m] ]] || { echo "test-runtime: unknown mode $m (have: ${!godebug[*]})" >&2; exit 2; }
	args+=(-mode "$m=${godebug[$m]}")
done
mkdir -p .cache
go run ./src/cmd/testmatrix -stock "$stock" -patched "$root/toolchain/goroot" \
	-pkgs "$pkgs" -out .cache/testmatrix.md "${args[@]}"

# The packages the series adds have no stock counterpart and read no
# GODEBUG, so they run once, with the patched toolchain, beside the
# dependency rules the series extends (go/build's TestDependencies).
series_pkgs=${SERIES_PKGS:-internal/runtime/numa}
echo "test-runtime: the series' own packages: go test $series_pkgs; go/build TestDependencies"
env -u GOFLAGS GOROOT="$root/toolchain/goroot" GOTOOLCHAIN=local \
	"$root/toolchain/goroot/bin/go" test -count=1 -short $series_pkgs
env -u GOFLAGS GOROOT="$root/toolchain/goroot" GOTOOLCHAIN=local \
	"$root/toolchain/goroot/bin/go" test -count=1 -short -run '^TestDependencies$' go/build
