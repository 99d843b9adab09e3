# Sourced by the benchmarks. This box is shared and its speed moves from day to day (pgbench on the
# same database has measured 7,000 and 14,000 tps on different days), so a figure is best given
# next to a baseline from the same run, and as CPU per operation per process.
#   pgbench_upsert_tps PORT DIR [CLIENTS] [SECONDS]
#                           tps of a single-row conditional upsert (the shape of a presence write)
#   cpu_ticks PID...        utime+stime of those processes plus their reaped children, in clock ticks
#   postgres_pids PGDATA    the postmaster and its live children
#   cpu_us_per TICKS N      microseconds of CPU per operation
#   cpu_sampler FILE WILDFLY_PIDFILE PGDATA DEV_PID [OTHER_PID]
#                           every 0.5 s until killed: epoch ms, then CPU ticks of WildFly, PostgreSQL,
#                           the dev services JVM (broker, name server), OTHER_PID, and the whole machine
#   cpu_between FILE FROM_MS TO_MS
#                           seconds and tick deltas of each of those columns over [FROM_MS, TO_MS]

pgbench_upsert_tps() {
  local port=$1 dir=$2 clients=${3:-64} seconds=${4:-20}
  command -v pgbench >/dev/null || [[ -x /usr/lib/postgresql/15/bin/pgbench ]] \
    || { apt-get update -q && DEBIAN_FRONTEND=noninteractive apt-get install -y -q postgresql-15 >/dev/null; }
  export PATH=$PATH:/usr/lib/postgresql/15/bin PGPASSWORD=${PGPASSWORD:-roost}
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

cpu_ticks() {
  local total=0 p
  for p in "$@"; do
    [[ -r /proc/$p/stat ]] || continue
    # fields after the ")" that ends the command name: utime stime cutime cstime are 12-15 there
    total=$((total + $(sed 's/^.*) //' "/proc/$p/stat" | awk '{print $12+$13+$14+$15}')))
  done
  echo "$total"
}
postgres_pids() { local pm; pm=$(head -1 "$1/postmaster.pid"); echo "$pm" $(pgrep -P "$pm"); }
cpu_us_per() { awk -v t="$1" -v n="$2" -v hz="$(getconf CLK_TCK)" 'BEGIN { printf "%.0f", (n > 0 ? t * 1e6 / hz / n : 0) }'; }

cpu_sampler() {
  local out=$1 wildfly=$2 pgdata=$3 dev=$4 other=${5:-}
  while :; do
    echo "$(date +%s%3N) $(cpu_ticks $(cat "$wildfly" 2>/dev/null)) $(cpu_ticks $(postgres_pids "$pgdata" 2>/dev/null))" \
      "$(cpu_ticks "$dev") $(cpu_ticks $other) $(awk '/^cpu / {print $2+$3+$4+$7+$8+$9; exit}' /proc/stat)"
    sleep 0.5
  done > "$out"
}
cpu_between() {
  awk -v f="$2" -v t="$3" '$1 >= f && !s { s = 1; split($0, a) } $1 <= t { split($0, b); n = NF }
    END { printf "%.1f", (b[1] - a[1]) / 1000; for (i = 2; i <= n; i++) printf " %d", b[i] - a[i]; print "" }' "$1"
}
