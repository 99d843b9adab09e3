#!/usr/bin/env bash
# What each part of a send batch costs PostgreSQL (docs/benchmarks.md, "One-to-one chat"): one
# backend, as the send writer is one, runs batches of BATCH messages among 5,000 pairs of 10,000
# users, as a PL/pgSQL function that makes the send writer's statements on tables of Roost's chat
# shape, in four variants taken in turn, ROUND_SECONDS each:
#   full      the send writer's statements: the sendId claim (chat_send), the pairs' seq counters
#             (chat_pair), both timeline rows and both conversation rows, the batch's outbox event;
#   no-claim  without the sendId claim;
#   no-pair   without the pairs' seq counters;
#   probe     the sendId looked up in the timeline (a partial unique index on the sender's copy,
#             which carries the device key and the body's hash) instead of claimed in chat_send.
# Every variant takes its seqs from one sequence and writes the same timeline and conversation rows,
# so the differences are the parts left out. Prints batches/s per round, each variant's median and
# its ratio to full's, and WAL bytes per message. A throwaway PostgreSQL cluster (Debian's
# postgresql-15, as the postgres user; synchronous_commit off, so the statements, not the fsync, are
# timed) on SEND_PARTS_PG_PORT, removed at the end. Not part of ./mvnw verify.
#   bench/send-batch-parts.sh    env: ROUNDS (5), ROUND_SECONDS (10), BATCH (36), SEND_PARTS_PG_PORT (55997)
set -euo pipefail
ROUNDS=${ROUNDS:-5}
ROUND_SECONDS=${ROUND_SECONDS:-10}
BATCH=${BATCH:-36}
PORT=${SEND_PARTS_PG_PORT:-55997}
cd "$(dirname "$0")/.."
source bench/lib.sh
throwaway_pg "$PORT"

# The chat tables as migrations V16-V25 leave them (checks and statistics settings aside), plus the
# probe variant's columns and index, which the other variants leave empty (NULL: not indexed).
psql <<'SQL'
CREATE SEQUENCE msg_ids;
CREATE SEQUENCE seqs;
CREATE TABLE outbox (id bigserial PRIMARY KEY, payload jsonb NOT NULL);
CREATE TABLE chat_pair (low_uid int8 NOT NULL, high_uid int8 NOT NULL, last_seq int8 NOT NULL DEFAULT 0,
    created_at timestamptz NOT NULL DEFAULT now(), updated_at timestamptz NOT NULL DEFAULT now(), PRIMARY KEY (low_uid, high_uid));
CREATE TABLE chat_send (sender_uid int8 NOT NULL, device_key varchar(80) NOT NULL, send_id varchar(64) NOT NULL, msg_id int8 NOT NULL,
    peer_uid int8 NOT NULL, body_hash bytea NOT NULL, created_at timestamptz NOT NULL DEFAULT now(), PRIMARY KEY (sender_uid, device_key, send_id));
CREATE INDEX ON chat_send USING brin (created_at);
CREATE TABLE chat_timeline (owner_uid int8 NOT NULL, peer_uid int8 NOT NULL, seq int8 NOT NULL, msg_id int8 NOT NULL,
    sender_uid int8 NOT NULL, send_id varchar(64) NOT NULL, msg_type varchar(8) NOT NULL, body jsonb NOT NULL, quote_msg_id int8,
    priority int2 NOT NULL DEFAULT 0, created_at timestamptz NOT NULL DEFAULT now(), deleted_for_owner bool NOT NULL DEFAULT false,
    recalled bool NOT NULL DEFAULT false, device_key varchar(80), body_hash bytea, PRIMARY KEY (owner_uid, peer_uid, seq))
    PARTITION BY HASH (owner_uid);
DO $$ BEGIN FOR i IN 0..15 LOOP
    EXECUTE format('CREATE TABLE chat_timeline_p%s PARTITION OF chat_timeline FOR VALUES WITH (MODULUS 16, REMAINDER %s)', i, i);
END LOOP; END $$;
CREATE UNIQUE INDEX ON chat_timeline (msg_id, owner_uid);
CREATE UNIQUE INDEX chat_timeline_send_idx ON chat_timeline (owner_uid, device_key, send_id) WHERE device_key IS NOT NULL;
CREATE TABLE chat_conversation (owner_uid int8 NOT NULL, peer_uid int8 NOT NULL, last_seq int8 NOT NULL DEFAULT 0, last_msg_id int8,
    last_sender_uid int8, last_preview varchar(200), unread int4 NOT NULL DEFAULT 0, read_seq int8 NOT NULL DEFAULT 0,
    delivered_seq int8 NOT NULL DEFAULT 0, sync_version int8 NOT NULL, updated_at timestamptz NOT NULL DEFAULT now(),
    PRIMARY KEY (owner_uid, peer_uid)) WITH (fillfactor = 70);

CREATE FUNCTION send_batch(n int, variant text) RETURNS int LANGUAGE plpgsql AS $f$
DECLARE
    senders int8[] := '{}'; peers int8[] := '{}'; devices varchar[] := '{}'; send_ids varchar[] := '{}';
    msg_ids int8[] := '{}'; hashes bytea[] := '{}'; pair int; s int8; p int8; seq int8; cnt int;
    t_owner int8[] := '{}'; t_peer int8[] := '{}'; t_seq int8[] := '{}'; t_msg int8[] := '{}'; t_sender int8[] := '{}';
    t_send_id varchar[] := '{}'; t_device varchar[] := '{}'; t_hash bytea[] := '{}';
BEGIN
    FOR i IN 1..n LOOP  -- a random pair, a random direction
        pair := 1 + floor(random() * 5000)::int;
        s := 2 * pair - (random() < 0.5)::int; p := 4 * pair - 1 - s;
        senders := senders || s; peers := peers || p; devices := devices || ('android:device-' || s)::varchar;
        send_ids := send_ids || md5(random()::text)::varchar; msg_ids := msg_ids || nextval('msg_ids');
        hashes := hashes || decode(md5(random()::text), 'hex');
    END LOOP;
    IF variant IN ('full', 'no-pair') THEN
        WITH claimed AS (
            INSERT INTO chat_send (sender_uid, device_key, send_id, msg_id, peer_uid, body_hash)
            SELECT u, d, i, m, x.p, h FROM unnest(senders, devices, send_ids, msg_ids, peers, hashes) AS x(u, d, i, m, p, h)
            ORDER BY u, d, i ON CONFLICT DO NOTHING RETURNING 1)
        SELECT count(*) INTO cnt FROM claimed;
    ELSIF variant = 'probe' THEN
        SELECT count(*) INTO cnt FROM unnest(senders, devices, send_ids) AS x(u, d, i)
        WHERE NOT EXISTS (SELECT 1 FROM chat_timeline t WHERE t.owner_uid = x.u AND t.device_key = x.d AND t.send_id = x.i);
    END IF;
    IF variant <> 'no-pair' THEN
        WITH pairs AS (
            INSERT INTO chat_pair AS cp (low_uid, high_uid, last_seq)
            SELECT least(u, x.p), greatest(u, x.p), count(*) FROM unnest(senders, peers) AS x(u, p) GROUP BY 1, 2 ORDER BY 1, 2
            ON CONFLICT (low_uid, high_uid) DO UPDATE SET last_seq = cp.last_seq + EXCLUDED.last_seq, updated_at = now()
            RETURNING 1)
        SELECT count(*) INTO cnt FROM pairs;
    END IF;
    FOR i IN 1..n LOOP  -- both copies of each message
        seq := nextval('seqs');
        t_owner := t_owner || senders[i] || peers[i]; t_peer := t_peer || peers[i] || senders[i];
        t_seq := t_seq || seq || seq; t_msg := t_msg || msg_ids[i] || msg_ids[i]; t_sender := t_sender || senders[i] || senders[i];
        t_send_id := t_send_id || send_ids[i] || send_ids[i];
        IF variant = 'probe' THEN  -- the sender's copy carries the sendId's key and the body's hash
            t_device := t_device || devices[i] || NULL::varchar; t_hash := t_hash || hashes[i] || NULL::bytea;
        ELSE
            t_device := t_device || NULL::varchar || NULL::varchar; t_hash := t_hash || NULL::bytea || NULL::bytea;
        END IF;
    END LOOP;
    INSERT INTO outbox (payload) SELECT jsonb_build_object('messages', jsonb_agg(jsonb_build_object('msgId', m,
        'body', jsonb_build_object('text', 'hello there, this is a chat message of about sixty bytes')))) FROM unnest(msg_ids) m;
    WITH timeline AS (
        INSERT INTO chat_timeline (owner_uid, peer_uid, seq, msg_id, sender_uid, send_id, msg_type, body, device_key, body_hash)
        SELECT o, x.p, q, m, f, i, 'text', '{"text":"hello there, this is a chat message of about sixty bytes"}', d, h
        FROM unnest(t_owner, t_peer, t_seq, t_msg, t_sender, t_send_id, t_device, t_hash) AS x(o, p, q, m, f, i, d, h)
        RETURNING 1),
    upserted AS (
        INSERT INTO chat_conversation AS c (owner_uid, peer_uid, last_seq, last_msg_id, last_sender_uid, last_preview, unread,
            sync_version, updated_at)
        SELECT o, x.p, max(q), max(m), max(f), 'hello there, this is a chat message', count(*), txid_current(), now()
        FROM unnest(t_owner, t_peer, t_seq, t_msg, t_sender) AS x(o, p, q, m, f)
        WHERE (SELECT count(*) FROM timeline) > 0
        GROUP BY o, x.p ORDER BY o, x.p
        ON CONFLICT (owner_uid, peer_uid) DO UPDATE SET last_seq = EXCLUDED.last_seq, last_msg_id = EXCLUDED.last_msg_id,
            last_sender_uid = EXCLUDED.last_sender_uid, last_preview = EXCLUDED.last_preview, unread = c.unread + EXCLUDED.unread,
            sync_version = EXCLUDED.sync_version, updated_at = now()
        RETURNING 1)
    SELECT count(*) INTO cnt FROM upserted;
    RETURN n;
END $f$;
SQL
VARIANTS=(full no-claim no-pair probe)
for v in "${VARIANTS[@]}"; do echo "SELECT send_batch($BATCH, '$v');" > "$DIR/$v.sql"; done
echo "warm-up: 20 s of full batches (the tables' first 100,000 messages or so)"
pgbench -c 1 -T 20 -f "$DIR/full.sql" > /dev/null 2>&1

declare -A RATES WAL
echo "batches/s of $BATCH messages, one backend, ${ROUND_SECONDS} s rounds:"
for r in $(seq 1 "$ROUNDS"); do
  line="round $r:"
  for v in "${VARIANTS[@]}"; do
    read -r tps n wal <<< "$(throwaway_pg_round "$DIR/$v.sql" 1 "$ROUND_SECONDS")"
    tps=$(printf "%.1f" "$tps")
    RATES[$v]="${RATES[$v]:-} $tps"
    WAL[$v]="${WAL[$v]:-} $(( wal / (n * BATCH) ))"
    line+=" $v $tps"
  done
  echo "$line"
done
median() { tr ' ' '\n' | grep -v '^$' | sort -n | awk '{a[NR] = $1} END {print (NR % 2 ? a[(NR + 1) / 2] : (a[NR / 2] + a[NR / 2 + 1]) / 2)}'; }
FULL=$(median <<< "${RATES[full]}")
for v in "${VARIANTS[@]}"; do
  m=$(median <<< "${RATES[$v]}")
  awk -v v="$v" -v m="$m" -v f="$FULL" -v w="$(median <<< "${WAL[$v]}")" -v b="$BATCH" 'BEGIN {
    printf "%-9s median %7.1f batches/s, %6.1f us per message, %.2f x full; WAL %d bytes per message\n", v, m, 1e6 / (m * b), m / f, w }'
done
