package io.roost.presence.store;

import io.roost.platform.metrics.StoreTimed;
import io.roost.platform.store.SqlArrays;
import io.roost.platform.store.SqlTimes;
import io.roost.presence.session.LoginLogEntry;
import jakarta.annotation.Resource;
import jakarta.ejb.Stateless;
import jakarta.ejb.TransactionAttribute;
import jakarta.ejb.TransactionAttributeType;
import jakarta.persistence.EntityManager;
import jakarta.persistence.PersistenceContext;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.SQLException;
import java.util.List;
import javax.sql.DataSource;

/**
 * The login_log rows: written a consumed batch at a time, keyed by the outbox id of the message
 * (a redelivery inserts nothing); read newest first per user.
 */
@StoreTimed
@Stateless
public class LoginLogStore {

    /** One login, logout, kick or timeout; {@code at} is an ISO-8601 instant, as the message carries it. */
    public record Row(long id, long uid, String event, String deviceType, String deviceId, int nodeId,
                      String connectionId, String reason, String at) {
    }

    @Resource(lookup = "java:jboss/datasources/RoostDS")
    DataSource dataSource;

    @PersistenceContext(unitName = "roost")
    EntityManager em;

    /** The whole batch in one multi-row statement, in the caller's transaction; a row already there is skipped. */
    @TransactionAttribute(TransactionAttributeType.MANDATORY)
    public void insertAll(List<Row> rows) {
        int n = rows.size();
        Long[] id = new Long[n];
        Long[] uid = new Long[n];
        String[] event = new String[n];
        String[] deviceType = new String[n];
        String[] deviceId = new String[n];
        Integer[] nodeId = new Integer[n];
        String[] connectionId = new String[n];
        String[] reason = new String[n];
        String[] at = new String[n]; // ISO-8601 instants: PostgreSQL reads them as timestamptz
        for (int i = 0; i < n; i++) {
            Row r = rows.get(i);
            id[i] = r.id();
            uid[i] = r.uid();
            event[i] = r.event();
            deviceType[i] = r.deviceType();
            deviceId[i] = r.deviceId();
            nodeId[i] = r.nodeId();
            connectionId[i] = r.connectionId();
            reason[i] = r.reason();
            at[i] = r.at();
        }
        try (Connection c = dataSource.getConnection(); PreparedStatement ps = c.prepareStatement("""
                INSERT INTO login_log (id, uid, event, device_type, device_id, node_id, connection_id, reason, at)
                SELECT * FROM unnest(?::int8[], ?::int8[], ?::varchar[], ?::varchar[], ?::varchar[], ?::int4[], ?::varchar[],
                    ?::varchar[], ?::timestamptz[])
                ON CONFLICT (id) DO NOTHING""")) {
            SqlArrays.bind(c, ps, id, uid, event, deviceType, deviceId, nodeId, connectionId, reason, at);
            ps.executeUpdate();
        } catch (SQLException e) {
            throw new IllegalStateException("login log insert failed: " + e.getMessage(), e);
        }
    }

    /** A user's entries, newest first; in the caller's transaction if there is one, never beginning one. */
    @TransactionAttribute(TransactionAttributeType.SUPPORTS)
    public List<LoginLogEntry> recent(long uid, int limit) {
        @SuppressWarnings("unchecked")
        List<Object[]> rows = em.createNativeQuery("""
                        SELECT event, device_type, device_id, node_id, reason, at FROM login_log
                        WHERE uid = ?1 ORDER BY at DESC, id DESC LIMIT ?2""")
                .setParameter(1, uid)
                .setParameter(2, limit)
                .getResultList();
        return rows.stream().map(r -> new LoginLogEntry((String) r[0], (String) r[1], (String) r[2],
                ((Number) r[3]).intValue(), (String) r[4], SqlTimes.of(r[5]))).toList();
    }
}
