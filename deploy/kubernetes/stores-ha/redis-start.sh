#!/bin/sh
# A Redis pod starts as a replica of whichever node the sentinels name master now; only when no
# sentinel knows one yet (the very first start) does redis-0 start as the master.
set -eu
SELF="$(hostname).redis.account-stores.svc.cluster.local"
MASTER="$(timeout 5 redis-cli -h redis-sentinel -p 26379 -a "$REDIS_PASSWORD" --no-auth-warning sentinel get-master-addr-by-name acct 2>/dev/null | head -n 1 || true)"
if [ -z "$MASTER" ] && [ "$(hostname)" != redis-0 ]; then MASTER="redis-0.redis.account-stores.svc.cluster.local"; fi
set -- redis-server --appendonly yes --requirepass "$REDIS_PASSWORD" --masterauth "$REDIS_PASSWORD" --replica-announce-ip "$SELF"
if [ -n "$MASTER" ] && [ "$MASTER" != "$SELF" ]; then set -- "$@" --replicaof "$MASTER" 6379; fi
exec "$@"
