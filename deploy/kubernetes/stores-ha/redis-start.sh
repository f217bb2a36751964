#!/bin/sh
# Starts a Redis node of the Sentinel group as a replica of whichever node the sentinels name master
# now (the newest configuration among a majority of them: redis-master.sh); only while no sentinel
# answers at all (the very first start, with nothing written yet) does the first node start as master. So a node that was master before a failover comes back as a replica,
# even when every node and sentinel restarts at once (the sentinels keep what they decided on disk:
# sentinel-start.sh). One script for Kubernetes (stores-ha), compose (docker-compose.ha.yml) and the
# tests (test/ha/sentinel-restart.test.ts), told apart by these variables:
#   REDIS_SELF          the host this node announces (default: its host name)
#   REDIS_PORT          its port (6379)
#   REDIS_FIRST_MASTER  the node that is master on the very first start: host, or host:port
#   REDIS_SENTINELS     the sentinels to ask, host:port separated by spaces
#   REDIS_PASSWORD      the group's password (optional)
#   REDIS_DIR           its data folder (/data)
#   REDIS_ASK_SECONDS   how long to wait for a majority of the sentinels to answer (20)
set -eu
SELF="${REDIS_SELF:-$(hostname)}"
PORT="${REDIS_PORT:-6379}"
DIR="${REDIS_DIR:-/data}"

# shellcheck source=redis-master.sh
. "$(dirname "$0")/redis-master.sh"

# A majority of the sentinels must answer (one stale sentinel cannot outvote the others); until
# REDIS_ASK_SECONDS have passed, then any that answers will do (the others may be down for good).
count=0
for sentinel in $REDIS_SENTINELS; do count=$((count + 1)); done
deadline=$(($(date +%s) + ${REDIS_ASK_SECONDS:-20}))
MASTER="$(master_by_sentinels $((count / 2 + 1)))"
while [ -z "$MASTER" ] && [ "$(date +%s)" -lt "$deadline" ]; do
  sleep 1
  MASTER="$(master_by_sentinels $((count / 2 + 1)))"
done
[ -n "$MASTER" ] || MASTER="$(master_by_sentinels 1)"
if [ -z "$MASTER" ]; then
  echo "redis-start: no sentinel answered in ${REDIS_ASK_SECONDS:-20} s: first start, ${REDIS_FIRST_MASTER} is master" >&2
  case "$REDIS_FIRST_MASTER" in
    *:*) MASTER="${REDIS_FIRST_MASTER%:*} ${REDIS_FIRST_MASTER##*:}" ;;
    *) MASTER="$REDIS_FIRST_MASTER $PORT" ;;
  esac
fi

set -- redis-server --port "$PORT" --dir "$DIR" --appendonly yes --replica-announce-ip "$SELF"
[ -z "${REDIS_PASSWORD:-}" ] || set -- "$@" --requirepass "$REDIS_PASSWORD" --masterauth "$REDIS_PASSWORD"
MASTER_HOST="${MASTER% *}"
MASTER_PORT="${MASTER#* }"
if [ "$MASTER_HOST" != "$SELF" ] || [ "$MASTER_PORT" != "$PORT" ]; then
  echo "redis-start: replica of $MASTER_HOST:$MASTER_PORT" >&2
  set -- "$@" --replicaof "$MASTER_HOST" "$MASTER_PORT"
else
  echo "redis-start: master" >&2
fi
exec "$@"
