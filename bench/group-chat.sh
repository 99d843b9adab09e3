#!/usr/bin/env bash
# Group chat benchmark (read diffusion): two Roost nodes behind HAProxy (bin/roost start --nodes 2)
# on one set of dev services, GroupChatBench's devices spread over both by the load balancer: a big
# chat group (2,000 members, 600 online), 200 small groups (20 members, 10 online), a channel
# (100,000 members, 5,000 online), all times --scale; and a probe group of 10 whose devices are all
# connected straight to node 0. Every device acknowledges every push (chatAck {group, seq}). Phases
# (GroupChatBench): warmup, mixed (all three paced; churners log out and back in and catch up with
# chatOp sync; late joiners join the big group), big (the big group alone, paced: its CPU per push),
# idle and probe (what a probe message costs node 1, which holds none of its members), saturation
# (the big group, --window sends in flight). Then the same rooms and phases (but idle, probe, churn
# and late joins) against ejabberd 23.01's multi-user chat, mod_muc rooms archived by mod_mam:
# in Mnesia (--peer=ejabberd) and/or in the same PostgreSQL as Roost's (--peer=ejabberd-sql, the
# schema Debian ships in /usr/share/ejabberd/sql/pg.sql, in a database "ejabberd").
# Groups, members and joins are all made over REST (POST /api/v1/groups, POST .../join), no SQL:
# at --scale=1 that is 100,000 registrations and joins, slow but within the API's rules.
# Not part of ./mvnw verify.
#   bench/group-chat.sh [--peer=ejabberd|ejabberd-sql|ejabberd,ejabberd-sql|none] [--scale=1]
#                       [--channel-scale=SCALE --rate-big=20 --rate-small=40 --rate-channel=1 --rate-probe=20 --window=32
#                        --warmup=40 --duration=30 --short-phase=20 --churn=0.05 --late-joiners=N
#                        --max-in-flight=2000 --settle=45 --seed=N]
#   ONE_TO_ONE_US: the servers' CPU per one-to-one message to compare with (default 264: WildFly 121 +
#   PostgreSQL 130 + broker 13 µs, docs/benchmarks.md, bench/chat.sh default run of 2026-11-28)
# env (defaults away from the test suite's ports): ROOST_PORT_OFFSET (3000: node 0 http 11080, node 1
#   11180), ROOST_LB_PORT (11000), ROOST_DEV_DB_PORT (58432), ROOST_DEV_NAMESRV_PORT (22876),
#   ROOST_DEV_BROKER_PORT (13930), EJABBERD_PORT (5222 + offset), ROOST_DATA_DIR (target/bench-group),
#   JBOSS_JAVA_SIZING (-Xms768m -Xmx1536m, each node), ROOST_SKIP_BUILD=1
set -euo pipefail
cd "$(dirname "$0")/.."
source bench/lib.sh
PEER=ejabberd
ARGS=()
for a in "$@"; do
  case $a in
    --peer=*) PEER=${a#--peer=} ;;
    *) ARGS+=("$a") ;;
  esac
done
[[ " ${ARGS[*]} " == *" --seed="* ]] || ARGS+=("--seed=$((RANDOM * 32768 + RANDOM))")
export ROOST_PORT_OFFSET=${ROOST_PORT_OFFSET:-3000}
export ROOST_LB_PORT=${ROOST_LB_PORT:-11000}
export ROOST_DEV_DB_PORT=${ROOST_DEV_DB_PORT:-58432}
export ROOST_DEV_NAMESRV_PORT=${ROOST_DEV_NAMESRV_PORT:-22876}
export ROOST_DEV_BROKER_PORT=${ROOST_DEV_BROKER_PORT:-13930}
export EJABBERD_PORT=${EJABBERD_PORT:-$((5222 + ROOST_PORT_OFFSET))}
export ROOST_DATA_DIR=${ROOST_DATA_DIR:-$PWD/target/bench-group}
export ROOST_MODE=dev ROOST_ADMIN_PASSWORD=bench-admin-password ROOST_SESSION_HEARTBEAT_INTERVAL=30s
export JBOSS_JAVA_SIZING=${JBOSS_JAVA_SIZING:--Xms768m -Xmx1536m}
ONE_TO_ONE_US=${ONE_TO_ONE_US:-264}
DB_PORT=$ROOST_DEV_DB_PORT
NODE0_URL="http://127.0.0.1:$((8080 + ROOST_PORT_OFFSET))"
LB_URL="http://127.0.0.1:$ROOST_LB_PORT"
HZ=$(getconf CLK_TCK)
ulimit -n "$(ulimit -Hn)" 2>/dev/null || true
mkdir -p "$(dirname "$ROOST_DATA_DIR")"
if [[ ${ROOST_SKIP_BUILD:-} != 1 ]]; then
  # the server, WildFly, and the load generators (src/bench/java is compiled with the tests, into target/test-classes)
  ./mvnw -q package -DskipTests > "$ROOST_DATA_DIR.build.log" 2>&1 || { cat "$ROOST_DATA_DIR.build.log"; exit 1; }
fi
export ROOST_SKIP_BUILD=1
[[ -f roost-server/target/devservices.classpath && -d roost-server/target/classes ]] || { echo "roost-server/target/ holds no build: run without ROOST_SKIP_BUILD=1" >&2; exit 1; }
CP="roost-server/target/test-classes:roost-server/target/classes:$(cat roost-server/target/devservices.classpath)"
# With ROOST_SKIP_BUILD=1 the server is what target/ holds, but a load generator edited since is
# recompiled here (javac, as Maven would: release 17, into target/test-classes), not run stale.
for f in roost-server/src/bench/java/io/roost/bench/*.java; do
  c=roost-server/target/test-classes/io/roost/bench/$(basename "$f" .java).class
  if [[ ! -f $c || $f -nt $c ]]; then
    echo "== compiling roost-server/src/bench/java ($f is newer than its class)" >&2
    javac -nowarn -encoding UTF-8 --release 17 -d roost-server/target/test-classes -cp "$CP" roost-server/src/bench/java/io/roost/bench/*.java >&2
    break
  fi
done
OUT=$ROOST_DATA_DIR.out
PIDS_TO_STOP=()
ROOST_LAUNCHER=
ROOST_FROZEN=()
cleanup() {
  local p
  for p in "${PIDS_TO_STOP[@]}"; do kill "$p" 2>/dev/null || true; done
  ((${#ROOST_FROZEN[@]} == 0)) || kill -CONT "${ROOST_FROZEN[@]}" 2>/dev/null || true
  if [[ -n $ROOST_LAUNCHER ]]; then bin/roost stop >/dev/null 2>&1 || true; fi
}
trap cleanup EXIT

# Every 0.5 s: epoch ms, then the CPU ticks of each pid file's process / pid (a PGDATA directory: the
# postmaster and its children), then the whole machine's busy ticks.
#   sampler FILE SOURCE...   SOURCE: pid:N | file:PIDFILE | pg:PGDATA
sampler() {
  local out=$1 s now n=0 line pg=() p
  shift
  while :; do
    now=${EPOCHREALTIME/./}
    line=${now:0:13}
    if ((n++ % 10 == 0)); then for s in "$@"; do [[ $s == pg:* ]] && { postgres_pids_of "${s#pg:}"; pg=("${PIDS[@]}"); }; done; fi
    for s in "$@"; do
      case $s in
        pid:*) ticks_of "${s#pid:}" ;;
        file:*) { read -r p < "${s#file:}"; } 2>/dev/null || p=; ticks_of $p ;;
        pg:*) ticks_of "${pg[@]}" ;;
      esac
      line+=" $TICKS"
    done
    machine_ticks
    echo "$line $TICKS"
    sleep 0.5
  done > "$out"
}
phase_field() { awk -v p="$2" -v k="$3" '$1 == "PHASE" && $2 == "name=" p { for (i=2;i<=NF;i++) { split($i,a,"="); if (a[1]==k) print a[2] } }' "$1"; }
result_field() { awk -v k="$2" '/^RESULT/ { for (i=1;i<=NF;i++) { split($i,a,"="); if (a[1]==k) print a[2] } }' "$1"; }
# µs of CPU per push of each named column in a phase, into PER_PUSH ("name X µs, ..."), the
# servers' together (every column but the load generator) into SERVER_US, and, when IDLE_SERVER_TPS
# (the servers' ticks per second in the idle phase) is set, the servers' CPU over what the same
# seconds cost idle (heartbeats, timers, broker polls) into OVER_IDLE_US: what the pushes themselves cost
per_push() {  # OUTFILE CPUFILE PHASE COLUMN_NAMES...
  local out=$1 cpu=$2 ph=$3 from to secs pushes ticks i
  shift 3
  from=$(phase_field "$out" "$ph" from); to=$(phase_field "$out" "$ph" to)
  SERVER_US=0
  OVER_IDLE_US=
  [[ -n $from ]] || { PER_PUSH="not run"; return 0; }
  read -ra ticks <<< "$(cpu_between "$cpu" "$from" "$to")"
  secs=${ticks[0]}
  pushes=$(awk -v r="$(phase_field "$out" "$ph" pushes_per_s)" -v s="$(phase_field "$out" "$ph" secs)" 'BEGIN { printf "%d", r * s }')
  local parts=() sum=0
  for ((i = 0; i < $#; i++)); do
    local name=${@:i+1:1}
    parts+=("$name $(cpu_us_per "${ticks[i+1]}" "$pushes") µs")
    [[ $name == "load generator" ]] || sum=$((sum + ticks[i+1]))
  done
  SERVER_US=$(awk -v t="$sum" -v n="$pushes" -v hz="$HZ" 'BEGIN { printf "%.1f", (n > 0 ? t * 1e6 / hz / n : 0) }')
  local idle=""
  if [[ -n ${IDLE_SERVER_TPS:-} ]]; then
    OVER_IDLE_US=$(awk -v t="$sum" -v i="$IDLE_SERVER_TPS" -v s="$secs" -v n="$pushes" -v hz="$HZ" 'BEGIN { printf "%.1f", (n > 0 ? (t - i * s) * 1e6 / hz / n : 0) }')
    idle=" ($OVER_IDLE_US µs over the idle phase's)"
  fi
  local machine=${ticks[$# + 1]}
  PER_PUSH="$(IFS=,; echo "${parts[*]}" | sed 's/,/, /g'); servers together $SERVER_US µs$idle; machine busy $(awk -v m="$machine" -v s="$secs" -v hz="$HZ" 'BEGIN { printf "%.2f", m / hz / s }') of $(nproc) cores"
}
phase_line() {  # OUTFILE PHASE
  local o=$1 p=$2
  echo "sends/s $(phase_field "$o" "$p" answered_per_s) (offered $(phase_field "$o" "$p" sends_per_s)), pushes/s $(phase_field "$o" "$p" pushes_per_s); send→answer p99 $(phase_field "$o" "$p" answer_p99_ms) ms; send→last member's push p50 $(phase_field "$o" "$p" last_p50_ms) ms, p99 $(phase_field "$o" "$p" last_p99_ms) ms$(
    for k in big small channel probe; do n=$(phase_field "$o" "$p" "last_${k}_n"); [[ -n $n ]] && printf '; %s: p50 %s / p99 %s ms (n=%s, %s incomplete)' "$k" "$(phase_field "$o" "$p" "last_${k}_p50_ms")" "$(phase_field "$o" "$p" "last_${k}_p99_ms")" "$n" "$(phase_field "$o" "$p" "incomplete_${k}")"; done)"
}

# ---------------------------------------------------------------- Roost, two nodes
BOX=$(box_gauge "$CP")
rm -rf "$ROOST_DATA_DIR" "$OUT" "$ROOST_DATA_DIR".cpu "$ROOST_DATA_DIR".jstat-node1 "$ROOST_DATA_DIR".threads-* "$ROOST_DATA_DIR".jstack-*
bin/roost start --nodes 2 > "$ROOST_DATA_DIR.start.log" 2>&1 &
ROOST_LAUNCHER=$!
PIDS_TO_STOP+=("$ROOST_LAUNCHER")
for _ in $(seq 1 400); do grep -q "Roost is up" "$ROOST_DATA_DIR.start.log" 2>/dev/null && break; kill -0 $ROOST_LAUNCHER 2>/dev/null || break; sleep 1; done
grep -q "Roost is up" "$ROOST_DATA_DIR.start.log" || { cat "$ROOST_DATA_DIR.start.log"; exit 1; }
N0=$(cat "$ROOST_DATA_DIR/node-0/wildfly.pid"); N1=$(cat "$ROOST_DATA_DIR/node-1/wildfly.pid")
DEV_PID=$(cat "$ROOST_DATA_DIR/devservices/devservices.pid")
LB_PID=$(cat "$ROOST_DATA_DIR/haproxy.pid")
PGDATA=$ROOST_DATA_DIR/devservices/pgdata
PG_COMMIT=$(pg_commit_settings "$DB_PORT")
echo "== Roost: 2 nodes (pids $N0, $N1), HAProxy $LB_PID on $LB_URL, dev services $DEV_PID" >&2
java -Xms2g -Xmx2g -cp "$CP" io.roost.bench.GroupChatBench --url="$LB_URL" --node0-url="$NODE0_URL" \
  --db-url="jdbc:postgresql://127.0.0.1:$DB_PORT/roost" "${ARGS[@]}" > "$OUT" 2>&1 &
BENCH=$!
PIDS_TO_STOP+=("$BENCH")
sampler "$ROOST_DATA_DIR.cpu" "pid:$N0" "pid:$N1" "pg:$PGDATA" "pid:$DEV_PID" "pid:$LB_PID" "pid:$BENCH" &
SAMPLER=$!
PIDS_TO_STOP+=("$SAMPLER")
heap_sampler "$ROOST_DATA_DIR.jstat-node1" "$N1" &
JSTAT=$!
PIDS_TO_STOP+=("$JSTAT")
# where node 0's and node 1's threads spend the big phase and the saturation phase; a thread dump of
# each node in the middle of the saturation phase
for ph in big saturation; do
  until grep -q "^PHASE_START $ph" "$OUT" 2>/dev/null || ! kill -0 $BENCH 2>/dev/null; do sleep 0.2; done
  thread_ticks "$N0" > "$ROOST_DATA_DIR.threads-$ph-n0-start"; thread_ticks "$N1" > "$ROOST_DATA_DIR.threads-$ph-n1-start"
  [[ $ph == saturation ]] && { sleep 8; jstack "$N0" > "$ROOST_DATA_DIR.jstack-n0" 2>/dev/null || true; }
  until grep -q "^PHASE_END $ph" "$OUT" 2>/dev/null || ! kill -0 $BENCH 2>/dev/null; do sleep 0.2; done
  thread_ticks "$N0" > "$ROOST_DATA_DIR.threads-$ph-n0-end"; thread_ticks "$N1" > "$ROOST_DATA_DIR.threads-$ph-n1-end"
done
wait "$BENCH" || true
kill "$SAMPLER" "$JSTAT" 2>/dev/null || true
cat "$OUT" >&2
COLS=("node 0" "node 1" "PostgreSQL" "broker" "HAProxy" "load generator")
IDLE_FROM=$(phase_field "$OUT" idle from); IDLE_TO=$(phase_field "$OUT" idle to)
PROBE_FROM=$(phase_field "$OUT" probe from); PROBE_TO=$(phase_field "$OUT" probe to)
read -r _ _ IDLE_N1 _ <<< "$(cpu_between "$ROOST_DATA_DIR.cpu" "$IDLE_FROM" "$IDLE_TO")"
read -r _ PROBE_N0 PROBE_N1 _ <<< "$(cpu_between "$ROOST_DATA_DIR.cpu" "$PROBE_FROM" "$PROBE_TO")"
read -r _ IDLE_N0 _ <<< "$(cpu_between "$ROOST_DATA_DIR.cpu" "$IDLE_FROM" "$IDLE_TO")"
PROBE_MSGS=$(awk -v r="$(phase_field "$OUT" probe answered_per_s)" -v s="$(phase_field "$OUT" probe secs)" 'BEGIN { printf "%d", r * s }')
EDEN_IDLE=$(eden_kb_between "$ROOST_DATA_DIR.jstat-node1" "$IDLE_FROM" "$IDLE_TO")
EDEN_PROBE=$(eden_kb_between "$ROOST_DATA_DIR.jstat-node1" "$PROBE_FROM" "$PROBE_TO")
# the servers' (both nodes, PostgreSQL, broker, HAProxy: not the load generator) ticks per second idle
IDLE_SERVER_TPS=$(cpu_between "$ROOST_DATA_DIR.cpu" "$IDLE_FROM" "$IDLE_TO" | awk '{ printf "%.3f", ($1 > 0 ? ($2 + $3 + $4 + $5 + $6) / $1 : 0) }')
per_push "$OUT" "$ROOST_DATA_DIR.cpu" big "${COLS[@]}"; BIG_CPU=$PER_PUSH; BIG_US=$SERVER_US; BIG_OVER=$OVER_IDLE_US
per_push "$OUT" "$ROOST_DATA_DIR.cpu" mixed "${COLS[@]}"; MIXED_CPU=$PER_PUSH
per_push "$OUT" "$ROOST_DATA_DIR.cpu" saturation "${COLS[@]}"; SAT_CPU=$PER_PUSH; SAT_US=$SERVER_US; SAT_OVER=$OVER_IDLE_US
per_push "$OUT" "$ROOST_DATA_DIR.cpu" direct "${COLS[@]}"; DIRECT_CPU=$PER_PUSH; DIRECT_US=$SERVER_US; DIRECT_OVER=$OVER_IDLE_US
unset IDLE_SERVER_TPS
ROOST_BLOCK=$(cat <<EOT
Roost, 2 nodes behind HAProxy ($(result_field "$OUT" devices) devices online; $(grep '^SIZES' "$OUT" | cut -d' ' -f2-)):
  mixed (paced): $(phase_line "$OUT" mixed)
    CPU per push: $MIXED_CPU
    rows per message: $(grep '^ROWS name=mixed' "$OUT" | cut -d' ' -f3-)
  big group alone (paced): $(phase_line "$OUT" big)
    CPU per push: $BIG_CPU
    rows per message (table=+inserted/~updated): $(grep '^ROWS name=big' "$OUT" | cut -d' ' -f3-)
    node 0's threads (share of one core): $(thread_cpu_between "$ROOST_DATA_DIR.threads-big-n0-start" "$ROOST_DATA_DIR.threads-big-n0-end" 6)
  saturation (big group, closed loop): $(phase_line "$OUT" saturation)
    CPU per push: $SAT_CPU
    node 0's threads: $(thread_cpu_between "$ROOST_DATA_DIR.threads-saturation-n0-start" "$ROOST_DATA_DIR.threads-saturation-n0-end" 8)
    node 1's threads: $(thread_cpu_between "$ROOST_DATA_DIR.threads-saturation-n1-start" "$ROOST_DATA_DIR.threads-saturation-n1-end" 8)
  one-to-one (pairs of the big group's devices, the same closed loop): $(phase_line "$OUT" direct)
    CPU per message: $DIRECT_CPU
  probe group (all its online members on node 0, $PROBE_MSGS messages): node 1 $(cpu_us_per "$PROBE_N1" 1) µs of CPU in the probe phase against $(cpu_us_per "$IDLE_N1" 1) µs idle (same length): $(awk -v p="$PROBE_N1" -v i="$IDLE_N1" -v n="$PROBE_MSGS" -v hz="$HZ" 'BEGIN { printf "%.1f", (n > 0 ? (p - i) * 1e6 / hz / n : 0) }') µs per probe message over idle; node 1 allocated $EDEN_PROBE KB against $EDEN_IDLE KB idle; node 0 $(cpu_us_per "$((PROBE_N0 - IDLE_N0))" "$PROBE_MSGS") µs per probe message over idle; $(grep '^group_chat_node of the probe' "$OUT" | sed 's/.*: /group_chat_node of the probe group: node /')
  outcome: $(result_field "$OUT" outcome) (lost $(result_field "$OUT" lost), duplicated $(result_field "$OUT" dup), out of seq order $(result_field "$OUT" out_of_order), before the join $(result_field "$OUT" before_join), db gap-free $(result_field "$OUT" db_ok)); $(grep '^client outcome' "$OUT" | cut -d: -f2-)
EOT
)

# ---------------------------------------------------------------- ejabberd multi-user chat
run_ejabberd_muc() {  # MODE: mnesia | sql
  local mode=$1 dir=$ROOST_DATA_DIR-ejabberd-$1 port=$EJABBERD_PORT ej bench smp out sql="" mam_db=mnesia
  if [[ ! -d /usr/lib/x86_64-linux-gnu/ejabberd-23.01 ]]; then
    DEBIAN_FRONTEND=noninteractive apt-get install -y -q ejabberd erlang-p1-pgsql >/dev/null
  fi
  rm -rf "$dir"; mkdir -p "$dir/spool" "$dir/logs"
  if [[ $mode == sql ]]; then
    mam_db=sql
    PGPASSWORD=roost psql -q -h 127.0.0.1 -p "$DB_PORT" -U postgres postgres -c "DROP DATABASE IF EXISTS ejabberd" -c "CREATE DATABASE ejabberd OWNER roost" >&2
    PGPASSWORD=roost psql -q -h 127.0.0.1 -p "$DB_PORT" -U roost ejabberd -f /usr/share/ejabberd/sql/pg.sql >/dev/null
    sql="sql_type: pgsql
sql_server: 127.0.0.1
sql_port: $DB_PORT
sql_database: ejabberd
sql_username: roost
sql_password: roost
sql_pool_size: 10"
  fi
  cat > "$dir/ejabberd.yml" <<EOT
loglevel: warning
log_rotate_count: 0
hosts:
  - localhost
$sql
listen:
  -
    port: $port
    ip: "127.0.0.1"
    module: ejabberd_c2s
    max_stanza_size: 262144
    backlog: 4096
    access: c2s
    starttls: false
auth_method: internal
auth_password_format: plain
registration_timeout: infinity
acl:
  local:
    user_regexp: ""
access_rules:
  c2s:
    allow: all
  register:
    allow: all
shaper_rules:
  max_user_sessions: 10
modules:
  mod_mam:
    db_type: $mam_db
    default: always
    assume_mam_usage: true
  mod_muc:
    host: "conference.localhost"
    access: all
    access_create: all
    access_persistent: all
    access_mam: all
    max_users: 200000
    max_user_conferences: 1000
    max_users_admin_threshold: 200000
    history_size: 20
    default_room_options:
      persistent: true
      mam: true
      public: false
      members_by_default: true
      max_users: 200000
  mod_register:
    ip_access: all
    access: register
  mod_stream_mgmt:
    resend_on_timeout: if_offline
  mod_disco: {}
EOT
  echo "== ejabberd 23.01 ($(dpkg-query -W -f '${Version}' ejabberd)) multi-user chat, mod_mam in $mode, c2s 127.0.0.1:$port" >&2
  EJABBERD_CONFIG_PATH=$dir/ejabberd.yml EJABBERD_LOG_PATH=$dir/logs/ejabberd.log ERL_LIBS=/usr/lib/x86_64-linux-gnu \
    ERL_CRASH_DUMP=$dir/logs/erl_crash.dump ERL_INETRC=/etc/ejabberd/inetrc \
    erl +K true +P 1000000 -env ERL_CRASH_DUMP_BYTES 0 -noinput -mnesia dir "\"$dir/spool\"" -s ejabberd \
    > "$dir/logs/stdout.log" 2>&1 &
  ej=$!
  PIDS_TO_STOP+=("$ej")
  for _ in $(seq 1 120); do (exec 3<>"/dev/tcp/127.0.0.1/$port") 2>/dev/null && break; kill -0 "$ej" 2>/dev/null || break; sleep 1; done
  if ! (exec 3<>"/dev/tcp/127.0.0.1/$port") 2>/dev/null; then
    tail -n 30 "$dir/logs/stdout.log" "$dir/logs/ejabberd.log" >&2 || true
    kill "$ej" 2>/dev/null || true
    echo "ejabberd ($mode): did not start (see $dir/logs)"
    return 0
  fi
  out=$dir/bench.out
  java -Xms2g -Xmx2g -cp "$CP" io.roost.bench.XmppGroupBench --port="$port" "${ARGS[@]}" > "$out" 2>&1 &
  bench=$!
  PIDS_TO_STOP+=("$bench")
  if [[ $mode == sql ]]; then
    sampler "$dir/cpu" "pid:$ej" "pg:$PGDATA" "pid:$bench" &
  else
    sampler "$dir/cpu" "pid:$ej" "pid:$bench" &
  fi
  smp=$!
  PIDS_TO_STOP+=("$smp")
  wait "$bench" || true
  kill "$smp" 2>/dev/null || true
  cat "$out" >&2
  local rss; rss=$(awk '/VmRSS/ {printf "%d", $2 / 1024}' "/proc/$ej/status" 2>/dev/null || echo "?")
  kill -TERM "$ej" 2>/dev/null || true
  for _ in $(seq 1 60); do kill -0 "$ej" 2>/dev/null || break; sleep 0.5; done
  kill -KILL "$ej" 2>/dev/null || true
  local cols=("ejabberd" "load generator")
  [[ $mode == sql ]] && cols=("ejabberd" "PostgreSQL" "load generator")
  local big_cpu mixed_cpu sat_cpu
  per_push "$out" "$dir/cpu" mixed "${cols[@]}"; mixed_cpu=$PER_PUSH
  per_push "$out" "$dir/cpu" big "${cols[@]}"; big_cpu=$PER_PUSH
  per_push "$out" "$dir/cpu" saturation "${cols[@]}"; sat_cpu=$PER_PUSH
  cat <<EOT
ejabberd 23.01 mod_muc, mod_mam in $mode ($(result_field "$out" devices) occupants; every member affiliated; $(grep '^SIZES' "$out" | cut -d' ' -f2-)):
  mixed (paced): $(phase_line "$out" mixed)
    CPU per push: $mixed_cpu
  big room alone (paced): $(phase_line "$out" big)
    CPU per push: $big_cpu
  saturation (big room, closed loop): $(phase_line "$out" saturation)
    CPU per push: $sat_cpu
  RSS at the end: $rss MB; setup: $(grep -E '^(registered|rooms|joined)' "$out" | tr '\n' ';')
  outcome: $(result_field "$out" outcome) (lost $(result_field "$out" lost), duplicated $(result_field "$out" dup), out of order $(result_field "$out" out_of_order))
EOT
}
EJ_BLOCKS=""
IFS=, read -ra PEERS <<< "$PEER"
# Roost's two WildFly nodes are frozen (SIGSTOP) while ejabberd runs, so that their idle CPU (timers,
# heartbeats, broker polls) is not ejabberd's box; PostgreSQL, which --peer=ejabberd-sql uses, and the
# dev services go on. They are thawed (SIGCONT) before bin/roost stop.
if [[ " ${PEERS[*]} " != " none " ]]; then
  ROOST_FROZEN=("$N0" "$N1")
  kill -STOP "${ROOST_FROZEN[@]}"
fi
for p in "${PEERS[@]}"; do
  case $p in
    ejabberd) EJ_BLOCKS+="$(run_ejabberd_muc mnesia)"$'\n' ;;
    ejabberd-sql) EJ_BLOCKS+="$(run_ejabberd_muc sql)"$'\n' ;;
    none) EJ_BLOCKS+="ejabberd: skipped (--peer=none)"$'\n' ;;
    *) echo "unknown peer $p" >&2 ;;
  esac
done
((${#ROOST_FROZEN[@]} == 0)) || kill -CONT "${ROOST_FROZEN[@]}"
ROOST_FROZEN=()
bin/roost stop >/dev/null 2>&1 || true
ROOST_LAUNCHER=

R_SAT=$(phase_field "$OUT" saturation pushes_per_s)
echo
echo "machine: $(nproc) cores, $(free -g | awk '/Mem/ {print $2}') GiB; box gauge (quiet, before the run): $BOX"
echo "PostgreSQL commits: $PG_COMMIT"
echo "$ROOST_BLOCK"
echo -n "$EJ_BLOCKS"
echo "ratios (one run):"
for p in "${PEERS[@]}"; do
  [[ $p == none ]] && continue
  m=mnesia; [[ $p == ejabberd-sql ]] && m=sql
  o=$ROOST_DATA_DIR-ejabberd-$m/bench.out
  [[ -f $o ]] || continue
  echo "  saturation pushes/s Roost / ejabberd ($m): $R_SAT / $(phase_field "$o" saturation pushes_per_s) = $(awk -v a="$R_SAT" -v b="$(phase_field "$o" saturation pushes_per_s)" 'BEGIN { printf "%.2f", (b > 0 ? a / b : 0) }') (goal >= 1.5)"
  echo "  paced p99 send→last member, Roost vs ejabberd ($m): mixed $(phase_field "$OUT" mixed last_p99_ms) vs $(phase_field "$o" mixed last_p99_ms) ms; big group $(phase_field "$OUT" big last_p99_ms) vs $(phase_field "$o" big last_p99_ms) ms (goal: Roost's <=)"
done
inverse() { awk -v a="$1" -v b="$2" 'BEGIN { printf "%.1f", (a > 0 ? b / a : 0) }'; }
echo "  CPU per push in the big group against CPU per one-to-one message, same run (servers: both nodes, PostgreSQL, broker, HAProxy; goal <= 1/10):"
echo "    saturated, both closed loops of the same window: $SAT_US µs against $DIRECT_US µs = 1/$(inverse "$SAT_US" "$DIRECT_US"); over the idle phase's: $SAT_OVER against $DIRECT_OVER µs = 1/$(inverse "$SAT_OVER" "$DIRECT_OVER")"
echo "    big group paced: $BIG_US µs (over idle $BIG_OVER) against the saturated one-to-one's $DIRECT_US (over idle $DIRECT_OVER) = 1/$(inverse "$BIG_US" "$DIRECT_US") (over idle 1/$(inverse "$BIG_OVER" "$DIRECT_OVER")); against $ONE_TO_ONE_US µs (bench/chat.sh, one node at 5,000/s) 1/$(inverse "$BIG_US" "$ONE_TO_ONE_US")"
