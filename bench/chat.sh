#!/usr/bin/env bash
# One-to-one chat benchmark (issue 24): N devices online on WebSockets, users in chatting pairs (some
# with a second device), every pair chatting at a paced aggregate rate; every device acks every
# chatMsg and reports reads. Builds and starts Roost with its dev services, runs pgbench on the same
# database, then ChatBench (warm-up, JIT quiet, measured phase, outcome check in PostgreSQL); then the
# same workload against ejabberd 23.01 (Debian's package, mod_mam on) with XmppChatBench. Prints the
# Roost block, the ejabberd block and the pgbench baseline. Not part of ./mvnw verify.
#   bench/chat.sh [--peer=ejabberd|none] [--users=10000 --second-device=0.1 --rate=5000 --duration=60
#                  --warmup=30 --drain=60 --drop=0 --read-interval=10 --max-in-flight=20000 --settle=45 --seed=N]
#                 [--wal-segments=192: write-ahead log segments recycled ahead before the run; 0: a new cluster's]
# env: ROOST_PORT_OFFSET (0), ROOST_DEV_DB_PORT (55432), ROOST_DEV_NAMESRV_PORT, ROOST_DEV_BROKER_PORT,
#      ROOST_DATA_DIR (target/bench-chat), JBOSS_JAVA_SIZING (-Xms1g -Xmx2g), EJABBERD_PORT (5222 + offset)
set -euo pipefail
cd "$(dirname "$0")/.."
source bench/lib.sh
PEER=ejabberd
WAL_SEGMENTS=192  # 3 GB: more than a default run writes (about 1.5 GB)
ARGS=()
for a in "$@"; do
  case $a in
    --peer=*) PEER=${a#--peer=} ;;
    --wal-segments=*) WAL_SEGMENTS=${a#--wal-segments=} ;;
    *) ARGS+=("$a") ;;
  esac
done
# One seed for both generators, so Roost and ejabberd get the same pairs and the same stream of senders.
[[ " ${ARGS[*]} " == *" --seed="* ]] || ARGS+=("--seed=$((RANDOM * 32768 + RANDOM))")
export ROOST_DATA_DIR=${ROOST_DATA_DIR:-$PWD/target/bench-chat}
mkdir -p "$(dirname "$ROOST_DATA_DIR")"
export ROOST_MODE=dev ROOST_ADMIN_PASSWORD=bench-admin-password
export ROOST_SESSION_HEARTBEAT_INTERVAL=30s
# Both JVMs log their collections: a pause of the load generator delays the frames it times as much
# as one of WildFly's, so the output gives both.
export JBOSS_JAVA_SIZING="${JBOSS_JAVA_SIZING:--Xms1g -Xmx2g} -Xlog:gc:file=$ROOST_DATA_DIR.wildfly-gc.log:timemillis"
DB_PORT=${ROOST_DEV_DB_PORT:-55432}
ulimit -n "$(ulimit -Hn)" 2>/dev/null || true
echo "open-file limit: $(ulimit -n) per process"
if [[ ${ROOST_SKIP_BUILD:-} != 1 ]]; then
  ./mvnw -q package -DskipTests > "$ROOST_DATA_DIR.build.log" 2>&1 || { cat "$ROOST_DATA_DIR.build.log"; exit 1; }
fi
export ROOST_SKIP_BUILD=1
CP="roost-server/target/test-classes:roost-server/target/classes:$(cat roost-server/target/devservices.classpath)"
OUT=$ROOST_DATA_DIR.out
GO=$ROOST_DATA_DIR.go
PIDS_TO_STOP=()
cleanup() {
  local p
  for p in "${PIDS_TO_STOP[@]}"; do kill "$p" 2>/dev/null || true; done
  bin/roost stop >/dev/null 2>&1 || true
}
trap cleanup EXIT

field() { awk -v k="$2" '/^RESULT/ { for (i=1;i<=NF;i++) { split($i,a,"="); if (a[1]==k) print a[2] } }' "$1"; }

# ---------------------------------------------------------------- Roost
BOX=$(box_gauge "$CP")  # on a quiet box, before anything of the run starts
rm -rf "$ROOST_DATA_DIR" "$ROOST_DATA_DIR.wildfly-gc.log" "$ROOST_DATA_DIR.generator-gc.log" "$ROOST_DATA_DIR.start.log" "$GO" "$GO.heap" "$OUT" "$ROOST_DATA_DIR.jstack" "$ROOST_DATA_DIR.pgwait" "$ROOST_DATA_DIR".threads-* "$ROOST_DATA_DIR".runq-*
bin/roost start > "$ROOST_DATA_DIR.start.log" 2>&1 &
for _ in $(seq 1 300); do grep -q "Roost is up" "$ROOST_DATA_DIR.start.log" 2>/dev/null && break; sleep 1; done
grep -q "Roost is up" "$ROOST_DATA_DIR.start.log" || { cat "$ROOST_DATA_DIR.start.log"; exit 1; }
PID=$(cat "$ROOST_DATA_DIR/node-0/wildfly.pid")
DEV_PID=$(cat "$ROOST_DATA_DIR/devservices/devservices.pid")
PGDATA=$ROOST_DATA_DIR/devservices/pgdata
WAL_READY=$(pg_wal_recycled "$DB_PORT" "$WAL_SEGMENTS")  # before pgbench: both measure the database in service
PG_TPS=$(pgbench_upsert_tps "$DB_PORT" "$ROOST_DATA_DIR")  # the box's speed today
PG_COMMIT=$(pg_commit_settings "$DB_PORT")

echo "== Roost: chat"
java -Xms4g -Xmx4g -Xmn3g -Xlog:gc:file="$ROOST_DATA_DIR.generator-gc.log":timemillis -cp "$CP" io.roost.bench.ChatBench --url="$ROOST_URL" --go-file="$GO" \
  --db-url="jdbc:postgresql://127.0.0.1:$DB_PORT/roost" "${ARGS[@]}" > "$OUT" 2>&1 &
BENCH=$!
PIDS_TO_STOP+=("$BENCH")
cpu_sampler "$ROOST_DATA_DIR.cpu" "$ROOST_DATA_DIR/node-0/wildfly.pid" "$PGDATA" "$DEV_PID" "$BENCH" &
SAMPLER=$!
PIDS_TO_STOP+=("$SAMPLER")
until grep -q "^WARMED" "$OUT" 2>/dev/null || ! kill -0 $BENCH 2>/dev/null; do sleep 1; done
[[ ${CHAT_SKIP_JIT_WAIT:-} == 1 ]] || wait_jit_quiet "$PID"  # CHAT_SKIP_JIT_WAIT=1 for smoke runs
# Where WildFly's threads are and what PostgreSQL's active backends wait on, under the full load but
# before the measured phase: a thread dump stops every WildFly thread at a safepoint, and on a
# saturated box the backlog of that pause took seconds to drain, in the measured phase's tenth second.
jstack "$PID" > "$ROOST_DATA_DIR.jstack" 2>/dev/null || true
for _ in $(seq 1 20); do  # 20 samples over 10 s, counted by wait event and statement
  PGPASSWORD=roost psql -h 127.0.0.1 -p "$DB_PORT" -U roost roost -Atc "SELECT coalesce(wait_event_type, 'CPU') || ':'
    || coalesce(wait_event, '-') || ' ' || left(regexp_replace(query, '\s+', ' ', 'g'), 60) FROM pg_stat_activity
    WHERE state = 'active' AND backend_type = 'client backend' AND pid <> pg_backend_pid()" 2>/dev/null; sleep 0.5
done | sort | uniq -c | sort -rn > "$ROOST_DATA_DIR.pgwait"
# WildFly's heap every second, timestamped: what it holds (eden + survivors + old) and what it allocates.
heap_sampler "$ROOST_DATA_DIR.jstat" "$PID" &
JSTAT=$!
PIDS_TO_STOP+=("$JSTAT")
# How long each process's threads wait for a CPU (schedstat), at the start and the end of the measured phase.
run_queue_snapshot() {
  postgres_pids_of "$PGDATA"
  { schedstat_snapshot WildFly "$PID"; schedstat_snapshot PostgreSQL "${PIDS[@]}"; schedstat_snapshot broker "$DEV_PID"
    schedstat_snapshot load_generator "$BENCH"; } > "$1"
}
wal_lsn() { PGPASSWORD=roost psql -h 127.0.0.1 -p "$DB_PORT" -U roost roost -Atc "SELECT pg_current_wal_lsn()" 2>/dev/null || echo "0/0"; }
touch "$GO"
until grep -q "^MEASURE_START" "$OUT" 2>/dev/null || ! kill -0 $BENCH 2>/dev/null; do sleep 0.2; done
WAL_FROM=$(wal_lsn)
thread_ticks "$PID" > "$ROOST_DATA_DIR.threads-start"
run_queue_snapshot "$ROOST_DATA_DIR.runq-start"
until grep -q "^MEASURE_END" "$OUT" 2>/dev/null || ! kill -0 $BENCH 2>/dev/null; do sleep 0.2; done
thread_ticks "$PID" > "$ROOST_DATA_DIR.threads-end"
run_queue_snapshot "$ROOST_DATA_DIR.runq-end"
WAL_TO=$(wal_lsn)
kill "$JSTAT" 2>/dev/null || true
until grep -q "^SETTLED" "$OUT" 2>/dev/null || ! kill -0 $BENCH 2>/dev/null; do sleep 1; done
jcmd "$PID" GC.run >/dev/null 2>&1 || true; sleep 2
HEAP_LIVE=$(jcmd "$PID" GC.heap_info 2>/dev/null | awk '/used/ { for (i=1;i<=NF;i++) if ($i=="used") { v=$(i+1); sub("K","",v); print int(v/1024); exit } }')
touch "$GO.heap"
wait "$BENCH" || true
kill "$SAMPLER" 2>/dev/null || true
cat "$OUT"
FROM=$(awk '/^MEASURE_START/ {print $2}' "$OUT"); TO=$(awk '/^MEASURE_END/ {print $2}' "$OUT")
read -r SECS W P D B M <<< "$(cpu_between "$ROOST_DATA_DIR.cpu" "$FROM" "$TO")"
N=$(awk -v r="$(field "$OUT" sends_per_s)" -v s="$SECS" 'BEGIN { printf "%d", r * s }')
HEAP_PEAK=$(awk '$1 ~ /^[0-9.]+$/ { u = ($4 + $5 + $7 + $9) / 1024; if (u > m) m = u; s += u; n++ } END { printf "peak %d MB, mean %d MB", m, (n ? s / n : 0) }' "$ROOST_DATA_DIR.jstat")
ALLOC_KB=$(eden_kb_between "$ROOST_DATA_DIR.jstat" "$FROM" "$TO")
HZ=$(getconf CLK_TCK)
# What a message and a conversation cost on disk (heap and indexes, both timeline copies), for docs/scale.md.
STORAGE=$(PGPASSWORD=roost psql -h 127.0.0.1 -p "$DB_PORT" -U roost roost -Atc "
  WITH t AS (SELECT sum(pg_total_relation_size(inhrelid)) AS bytes FROM pg_inherits WHERE inhparent = 'chat_timeline'::regclass)
  SELECT (SELECT bytes FROM t)::bigint / greatest(1, (SELECT count(DISTINCT msg_id) FROM chat_timeline)) || ' bytes per message (both timeline rows with their indexes), '
    || pg_total_relation_size('chat_conversation') / greatest(1, (SELECT count(*) FROM chat_conversation)) || ' per conversation side, '
    || pg_total_relation_size('presence_device_route') / greatest(1, (SELECT count(*) FROM presence_device_route)) || ' per online device route'" 2>/dev/null || echo "not measured")
# The write-ahead log the measured phase wrote (from the go signal to its end, so it includes the
# sends in flight at the start), per message answered in it: what a primary must write and ship.
WAL_BYTES=$(PGPASSWORD=roost psql -h 127.0.0.1 -p "$DB_PORT" -U roost roost -Atc "SELECT pg_wal_lsn_diff('$WAL_TO', '$WAL_FROM')" 2>/dev/null || echo 0)
WAL_PER_MESSAGE=$(awk -v b="$WAL_BYTES" -v n="$N" 'BEGIN { printf "%d", (n > 0 ? b / n : 0) }')
# Where those bytes go: the records of the tenth in the middle of the measured phase, decoded.
read -r WAL_SLICE_FROM WAL_SLICE_TO <<< "$(PGPASSWORD=roost psql -h 127.0.0.1 -p "$DB_PORT" -U roost roost -At -F ' ' -c "
  SELECT pg_lsn('$WAL_FROM') + round($WAL_BYTES * 0.45), pg_lsn('$WAL_FROM') + round($WAL_BYTES * 0.55)" 2>/dev/null)"
WAL_PARTS=$(wal_by_relation "$DB_PORT" "$WAL_SLICE_FROM" "$WAL_SLICE_TO" "$WAL_PER_MESSAGE" 2>/dev/null || echo "    not measured")
ROOST_BLOCK=$(cat <<EOT
Roost ($(field "$OUT" devices) devices, $(field "$OUT" pairs) pairs, offered $(field "$OUT" offered_per_s) msg/s):
  durable sends/s (chatOpRet after commit): $(field "$OUT" sends_per_s)
  send→answer p50 $(field "$OUT" answer_p50_ms) ms, p99 $(field "$OUT" answer_p99_ms) ms; send→push p50 $(field "$OUT" push_p50_ms) ms, p99 $(field "$OUT" push_p99_ms) ms
  CPU per message: WildFly $(cpu_us_per "$W" "$N") µs, PostgreSQL $(cpu_us_per "$P" "$N") µs, broker $(cpu_us_per "$D" "$N") µs, load generator $(cpu_us_per "$B" "$N") µs; machine busy $(awk -v m="$M" -v s="$SECS" -v hz="$HZ" 'BEGIN { printf "%.2f", m / hz / s }') of $(nproc) cores
  WildFly heap: $HEAP_PEAK during the measured phase, $(awk -v k="$ALLOC_KB" -v n="$N" 'BEGIN { printf "%.1f", (n > 0 ? k / n : 0) }') KB allocated per message; $HEAP_LIVE MB live after a full GC with every device connected
  WildFly's CPU by thread in the measured phase (share of one core): $(thread_cpu_between "$ROOST_DATA_DIR.threads-start" "$ROOST_DATA_DIR.threads-end")
  waiting for a CPU in the measured phase (the mean wait each time a thread became runnable, and the waits per second of CPU): $(run_queue_between "$ROOST_DATA_DIR.runq-start" "$ROOST_DATA_DIR.runq-end")
  stop-the-world pauses in the measured phase: WildFly $(gc_pauses_between "$ROOST_DATA_DIR.wildfly-gc.log" "$FROM" "$TO"), load generator $(gc_pauses_between "$ROOST_DATA_DIR.generator-gc.log" "$FROM" "$TO")
  storage: $STORAGE; WAL $WAL_PER_MESSAGE bytes per message in the measured phase
  WAL per message by relation and record type (the tenth in the middle of the measured phase):
$WAL_PARTS
  outcome: $(field "$OUT" outcome) (lost $(field "$OUT" lost), duplicated $(field "$OUT" dup), db check ok: $(field "$OUT" db_ok))
EOT
)
bin/roost stop >/dev/null 2>&1 || true

# ---------------------------------------------------------------- ejabberd
EJ_BLOCK="ejabberd: skipped (--peer=none)"
if [[ $PEER == ejabberd ]]; then
  source bench/ejabberd.sh
  EJ_BLOCK=$(run_ejabberd "${ARGS[@]}")
fi

echo
echo "machine: $(nproc) cores, $(free -g | awk '/Mem/ {print $2}') GiB"
echo "pgbench single-row conditional upsert (64 clients, same database): $PG_TPS tps"
echo "box gauge (quiet, before the run): $BOX"
echo "PostgreSQL commits (pgbench and Roost alike): $PG_COMMIT"
echo "write-ahead log: $WAL_READY recycled 16 MB segments ahead at the start (--wal-segments=$WAL_SEGMENTS)"
echo "$ROOST_BLOCK"
echo "$EJ_BLOCK"
