package io.roost.platform.store;

import io.roost.platform.metrics.StoreTimed;
import jakarta.annotation.Resource;
import jakarta.ejb.Stateless;
import jakarta.ejb.TransactionAttribute;
import jakarta.ejb.TransactionAttributeType;
import java.sql.Connection;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import javax.sql.DataSource;

/** The database side of the health check: one round trip, no table. */
@StoreTimed
@Stateless
@TransactionAttribute(TransactionAttributeType.SUPPORTS) // a probe never begins a transaction
public class HealthStore {

    @Resource(lookup = "java:jboss/datasources/RoostDS")
    DataSource dataSource;

    /** The server's version, asked on a connection of the pool; fails after {@code timeoutSeconds}. */
    public String serverVersion(int timeoutSeconds) throws SQLException {
        try (Connection c = dataSource.getConnection(); Statement s = c.createStatement()) {
            s.setQueryTimeout(timeoutSeconds);
            try (ResultSet rs = s.executeQuery("SELECT current_setting('server_version')")) {
                rs.next();
                return rs.getString(1);
            }
        }
    }
}
