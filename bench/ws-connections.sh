#!/usr/bin/env bash
# Device connections benchmark (issue: 20,000 logged-in WebSockets on one node, heartbeats every 30 s).
# Builds and starts Roost with its dev services, registers N users (anonymous + device token), warms the
# server up (45 s of spare users logging in and out, then one rehearsal of the measured burst: the same N
# users log in, hold 15 s and leave), opens N WebSockets (hello → login, 200 in flight, through a lean
# one-thread client) and holds them with staggered heartbeats; reports logins/s,
# heartbeat round trips, and WildFly's heap (after a full GC) and RSS per connection. Not part of
# ./mvnw verify.
#   bench/ws-connections.sh [--connections=20000 --hold=90 --in-flight=200 --warmup-seconds=45 --warmup-logins=40000 --warmup-users=2000 --rehearsals=1 --rehearsal-hold=15]
set -euo pipefail
cd "$(dirname "$0")/.."
source bench/lib.sh
export ROOST_DATA_DIR=${ROOST_DATA_DIR:-$PWD/target/bench-ws}
mkdir -p "$(dirname "$ROOST_DATA_DIR")"  # a fresh clone has no roost-server/target/ yet
export ROOST_MODE=dev ROOST_ADMIN_PASSWORD=bench-admin-password
export ROOST_SESSION_HEARTBEAT_INTERVAL=30s
# WildFly's default 512 MB heap is sized for a demo, not for 20,000 connections.
export JBOSS_JAVA_SIZING=${JBOSS_JAVA_SIZING:--Xms1g -Xmx2g}
# One descriptor per connection on each side: raise the soft limit as far as the hard one allows.
ulimit -n "$(ulimit -Hn)" 2>/dev/null || true
echo "open-file limit: $(ulimit -n) per process"
mkdir -p "$(dirname "$ROOST_DATA_DIR")"  # a fresh clone has no roost-server/target/ yet
./mvnw -q package -DskipTests > "$ROOST_DATA_DIR.build.log" 2>&1 || { cat "$ROOST_DATA_DIR.build.log"; exit 1; }
rm -rf "$ROOST_DATA_DIR" "$ROOST_DATA_DIR.start.log"  # a stale log would say "Roost is up" at once
bin/roost start > "$ROOST_DATA_DIR.start.log" 2>&1 &
for _ in $(seq 1 300); do grep -q "Roost is up" "$ROOST_DATA_DIR.start.log" 2>/dev/null && break; sleep 1; done
grep -q "Roost is up" "$ROOST_DATA_DIR.start.log" || { cat "$ROOST_DATA_DIR.start.log"; bin/roost stop; exit 1; }
trap 'bin/roost stop >/dev/null 2>&1 || true' EXIT
PID=$(cat "$ROOST_DATA_DIR/node-0/wildfly.pid")
PG_TPS=$(pgbench_upsert_tps "${ROOST_DEV_DB_PORT:-55432}" "$ROOST_DATA_DIR")  # the box's speed today

heap_used_kb() { # after a full GC: what the live objects take
  jcmd "$PID" GC.run >/dev/null
  sleep 2
  jcmd "$PID" GC.heap_info | awk '/used/ { for (i=1;i<=NF;i++) if ($i=="used") { v=$(i+1); sub("K","",v); print v; exit } }'
}
rss_kb() { awk '/VmRSS/ {print $2}' "/proc/$PID/status"; }

CP="roost-server/target/test-classes:roost-server/target/classes:$(cat roost-server/target/devservices.classpath)"
OUT=$ROOST_DATA_DIR/bench.out
GO=$ROOST_DATA_DIR/bench.go
java -Xmx3g -cp "$CP" io.roost.bench.WsConnectionsBench --url="$ROOST_URL" --go-file="$GO" "$@" > "$OUT" 2>&1 &
BENCH=$!
# The baseline is taken once the users exist and the server is warm, right before the connections open.
until grep -q "^BASELINE" "$OUT" 2>/dev/null || ! kill -0 $BENCH 2>/dev/null; do sleep 1; done
# The warm-up leaves the server's one C2 thread with a backlog (on 2 cores it compiled for most of
# the measured phase: 900 methods, 34 s of compile time in 41 s): the logins are timed once it is quiet.
wait_jit_quiet "$PID"
HEAP0=$(heap_used_kb); RSS0=$(rss_kb)
# CPU of each process over the login phase (from here to READY), per login.
DEV_PID=$(cat "$ROOST_DATA_DIR/devservices/devservices.pid")
snapshot() { # PostgreSQL's backends come and go: the ones that ended count in the postmaster's reaped children
  echo "$(cpu_ticks "$PID") $(cpu_ticks $(postgres_pids "$ROOST_DATA_DIR/devservices/pgdata")) $(cpu_ticks "$DEV_PID") $(cpu_ticks $BENCH)"
}
read -r W0 P0 D0 B0 <<< "$(snapshot)"; JG0=$(jit_seconds "$PID")
touch "$GO"  # the bench opens its connections now
until grep -q "^READY" "$OUT" 2>/dev/null || ! kill -0 $BENCH 2>/dev/null; do sleep 1; done
read -r W1 P1 D1 B1 <<< "$(snapshot)"; JG1=$(jit_seconds "$PID")
sleep 5
HEAP1=$(heap_used_kb); RSS1=$(rss_kb)
read -r W2 P2 D2 B2 <<< "$(snapshot)"  # the hold: heartbeats only, from here to HELD
touch "$GO.hold"
until grep -q "^HELD" "$OUT" 2>/dev/null || ! kill -0 $BENCH 2>/dev/null; do sleep 0.2; done
read -r W3 P3 D3 B3 <<< "$(snapshot)"
touch "$GO.held"  # the bench samples who is online, then closes its connections
wait $BENCH || true
cat "$OUT"
N=$(awk '/^RESULT/ { for (i=1;i<=NF;i++) if ($i ~ /^connections=/) { split($i,a,"="); print a[2] } }' "$OUT")
echo
echo "machine: $(nproc) cores, $(free -g | awk '/Mem/ {print $2}') GiB; pgbench single-row conditional upsert (64 clients, same database): $PG_TPS tps"
echo "PostgreSQL commits (pgbench and Roost alike): $(pg_commit_settings "${ROOST_DEV_DB_PORT:-55432}")"
echo "WildFly heap after GC: ${HEAP0} KB before, ${HEAP1} KB with $N connections"
echo "WildFly RSS:           ${RSS0} KB before, ${RSS1} KB with $N connections"
echo "CPU per login (login phase): WildFly $(cpu_us_per $((W1 - W0)) "$N") µs, PostgreSQL $(cpu_us_per $((P1 - P0)) "$N") µs," \
  "broker and name server $(cpu_us_per $((D1 - D0)) "$N") µs, load generator $(cpu_us_per $((B1 - B0)) "$N") µs"
echo "WildFly JIT compile time during the logins: $(awk -v a="$JG0" -v b="$JG1" 'BEGIN { printf "%.1f", b - a }') s"
HB=$(awk '/^RESULT/ { for (i=1;i<=NF;i++) if ($i ~ /^heartbeats=/) { split($i,a,"="); print a[2] } }' "$OUT")
echo "CPU per heartbeat (hold phase): WildFly $(cpu_us_per $((W3 - W2)) "$HB") µs, PostgreSQL $(cpu_us_per $((P3 - P2)) "$HB") µs"
awk -v h0="$HEAP0" -v h1="$HEAP1" -v r0="$RSS0" -v r1="$RSS1" -v n="$N" \
  'BEGIN { printf "per connection: heap %.1f KB, RSS %.1f KB\n", (h1-h0)/n, (r1-r0)/n }'
