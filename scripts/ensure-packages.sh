#!/usr/bin/env bash
# ensure-packages.sh CMD=PACKAGE...: install each Debian PACKAGE whose
# command CMD is missing, with apt-get (CI runs as root on a clean
# machine; nothing installed by hand survives). Says in one line what
# is missing and exits 1 if it cannot install it.
set -euo pipefail
missing=()
for spec in "$@"; do
	cmd=${spec%%=*} pkg=${spec#*=}
	command -v "$cmd" >/dev/null 2>&1 || missing+=("$pkg")
done
[ ${#missing[@]} -eq 0 ] && exit 0
if [ "$(id -u)" != 0 ] || ! command -v apt-get >/dev/null 2>&1; then
	echo "ensure-packages: missing ${missing[*]}; install them (Debian: apt-get install ${missing[*]})" >&2
	exit 1
fi
echo "ensure-packages: installing ${missing[*]}" >&2
export DEBIAN_FRONTEND=noninteractive
if ! { apt-get update -qq && apt-get install -y -qq --no-install-recommends "${missing[@]}"; } >/tmp/ensure-packages.log 2>&1; then
	echo "ensure-packages: apt-get install ${missing[*]} failed; see /tmp/ensure-packages.log" >&2
	exit 1
fi
