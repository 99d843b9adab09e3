package io.roost.platform.datasource;

import java.sql.SQLException;
import org.jboss.jca.adapters.jdbc.spi.ExceptionSorter;

/**
 * RoostDS's exception sorter (wildfly-config/roost.cli): a connection whose statement failed with a
 * {@link SqlStates#unreachable} state is broken, so the pool destroys it, and by its flush-strategy
 * the idle connections with it (they went down with the same server).
 *
 * <p>IronJacamar's PostgreSQLExceptionSorter counts only 08006 as fatal. A pooled connection that a
 * PostgreSQL restart ended fails first with 57P01 and from then on with 08003 ("This connection has
 * been closed"): it went back into the pool each time and failed request after request after the
 * database had returned, until background validation came round.
 *
 * <p>Lives in the server module {@code io.roost.datasource} (the WAR leaves it out: the pool, not
 * the application, loads it).
 */
public class PostgresExceptionSorter implements ExceptionSorter {

    @Override
    public boolean isExceptionFatal(SQLException e) {
        return SqlStates.unreachable(e.getSQLState());
    }
}
