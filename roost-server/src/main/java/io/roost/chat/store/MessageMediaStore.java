package io.roost.chat.store;

import io.roost.platform.metrics.StoreTimed;
import io.roost.platform.store.Jdbc;
import io.roost.platform.store.StatementFailed;
import jakarta.annotation.Resource;
import jakarta.ejb.Stateless;
import jakarta.ejb.TransactionAttribute;
import jakarta.ejb.TransactionAttributeType;
import java.util.List;
import javax.sql.DataSource;

/**
 * Which messages name a file: {@code chat_media} (a row per one-to-one copy: its owner may see it)
 * and {@code group_media} (a row per group message: members whose visibility covers its seq may).
 * Written in the send's transaction; a recall, a delete and the retention purge take a message's
 * rows with it (in {@link ChatStore} and {@link GroupChatStore}).
 */
@StoreTimed
@Stateless
@TransactionAttribute(TransactionAttributeType.SUPPORTS)
public class MessageMediaStore {

    @Resource(lookup = "java:jboss/datasources/RoostDS")
    DataSource dataSource;

    /** One-to-one copies that name files: {@code media[i]} in {@code owners[i]}'s copy of {@code msgIds[i]}. */
    @TransactionAttribute(TransactionAttributeType.MANDATORY)
    public void insertDirect(Long[] media, Long[] owners, Long[] msgIds) {
        update("""
                INSERT INTO chat_media (media_id, owner_uid, msg_id) SELECT * FROM unnest(?::int8[], ?::int8[], ?::int8[])
                ON CONFLICT DO NOTHING""", media, owners, msgIds);
    }

    /** Group messages that name files. */
    @TransactionAttribute(TransactionAttributeType.MANDATORY)
    public void insertGroup(Long[] media, Long[] groups, Long[] seqs, Long[] msgIds) {
        update("""
                INSERT INTO group_media (media_id, group_id, seq, msg_id) SELECT * FROM unnest(?::int8[], ?::int8[], ?::int8[], ?::int8[])
                ON CONFLICT DO NOTHING""", media, groups, seqs, msgIds);
    }

    /** Whether {@code uid} holds a one-to-one copy naming the file, or may see a group message naming it. */
    public boolean maySee(long uid, long mediaId) {
        return query("""
                SELECT EXISTS (SELECT 1 FROM chat_media WHERE media_id = ? AND owner_uid = ?)
                    OR EXISTS (SELECT 1 FROM group_media gm JOIN group_chat_member m ON m.group_id = gm.group_id AND m.uid = ?
                               WHERE gm.media_id = ? AND gm.seq > m.joined_seq AND (m.left_seq IS NULL OR gm.seq <= m.left_seq))""",
                rs -> rs.getBoolean(1), mediaId, uid, uid, mediaId).get(0);
    }

    /** Whether message {@code msgId} still names the file. */
    public boolean namedBy(long mediaId, long msgId) {
        return query("""
                SELECT EXISTS (SELECT 1 FROM chat_media WHERE media_id = ? AND msg_id = ?)
                    OR EXISTS (SELECT 1 FROM group_media WHERE media_id = ? AND msg_id = ?)""",
                rs -> rs.getBoolean(1), mediaId, msgId, mediaId, msgId).get(0);
    }

    /** Those of {@code mediaIds} a one-to-one copy or a group message names. */
    public java.util.Set<Long> named(java.util.Collection<Long> mediaIds) {
        Long[] ids = mediaIds.toArray(Long[]::new);
        return new java.util.HashSet<>(query("""
                SELECT media_id FROM chat_media WHERE media_id = ANY(?) UNION SELECT media_id FROM group_media WHERE media_id = ANY(?)""",
                rs -> rs.getLong(1), ids, ids));
    }

    /**
     * Marks every message that names the file as naming a removed one ({@code media.removed}: true,
     * its download path gone), in the removing transaction; how many rows.
     */
    @TransactionAttribute(TransactionAttributeType.MANDATORY)
    public int markRemoved(long mediaId) {
        String removed = "jsonb_set(body #- '{media,url}' #- '{media,thumbnail}', '{media,removed}', 'true')";
        return update("""
                UPDATE chat_timeline t SET body = %s FROM chat_media cm
                WHERE cm.media_id = ? AND t.msg_id = cm.msg_id AND t.owner_uid = cm.owner_uid""".formatted(removed), mediaId)
                + update("""
                UPDATE group_message g SET body = %s FROM group_media gm
                WHERE gm.media_id = ? AND g.group_id = gm.group_id AND g.seq = gm.seq""".formatted(removed), mediaId);
    }

    private <T> List<T> query(String sql, Jdbc.Row<T> row, Object... params) {
        return Jdbc.query(dataSource, e -> new StatementFailed("message media", e), sql, row, params);
    }

    private int update(String sql, Object... params) {
        return Jdbc.update(dataSource, e -> new StatementFailed("message media", e), sql, params);
    }
}
