#!/usr/bin/env bash
# Fault: the RocketMQ broker stopped for OUTAGE seconds (default 60) under a steady mixed load
# (DevServices broker-stop: its port refuses connections; broker-start brings it back on the same
# store). Checks: no request that needs no broker fails; health reports the broker down, then up;
# the outbox sends everything it held within 10 s of the broker's return; MQTT notifications put on
# the broker after its return are applied with exact presence; chat, Agora and device presence as
# acknowledged. See docs/reliability.md.
source "$(dirname "$0")/lib.sh"
OUTAGE=${OUTAGE:-60}
start_roost
start_health_sampler
start_load broker-outage
sleep "$LOAD_BEFORE"

echo "== stopping the broker for $OUTAGE s"
mark fault-start
dev broker-stop
sleep "$OUTAGE"
held=$(sql "SELECT count(*) FROM outbox")
dev broker-start
mark fault-end
back=$(cat "$OUT/fault-end")
# Every row the outbox held at the broker's return: gone once sent.
drained=
for _ in $(seq 1 300); do
  left=$(sql "SELECT count(*) FROM outbox WHERE created_at <= to_timestamp($back / 1000.0)")
  if [[ $left == 0 ]]; then drained=$(awk -v a="$back" -v b="$(now_ms)" 'BEGIN { printf "%.1f", (b - a) / 1000 }'); break; fi
  sleep 0.2
done
sleep "$LOAD_AFTER"
stop_load

check outbox-delivered-within-10s "$(awk -v d="${drained:-999}" 'BEGIN { print (d <= 10) ? 1 : 0 }')" \
  "the outbox held $held messages when the broker came back; all sent ${drained:-never (60 s)} s after its return"
check_outage_health "$back" broker broker-down rocketmq
# A broker outage is not the devices' fault: pushes for another node's devices wait on their node
# for the broker and then arrive, so no device that kept its connection is ended as not acknowledging.
ack_timeouts=$(sql "SELECT count(*) FROM login_log WHERE event = 'ack_timeout'")
check no-ack-timeout "$(( ack_timeouts == 0 ))" "$ack_timeouts device sessions ended as not acknowledging (reconnections: see devices-catch-up)"
summary
