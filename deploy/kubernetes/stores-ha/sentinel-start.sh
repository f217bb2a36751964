#!/bin/sh
# Each sentinel writes its own config (it rewrites the file as it learns the topology), watching the
# master the other sentinels name, or redis-0 on the very first start. Quorum 2 of 3.
set -eu
MASTER="$(timeout 5 redis-cli -h redis-sentinel -p 26379 -a "$REDIS_PASSWORD" --no-auth-warning sentinel get-master-addr-by-name acct 2>/dev/null | head -n 1 || true)"
[ -n "$MASTER" ] || MASTER="redis-0.redis.account-stores.svc.cluster.local"
cat > /data/sentinel.conf <<CONF
port 26379
sentinel resolve-hostnames yes
sentinel announce-hostnames yes
sentinel announce-ip $(hostname).redis.account-stores.svc.cluster.local
requirepass $REDIS_PASSWORD
sentinel monitor acct $MASTER 6379 2
sentinel auth-pass acct $REDIS_PASSWORD
sentinel down-after-milliseconds acct 5000
sentinel failover-timeout acct 30000
sentinel parallel-syncs acct 1
CONF
exec redis-sentinel /data/sentinel.conf
