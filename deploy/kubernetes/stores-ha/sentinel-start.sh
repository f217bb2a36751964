#!/bin/sh
# Starts a sentinel of the group `acct` (quorum 2). A sentinel rewrites its config file as it learns
# (the current master, its epoch, the other sentinels and the replicas); that file is kept on disk and
# started from as it is, so what the sentinels decided in a failover survives a restart of every node
# at once. Only a sentinel with no file yet writes one, watching the master the other sentinels name
# (the newest configuration among those that answer: redis-master.sh), or the first node on the very
# first start. One script for Kubernetes, compose and the tests:
#   SENTINEL_SELF        the host this sentinel announces (default: its host name)
#   SENTINEL_PORT        its port (26379)
#   SENTINEL_DIR         where its config file lives (/data): keep it on a volume
#   REDIS_FIRST_MASTER   the node that is master on the very first start: host, or host:port
#   REDIS_PORT           the nodes' port, when REDIS_FIRST_MASTER names none (6379)
#   REDIS_SENTINELS      the other sentinels to ask, host:port separated by spaces
#   REDIS_PASSWORD       the group's password (optional)
#   SENTINEL_DOWN_AFTER_MS, SENTINEL_FAILOVER_TIMEOUT_MS  (5000, 30000)
set -eu
SELF="${SENTINEL_SELF:-$(hostname)}"
PORT="${SENTINEL_PORT:-26379}"
CONF="${SENTINEL_DIR:-/data}/sentinel.conf"
if [ -s "$CONF" ]; then
  echo "sentinel-start: from its own $CONF (what it last knew)" >&2
  exec redis-sentinel "$CONF"
fi
# shellcheck source=redis-master.sh
. "$(dirname "$0")/redis-master.sh"
MASTER="$(master_by_sentinels 1)"
if [ -z "$MASTER" ]; then
  case "$REDIS_FIRST_MASTER" in
    *:*) MASTER="${REDIS_FIRST_MASTER%:*} ${REDIS_FIRST_MASTER##*:}" ;;
    *) MASTER="$REDIS_FIRST_MASTER ${REDIS_PORT:-6379}" ;;
  esac
fi
{
  echo "port $PORT"
  echo "sentinel resolve-hostnames yes"
  echo "sentinel announce-hostnames yes"
  echo "sentinel announce-ip $SELF"
  [ -z "${REDIS_PASSWORD:-}" ] || echo "requirepass $REDIS_PASSWORD"
  echo "sentinel monitor acct $MASTER 2"
  [ -z "${REDIS_PASSWORD:-}" ] || echo "sentinel auth-pass acct $REDIS_PASSWORD"
  echo "sentinel down-after-milliseconds acct ${SENTINEL_DOWN_AFTER_MS:-5000}"
  echo "sentinel failover-timeout acct ${SENTINEL_FAILOVER_TIMEOUT_MS:-30000}"
  echo "sentinel parallel-syncs acct 1"
} > "$CONF"
echo "sentinel-start: new $CONF watching $MASTER" >&2
exec redis-sentinel "$CONF"
