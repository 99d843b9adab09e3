#!/usr/bin/env bash
# Live-room benchmark (issue: online viewers and online fans at 100,000 viewers).
# Builds and starts Roost with its dev services and a throwaway redis-server (Debian's package,
# installed if missing), then runs LiveRoomBench: one room of 100,000 viewers (30 % fans) entering
# over a minute, heartbeats every 10 s, 5 % churn a minute, 100 dashboards polling the counts every
# second; then the room closes while 5 other rooms keep being served. Prints the dashboards' and
# the counts query's latency next to Redis SCARD on a set of the same size. Not part of ./mvnw verify.
# A smaller warm-up run (ROOM_WARMUP_VIEWERS, default 20000; 0 skips it) goes first, and the measured
# run starts once WildFly's JIT is quiet, as on a server that has been up for a while.
#   bench/live-room.sh [--viewers=100000 --enter-seconds=60 --steady-seconds=60 --dashboards=100]
set -euo pipefail
cd "$(dirname "$0")/.."
export ROOST_DATA_DIR=${ROOST_DATA_DIR:-$PWD/target/bench-room}
mkdir -p "$(dirname "$ROOST_DATA_DIR")"  # a fresh clone has no roost-server/target/ yet
export ROOST_MODE=dev ROOST_ADMIN_PASSWORD=bench-admin-password
export JBOSS_JAVA_SIZING=${JBOSS_JAVA_SIZING:--Xms1g -Xmx2g}
export GC_LOG=true # standalone.sh then logs every collection to the server's log directory
DB_PORT=${ROOST_DEV_DB_PORT:-55432}
REDIS_PORT=${BENCH_REDIS_PORT:-16379}
command -v redis-server >/dev/null || { apt-get update -q && DEBIAN_FRONTEND=noninteractive apt-get install -y -q redis-server >/dev/null; }
mkdir -p "$(dirname "$ROOST_DATA_DIR")"
./mvnw -q package -DskipTests > "$ROOST_DATA_DIR.build.log" 2>&1 || { cat "$ROOST_DATA_DIR.build.log"; exit 1; }
rm -rf "$ROOST_DATA_DIR" "$ROOST_DATA_DIR.start.log"  # a stale log would say "Roost is up" at once
mkdir -p "$ROOST_DATA_DIR"
redis-server --port "$REDIS_PORT" --bind 127.0.0.1 --save '' --appendonly no --dir "$ROOST_DATA_DIR" > "$ROOST_DATA_DIR/redis.log" 2>&1 &
REDIS=$!
bin/roost start > "$ROOST_DATA_DIR.start.log" 2>&1 &
trap 'bin/roost stop >/dev/null 2>&1 || true; kill $REDIS 2>/dev/null || true' EXIT
for _ in $(seq 1 300); do grep -q "Roost is up" "$ROOST_DATA_DIR.start.log" 2>/dev/null && break; sleep 1; done
grep -q "Roost is up" "$ROOST_DATA_DIR.start.log" || { cat "$ROOST_DATA_DIR.start.log"; exit 1; }

source bench/lib.sh
cpu_sampler "$ROOST_DATA_DIR/cpu.samples" "$ROOST_DATA_DIR/node-0/wildfly.pid" "$ROOST_DATA_DIR/devservices/pgdata" \
  "$(cat "$ROOST_DATA_DIR/devservices/devservices.pid")" "$REDIS" &
SAMPLER=$!
trap 'kill $SAMPLER 2>/dev/null; bin/roost stop >/dev/null 2>&1 || true; kill $REDIS 2>/dev/null || true' EXIT

CP="roost-server/target/test-classes:roost-server/target/classes:$(cat roost-server/target/devservices.classpath)"
bench() {
  java -Xmx1g -Xlog:gc:file="$ROOST_DATA_DIR/loadgen-gc.log" -cp "$CP" io.roost.bench.LiveRoomBench --url="$ROOST_URL" \
    --db="jdbc:postgresql://127.0.0.1:$DB_PORT/roost" --redis-port="$REDIS_PORT" "$@"
}
WARMUP_VIEWERS=${ROOM_WARMUP_VIEWERS:-20000}
if (( WARMUP_VIEWERS > 0 )); then
  echo "warm-up: $WARMUP_VIEWERS viewers, 20 s entering, 30 s steady (log: $ROOST_DATA_DIR/warmup.out)"
  bench --viewers="$WARMUP_VIEWERS" --enter-seconds=20 --steady-seconds=30 > "$ROOST_DATA_DIR/warmup.out" 2>&1
  wait_jit_quiet "$(cat "$ROOST_DATA_DIR/node-0/wildfly.pid")"
fi
bench "$@" | tee "$ROOST_DATA_DIR/bench.out"
# Cores each process kept busy in each phase the benchmark marked
HZ=$(getconf CLK_TCK)
awk '/^PHASE/ { split($3, a, "="); split($4, b, "="); print $2, a[2], b[2] }' "$ROOST_DATA_DIR/bench.out" | while read -r PHASE FROM TO; do
  read -r S W P D R M < <(cpu_between "$ROOST_DATA_DIR/cpu.samples" "$FROM" "$TO")
  awk -v p="$PHASE" -v s="$S" -v hz="$HZ" -v w="$W" -v pg="$P" -v d="$D" -v r="$R" -v m="$M" 'BEGIN {
    printf "cores busy during %s (%.0f s): WildFly %.2f, PostgreSQL %.2f, broker %.2f, redis %.2f, the rest (load generator) %.2f; whole machine %.2f\n",
      p, s, w / hz / s, pg / hz / s, d / hz / s, r / hz / s, (m - w - pg - d - r) / hz / s, m / hz / s }'
done
# The longest stop-the-world pauses of WildFly's collector, and of the load generator's (a pause
# there delays whatever it was timing), over the whole run
longest_pauses() { cat "$@" 2>/dev/null | sed -n 's/.*Pause.* \([0-9.]*\)ms$/\1/p' | sort -rn | head -5 | tr '\n' ' '; }
echo "longest WildFly GC pauses (ms): $(longest_pauses "$ROOST_DATA_DIR"/node-0/log/gc.log*)"
echo "longest load generator GC pauses (ms): $(longest_pauses "$ROOST_DATA_DIR/loadgen-gc.log")"
echo
echo "machine: $(nproc) cores, $(free -g | awk '/Mem/ {print $2}') GiB; redis $(redis-server --version | awk '{print $3}')"
echo "PostgreSQL commits: $(pg_commit_settings "$DB_PORT")"
