#!/usr/bin/env bash
# RTC webhook benchmark (issue: durable NCS ingestion vs pgbench on the same database).
# Builds and starts Roost with its dev services, runs pgbench (single-row conditional upsert) on the
# same PostgreSQL, then RtcWebhookBench (signed single-event POSTs, 64 connections, 30 % duplicates,
# reordered), prints both, and stops everything. Not part of ./mvnw verify.
#   bench/rtc-webhook.sh [extra RtcWebhookBench args, e.g. --events=200000 --warmup-seconds=60]
# The server is warmed up for --warmup-seconds (default 40) on a stream of its own before the timed run.
set -euo pipefail
cd "$(dirname "$0")/.."
source bench/lib.sh
export ROOST_DATA_DIR=${ROOST_DATA_DIR:-$PWD/target/bench-rtc}
mkdir -p "$(dirname "$ROOST_DATA_DIR")"  # a fresh clone has no roost-server/target/ yet
export ROOST_AGORA_SECRET=bench-secret ROOST_MODE=dev ROOST_ADMIN_PASSWORD=bench-admin-password
# Tombstones must outlive the run's reordering window (they do by far: 600 s vs a few seconds).
export ROOST_PRESENCE_QUIT_RETENTION=${ROOST_PRESENCE_QUIT_RETENTION:-600s}
DB_PORT=${ROOST_DEV_DB_PORT:-55432}
CLIENTS=${BENCH_CLIENTS:-64}
rm -rf "$ROOST_DATA_DIR" "$ROOST_DATA_DIR.start.log"  # a stale log would say "Roost is up" at once
bin/roost start > "$ROOST_DATA_DIR.start.log" 2>&1 &
for _ in $(seq 1 300); do grep -q "Roost is up" "$ROOST_DATA_DIR.start.log" 2>/dev/null && break; sleep 1; done
grep -q "Roost is up" "$ROOST_DATA_DIR.start.log" || { cat "$ROOST_DATA_DIR.start.log"; bin/roost stop; exit 1; }
trap 'bin/roost stop >/dev/null 2>&1 || true' EXIT

PG_TPS=$(pgbench_upsert_tps "$DB_PORT" "$ROOST_DATA_DIR" "$CLIENTS" 20)

echo "== Roost webhook: $CLIENTS connections"
CP="roost-server/target/test-classes:roost-server/target/classes:$(cat roost-server/target/devservices.classpath)"
java -Xmx2g -cp "$CP" io.roost.bench.RtcWebhookBench --url="$ROOST_URL" --connections="$CLIENTS" "$@" | tee "$ROOST_DATA_DIR/bench.out"
ROOST_RPS=$(awk '/^RESULT/ { for (i=1;i<=NF;i++) if ($i ~ /^requests_per_s=/) { split($i,a,"="); print a[2] } }' "$ROOST_DATA_DIR/bench.out")
echo
echo "machine: $(nproc) cores, $(free -g | awk '/Mem/ {print $2}') GiB"
echo "pgbench single-row conditional upsert ($CLIENTS clients): $PG_TPS tps"
echo "PostgreSQL commits (pgbench and Roost alike): $(pg_commit_settings "$DB_PORT")"
echo "Roost durable webhook ($CLIENTS connections):            $ROOST_RPS requests/s"
awk -v r="$ROOST_RPS" -v p="$PG_TPS" 'BEGIN { printf "ratio Roost / pgbench: %.2f\n", r / p }'
