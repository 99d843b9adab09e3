#!/usr/bin/env bash
# Fault: kill -9 of node 1 (of NODES >= 2) under a steady mixed load through the load balancer.
# Checks: every notification answered 200 and every chat message answered 201 is in the database,
# once; clients that resend what got no answer (as NCS and devices do) converge to exact presence;
# the dead node's devices reconnect through the load balancer to the survivor and catch up with
# nothing missing; the survivor keeps answering, relays what the dead node committed, and its
# node sweep leaves no route on the dead node. See docs/reliability.md.
source "$(dirname "$0")/lib.sh"
if (( NODES < 2 )); then echo "kill-node needs NODES >= 2" >&2; exit 2; fi
start_roost
start_health_sampler
start_load kill-node
sleep "$LOAD_BEFORE"

victim=$(node_pid 1)
echo "== kill -9 node 1 (WildFly pid $victim)"
mark fault-start
kill -9 "$victim"
mark fault-end
sleep "$LOAD_AFTER"
stop_load

alive=$(awk -v from="$(cat "$OUT/fault-end")" '$1 >= from && $2 != "200" { bad++ } $1 >= from { n++ } END { print (n > 0 && bad == 0) ? 1 : 0 }' "$OUT/health")
check survivor-healthy "$alive" "node 0 answered /api/health 200 in every sample after the kill"
check outbox-empty "$([[ $(sql "SELECT count(*) FROM outbox") == 0 ]] && echo 1 || echo 0)" "nothing left in the outbox after the load (the survivor's relay timer sent what the dead node had committed)"
# The survivor's node sweep expires the dead node's routes within 35 s of the kill (those its
# devices did not replace first by logging in again on the survivor).
# Sampled at least once: the load's convergence can outlast the 40 s, and the check then says
# when it looked.
dead_node_routes() { sql "SELECT count(*) FROM presence_device_route WHERE node_id = 1"; }
left=$(dead_node_routes)
while [[ $left != 0 ]] && (( $(now_ms) - $(cat "$OUT/fault-end") < 40000 )); do
  sleep 1
  left=$(dead_node_routes)
done
check dead-node-routes-gone "$([[ $left == 0 ]] && echo 1 || echo 0)" \
  "routes left on node 1 $(( ($(now_ms) - $(cat "$OUT/fault-end")) / 1000 )) s after the kill: $left ($(sql "SELECT count(*) FROM login_log WHERE node_id = 1 AND event = 'node_lost'") expired as node_lost by the survivor)"
summary
