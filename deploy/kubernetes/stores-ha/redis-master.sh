# Sourced by redis-start.sh and sentinel-start.sh: which node the sentinels of the group `acct` name
# master. Sentinels can disagree for a while: one stopped in the middle of a failover it led, or cut
# off during one, starts again from a file that names the old master. The answer to trust is the one
# with the newest configuration, the highest config-epoch (as the sentinels settle it among
# themselves), never just the first that answers.
#   REDIS_SENTINELS   the sentinels to ask, host:port separated by spaces
#   REDIS_PASSWORD    the group's password (optional): given to redis-cli in its environment
#                     (REDISCLI_AUTH), never on a command line that `ps` shows

[ -z "${REDIS_PASSWORD:-}" ] || export REDISCLI_AUTH="$REDIS_PASSWORD"

# master_by_sentinels NEED: prints "host port" of the master in the newest configuration among the
# sentinels that answer, once at least NEED of them answer; prints nothing otherwise.
master_by_sentinels() {
  need="$1"
  answered=0
  best=""
  best_epoch=-1
  for sentinel in ${REDIS_SENTINELS:-}; do
    # `sentinel master acct` answers field, value, field, value… one per line.
    answer="$(timeout 3 redis-cli -h "${sentinel%:*}" -p "${sentinel##*:}" sentinel master acct 2>/dev/null |
      awk 'NR % 2 == 1 { key = $0; next }
        key == "ip" { ip = $0 } key == "port" { port = $0 } key == "config-epoch" { epoch = $0 }
        END { if (ip != "" && port ~ /^[0-9]+$/) print epoch + 0, ip, port }' || true)"
    [ -n "$answer" ] || continue
    answered=$((answered + 1))
    # shellcheck disable=SC2086
    set -- $answer
    if [ "$1" -gt "$best_epoch" ]; then
      best_epoch="$1"
      best="$2 $3"
    fi
  done
  if [ "$answered" -ge "$need" ] && [ -n "$best" ]; then echo "$best"; fi
  return 0
}
