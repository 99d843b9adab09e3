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

check_outage_health "$back" database db-down database
summary
