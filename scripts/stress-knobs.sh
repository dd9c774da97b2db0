#!/usr/bin/env bash
# Run a test binary with schedlab knobs drawn at random from SEED (a fresh
# one if unset). The first output line names the seed and the GODEBUG, so
# a failure found by stress is reproducible: SEED=<n> stress-knobs.sh ...
set -euo pipefail
seed=${SEED:-$(( (RANDOM << 15) | RANDOM ))}
RANDOM=$seed
pick() { local a=("$@"); echo "${a[RANDOM % ${#a[@]}]}"; }
godebug="numa=$(pick 0 1),numafake=$(pick 0 1 2 3 8),numabind=$(pick 0 1 2)"
godebug+=",timeslice=$(pick 0 100 500 1000 2000 10000 50000)"
godebug+=",sysmontick=$(pick 0 1 20 50 500 2000),sysmonmaxtick=$(pick 0 100 2000 10000 100000)"
godebug+=",sysmonidle=$(pick 0 1 50 1000),sysmonnetpoll=$(pick 0 500 10000)"
echo "stress-knobs: SEED=$seed GODEBUG=$godebug"
GODEBUG=$godebug exec "$@"
