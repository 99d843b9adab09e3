# Sourced by the benchmarks. This box is shared and its speed moves from day to day (pgbench on the
# same database has measured 7,000 and 14,000 tps on different days), so a figure is best given
# next to a baseline from the same run, and as CPU per operation per process.
# The load generators (io.roost.bench, src/bench/java) and the dev-services launcher
# (src/devservices/java) are compiled with the tests: the scripts run them from target/test-classes.
#   throwaway_pg PORT       a scratch PostgreSQL 15 on PORT, removed on exit (sets BIN and DIR)
#   throwaway_pg_round FILE CLIENTS SECONDS
#                           pgbench running FILE there after a checkpoint: "tps transactions WAL_bytes"
#   pgbench_upsert_tps PORT DIR [CLIENTS] [SECONDS]
#                           tps of a single-row conditional upsert (the shape of a presence write)
#   pg_wal_recycled PORT SEGMENTS
#                           write-ahead log segments made and recycled ahead, as in a database in
#                           service (a new cluster zero-fills each one as a commit enters it)
#   wal_by_relation PORT FROM TO BYTES_PER_MESSAGE [TOP]
#                           what the write-ahead log between two LSNs holds, by relation (partitions
#                           under their table's name) and record type, per message: the TOP (14) largest
#   pg_commit_settings PORT PostgreSQL's fsync and synchronous_commit as the server runs them (every
#                           figure is measured with both on, as in production; the dev services' default)
#   cpu_ticks PID...        utime+stime of those processes plus their reaped children, in clock ticks
#   postgres_pids PGDATA    the postmaster and its live children
#   cpu_us_per TICKS N      microseconds of CPU per operation
#   cpu_sampler FILE WILDFLY_PIDFILE PGDATA DEV_PID [OTHER_PID]
#                           every 0.5 s until killed: epoch ms, then CPU ticks of WildFly, PostgreSQL,
#                           the dev services JVM (broker, name server), OTHER_PID, and the whole machine
#   cpu_between FILE FROM_MS TO_MS
#                           seconds and tick deltas of each of those columns over [FROM_MS, TO_MS]
#   heap_sampler FILE PID   (run in the background; $! is jstat's pid) every second until killed:
#                           jstat -gc -t of that JVM, after a first line "# t0 MS" (the JVM's start, epoch ms)
#   eden_kb_between FILE FROM_MS TO_MS
#                           KB that JVM allocated in eden over [FROM_MS, TO_MS]: nearly all of what it
#                           allocates, and what its young collections pay for
#   gc_pauses_between FILE FROM_MS TO_MS
#                           the stop-the-world pauses a JVM logged (-Xlog:gc:file=FILE:timemillis) over
#                           [FROM_MS, TO_MS]: "N (X ms in all, longest Y ms)"
#   thread_ticks PID        one line per thread of that process: "epoch_ms tid ticks name" (utime+stime)
#   thread_cpu_between A B [TOP]
#                           from two thread_ticks snapshots: the CPU of each group of threads (a name
#                           without its number: "default I/O", "G1 Refine") between them, in percent of
#                           one core, the TOP (8) largest: where a JVM's CPU goes, by thread
#   schedstat_snapshot NAME PID...
#                           one line per thread of those processes: "NAME tid run_ns wait_ns slices" (from
#                           /proc/PID/task/TID/schedstat: time on a CPU, time runnable but waiting for one,
#                           time slices run); an "_" in NAME prints as a space
#   run_queue_between A B   from two schedstat snapshots, per NAME (threads in both): the mean wait for a
#                           CPU each time a thread became runnable, and the waits per second of CPU:
#                           what a box near its limit adds to every hop of a request
#   jit_seconds PID         the JVM's total JIT compile time so far, in seconds
#   wait_jit_quiet PID      waits (at most 180 s) until the JVM's compile time grows < 0.2 s in 3 s

# Roost's HTTP address as bin/roost starts it (ROOST_PORT_OFFSET moves every port, as for a second node).
ROOST_URL="http://127.0.0.1:$((8080 + ${ROOST_PORT_OFFSET:-0}))"

# A throwaway PostgreSQL 15 cluster (Debian's, run as the postgres user) in a temporary directory on
# port $1, with the dev services' settings that matter to a statement's cost and synchronous_commit
# off (the rows, not the fsync, are timed); stopped and removed when the script exits. Sets BIN (the
# server's binaries) and DIR (the directory, for the script's own files too), and makes psql (quiet,
# unaligned, stopping at the first error) and pgbench run there as postgres.
throwaway_pg() {
  BIN=/usr/lib/postgresql/15/bin
  [[ -x $BIN/pgbench ]] || { apt-get update -q && DEBIAN_FRONTEND=noninteractive apt-get install -y -q postgresql-15 >/dev/null; }
  DIR=$(mktemp -d)
  chown postgres "$DIR"
  trap throwaway_pg_remove EXIT
  as_postgres "$BIN/initdb" -D "$DIR/data" -A trust >/dev/null
  as_postgres "$BIN/pg_ctl" -D "$DIR/data" -l "$DIR/pg.log" -w \
    -o "-p $1 -k $DIR -c shared_buffers=256MB -c max_wal_size=4GB -c synchronous_commit=off" start >/dev/null
  THROWAWAY_PG_PORT=$1
  psql() { "$BIN/psql" -h 127.0.0.1 -p "$THROWAWAY_PG_PORT" -U postgres -v ON_ERROR_STOP=1 -qAt "$@"; }
  pgbench() { "$BIN/pgbench" -n -h 127.0.0.1 -p "$THROWAWAY_PG_PORT" -U postgres "$@" postgres; }
}
# One measured round on the throwaway cluster: a checkpoint first (every round pays the full-page
# images a first write after one costs), then pgbench running $1 with $2 clients for $3 s. Prints
# its tps, its transactions and the write-ahead log it wrote, in bytes.
throwaway_pg_round() {
  local lsn0 lsn1 out
  psql -c CHECKPOINT
  lsn0=$(psql -c "SELECT pg_current_wal_lsn() - '0/0'")
  out=$(pgbench -c "$2" -j "$2" -T "$3" -f "$1" 2>&1)
  lsn1=$(psql -c "SELECT pg_current_wal_lsn() - '0/0'")
  echo "$(awk '/^tps/ {print $3}' <<< "$out") $(awk '/transactions actually processed/ {print $NF}' <<< "$out") $(( lsn1 - lsn0 ))"
}
throwaway_pg_remove() { as_postgres "$BIN/pg_ctl" -D "$DIR/data" stop -m fast >/dev/null 2>&1 || true; rm -rf "$DIR"; }
as_postgres() { if [[ $(id -un) == postgres ]]; then "$@"; else runuser -u postgres -- "$@"; fi; }

# psql and pgbench on the PATH (Debian's postgresql-15, installed if missing).
pg_tools() {
  command -v pgbench >/dev/null || [[ -x /usr/lib/postgresql/15/bin/pgbench ]] \
    || { apt-get update -q >&2 && DEBIAN_FRONTEND=noninteractive apt-get install -y -q postgresql-15 >/dev/null; }
  export PATH=$PATH:/usr/lib/postgresql/15/bin PGPASSWORD=${PGPASSWORD:-roost}
}

# The box's speed today apart from the database (BoxGauge): a loopback TCP round trip and a hand-off
# between threads (kernel crossings and wake-ups, which a chat message's path is made of), and SHA-256
# (computing alone). Prints "loopback TCP round trip X µs, thread hand-off Y µs, SHA-256 Z MB/s".
box_gauge() {
  java -cp "$1" io.roost.bench.BoxGauge | awk '/^GAUGE/ { for (i=2;i<=NF;i++) { split($i,a,"="); v[a[1]]=a[2] }
    printf "loopback TCP round trip %s µs, thread hand-off %s µs, SHA-256 %s MB/s", v["tcp_round_trip_us"], v["hand_off_us"], v["sha256_mb_per_s"] }'
}

pgbench_upsert_tps() {
  local port=$1 dir=$2 clients=${3:-64} seconds=${4:-20}
  pg_tools
  psql -q -h 127.0.0.1 -p "$port" -U roost roost -c "DROP TABLE IF EXISTS bench_upsert; CREATE TABLE bench_upsert (channel_name varchar(128), uid bigint, last_client_seq bigint, online boolean, updated_at timestamptz, PRIMARY KEY (channel_name, uid))" >&2
  cat > "$dir/upsert.sql" <<'SQL'
\set u random(1, 5000)
\set s random(1, 1000000000)
INSERT INTO bench_upsert AS t VALUES ('ch' || (:u % 50), :u, :s, true, now())
ON CONFLICT (channel_name, uid) DO UPDATE SET last_client_seq = EXCLUDED.last_client_seq, online = EXCLUDED.online, updated_at = now()
WHERE t.last_client_seq < EXCLUDED.last_client_seq;
SQL
  echo "== pgbench: single-row conditional upsert, $clients clients, $seconds s" >&2
  pgbench -n -h 127.0.0.1 -p "$port" -U roost -c "$clients" -j 2 -T "$seconds" -f "$dir/upsert.sql" roost 2>&1 \
    | tee /dev/stderr | awk '/^tps/ {print int($3); exit}'
  psql -q -h 127.0.0.1 -p "$port" -U roost roost -c "DROP TABLE bench_upsert" >&2
}

# A database in service writes its write-ahead log into recycled 16 MB segments (each checkpoint
# renames the old ones ahead); a new cluster creates and zero-fills every segment it enters, and the
# commit that crosses into a new one waits for that: about 55 ms on this box, every 1.6 s at 5,000
# chat messages/s. Creates SEGMENTS segments and has a checkpoint recycle them (min_wal_size keeps
# them), so that a benchmark measures the database in service, not a new cluster's first gigabytes.
# Prints how many recycled segments lie ahead of the current one.
pg_wal_recycled() {
  local port=$1 segments=$2 i
  pg_tools
  local psql=(psql -q -At -h 127.0.0.1 -p "$port" -U postgres postgres)
  local switches=(-c "ALTER SYSTEM SET min_wal_size = '4GB'" -c "SELECT pg_reload_conf()")
  for ((i = 0; i < segments; i++)); do  # a record in the segment, then the switch to the next one
    switches+=(-c "SELECT pg_logical_emit_message(false, 'bench-wal', '')" -c "SELECT pg_switch_wal()")
  done
  ((segments == 0)) || "${psql[@]}" "${switches[@]}" -c "CHECKPOINT" >/dev/null
  "${psql[@]}" -c "SELECT count(*) FROM pg_ls_waldir() WHERE name > pg_walfile_name(pg_current_wal_lsn())"
}

# pg_walinspect (PostgreSQL 15+, contrib) decodes and returns every record of the range, so the
# caller passes a slice of the measured phase, not all of it.
wal_by_relation() {
  local port=$1 from=$2 to=$3 bpm=$4 top=${5:-14}
  pg_tools
  psql -q -At -h 127.0.0.1 -p "$port" -U postgres roost -F '|' \
    -c "CREATE EXTENSION IF NOT EXISTS pg_walinspect" -c "
    WITH r AS (
      SELECT resource_manager || '/' || split_part(record_type, ' ', 1) AS kind, record_length AS bytes,
             pg_filenode_relation(0, (regexp_match(block_ref, 'rel [0-9]+/[0-9]+/([0-9]+)'))[1]::oid) AS rel
      FROM pg_get_wal_records_info('$from', '$to')),
    named AS (  -- a TOAST table or its index under its owner's name; partitions under their table's
      SELECT kind, bytes, coalesce(regexp_replace(coalesce(
               (SELECT o.relname || ' (TOAST)' FROM pg_class o WHERE o.reltoastrelid = rel),
               (SELECT o.relname || ' (TOAST)' FROM pg_class o JOIN pg_index i ON i.indrelid = o.reltoastrelid WHERE i.indexrelid = rel),
               rel::text), '_p[0-9][0-9](_|$)', '\1'), '-') AS name FROM r)
    SELECT name, kind, round(count(*) * $bpm / pg_wal_lsn_diff('$to', '$from'), 2), round(sum(bytes) * $bpm / pg_wal_lsn_diff('$to', '$from')),
           round(100 * sum(bytes) / sum(sum(bytes)) OVER (), 1)
    FROM named GROUP BY 1, 2 ORDER BY sum(bytes) DESC LIMIT $top" \
  | awk -F'|' '{ printf "    %s %s: %s per message, %s bytes (%s %%)\n", $1, $2, $3, $4, $5 }'
}

pg_commit_settings() {
  PGPASSWORD=${PGPASSWORD:-roost} psql -h 127.0.0.1 -p "$1" -U roost roost -Atc \
    "SELECT 'fsync=' || current_setting('fsync') || ', synchronous_commit=' || current_setting('synchronous_commit')"
}

# The samplers use bash builtins only: a fork per process read (a database has dozens of backends)
# cost the sampler half a core on this box, which counted against the machine.

# utime+stime+cutime+cstime of the pids, into TICKS. Fields after the ")" that ends the command name
# (index 0 is the state): utime stime cutime cstime are 11-14 there.
ticks_of() {
  TICKS=0
  local p line f
  for p in "$@"; do
    { read -r line < "/proc/$p/stat"; } 2>/dev/null || continue
    read -ra f <<< "${line##*) }"
    TICKS=$((TICKS + f[11] + f[12] + f[13] + f[14]))
  done
}
cpu_ticks() { ticks_of "$@"; echo "$TICKS"; }

# The postmaster and its live children, into PIDS (index 1 after the ")" is the parent pid).
postgres_pids_of() {
  local pm stat line f
  PIDS=()
  { read -r pm < "$1/postmaster.pid"; } 2>/dev/null || return 0
  PIDS=("$pm")
  for stat in /proc/[0-9]*/stat; do
    { read -r line < "$stat"; } 2>/dev/null || continue
    read -ra f <<< "${line##*) }"
    if [[ ${f[1]} == "$pm" ]]; then PIDS+=("${line%% *}"); fi
  done
  return 0 # the scripts run with set -e
}
postgres_pids() { postgres_pids_of "$1"; echo "${PIDS[@]}"; }

# Busy ticks of the whole machine (user nice system irq softirq steal), into TICKS.
machine_ticks() {
  local f
  read -ra f < /proc/stat
  TICKS=$((f[1] + f[2] + f[3] + f[6] + f[7] + f[8]))
}

cpu_us_per() { awk -v t="$1" -v n="$2" -v hz="$(getconf CLK_TCK)" 'BEGIN { printf "%.0f", (n > 0 ? t * 1e6 / hz / n : 0) }'; }

cpu_sampler() {
  local out=$1 wildfly=$2 pgdata=$3 dev=$4 other=${5:-} wf now w p d o n=0 pg=()
  while :; do
    now=${EPOCHREALTIME/./}
    { read -r wf < "$wildfly"; } 2>/dev/null || wf=
    ticks_of $wf; w=$TICKS
    # PostgreSQL's processes found every 5 s, not every sample: reading every process's stat file
    # twice a second took 4 % of a core. A backend that comes and goes in between is not lost:
    # the postmaster's children's time (cutime, cstime) takes it in when it exits.
    if ((n++ % 10 == 0)); then postgres_pids_of "$pgdata"; pg=("${PIDS[@]}"); fi
    ticks_of "${pg[@]}"; p=$TICKS
    ticks_of "$dev"; d=$TICKS
    ticks_of $other; o=$TICKS
    machine_ticks
    echo "${now:0:13} $w $p $d $o $TICKS"
    sleep 0.5
  done > "$out"
}

cpu_between() {
  awk -v f="$2" -v t="$3" '$1 >= f && !s { s = 1; split($0, a) } $1 <= t { split($0, b); n = NF }
    END { printf "%.1f", (b[1] - a[1]) / 1000; for (i = 2; i <= n; i++) printf " %d", b[i] - a[i]; print "" }' "$1"
}

heap_sampler() {
  local out=$1 pid=$2 up
  up=$(jcmd "$pid" VM.uptime 2>/dev/null | awk 'NR == 2 { print $1 }')
  awk -v now="${EPOCHREALTIME/./}" -v up="${up:-0}" 'BEGIN { printf "# t0 %.0f\n", now / 1000 - up * 1000 }' > "$out"
  exec jstat -gc -t "$pid" 1000 >> "$out" 2>/dev/null
}

# jstat -gc -t columns: 1 Timestamp (s since start), 6 EC, 7 EU (KB), 14 YGC, 16 FGC. Between two
# samples eden grew by EU - EU'; if g collections emptied it, by what was free in it, g - 1 whole
# edens, and EU. A sample read while a collection runs can count its eden in the next second
# instead, so the rate is the median of the seconds', times the window.
eden_kb_between() {
  awk -v f="$2" -v t="$3" '/^# t0/ { t0 = $3; next } $1 !~ /^[0-9.]+$/ { next }
    { at = t0 + $1 * 1000 } at < f || at > t { next }
    seen && at > last { g = $14 + $16 - gcs; kb = g > 0 ? (ec - eu) + (g - 1) * $6 + $7 : $7 - eu
      r = kb * 1000 / (at - last); for (i = n++; i > 0 && rate[i - 1] > r; i--) rate[i] = rate[i - 1]; rate[i] = r }
    { seen = 1; last = at; ec = $6; eu = $7; gcs = $14 + $16 }
    END { m = n ? (n % 2 ? rate[(n - 1) / 2] : (rate[n / 2 - 1] + rate[n / 2]) / 2) : 0; printf "%.0f", m * (t - f) / 1000 }' "$1"
}

gc_pauses_between() {
  awk -v f="$2" -v t="$3" '/Pause/ { at = substr($1, 2) + 0; if (at < f || at > t) next
      ms = $NF; sub("ms", "", ms); n++; sum += ms; if (ms > max) max = ms }
    END { printf "%d (%.0f ms in all, longest %.0f ms)", n, sum, max }' "$1" 2>/dev/null || echo "not logged"
}

thread_ticks() {
  local t c line f now=${EPOCHREALTIME/./}
  for t in /proc/"$1"/task/*; do
    { read -r c < "$t/comm"; read -r line < "$t/stat"; } 2>/dev/null || continue
    read -ra f <<< "${line##*) }"
    echo "${now:0:13} ${t##*/} $((f[11] + f[12])) $c"
  done
}

# A thread's name without its number groups it with its pool ("default I/O-3", "G1 Refine#0").
thread_cpu_between() {
  awk -v top="${3:-8}" -v hz="$(getconf CLK_TCK)" '
    FNR == 1 { file++ }
    { name = $0; sub(/^[^ ]+ [^ ]+ [^ ]+ /, "", name); sub(/[-#_ ]*[0-9]+$/, "", name) }
    file == 1 { before[$2] = $3; from = $1; next }
    { group[name] += $3 - before[$2]; to = $1 }
    END { secs = (to - from) / 1000; if (secs <= 0) { print "not measured"; exit }
      n = 0; for (g in group) { k[++n] = g }
      for (i = 1; i <= n; i++) for (j = i + 1; j <= n; j++) if (group[k[j]] > group[k[i]]) { x = k[i]; k[i] = k[j]; k[j] = x }
      for (i = 1; i <= n && i <= top; i++) printf "%s%s %.1f %%", (i > 1 ? ", " : ""), k[i], group[k[i]] * 100 / hz / secs
      print "" }' "$1" "$2"
}

schedstat_snapshot() {
  local name=$1 p t s
  shift
  for p in "$@"; do
    for t in /proc/"$p"/task/*; do
      { read -r s < "$t/schedstat"; } 2>/dev/null || continue
      echo "$name ${t##*/} $s"
    done
  done
}

run_queue_between() {
  awk 'FNR == 1 { file++ }
    file == 1 { k = $1 " " $2; run[k] = $3; waited[k] = $4; slices[k] = $5; if (!($1 in seen)) { seen[$1] = 1; order[++n] = $1 }; next }
    ($1 " " $2) in run { k = $1 " " $2; r[$1] += $3 - run[k]; w[$1] += $4 - waited[k]; c[$1] += $5 - slices[k] }
    END { for (i = 1; i <= n; i++) { g = order[i]; name = g; gsub("_", " ", name)
        printf "%s%s %.2f ms a slice (%.2f s per second of CPU)", (i > 1 ? ", " : ""), name, (c[g] > 0 ? w[g] / c[g] / 1e6 : 0), (r[g] > 0 ? w[g] / r[g] : 0) }
      print "" }' "$1" "$2"
}

# A server that has run for a while has compiled its hot paths; right after a warm-up its one C2
# thread (2 cores) still has a backlog that would compile through the measured phase. The
# benchmarks time their phase once the JIT is quiet.
jit_seconds() { jstat -compiler "$1" | awk 'NR==2 {print $4}'; }
wait_jit_quiet() {
  local pid=$1 t0=$SECONDS j0 j1
  j0=$(jit_seconds "$pid")
  while (( SECONDS - t0 < 180 )); do
    sleep 3; j1=$(jit_seconds "$pid")
    awk -v a="$j0" -v b="$j1" 'BEGIN { exit !(b - a < 0.2) }' && break
    j0=$j1
  done
  echo "JIT quiet after $((SECONDS - t0)) s (total compile time $(jit_seconds "$pid") s)"
}
