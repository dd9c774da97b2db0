# Shared helpers for the scripts; source it.

# fresh_dir DIR prints DIR, or DIR-2, DIR-3 ... for the first of these that
# does not exist yet: a rerun never writes over an earlier results folder.
fresh_dir() {
	local d=$1 i=2
	while [ -e "$d" ]; do
		d=$1-$i
		i=$((i + 1))
	done
	echo "$d"
}

# stamp prints <UTC date>-<short host name>, the prefix of every folder.
stamp() { echo "$(date -u +%Y-%m-%d)-$(hostname -s)"; }
