#!/usr/bin/env bash
# Media benchmark: uploads and downloads through Roost (one node, bin/roost start) of a realistic mix
# (MediaBench: many ~200 KB JPEG photos, some 5 MB documents, a few 50 MB videos), with the stores in
# turn — PostgreSQL chunks (db), a bucket on S3Proxy, which the dev services run, with Roost passing
# the bytes on (s3), and the same bucket serving downloads itself after Roost's authorization and a
# redirect to a signed URL (s3-redirect, ROOST_MEDIA_S3_REDIRECT=true) — against two baselines in
# the same run: Debian's nginx serving the same files from disk on this box, and the bucket server's
# own downloads of the same objects (SigV4, straight from S3Proxy). Also: the node's heap (jstat)
# during all uploads and during one 50 MB upload alone, and the outcome (every download's SHA-256
# right; a stranger's downloads refused).
# Goals (ratios in one run): Roost's download MB/s with the db store >= 0.25 x nginx's; with the
# bucket >= 0.5 x the bucket's own. Not part of ./mvnw verify.
#   bench/media.sh [--scale=1 --images=200 --docs=10 --videos=2 --rounds=3 --up-threads=8 --down-threads=16 --seed=N]
#                  [--stores=db,s3,s3-redirect]
# env: ROOST_PORT_OFFSET (4000: Roost on 12080), ROOST_DEV_DB_PORT (59432), ROOST_DEV_NAMESRV_PORT (23876),
#   ROOST_DEV_BROKER_PORT (14930), ROOST_DEV_S3_PORT (14970), NGINX_PORT (14980), ROOST_DATA_DIR (target/bench-media),
#   JBOSS_JAVA_SIZING (-Xms256m -Xmx1g), ROOST_SKIP_BUILD=1
set -euo pipefail
cd "$(dirname "$0")/.."
source bench/lib.sh
STORES=db,s3,s3-redirect
ARGS=()
for a in "$@"; do
  case $a in
    --stores=*) STORES=${a#--stores=} ;;
    *) ARGS+=("$a") ;;
  esac
done
[[ " ${ARGS[*]} " == *" --seed="* ]] || ARGS+=("--seed=$((RANDOM * 32768 + RANDOM))")
export ROOST_PORT_OFFSET=${ROOST_PORT_OFFSET:-4000}
export ROOST_DEV_DB_PORT=${ROOST_DEV_DB_PORT:-59432}
export ROOST_DEV_NAMESRV_PORT=${ROOST_DEV_NAMESRV_PORT:-23876}
export ROOST_DEV_BROKER_PORT=${ROOST_DEV_BROKER_PORT:-14930}
export ROOST_DEV_S3_PORT=${ROOST_DEV_S3_PORT:-14970}
NGINX_PORT=${NGINX_PORT:-14980}
export ROOST_DATA_DIR=${ROOST_DATA_DIR:-$PWD/target/bench-media}
export ROOST_MODE=dev ROOST_ADMIN_PASSWORD=bench-admin-password
# the bench's own limits: its mix is larger than a user's default quota, and uploads come faster than a person's
export ROOST_MEDIA_QUOTA_BYTES=${ROOST_MEDIA_QUOTA_BYTES:-100000000000} ROOST_MEDIA_UPLOADS_PER_MINUTE=${ROOST_MEDIA_UPLOADS_PER_MINUTE:-100000}
export JBOSS_JAVA_SIZING=${JBOSS_JAVA_SIZING:--Xms256m -Xmx1g}
URL="http://127.0.0.1:$((8080 + ROOST_PORT_OFFSET))"
FILES=$ROOST_DATA_DIR-files
mkdir -p "$(dirname "$ROOST_DATA_DIR")" "$FILES"
if [[ ${ROOST_SKIP_BUILD:-} != 1 ]]; then
  ./mvnw -q package -DskipTests > "$ROOST_DATA_DIR.build.log" 2>&1 || { cat "$ROOST_DATA_DIR.build.log"; exit 1; }
fi
export ROOST_SKIP_BUILD=1
CP="roost-server/target/test-classes:roost-server/target/classes:$(cat roost-server/target/devservices.classpath)"
for f in roost-server/src/bench/java/io/roost/bench/*.java; do
  c=roost-server/target/test-classes/io/roost/bench/$(basename "$f" .java).class
  if [[ ! -f $c || $f -nt $c ]]; then
    javac -nowarn -encoding UTF-8 --release 17 -d roost-server/target/test-classes -cp "$CP" roost-server/src/bench/java/io/roost/bench/*.java >&2
    break
  fi
done
command -v nginx >/dev/null || DEBIAN_FRONTEND=noninteractive apt-get install -y -q nginx >/dev/null

PIDS=()
ROOST_UP=0
cleanup() {
  local p
  for p in "${PIDS[@]}"; do kill "$p" 2>/dev/null || true; done
  if ((ROOST_UP)); then bin/roost stop >/dev/null 2>&1 || true; fi
}
trap cleanup EXIT

# nginx over the files MediaBench writes (the same bytes Roost gets), as a static file server tuned as usual
NGINX_DIR=$ROOST_DATA_DIR-nginx
mkdir -p "$NGINX_DIR/logs"
cat > "$NGINX_DIR/nginx.conf" <<EOT
worker_processes auto;
pid $NGINX_DIR/nginx.pid;
error_log $NGINX_DIR/logs/error.log warn;
events { worker_connections 1024; }
http {
  access_log off;
  sendfile on;
  tcp_nopush on;
  keepalive_requests 100000;
  types { image/jpeg jpg; application/pdf pdf; video/mp4 mp4; }
  server {
    listen 127.0.0.1:$NGINX_PORT;
    root $FILES;
  }
}
EOT
nginx -p "$NGINX_DIR" -c "$NGINX_DIR/nginx.conf" -g 'daemon off;' &
PIDS+=($!)

field() { awk -v p="$2" -v s="$3" -v k="$4" '$1 == "RESULT" { ok = 0; for (i=2;i<=NF;i++) { split($i,a,"="); v[a[1]] = a[2] }
  if (v["phase"] == p && (s == "" || v["source"] == s)) print v[k]; delete v }' "$1" | head -1; }
BOX=$(box_gauge "$CP")
OUTS=()
for store in ${STORES//,/ }; do
  out=$ROOST_DATA_DIR-$store.out
  rm -rf "$ROOST_DATA_DIR"
  redirect=false
  [[ $store == s3-redirect ]] && redirect=true
  ROOST_MEDIA_STORE=${store%-redirect} ROOST_MEDIA_S3_REDIRECT=$redirect bin/roost start > "$ROOST_DATA_DIR-$store.start.log" 2>&1 &
  launcher=$!
  ROOST_UP=1
  for _ in $(seq 1 400); do grep -q "Roost is up" "$ROOST_DATA_DIR-$store.start.log" 2>/dev/null && break; kill -0 $launcher 2>/dev/null || break; sleep 1; done
  grep -q "Roost is up" "$ROOST_DATA_DIR-$store.start.log" || { cat "$ROOST_DATA_DIR-$store.start.log"; exit 1; }
  node=$(cat "$ROOST_DATA_DIR/node-0/wildfly.pid")
  extra=()
  [[ $store == s3* ]] && extra=(--s3-endpoint="http://127.0.0.1:$ROOST_DEV_S3_PORT" --s3-bucket=roost-media)
  jcmd "$node" GC.run >/dev/null 2>&1 || true
  heap_sampler "$ROOST_DATA_DIR-$store.jstat" "$node" &
  hs=$!
  PIDS+=("$hs")
  s3pid=$(cat "$ROOST_DATA_DIR/devservices/s3proxy.pid" 2>/dev/null || true)
  cpu_sampler "$ROOST_DATA_DIR-$store.cpu" "$ROOST_DATA_DIR/node-0/wildfly.pid" "$ROOST_DATA_DIR/devservices/pgdata" \
    "$(cat "$ROOST_DATA_DIR/devservices/devservices.pid")" "$s3pid" &
  cs=$!
  PIDS+=("$cs")
  java -Xmx1g -cp "$CP" io.roost.bench.MediaBench --url="$URL" --store="$store" --dir="$FILES" \
    --nginx-url="http://127.0.0.1:$NGINX_PORT" "${extra[@]}" "${ARGS[@]}" > "$out" 2>&1 || { cat "$out"; exit 1; }
  kill "$hs" "$cs" 2>/dev/null || true
  cat "$out" >&2
  # what a download through Roost costs each server: CPU µs per download in Roost's download phase
  from=$(awk '$1 == "PHASE_START" && $2 == "download-roost" {print $3}' "$out"); to=$(awk '$1 == "PHASE_END" && $2 == "download-roost" {print $3}' "$out")
  n=$(field "$out" download roost downloads)
  read -r _ w p _ o _ <<< "$(cpu_between "$ROOST_DATA_DIR-$store.cpu" "$from" "$to")"
  echo "CPU store=$store WildFly $(cpu_us_per "$w" "$n") µs, PostgreSQL $(cpu_us_per "$p" "$n") µs, S3Proxy $(cpu_us_per "${o:-0}" "$n") µs per download" >> "$out"
  # heap used (eden + survivors + old) before a phase and its peak within it
  for ph in upload upload-one; do
    from=$(awk -v p="$ph" '$1 == "PHASE_START" && $2 == p {print $3}' "$out"); to=$(awk -v p="$ph" '$1 == "PHASE_END" && $2 == p {print $3}' "$out")
    heap=$(awk -v f="$from" -v t="$to" '/^# t0/ { t0 = $3; next } $1 !~ /^[0-9.]+$/ { next }
      { at = t0 + $1 * 1000; used = $4 + $5 + $7 + $9; old = $9 }
      at <= f { before = used; oldBefore = old } at >= f && at <= t && used > peak { peak = used }
      at >= f && at <= t && old > oldPeak { oldPeak = old }
      END { printf "used before %.0f MB, peak %.0f MB (eden included: garbage until the next young collection); old generation before %.0f MB, peak %.0f MB (what stays)", before / 1024, peak / 1024, oldBefore / 1024, oldPeak / 1024 }' "$ROOST_DATA_DIR-$store.jstat")
    echo "HEAP phase=$ph store=$store $heap" >> "$out"
  done
  bin/roost stop >/dev/null 2>&1 || true
  ROOST_UP=0
  OUTS+=("$out")
done

echo
echo "machine: $(nproc) cores; box gauge (quiet, before the run): $BOX"
for out in "${OUTS[@]}"; do
  store=$(awk '/^SIZES/ {split($2,a,"="); print a[2]}' "$out")
  echo "store $store: $(grep '^SIZES' "$out" | cut -d' ' -f2-)"
  echo "  upload: $(field "$out" upload "" mb_per_s) MB/s ($(field "$out" upload "" files) files, $(field "$out" upload "" mb) MB in $(field "$out" upload "" seconds) s); heap $(grep '^HEAP phase=upload ' "$out" | cut -d' ' -f4-)"
  echo "  one 50 MB upload alone: $(field "$out" upload-one "" seconds) s; heap $(grep '^HEAP phase=upload-one ' "$out" | cut -d' ' -f4-)"
  for src in roost nginx bucket; do
    [[ -n $(field "$out" download "$src" mb_per_s) ]] || continue
    echo "  download from $src: $(field "$out" download "$src" mb_per_s) MB/s, time to first byte p50 $(field "$out" download "$src" ttfb_p50_ms) ms, p99 $(field "$out" download "$src" ttfb_p99_ms) ms ($(field "$out" download "$src" downloads) downloads, $(field "$out" download "$src" redirects) by redirect, bad $(field "$out" download "$src" bad))"
  done
  echo "  $(grep '^CPU' "$out" | cut -d' ' -f3-)"
  echo "  outcome: $(field "$out" outcome "" outcome) (bad downloads $(field "$out" outcome "" bad_downloads), a stranger refused $(field "$out" outcome "" forbidden_refused))"
  r=$(field "$out" download roost mb_per_s)
  if [[ $store == db ]]; then
    echo "  ratio db store / nginx: $(awk -v a="$r" -v b="$(field "$out" download nginx mb_per_s)" 'BEGIN { printf "%.2f", (b > 0 ? a / b : 0) }') (goal >= 0.25)"
  else
    echo "  ratio $store / the bucket's own: $(awk -v a="$r" -v b="$(field "$out" download bucket mb_per_s)" 'BEGIN { printf "%.2f", (b > 0 ? a / b : 0) }') (goal >= 0.5)"
  fi
done
