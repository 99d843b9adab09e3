# Sourced by bench/chat.sh: the same chat workload against ejabberd 23.01 (Debian's package, installed
# if missing), run as a plain Erlang VM this script starts and stops itself (not the system service):
# its own config, Mnesia spool and logs under $ROOST_DATA_DIR-ejabberd, no distribution (no epmd),
# c2s on EJABBERD_PORT (5222 + ROOST_PORT_OFFSET) on 127.0.0.1 only. mod_mam is on for every message
# (default: always, Mnesia), so messages are archived as Roost stores them; mod_stream_mgmt gives the
# send acknowledgements (<a h>), mod_carboncopy copies to the sender's other devices. No shaper.
#   run_ejabberd [XmppChatBench args]   prints the ejabberd result block on stdout, the run on stderr

run_ejabberd() {
  local dir=$ROOST_DATA_DIR-ejabberd port=${EJABBERD_PORT:-$((5222 + ${ROOST_PORT_OFFSET:-0}))}
  if [[ ! -d /usr/lib/x86_64-linux-gnu/ejabberd-23.01 ]]; then
    apt-cache policy ejabberd >&2
    # the package's own service is not started (policy-rc.d in containers); we never use it
    DEBIAN_FRONTEND=noninteractive apt-get install -y -q ejabberd >/dev/null
  fi
  rm -rf "$dir"; mkdir -p "$dir/spool" "$dir/logs"
  cat > "$dir/ejabberd.yml" <<EOT
loglevel: warning
log_rotate_count: 0
hosts:
  - localhost
listen:
  -
    port: $port
    ip: "127.0.0.1"
    module: ejabberd_c2s
    max_stanza_size: 65536
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
  max_user_offline_messages: 100000
modules:
  mod_mam:
    db_type: mnesia
    default: always
    assume_mam_usage: true
  mod_register:
    ip_access: all
    access: register
  mod_stream_mgmt:
    resend_on_timeout: if_offline
  mod_carboncopy: {}
  mod_offline:
    access_max_user_messages: max_user_offline_messages
  mod_disco: {}
EOT
  echo "== ejabberd 23.01 ($(dpkg-query -W -f '${Version}' ejabberd)), mod_mam on (Mnesia), c2s 127.0.0.1:$port" >&2
  # What ejabberdctl foreground would run, minus the node name (so no epmd) and the su to user ejabberd.
  EJABBERD_CONFIG_PATH=$dir/ejabberd.yml EJABBERD_LOG_PATH=$dir/logs/ejabberd.log ERL_LIBS=/usr/lib/x86_64-linux-gnu \
    ERL_CRASH_DUMP=$dir/logs/erl_crash.dump ERL_INETRC=/etc/ejabberd/inetrc \
    erl +K true +P 250000 -env ERL_CRASH_DUMP_BYTES 0 -noinput -mnesia dir "\"$dir/spool\"" -s ejabberd \
    > "$dir/logs/stdout.log" 2>&1 &
  local ej=$! bench sampler w
  PIDS_TO_STOP+=("$ej")
  for _ in $(seq 1 120); do (exec 3<>"/dev/tcp/127.0.0.1/$port") 2>/dev/null && break; kill -0 "$ej" 2>/dev/null || break; sleep 1; done
  if ! (exec 3<>"/dev/tcp/127.0.0.1/$port") 2>/dev/null; then
    echo "ejabberd did not start:" >&2; tail -n 30 "$dir/logs/stdout.log" "$dir/logs/ejabberd.log" >&2 || true
    kill "$ej" 2>/dev/null || true
    echo "ejabberd: did not start (see $dir/logs)"
    return 0
  fi
  # erl execs erlexec, which execs beam.smp: $ej is the VM itself
  echo "$ej" > "$dir/beam.pid"
  local out=$dir/bench.out go=$dir/bench.go
  java -Xms4g -Xmx4g -Xmn3g -cp "$CP" io.roost.bench.XmppChatBench --port="$port" --go-file="$go" "$@" > "$out" 2>&1 &
  bench=$!
  PIDS_TO_STOP+=("$bench")
  cpu_sampler "$dir/cpu" "$dir/beam.pid" "$dir/none" "" "$bench" &
  sampler=$!
  PIDS_TO_STOP+=("$sampler")
  until grep -q "^WARMED" "$out" 2>/dev/null || ! kill -0 "$bench" 2>/dev/null; do sleep 1; done
  touch "$go"
  until grep -q "^SETTLED" "$out" 2>/dev/null || ! kill -0 "$bench" 2>/dev/null; do sleep 1; done
  local rss; rss=$(awk '/VmRSS/ {printf "%d", $2 / 1024}' "/proc/$ej/status" 2>/dev/null || echo "?")
  touch "$go.heap"
  wait "$bench" || true
  kill "$sampler" 2>/dev/null || true
  cat "$out" >&2
  local from to secs p d b m n
  from=$(awk '/^MEASURE_START/ {print $2}' "$out"); to=$(awk '/^MEASURE_END/ {print $2}' "$out")
  read -r secs w p d b m <<< "$(cpu_between "$dir/cpu" "$from" "$to")"
  n=$(awk -v r="$(field "$out" sends_per_s)" -v s="$secs" 'BEGIN { printf "%d", r * s }')
  kill -TERM "$ej" 2>/dev/null || true  # the VM stops cleanly on SIGTERM (init:stop)
  for _ in $(seq 1 60); do kill -0 "$ej" 2>/dev/null || break; sleep 0.5; done
  kill -KILL "$ej" 2>/dev/null || true
  cat <<EOT
ejabberd 23.01, mod_mam on ($(field "$out" devices) devices, $(field "$out" pairs) pairs, offered $(field "$out" offered_per_s) msg/s):
  sends/s (XEP-0198 <a h> after the stanza was processed and archived): $(field "$out" sends_per_s)
  send→answer p50 $(field "$out" answer_p50_ms) ms, p99 $(field "$out" answer_p99_ms) ms; send→push p50 $(field "$out" push_p50_ms) ms, p99 $(field "$out" push_p99_ms) ms
  CPU per message: ejabberd $(cpu_us_per "$w" "$n") µs, load generator $(cpu_us_per "$b" "$n") µs; machine busy $(awk -v m="$m" -v s="$secs" -v hz="$(getconf CLK_TCK)" 'BEGIN { printf "%.2f", m / hz / s }') of $(nproc) cores
  ejabberd RSS at the end, every device connected: $rss MB
  outcome: $(field "$out" outcome) (lost $(field "$out" lost), duplicated $(field "$out" dup))
EOT
}
