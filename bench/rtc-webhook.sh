#!/usr/bin/env bash
# RTC webhook benchmark (issue: durable NCS ingestion vs pgbench on the same database).
# Builds and starts Roost with its dev services, runs pgbench (single-row conditional upsert) on the
# same PostgreSQL, then RtcWebhookBench (signed single-event POSTs, 64 connections, 30 % duplicates,
# reordered), prints both, and stops everything. Not part of ./mvnw verify.
#   bench/rtc-webhook.sh [extra RtcWebhookBench args, e.g. --events=200000 --warmup-seconds=60]
# The server is warmed up for --warmup-seconds (default 40) on a stream of its own before the timed run.
set -euo pipefail
cd "$(dirname "$0")/.."
export ROOST_DATA_DIR=${ROOST_DATA_DIR:-$PWD/target/bench-rtc}
export ROOST_AGORA_SECRET=bench-secret ROOST_MODE=dev ROOST_ADMIN_PASSWORD=bench-admin-password
# Tombstones must outlive the run's reordering window (they do by far: 600 s vs a few seconds).
export ROOST_PRESENCE_QUIT_RETENTION=${ROOST_PRESENCE_QUIT_RETENTION:-600s}
DB_PORT=${ROOST_DEV_DB_PORT:-55432}
CLIENTS=${BENCH_CLIENTS:-64}
command -v pgbench >/dev/null || { apt-get update -q && DEBIAN_FRONTEND=noninteractive apt-get install -y -q postgresql-15 >/dev/null; export PATH=$PATH:/usr/lib/postgresql/15/bin; }
rm -rf "$ROOST_DATA_DIR" "$ROOST_DATA_DIR.start.log"  # a stale log would say "Roost is up" at once
bin/roost start > "$ROOST_DATA_DIR.start.log" 2>&1 &
for _ in $(seq 1 300); do grep -q "Roost is up" "$ROOST_DATA_DIR.start.log" 2>/dev/null && break; sleep 1; done
grep -q "Roost is up" "$ROOST_DATA_DIR.start.log" || { cat "$ROOST_DATA_DIR.start.log"; bin/roost stop; exit 1; }
trap 'bin/roost stop >/dev/null 2>&1 || true' EXIT

export PGPASSWORD=roost
psql -q -h 127.0.0.1 -p "$DB_PORT" -U roost roost -c "DROP TABLE IF EXISTS bench_upsert; CREATE TABLE bench_upsert (channel_name varchar(128), uid bigint, last_client_seq bigint, online boolean, updated_at timestamptz, PRIMARY KEY (channel_name, uid))"
cat > "$ROOST_DATA_DIR/upsert.sql" <<'SQL'
\set u random(1, 5000)
\set s random(1, 1000000000)
INSERT INTO bench_upsert AS t VALUES ('ch' || (:u % 50), :u, :s, true, now())
ON CONFLICT (channel_name, uid) DO UPDATE SET last_client_seq = EXCLUDED.last_client_seq, online = EXCLUDED.online, updated_at = now()
WHERE t.last_client_seq < EXCLUDED.last_client_seq;
SQL
echo "== pgbench: single-row conditional upsert, $CLIENTS clients, 20 s"
PG_TPS=$(pgbench -n -h 127.0.0.1 -p "$DB_PORT" -U roost -c "$CLIENTS" -j 2 -T 20 -f "$ROOST_DATA_DIR/upsert.sql" roost 2>&1 | tee /dev/stderr | awk '/^tps/ {print int($3); exit}')

echo "== Roost webhook: $CLIENTS connections"
CP="target/test-classes:target/classes:$(cat target/devservices.classpath)"
java -Xmx2g -cp "$CP" io.roost.bench.RtcWebhookBench --url=http://127.0.0.1:8080 --connections="$CLIENTS" "$@" | tee "$ROOST_DATA_DIR/bench.out"
ROOST_RPS=$(awk '/^RESULT/ { for (i=1;i<=NF;i++) if ($i ~ /^requests_per_s=/) { split($i,a,"="); print a[2] } }' "$ROOST_DATA_DIR/bench.out")
psql -q -h 127.0.0.1 -p "$DB_PORT" -U roost roost -c "DROP TABLE bench_upsert"
echo
echo "machine: $(nproc) cores, $(free -g | awk '/Mem/ {print $2}') GiB"
echo "pgbench single-row conditional upsert ($CLIENTS clients): $PG_TPS tps"
echo "Roost durable webhook ($CLIENTS connections):            $ROOST_RPS requests/s"
awk -v r="$ROOST_RPS" -v p="$PG_TPS" 'BEGIN { printf "ratio Roost / pgbench: %.2f\n", r / p }'
