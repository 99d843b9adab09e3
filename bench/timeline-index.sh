#!/usr/bin/env bash
# What the timeline's index by message id costs an insert (migration V25, docs/benchmarks.md): pgbench
# inserting 100-row batches of timeline-shaped rows (random owners, growing msgIds, as a send batch
# writes them) into three tables of 1M rows each, one with the index V25 replaced (owner_uid,
# msg_id), one with V25's (msg_id, owner_uid), one with only the primary key as the baseline.
# Rounds of ROUND_SECONDS each, the three tables in turn, a checkpoint before each (so every round
# pays the full-page images a first write after a checkpoint costs). Prints statements/s and WAL
# bytes per row. A throwaway PostgreSQL cluster (Debian's postgresql-15, as the postgres user) on
# TIMELINE_PG_PORT, removed at the end. Not part of ./mvnw verify.
#   bench/timeline-index.sh      env: ROUNDS (3), ROUND_SECONDS (10), TIMELINE_PG_PORT (55998)
set -euo pipefail
ROUNDS=${ROUNDS:-3}
ROUND_SECONDS=${ROUND_SECONDS:-10}
PORT=${TIMELINE_PG_PORT:-55998}
cd "$(dirname "$0")/.."
source bench/lib.sh
throwaway_pg "$PORT"

ROW="(hashint8(g + :base) & 1048575), g, nextval('seqs'), nextval('msg_ids'), 1, 'send-' || g, 'text',
     '{\"text\":\"hello there, this is a chat message of about sixty bytes\"}'::jsonb"
psql <<'SQL'
CREATE SEQUENCE msg_ids;
CREATE SEQUENCE seqs;
CREATE TABLE baseline (owner_uid int8 NOT NULL, peer_uid int8 NOT NULL, seq int8 NOT NULL, msg_id int8 NOT NULL,
    sender_uid int8 NOT NULL, send_id varchar(64) NOT NULL, msg_type varchar(8) NOT NULL, body jsonb NOT NULL,
    quote_msg_id int8, priority int2 NOT NULL DEFAULT 0, created_at timestamptz NOT NULL DEFAULT now(),
    deleted_for_owner bool NOT NULL DEFAULT false, recalled bool NOT NULL DEFAULT false,
    PRIMARY KEY (owner_uid, peer_uid, seq));
CREATE TABLE owner_first (LIKE baseline INCLUDING ALL);
CREATE UNIQUE INDEX ON owner_first (owner_uid, msg_id);
CREATE TABLE msg_id_first (LIKE baseline INCLUDING ALL);
CREATE UNIQUE INDEX ON msg_id_first (msg_id, owner_uid);
SQL
for t in baseline owner_first msg_id_first; do
  psql -c "INSERT INTO $t (owner_uid, peer_uid, seq, msg_id, sender_uid, send_id, msg_type, body)
           SELECT ${ROW//:base/0} FROM generate_series(1, 1000000) g"
  printf '\\set base random(1, 1000000000)\nINSERT INTO %s (owner_uid, peer_uid, seq, msg_id, sender_uid, send_id, msg_type, body)\nSELECT %s FROM generate_series(1, 100) g;\n' \
    "$t" "$ROW" > "$DIR/$t.sql"
done

declare -A STATEMENTS=([baseline]=0 [owner_first]=0 [msg_id_first]=0)
echo "statements/s (100 rows each) and WAL bytes per row, ${ROUND_SECONDS} s rounds, 2 clients:"
for r in $(seq 1 "$ROUNDS"); do
  line="round $r:"
  for t in baseline msg_id_first owner_first; do
    read -r tps n wal <<< "$(throwaway_pg_round "$DIR/$t.sql" 2 "$ROUND_SECONDS")"
    STATEMENTS[$t]=$(( STATEMENTS[$t] + n ))
    line+=" $t ${tps%.*}/s $(( wal / (n * 100) )) B/row;"
  done
  echo "$line"
done
# The outcome: every table holds every row it was sent (1M + 100 per statement), each msgId once.
ok=true
for t in baseline owner_first msg_id_first; do
  read -r rows ids <<< "$(psql -F ' ' -c "SELECT count(*), count(DISTINCT msg_id) FROM $t")"
  want=$(( 1000000 + 100 * STATEMENTS[$t] ))
  echo "$t: $rows rows (sent $want), $ids distinct msgIds"
  [[ $rows == "$want" && $ids == "$rows" ]] || ok=false
done
$ok && echo "outcome: PASS" || { echo "outcome: FAIL"; exit 1; }
