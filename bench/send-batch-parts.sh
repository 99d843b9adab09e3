#!/usr/bin/env bash
# What each part of a send batch costs PostgreSQL (docs/benchmarks.md, "One-to-one chat"): one
# backend, as the send writer is one, runs batches of BATCH messages among 5,000 pairs of 10,000
# users, as a PL/pgSQL function that makes the send writer's statements on tables of Roost's chat
# shape, in four variants taken in turn, ROUND_SECONDS each, each among its own 5,000 pairs:
#   full      the send writer's statements: the sendId claim (chat_send); both conversation rows,
#             whose last_seq counts the conversation's seqs, with both timeline rows (one statement);
#             the batch's outbox event;
#   no-claim  without the sendId claim;
#   pair-row  the seq counter on a row of its own per conversation (chat_pair, as before migration
#             V26), taken with the claim; the conversation rows then only copy the newest seq;
#   probe     the sendId looked up in the timeline (a partial unique index on the sender's copy,
#             which carries the device key and the body's hash) instead of claimed in chat_send.
# Every variant writes the same timeline and conversation rows, so the differences are the parts
# left out or moved. Prints batches/s per round, each variant's median and its ratio to full's, WAL
# bytes per message, and then checks what was stored: every message in both timelines once with one
# seq, every conversation's seqs 1..last_seq on both sides, one sendId claim per message of the
# variants that claim (exit status 1 otherwise). A throwaway PostgreSQL cluster (Debian's
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

# The chat tables as migrations V16-V26 leave them (checks and statistics settings aside), plus the
# pair-row variant's chat_pair (V16-V25) and the probe variant's columns and index, which the other
# variants leave empty (NULL: not indexed).
psql <<'SQL'
CREATE SEQUENCE msg_ids;
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

-- The variants, in order: the v-th (from 0) sends among its own 5,000 pairs, users 20,000 v + 1 .. 20,000 v + 10,000.
CREATE FUNCTION variants() RETURNS text[] LANGUAGE sql IMMUTABLE AS $$ SELECT '{full,no-claim,pair-row,probe}'::text[] $$;

CREATE FUNCTION send_batch(n int, variant text) RETURNS int LANGUAGE plpgsql AS $f$
DECLARE
    base int := 10000 * (array_position(variants(), variant) - 1);
    senders int8[] := '{}'; peers int8[] := '{}'; devices varchar[] := '{}'; send_ids varchar[] := '{}';
    msg_ids int8[] := '{}'; hashes bytea[] := '{}'; pair int; s int8; p int8; cnt int;
    from_last int8[]; last_seqs int8[];
    t_owner int8[] := '{}'; t_peer int8[] := '{}'; t_k int8[] := '{}'; t_from_last int8[] := '{}'; t_seq int8[] := '{}';
    t_msg int8[] := '{}'; t_sender int8[] := '{}'; t_send_id varchar[] := '{}'; t_device varchar[] := '{}'; t_hash bytea[] := '{}';
BEGIN
    FOR i IN 1..n LOOP  -- a random pair of the variant's, a random direction
        pair := base + 1 + floor(random() * 5000)::int;
        s := 2 * pair - (random() < 0.5)::int; p := 4 * pair - 1 - s;
        senders := senders || s; peers := peers || p; devices := devices || ('android:device-' || s)::varchar;
        send_ids := send_ids || md5(random()::text)::varchar; msg_ids := msg_ids || nextval('msg_ids');
        hashes := hashes || decode(md5(random()::text), 'hex');
    END LOOP;
    -- each message's seq from its conversation's new last seq, in batch order (the send writer's BatchSeqs)
    SELECT array_agg(f ORDER BY k) INTO from_last FROM (
        SELECT k, row_number() OVER w - count(*) OVER (PARTITION BY least(u, x.p), greatest(u, x.p)) AS f
        FROM unnest(senders, peers) WITH ORDINALITY AS x(u, p, k)
        WINDOW w AS (PARTITION BY least(u, x.p), greatest(u, x.p) ORDER BY k)) y;
    IF variant IN ('full', 'pair-row') THEN
        WITH claimed AS (
            INSERT INTO chat_send (sender_uid, device_key, send_id, msg_id, peer_uid, body_hash)
            SELECT u, d, i, m, x.p, h FROM unnest(senders, devices, send_ids, msg_ids, peers, hashes) AS x(u, d, i, m, p, h)
            ORDER BY u, d, i ON CONFLICT DO NOTHING RETURNING 1)
        SELECT count(*) INTO cnt FROM claimed;
    ELSIF variant = 'probe' THEN
        SELECT count(*) INTO cnt FROM unnest(senders, devices, send_ids) AS x(u, d, i)
        WHERE NOT EXISTS (SELECT 1 FROM chat_timeline t WHERE t.owner_uid = x.u AND t.device_key = x.d AND t.send_id = x.i);
    END IF;
    IF variant = 'pair-row' THEN  -- the pairs' new last seqs, per message
        WITH pairs AS (
            INSERT INTO chat_pair AS cp (low_uid, high_uid, last_seq)
            SELECT least(u, x.p), greatest(u, x.p), count(*) FROM unnest(senders, peers) AS x(u, p) GROUP BY 1, 2 ORDER BY 1, 2
            ON CONFLICT (low_uid, high_uid) DO UPDATE SET last_seq = cp.last_seq + EXCLUDED.last_seq, updated_at = now()
            RETURNING low_uid, high_uid, last_seq)
        SELECT array_agg(pr.last_seq ORDER BY x.k) INTO last_seqs FROM unnest(senders, peers) WITH ORDINALITY AS x(u, p, k)
        JOIN pairs pr ON pr.low_uid = least(x.u, x.p) AND pr.high_uid = greatest(x.u, x.p);
    END IF;
    FOR i IN 1..n LOOP  -- both copies of each message
        t_owner := t_owner || senders[i] || peers[i]; t_peer := t_peer || peers[i] || senders[i]; t_k := t_k || i::int8 || i::int8;
        t_from_last := t_from_last || from_last[i] || from_last[i];
        IF variant = 'pair-row' THEN
            t_seq := t_seq || (last_seqs[i] + from_last[i]) || (last_seqs[i] + from_last[i]);
        END IF;
        t_msg := t_msg || msg_ids[i] || msg_ids[i]; t_sender := t_sender || senders[i] || senders[i];
        t_send_id := t_send_id || send_ids[i] || send_ids[i];
        IF variant = 'probe' THEN  -- the sender's copy carries the sendId's key and the body's hash
            t_device := t_device || devices[i] || NULL::varchar; t_hash := t_hash || hashes[i] || NULL::bytea;
        ELSE
            t_device := t_device || NULL::varchar || NULL::varchar; t_hash := t_hash || NULL::bytea || NULL::bytea;
        END IF;
    END LOOP;
    IF variant = 'pair-row' THEN  -- the timeline rows, then the conversation rows copying the newest seq
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
    ELSE  -- the conversation rows count the seqs, then the timeline rows take theirs from the new last seq
        WITH sides AS (
            SELECT * FROM unnest(t_owner, t_peer, t_k, t_from_last, t_msg, t_sender, t_send_id, t_device, t_hash)
                AS x(o, p, k, fl, m, f, i, d, h)),
        upserted AS (
            INSERT INTO chat_conversation AS c (owner_uid, peer_uid, last_seq, last_msg_id, last_sender_uid, last_preview, unread,
                sync_version, updated_at)
            SELECT o, x.p, count(*), max(m), max(f), 'hello there, this is a chat message', count(*), txid_current(), now()
            FROM sides x GROUP BY o, x.p ORDER BY o, x.p
            ON CONFLICT (owner_uid, peer_uid) DO UPDATE SET last_seq = c.last_seq + EXCLUDED.last_seq, last_msg_id = EXCLUDED.last_msg_id,
                last_sender_uid = EXCLUDED.last_sender_uid, last_preview = EXCLUDED.last_preview, unread = c.unread + EXCLUDED.unread,
                sync_version = EXCLUDED.sync_version, updated_at = now()
            RETURNING owner_uid, peer_uid, last_seq),
        timeline AS (
            INSERT INTO chat_timeline (owner_uid, peer_uid, seq, msg_id, sender_uid, send_id, msg_type, body, device_key, body_hash)
            SELECT x.o, x.p, u.last_seq + x.fl, x.m, x.f, x.i, 'text', '{"text":"hello there, this is a chat message of about sixty bytes"}',
                x.d, x.h
            FROM sides x JOIN upserted u ON u.owner_uid = x.o AND u.peer_uid = x.p)
        SELECT count(*) INTO cnt FROM upserted;
    END IF;
    INSERT INTO outbox (payload) SELECT jsonb_build_object('messages', jsonb_agg(jsonb_build_object('msgId', m,
        'body', jsonb_build_object('text', 'hello there, this is a chat message of about sixty bytes')))) FROM unnest(msg_ids) m;
    RETURN n;
END $f$;
SQL
VARIANTS=(full no-claim pair-row probe)
for v in "${VARIANTS[@]}"; do echo "SELECT send_batch($BATCH, '$v');" > "$DIR/$v.sql"; done
echo "warm-up: 5 s of each variant's batches"
for v in "${VARIANTS[@]}"; do pgbench -c 1 -T 5 -f "$DIR/$v.sql" > /dev/null 2>&1; done

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

# The outcome, over every batch of every variant (warm-up included).
echo "outcome:"
BAD=$(psql <<'SQL'
SELECT 'messages ' || last_value || ', timeline rows ' || (SELECT count(*) FROM chat_timeline) FROM msg_ids;
SELECT 'BAD: timeline rows not 2 per message: ' || (SELECT count(*) FROM chat_timeline) || ' for ' || last_value FROM msg_ids
    WHERE (SELECT count(*) FROM chat_timeline) <> 2 * last_value;
SELECT 'BAD: messages not in both timelines with one seq: ' || count(*) FROM (SELECT msg_id FROM chat_timeline GROUP BY msg_id
    HAVING count(*) <> 2 OR count(DISTINCT owner_uid) <> 2 OR count(DISTINCT seq) <> 1) x HAVING count(*) > 0;
SELECT 'BAD: timelines whose seqs are not 1..last_seq of their conversation row: ' || count(*)
    FROM (SELECT owner_uid, peer_uid, count(*) n, min(seq) lo, max(seq) hi FROM chat_timeline GROUP BY 1, 2) t
    LEFT JOIN chat_conversation c USING (owner_uid, peer_uid) WHERE t.n <> t.hi OR t.lo <> 1 OR t.hi IS DISTINCT FROM c.last_seq
    HAVING count(*) > 0;
SELECT 'BAD: conversations whose two rows have different last seqs: ' || count(*) FROM chat_conversation c
    LEFT JOIN chat_conversation p ON p.owner_uid = c.peer_uid AND p.peer_uid = c.owner_uid
    WHERE c.last_seq IS DISTINCT FROM p.last_seq HAVING count(*) > 0;
SELECT 'BAD: messages of the claiming variants without exactly one claim, or claims without a message: ' || count(*)
    FROM (SELECT t.msg_id, s.msg_id AS claimed FROM (SELECT msg_id FROM chat_timeline
            WHERE owner_uid = sender_uid AND (variants())[(sender_uid - 1) / 20000 + 1] IN ('full', 'pair-row')) t
          FULL JOIN chat_send s ON s.msg_id = t.msg_id) x
    WHERE x.msg_id IS NULL OR x.claimed IS NULL OR x.msg_id IN (SELECT msg_id FROM chat_send GROUP BY 1 HAVING count(*) > 1)
    HAVING count(*) > 0;
SQL
)
echo "$BAD" | sed 's/^/  /'
if grep -q BAD <<< "$BAD"; then echo "outcome FAIL"; exit 1; fi
echo "outcome PASS"
