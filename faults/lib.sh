# Sourced by the fault scripts (faults/*.sh). Starts Roost with bin/roost (a cluster of NODES
# nodes behind its load balancer when the launcher has --nodes; one node otherwise), runs the load
# generator io.roost.bench.FaultLoad against it, and counts checks.
#
# Environment (all optional): NODES (2), ROOST_DATA_DIR (target/faults-data), ROOST_PORT_OFFSET,
# ROOST_LB_PORT (8000), ROOST_DEV_DB_PORT / ROOST_DEV_NAMESRV_PORT / ROOST_DEV_BROKER_PORT (the dev
# services' ports, as bin/roost takes them), ROOST_SKIP_BUILD=1 (run what target/ holds),
# LOAD_BEFORE (s of load before the fault, 20), LOAD_AFTER (s after it, 20).
set -euo pipefail
ROOT=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
cd "$ROOT"
export ROOST_DATA_DIR=${ROOST_DATA_DIR:-$ROOT/roost-server/target/faults-data}
mkdir -p "$ROOST_DATA_DIR"
DATA=$(cd "$ROOST_DATA_DIR" && pwd -P)
export ROOST_MODE=dev ROOST_AGORA_SECRET=${ROOST_AGORA_SECRET:-faults-secret}
export ROOST_ADMIN_PASSWORD=${ROOST_ADMIN_PASSWORD:-faults-admin-password}
NODES=${NODES:-2}
PORT_OFFSET=${ROOST_PORT_OFFSET:-0}
DB_PORT=${ROOST_DEV_DB_PORT:-55432}
NAMESRV_PORT=${ROOST_DEV_NAMESRV_PORT:-19876}
LOAD_BEFORE=${LOAD_BEFORE:-20}
LOAD_AFTER=${LOAD_AFTER:-20}
OUT=$DATA/faults-out
PASSED=0
FAILED=0

node_url() { echo "http://127.0.0.1:$((8080 + PORT_OFFSET + 100 * $1))"; }

# A cluster launcher writes node i's pid to node-<i>/; a one-node one to the data directory.
node_pid() {
  if [[ -f $DATA/node-$1/wildfly.pid ]]; then cat "$DATA/node-$1/wildfly.pid"; else cat "$DATA/wildfly.pid"; fi
}

now_ms() { date +%s%3N; }

# check NAME OK(0|1) DETAIL: one line per check, counted for the summary.
check() {
  if [[ $2 == 1 ]]; then PASSED=$((PASSED + 1)); echo "PASS $1: $3"; else FAILED=$((FAILED + 1)); echo "FAIL $1: $3"; fi
}

summary() {
  echo "$PASSED passed, $FAILED failed"
  [[ $FAILED == 0 ]]
}

dev() { java -cp "$ROOT/roost-server/target/test-classes" io.roost.devservices.DevServices "$@" --dir="$DATA/devservices"; }

sql() { PGPASSWORD=roost psql -h 127.0.0.1 -p "$DB_PORT" -U roost roost -Atc "$1"; }

LAUNCHER=
LOAD=
SAMPLER=
cleanup() {
  [[ -n $SAMPLER ]] && kill "$SAMPLER" 2>/dev/null || true
  [[ -n $LOAD ]] && kill "$LOAD" 2>/dev/null || true
  bin/roost stop >/dev/null 2>&1 || true
  if [[ -n $LAUNCHER ]]; then
    for _ in $(seq 1 60); do kill -0 "$LAUNCHER" 2>/dev/null || break; sleep 1; done
    kill "$LAUNCHER" 2>/dev/null || true
  fi
}

# Starts Roost in the background (a fresh data directory) and waits until every node is healthy.
start_roost() {
  trap cleanup EXIT
  rm -rf "$DATA/devservices" "$OUT" "$DATA"/node-* "$DATA/wildfly"
  mkdir -p "$OUT"
  local args=(start)
  if grep -q -- '--nodes' bin/roost; then
    args+=(--nodes "$NODES")
    URL=http://127.0.0.1:${ROOST_LB_PORT:-8000}
    (( NODES > 1 )) || URL=$(node_url 0) # one node runs without the load balancer
  elif [[ $NODES != 1 ]]; then
    echo "bin/roost has no --nodes here: run with NODES=1 (one node, no load balancer)" >&2; exit 2
  else
    URL=$(node_url 0)
  fi
  echo "== starting Roost: ${args[*]} (data $DATA, log $OUT/launcher.log)"
  bin/roost "${args[@]}" >"$OUT/launcher.log" 2>&1 &
  LAUNCHER=$!
  local i
  for i in $(seq 0 $((NODES - 1))); do
    for _ in $(seq 1 400); do
      curl -fsS "$(node_url "$i")/api/health" >/dev/null 2>&1 && break
      kill -0 "$LAUNCHER" 2>/dev/null || { tail -n 30 "$OUT/launcher.log"; exit 1; }
      sleep 1
    done
    curl -fsS "$(node_url "$i")/api/health" >/dev/null || { echo "node $i not healthy" >&2; tail -n 30 "$OUT/launcher.log"; exit 1; }
  done
  for _ in $(seq 1 120); do curl -fsS "$URL/api/health" >/dev/null 2>&1 && break; sleep 1; done # the load balancer starts last
  echo "== Roost is up: $NODES node(s), clients use $URL"
}

# Every 0.5 s: epoch ms and /api/health's status on each node, into $OUT/health.
start_health_sampler() {
  ( while :; do
      local line i
      line=$(now_ms)
      for i in $(seq 0 $((NODES - 1))); do
        line+=" $(curl -s -o "$OUT/health-$i.json" -w '%{http_code}' --max-time 5 "$(node_url "$i")/api/health" || echo 000)"
        grep -q '"rocketmq":{[^}]*"up":false' "$OUT/health-$i.json" 2>/dev/null && line+=":broker-down"
        grep -q '"database":{[^}]*"up":false' "$OUT/health-$i.json" 2>/dev/null && line+=":db-down"
      done
      echo "$line"
      sleep 0.5
    done >"$OUT/health" ) &
  SAMPLER=$!
}

# The load generator, in the background, until stop_load.
start_load() {
  local cp="$ROOT/roost-server/target/test-classes:$ROOT/roost-server/target/classes:$(cat "$ROOT/roost-server/target/devservices.classpath")"
  java -Xmx1g -cp "$cp" io.roost.bench.FaultLoad --url="$URL" --out="$OUT" --scenario="$1" \
    --namesrv="127.0.0.1:$NAMESRV_PORT" --db-url="jdbc:postgresql://127.0.0.1:$DB_PORT/roost" \
    --secret="$ROOST_AGORA_SECRET" --admin="admin:$ROOST_ADMIN_PASSWORD" "${@:2}" >"$OUT/load.log" 2>&1 &
  LOAD=$!
  for _ in $(seq 1 300); do
    [[ -f $OUT/started ]] && break
    kill -0 "$LOAD" 2>/dev/null || { cat "$OUT/load.log"; exit 1; }
    sleep 1
  done
  echo "== load running ($(grep '^load:' "$OUT/load.log"))"
}

# Stops the load, lets it resend what got no answer and check; its PASS/FAIL lines count here.
stop_load() {
  touch "$OUT/stop"
  wait "$LOAD" || true
  LOAD=
  grep -v -E '^(PASS|FAIL) ' "$OUT/load.log" | grep -E '^(load|answers)' || true
  local line
  while read -r line; do
    if [[ $line == PASS* ]]; then PASSED=$((PASSED + 1)); else FAILED=$((FAILED + 1)); fi
    echo "$line"
  done < <(grep -E '^(PASS|FAIL) ' "$OUT/load.log")
  grep -q -E '^(PASS|FAIL) ' "$OUT/load.log" || { check load-generator 0 "no checks; see $OUT/load.log"; tail -n 20 "$OUT/load.log"; }
}

mark() { now_ms >"$OUT/$1"; }

# Seconds from epoch ms $1 to the first health sample after it in which every node answers 200.
health_back_after() {
  awk -v from="$1" '$1 >= from { ok = 1; for (i = 2; i <= NF; i++) if ($i != "200") ok = 0; if (ok) { printf "%.1f", ($1 - from) / 1000; exit } }' "$OUT/health"
}

# Whether some health sample between epoch ms $1 and $2 has every node reporting $3 (broker-down, db-down).
health_down_between() {
  awk -v from="$1" -v to="$2" -v what="$3" '$1 >= from && $1 <= to { ok = 1; for (i = 2; i <= NF; i++) if ($i !~ ("^503.*" what)) ok = 0; if (ok) { found = 1; exit } } END { exit !found }' "$OUT/health"
}

# The checks every outage script ends with, for the outage that ended at epoch ms $1 of a
# dependency named $2 (broker, database) that health reports as $3 (broker-down, db-down) under the
# check $4 (rocketmq, database): every node reported it down during the outage, every node was
# healthy within 10 s of its return, and the outbox is empty after the load.
check_outage_health() {
  local back=$1 name=$2 down=$3 health_check=$4 up
  if health_down_between "$(cat "$OUT/fault-start")" "$back" "$down"; then
    check "health-$down" 1 "every node's /api/health answered 503 with checks.$health_check down during the outage"
  else
    check "health-$down" 0 "no health sample with every node reporting the $name down"
  fi
  up=$(health_back_after "$back")
  check health-up-again "$(awk -v u="${up:-999}" 'BEGIN { print (u <= 10) ? 1 : 0 }')" "every node healthy ${up:-never} s after the $name's return"
  check outbox-empty "$([[ $(sql "SELECT count(*) FROM outbox") == 0 ]] && echo 1 || echo 0)" "nothing left in the outbox after the load"
}
