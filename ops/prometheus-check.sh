#!/usr/bin/env bash
# Checks the monitoring end to end: starts a Roost cluster (bin/roost start --nodes 2, metrics
# without credentials), scrapes both nodes' management interfaces with Debian's real Prometheus
# every 2 s, drives a little real traffic (the fault harness's load: device logins, heartbeats,
# one-to-one chat with acknowledged pushes, Agora and MQTT notifications; and over REST a group
# message and a read report), then asks Prometheus's HTTP API whether every node's target is up and
# whether every query of docker/grafana/roost.json returns data. Exits non-zero if not.
#
# A query may be empty only if the roost_* meter it reads is in ALLOWED_EMPTY below, with the
# reason printed. Everything it starts is stopped by pid at exit.
#
# Environment (all optional): ROOST_DATA_DIR (roost-server/target/prometheus-check-data, wiped of
# an earlier run's nodes and dev services), ROOST_PORT_OFFSET (1700: node i's http on
# 8080 + offset + 100*i, management on 9990 + the same), ROOST_LB_PORT (9700), ROOST_DEV_DB_PORT
# (56833), ROOST_DEV_NAMESRV_PORT (22277), ROOST_DEV_BROKER_PORT (13331), ROOST_DEV_S3_PORT (14490),
# PROMETHEUS_PORT (19390), ROOST_SKIP_BUILD=1 (run what target/ holds), LOAD_SECONDS (20),
# ROOST_METRICS_PATH (/metrics).
set -euo pipefail
ROOT=$(cd "$(dirname "$0")/.." && pwd)
cd "$ROOT"

NODES=2
export ROOST_DATA_DIR=${ROOST_DATA_DIR:-$ROOT/roost-server/target/prometheus-check-data}
export ROOST_PORT_OFFSET=${ROOST_PORT_OFFSET:-1700} ROOST_LB_PORT=${ROOST_LB_PORT:-9700}
export ROOST_DEV_DB_PORT=${ROOST_DEV_DB_PORT:-56833} ROOST_DEV_NAMESRV_PORT=${ROOST_DEV_NAMESRV_PORT:-22277}
export ROOST_DEV_BROKER_PORT=${ROOST_DEV_BROKER_PORT:-13331} ROOST_DEV_S3_PORT=${ROOST_DEV_S3_PORT:-14490}
export ROOST_METRICS_AUTH=false ROOST_METRICS_PATH=${ROOST_METRICS_PATH:-/metrics}
export ROOST_MODE=dev ROOST_AGORA_SECRET=${ROOST_AGORA_SECRET:-check-secret}
export ROOST_ADMIN_PASSWORD=${ROOST_ADMIN_PASSWORD:-check-admin-password}
PROMETHEUS_PORT=${PROMETHEUS_PORT:-19390}
PROMETHEUS=${PROMETHEUS:-/usr/bin/prometheus}
LOAD_SECONDS=${LOAD_SECONDS:-20}
DASHBOARD=$ROOT/docker/grafana/roost.json
# What the dashboard's variables stand for in the check: every node, a window of 30 scrapes.
NODE_VALUE='.*'
WINDOW=1m

# Meters a short calm run may leave without any series, and why (a query naming one may be empty).
declare -A ALLOWED_EMPTY=(
  [roost_gateway_kicks_total]="no session is ended by the server in a calm run (the devices close themselves)"
  [roost_messaging_failures_total]="no consumer handling fails in a calm run"
  [roost_messaging_dead_letters_total]="nothing reaches a dead-letter queue in a calm run"
  [roost_chat_group_fanout_bucket]="the check's group message has no member device connected to fan out to"
)

mkdir -p "$ROOST_DATA_DIR"
DATA=$(cd "$ROOST_DATA_DIR" && pwd -P)
OUT=$DATA/check-out
PROM_URL=http://127.0.0.1:$PROMETHEUS_PORT
node_offset() { echo $((ROOST_PORT_OFFSET + 100 * $1)); }
http_url() { echo "http://127.0.0.1:$((8080 + $(node_offset "$1")))"; }
mgmt_target() { echo "127.0.0.1:$((9990 + $(node_offset "$1")))"; }
LB_URL=http://127.0.0.1:$ROOST_LB_PORT

for tool in "$PROMETHEUS" jq curl; do
  command -v "$tool" >/dev/null || { echo "$tool is not installed (Debian: apt-get install prometheus jq curl)" >&2; exit 2; }
done

LAUNCHER= PROM= LOAD=
cleanup() {
  local rc=$?
  [[ -n $LOAD ]] && kill "$LOAD" 2>/dev/null || true
  [[ -n $PROM ]] && kill "$PROM" 2>/dev/null && wait "$PROM" 2>/dev/null || true
  if [[ -n $LAUNCHER ]]; then
    bin/roost stop >/dev/null 2>&1 || true
    for _ in $(seq 1 60); do kill -0 "$LAUNCHER" 2>/dev/null || break; sleep 1; done
    kill "$LAUNCHER" 2>/dev/null || true
  fi
  exit "$rc"
}
trap cleanup EXIT
trap 'exit 130' INT TERM

rm -rf "$DATA/devservices" "$DATA"/node-* "$OUT"
mkdir -p "$OUT/prometheus-data"

echo "== starting Roost: bin/roost start --nodes $NODES (data $DATA, log $OUT/launcher.log)"
bin/roost start --nodes "$NODES" >"$OUT/launcher.log" 2>&1 &
LAUNCHER=$!
for _ in $(seq 1 600); do
  curl -fsS -m 2 "$LB_URL/api/health" >/dev/null 2>&1 && break
  kill -0 "$LAUNCHER" 2>/dev/null || { tail -n 30 "$OUT/launcher.log"; exit 1; }
  sleep 1
done
curl -fsS -m 5 "$LB_URL/api/health" >/dev/null || { echo "Roost did not come up" >&2; tail -n 30 "$OUT/launcher.log"; exit 1; }
echo "== Roost is up behind $LB_URL"

# Prometheus: both nodes' management interfaces, every 2 s.
{
  cat <<EOT
global:
  scrape_interval: 2s
  evaluation_interval: 2s
scrape_configs:
  - job_name: roost
    metrics_path: $ROOST_METRICS_PATH
    static_configs:
      - targets:
EOT
  for ((i = 0; i < NODES; i++)); do echo "          - $(mgmt_target "$i")"; done
} >"$OUT/prometheus.yml"
"$PROMETHEUS" --config.file="$OUT/prometheus.yml" --storage.tsdb.path="$OUT/prometheus-data" \
  --web.listen-address="127.0.0.1:$PROMETHEUS_PORT" >"$OUT/prometheus.log" 2>&1 &
PROM=$!
for _ in $(seq 1 60); do curl -fsS -m 2 "$PROM_URL/-/ready" >/dev/null 2>&1 && break; sleep 0.5; done
curl -fsS -m 2 "$PROM_URL/-/ready" >/dev/null || { echo "Prometheus did not start" >&2; tail -n 20 "$OUT/prometheus.log"; exit 1; }
echo "== Prometheus on $PROM_URL (config $OUT/prometheus.yml)"

# ---- traffic
api() { # METHOD PATH TOKEN [BODY]: the answer's body; exits on a non-2xx status or no answer
  local args=(-fsS -m 60 -X "$1" "$LB_URL$2" -H 'Content-Type: application/json')
  [[ -n $3 ]] && args+=(-H "Authorization: Bearer $3")
  [[ -n ${4:-} ]] && args+=(--data-binary "$4")
  curl "${args[@]}" || { echo "FAIL traffic: $1 $2 got no success" >&2; exit 1; }
}
run=$(date +%s)
register() { api POST /api/v1/registrations "" "{\"username\":\"pc${run}_$1\",\"password\":\"check-password-$1\",\"deviceType\":\"web\",\"deviceId\":\"pc-$1\"}"; }

cp="$ROOT/roost-server/target/test-classes:$ROOT/roost-server/target/classes:$(cat "$ROOT/roost-server/target/devservices.classpath")"
java -Xmx512m -cp "$cp" io.roost.bench.FaultLoad --url="$LB_URL" --out="$OUT/load" --scenario=broker-outage \
  --pairs=2 --rtc-users=8 --channels=2 --mqtt-clients=8 --settle-ms=2000 \
  --namesrv="127.0.0.1:$ROOST_DEV_NAMESRV_PORT" --db-url="jdbc:postgresql://127.0.0.1:$ROOST_DEV_DB_PORT/roost" \
  --secret="$ROOST_AGORA_SECRET" --admin="admin:$ROOST_ADMIN_PASSWORD" >"$OUT/load.log" 2>&1 &
LOAD=$!
for _ in $(seq 1 120); do
  [[ -f $OUT/load/started ]] && break
  kill -0 "$LOAD" 2>/dev/null || { echo "the load did not start:" >&2; tail -n 20 "$OUT/load.log" >&2; exit 1; }
  sleep 1
done
echo "== load running: $(grep '^load:' "$OUT/load.log" || true)"

# Over REST: two users, a group they are both in, a group message, a one-to-one message, a read report.
a=$(register a)
b=$(register b)
a_token=$(jq -r .token.token <<<"$a") b_token=$(jq -r .token.token <<<"$b")
a_uid=$(jq -r .account.id <<<"$a") b_uid=$(jq -r .account.id <<<"$b")
group=$(api POST /api/v1/groups "$a_token" '{"name":"check","type":"chat","joinPolicy":"open","visibility":"public"}' | jq -r .id)
api POST "/api/v1/groups/$group/join" "$b_token" '{}' >/dev/null
api POST "/api/v1/chat/groups/$group/messages" "$a_token" "{\"sendId\":\"g$run\",\"type\":\"text\",\"text\":\"hello group\"}" >/dev/null
seq=$(api POST /api/v1/chat/messages "$a_token" "{\"peer\":\"$b_uid\",\"sendId\":\"o$run\",\"type\":\"text\",\"text\":\"hello\"}" | jq -r .seq)
api POST "/api/v1/chat/users/me/conversations/$a_uid/read" "$b_token" "{\"readSeq\":$seq}" >/dev/null
echo "== REST traffic: users $a_uid and $b_uid, group $group, one group message, one message (seq $seq) read"

sleep "$LOAD_SECONDS"
touch "$OUT/load/stop"
echo "== load stopping (FaultLoad settles and checks; log $OUT/load.log)"
load_rc=0
wait "$LOAD" || load_rc=$?
LOAD=
grep -E '^(PASS|FAIL) ' "$OUT/load.log" || true
echo "== load exited $load_rc; letting Prometheus scrape a few more times"
sleep 6

# ---- checks
query() { curl -fsS -m 10 "$PROM_URL/api/v1/query" --data-urlencode "query=$1"; }
failed=0

targets=$(curl -fsS -m 10 "$PROM_URL/api/v1/targets")
up=$(jq '[.data.activeTargets[] | select(.labels.job == "roost" and .health == "up")] | length' <<<"$targets")
echo
echo "Targets (job roost):"
jq -r '.data.activeTargets[] | select(.labels.job == "roost") | "  \(.labels.instance)  \(.health)  \(.lastError)"' <<<"$targets"
if ((up != NODES)); then echo "FAIL targets: $up of $NODES up"; failed=1; fi

echo
echo "Dashboard queries ($DASHBOARD; \$node=$NODE_VALUE, \$__rate_interval=$WINDOW):"
total=0 with_data=0 empty_allowed=0
while IFS=$'\t' read -r title ref expr; do
  total=$((total + 1))
  e=${expr//'$node'/$NODE_VALUE}
  e=${e//'$__rate_interval'/$WINDOW}
  if [[ $e == *'$'* ]]; then echo "  FAIL [$title $ref] a dashboard variable the check does not know: $expr"; failed=1; continue; fi
  if ! answer=$(query "$e"); then echo "  FAIL [$title $ref] Prometheus refused: $e"; failed=1; continue; fi
  n=$(jq '.data.result | length' <<<"$answer")
  if ((n > 0)); then
    with_data=$((with_data + 1))
    echo "  ok    [$title $ref] $n series"
    continue
  fi
  reason=""
  for meter in "${!ALLOWED_EMPTY[@]}"; do
    [[ $e == *"$meter{"* ]] && reason=${ALLOWED_EMPTY[$meter]}
  done
  if [[ -n $reason ]]; then
    empty_allowed=$((empty_allowed + 1))
    echo "  empty [$title $ref] allowed: $reason"
  else
    echo "  FAIL  [$title $ref] no data: $e"
    failed=1
  fi
done < <(jq -r '.panels[] | recurse(.panels[]?) | select(.targets) | .title as $t | .targets[] | [$t, .refId, .expr] | @tsv' "$DASHBOARD")

echo
echo "Summary"
echo "  targets up: $up of $NODES"
echo "  queries with data: $with_data of $total ($empty_allowed empty and allowed)"
per_node() { query "$1" | jq -r '.data.result[] | "\(.metric.instance) \(.value[1])"'; }
echo "  scrape duration per node (s):"; per_node 'scrape_duration_seconds{job="roost"}' | sed 's/^/    /'
echo "  samples per scrape per node:"; per_node 'scrape_samples_scraped{job="roost"}' | sed 's/^/    /'
if ((failed)); then echo "FAILED"; exit 1; fi
echo "PASSED"
