#!/usr/bin/env bash
# Device connections benchmark (issue: 20,000 logged-in WebSockets on one node, heartbeats every 30 s).
# Builds and starts Roost with its dev services, registers N users (anonymous + device token), opens N
# WebSockets (hello → login, 200 in flight) and holds them with staggered heartbeats; reports logins/s,
# heartbeat round trips, and WildFly's heap (after a full GC) and RSS per connection. Not part of
# ./mvnw verify.
#   bench/ws-connections.sh [--connections=20000 --hold=90 --in-flight=200]
set -euo pipefail
cd "$(dirname "$0")/.."
export ROOST_DATA_DIR=${ROOST_DATA_DIR:-$PWD/target/bench-ws}
export ROOST_MODE=dev ROOST_ADMIN_PASSWORD=bench-admin-password
export ROOST_SESSION_HEARTBEAT_INTERVAL=30s
# WildFly's default 512 MB heap is sized for a demo, not for 20,000 connections.
export JBOSS_JAVA_SIZING=${JBOSS_JAVA_SIZING:--Xms1g -Xmx2g}
# One descriptor per connection on each side: raise the soft limit as far as the hard one allows.
ulimit -n "$(ulimit -Hn)" 2>/dev/null || true
echo "open-file limit: $(ulimit -n) per process"
./mvnw -q package -DskipTests > "$ROOST_DATA_DIR.build.log" 2>&1 || { cat "$ROOST_DATA_DIR.build.log"; exit 1; }
rm -rf "$ROOST_DATA_DIR" "$ROOST_DATA_DIR.start.log"  # a stale log would say "Roost is up" at once
bin/roost start > "$ROOST_DATA_DIR.start.log" 2>&1 &
for _ in $(seq 1 300); do grep -q "Roost is up" "$ROOST_DATA_DIR.start.log" 2>/dev/null && break; sleep 1; done
grep -q "Roost is up" "$ROOST_DATA_DIR.start.log" || { cat "$ROOST_DATA_DIR.start.log"; bin/roost stop; exit 1; }
trap 'bin/roost stop >/dev/null 2>&1 || true' EXIT
PID=$(cat "$ROOST_DATA_DIR/wildfly.pid")

heap_used_kb() { # after a full GC: what the live objects take
  jcmd "$PID" GC.run >/dev/null
  sleep 2
  jcmd "$PID" GC.heap_info | awk '/used/ { for (i=1;i<=NF;i++) if ($i=="used") { v=$(i+1); sub("K","",v); print v; exit } }'
}
rss_kb() { awk '/VmRSS/ {print $2}' "/proc/$PID/status"; }

CP="target/test-classes:target/classes:$(cat target/devservices.classpath)"
OUT=$ROOST_DATA_DIR/bench.out
java -Xmx3g -cp "$CP" io.roost.bench.WsConnectionsBench --url=http://127.0.0.1:8080 "$@" > "$OUT" 2>&1 &
BENCH=$!
# The baseline is taken once the users exist, right before the connections open.
until grep -q "^setup:" "$OUT" 2>/dev/null || ! kill -0 $BENCH 2>/dev/null; do sleep 1; done
HEAP0=$(heap_used_kb); RSS0=$(rss_kb)
until grep -q "^READY" "$OUT" 2>/dev/null || ! kill -0 $BENCH 2>/dev/null; do sleep 1; done
sleep 5
HEAP1=$(heap_used_kb); RSS1=$(rss_kb)
wait $BENCH || true
cat "$OUT"
N=$(awk '/^RESULT/ { for (i=1;i<=NF;i++) if ($i ~ /^connections=/) { split($i,a,"="); print a[2] } }' "$OUT")
echo
echo "machine: $(nproc) cores, $(free -g | awk '/Mem/ {print $2}') GiB"
echo "WildFly heap after GC: ${HEAP0} KB before, ${HEAP1} KB with $N connections"
echo "WildFly RSS:           ${RSS0} KB before, ${RSS1} KB with $N connections"
awk -v h0="$HEAP0" -v h1="$HEAP1" -v r0="$RSS0" -v r1="$RSS1" -v n="$N" \
  'BEGIN { printf "per connection: heap %.1f KB, RSS %.1f KB\n", (h1-h0)/n, (r1-r0)/n }'
