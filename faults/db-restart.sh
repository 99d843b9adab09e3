#!/usr/bin/env bash
# Fault: PostgreSQL stopped (a fast shutdown: every session cut off) for OUTAGE seconds (default
# 20) under a steady mixed load, then started again (DevServices db-stop / db-start). Checks: every
# failure is a 503 service-unavailable with Retry-After (a device: error server-busy), never a 500
# or a stack trace; every stream succeeds again within 10 s of the database's return; nothing
# acknowledged is lost (chat in both timelines, Agora and MQTT presence exact, devices back online
# and caught up). See docs/reliability.md.
source "$(dirname "$0")/lib.sh"
OUTAGE=${OUTAGE:-20}
start_roost
start_health_sampler
start_load db-restart
sleep "$LOAD_BEFORE"

echo "== stopping PostgreSQL for $OUTAGE s"
mark fault-start
dev db-stop
sleep "$OUTAGE"
dev db-start
mark fault-end
back=$(cat "$OUT/fault-end")
sleep "$LOAD_AFTER"
stop_load

if health_down_between "$(cat "$OUT/fault-start")" "$back" db-down; then
  check health-db-down 1 "every node's /api/health answered 503 with checks.database down during the outage"
else
  check health-db-down 0 "no health sample with every node reporting the database down"
fi
up=$(health_back_after "$back")
check health-up-again "$(awk -v u="${up:-999}" 'BEGIN { print (u <= 10) ? 1 : 0 }')" "every node healthy ${up:-never} s after the database's return"
check outbox-empty "$([[ $(sql "SELECT count(*) FROM outbox") == 0 ]] && echo 1 || echo 0)" "nothing left in the outbox after the load"
summary
