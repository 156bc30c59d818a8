#!/usr/bin/env bash
# The main job: a swarm manager on tcp://127.0.0.1:2375 in front of a real local cluster of
# COUNT (default 3) Docker engines started by testbed.sh. Ctrl-C stops the manager and the engines.
#   test/testbed/local-cluster.sh [COUNT] [extra `swarm manage` flags...]
set -euo pipefail
HERE=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
REPO=$(cd "$HERE/../.." && pwd)
COUNT=3
if [[ "${1:-}" =~ ^[0-9]+$ ]]; then COUNT=$1; shift; fi
"$HERE/testbed.sh" up "$COUNT" --first 1 --label zone=local >/dev/null
trap '"$HERE/testbed.sh" down --first 1 --count "$COUNT"' EXIT
ADDRS=$("$HERE/testbed.sh" addrs "$COUNT" --first 1)
echo "engines: $ADDRS"
echo "try:     docker -H tcp://127.0.0.1:2375 info"
for flag in "$@"; do [ "$flag" = "--ui" ] && echo "web:     http://127.0.0.1:2375/swarm/ui/"; done
node "$REPO/core/bin/swarm.js" manage -H tcp://127.0.0.1:2375 "$@" "nodes://$ADDRS"
