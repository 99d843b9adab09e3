#!/usr/bin/env bash
# Fault: a rolling upgrade under a steady mixed load through the load balancer: each node in turn
# is drained (bin/roost restart: no new connections, its devices asked to reconnect elsewhere over
# ROOST_DRAIN_SPREAD, what they began answered), stopped and started again with the WAR the build
# holds. Checks: every chat message answered 201 is in the database once and on every device (0
# lost, 0 duplicated), no answer a 5xx but 503 with Retry-After, every device back online within
# the drain's spread + 10 s of losing its connection, presence exact, the outbox empty afterwards.
# See docs/reliability.md.
source "$(dirname "$0")/lib.sh"
if (( NODES < 2 )); then echo "rolling-upgrade needs NODES >= 2" >&2; exit 2; fi
export ROOST_DRAIN_SPREAD=${ROOST_DRAIN_SPREAD:-10s}
SPREAD_S=${ROOST_DRAIN_SPREAD%s}
start_roost
start_health_sampler
start_load rolling-upgrade --back-online-within-ms=$(( (SPREAD_S + 10) * 1000 ))
sleep "$LOAD_BEFORE"

mark fault-start
for i in $(seq 0 $((NODES - 1))); do
  echo "== restarting node $i (drained first, spread ${SPREAD_S} s)"
  started=$(now_ms)
  bin/roost restart "$i" | sed 's/^/   /'
  echo "   node $i back after $(( ($(now_ms) - started) / 1000 )) s"
done
mark fault-end
sleep "$LOAD_AFTER"
stop_load

drained=$(sql "SELECT count(*) FROM login_log WHERE event = 'kick' AND reason = 'server_shutdown'")
ack_timeouts=$(sql "SELECT count(*) FROM login_log WHERE event = 'ack_timeout'")
check drained-sessions "$(( drained > 0 ))" "$drained device sessions ended by a drain (server_shutdown), $ack_timeouts as not acknowledging"
check outbox-empty "$([[ $(sql "SELECT count(*) FROM outbox") == 0 ]] && echo 1 || echo 0)" "nothing left in the outbox after the load"
summary
