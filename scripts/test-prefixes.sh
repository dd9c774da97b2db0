#!/usr/bin/env bash
# make test-prefixes: the bisectability check. For every prefix of the
# series (upstream + patches 1..N), check out that commit of
# toolchain/goroot in a worktree and run go test -short on it with the
# built toolchain's go command, which compiles the standard library from
# the worktree's src. Not in CI (93-105 s per patch on 2 cores).
# PREFIX_PKGS (default: runtime) and PREFIX_FROM/PREFIX_TO (1-based patch
# numbers) select what runs. Exits non-zero if any prefix fails.
set -euo pipefail
cd "$(dirname "$0")/.."
goroot=$PWD/toolchain/goroot
pkgs=${PREFIX_PKGS:-runtime}
wt=$PWD/toolchain/worktrees
mkdir -p "$wt"
commits=($(git -C "$goroot" rev-list --reverse upstream..HEAD))
from=${PREFIX_FROM:-1}
to=${PREFIX_TO:-${#commits[@]}}
failed=()
for ((i = from; i <= to; i++)); do
	c=${commits[i-1]}
	n=$(printf %04d "$i")
	d=$wt/prefix-$n
	git -C "$goroot" worktree remove --force "$d" 2>/dev/null || rm -rf "$d"
	git -C "$goroot" worktree add -q --detach "$d" "$c"
	ln -s "$goroot/bin" "$d/bin"
	ln -s "$goroot/pkg" "$d/pkg"
	echo "=== prefix $n: $(git -C "$goroot" log -1 --format=%s "$c")"
	start=$(date +%s)
	if (cd "$d/src" && env -u GOFLAGS -u GODEBUG GOROOT="$d" GOTOOLCHAIN=local "$goroot/bin/go" test -short -count=1 $pkgs); then
		echo "=== prefix $n: ok in $(($(date +%s) - start))s"
	else
		echo "=== prefix $n: FAIL"
		failed+=("$n")
	fi
	git -C "$goroot" worktree remove --force "$d"
done
if [ ${#failed[@]} -gt 0 ]; then
	echo "test-prefixes: failing prefixes: ${failed[*]}" >&2
	exit 1
fi
echo "test-prefixes: all $((to - from + 1)) prefixes pass go test -short $pkgs"
