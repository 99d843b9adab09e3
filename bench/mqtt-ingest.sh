#!/usr/bin/env bash
# MQTT status ingestion benchmark: a warm-up of 250,000 notifications, then the measured 500,000
# (each: connect/close pairs over 50,000 client ids, 20 % duplicated, scrambled) are put on the
# real broker first; then Roost starts and its consumers drain the backlog; the figure is events/s
# from the end of the warm-up to the last (the cold rate, from the first, is printed too), and
# every client is checked against the oracle. Not part of ./mvnw verify.
#   bench/mqtt-ingest.sh [--events=N --clients=N --warmup=N]
# Ports as for bin/roost: ROOST_DEV_DB_PORT (55432), ROOST_DEV_NAMESRV_PORT (19876),
# ROOST_DEV_BROKER_PORT (10911), ROOST_PORT_OFFSET (0: http 8080); SEED fixes the stream.
# BROKER_PULL_MAX (1024): messages one pull may return (the broker's
# maxTransferCountOnMessageInMemory; 32 is RocketMQ's default and caps every batch at 32).
set -euo pipefail
cd "$(dirname "$0")/.."
source bench/lib.sh
DIR=$PWD/target/bench-mqtt
SEED=${SEED:-$RANDOM$RANDOM}
DB_PORT=${ROOST_DEV_DB_PORT:-55432}
NAMESRV_PORT=${ROOST_DEV_NAMESRV_PORT:-19876}
BROKER_PORT=${ROOST_DEV_BROKER_PORT:-10911}
HTTP_PORT=$((8080 + ${ROOST_PORT_OFFSET:-0}))
BROKER_PULL_MAX=${BROKER_PULL_MAX:-1024}
rm -rf "$DIR"; mkdir -p "$DIR"
./mvnw -q package -DskipTests > "$DIR/build.log" 2>&1
CP="roost-server/target/test-classes:roost-server/target/classes:$(cat roost-server/target/devservices.classpath)"
java -cp roost-server/target/test-classes io.roost.devservices.DevServices start --fresh --dir="$DIR/devservices" \
  --db-port=$DB_PORT --namesrv-port=$NAMESRV_PORT --broker-port=$BROKER_PORT \
  --broker-pull-max="$BROKER_PULL_MAX" --classpath-file=roost-server/target/devservices.classpath
export ROOST_DATA_DIR=$DIR/roost ROOST_MODE=dev ROOST_ADMIN_PASSWORD=bench-admin-password
export ROOST_DB_URL=jdbc:postgresql://127.0.0.1:$DB_PORT/roost ROOST_ROCKETMQ_NAMESRV=127.0.0.1:$NAMESRV_PORT
export ROOST_MQTT_STATUS_TOPIC=GID_BENCH_MQTT ROOST_MQTT_CONSUMER_GROUP=roost-bench-mqtt-$SEED
cleanup() {
  [[ -z ${SAMPLER:-} ]] || kill "$SAMPLER" 2>/dev/null || true
  bin/roost stop >/dev/null 2>&1 || true
  java -cp roost-server/target/test-classes io.roost.devservices.DevServices stop --dir="$DIR/devservices" >/dev/null 2>&1 || true
}
trap cleanup EXIT

PG_TPS=$(pgbench_upsert_tps "$DB_PORT" "$DIR")  # the box's speed today
echo "== producing (seed $SEED)"
java -Xmx2g -cp "$CP" io.roost.bench.MqttIngestBench --phase=produce --seed="$SEED" \
  --namesrv=127.0.0.1:$NAMESRV_PORT "$@" | tee "$DIR/produce.out"
produced() { awk -v k="$1" '/^PRODUCED/ { for (i=1;i<=NF;i++) if (index($i, k "=") == 1) { split($i,a,"="); print a[2] } }' "$DIR/produce.out"; }
MESSAGES=$(produced messages) WARMUP=$(produced warmup)

wal_lsn() { PGPASSWORD=roost psql -Atq -h 127.0.0.1 -p "$DB_PORT" -U roost roost -c "SELECT pg_current_wal_lsn() - '0/0'"; }
WAL0=$(wal_lsn)
echo "== starting Roost on the backlog"
bin/roost start > "$DIR/start.log" 2>&1 &
cpu_sampler "$DIR/cpu.samples" "$ROOST_DATA_DIR/node-0/wildfly.pid" "$DIR/devservices/pgdata" "$(cat "$DIR/devservices/devservices.pid")" &
SAMPLER=$!
java -Xmx1g -cp "$CP" io.roost.bench.MqttIngestBench --phase=measure --seed="$SEED" --messages="$MESSAGES" --warmup-messages="$WARMUP" \
  --url=http://127.0.0.1:$HTTP_PORT "$@" \
  | tee "$DIR/measure.out"
kill $SAMPLER; SAMPLER=
# CPU per event of each process between the first and the last applied message
read -r FROM TO N < <(awk '/^WINDOW/ { split($2,a,"="); split($3,b,"="); split($4,c,"="); print a[2], b[2], c[2] }' "$DIR/measure.out")
read -r SECONDS_ W P D _ M < <(cpu_between "$DIR/cpu.samples" "$FROM" "$TO")
echo "CPU per event: WildFly $(cpu_us_per "$W" "$N") µs, PostgreSQL $(cpu_us_per "$P" "$N") µs, broker and name server $(cpu_us_per "$D" "$N") µs;" \
  "machine busy $(awk -v m="$M" -v s="$SECONDS_" -v hz="$(getconf CLK_TCK)" 'BEGIN { printf "%.2f", m / hz / s }') of $(nproc) cores"
echo "WAL written from the start of Roost to the end (warm-up included): $(( ($(wal_lsn) - WAL0) / MESSAGES )) bytes per event"
echo "machine: $(nproc) cores, $(free -g | awk '/Mem/ {print $2}') GiB; broker pull max $BROKER_PULL_MAX"
echo "pgbench single-row conditional upsert (64 clients, same database, before the run): $PG_TPS tps"
echo "PostgreSQL commits (pgbench and Roost alike): $(pg_commit_settings "$DB_PORT")"
