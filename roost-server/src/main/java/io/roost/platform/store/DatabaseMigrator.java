package io.roost.platform.store;

import jakarta.annotation.PostConstruct;
import jakarta.annotation.Resource;
import jakarta.ejb.Singleton;
import jakarta.ejb.Startup;
import jakarta.ejb.TransactionManagement;
import jakarta.ejb.TransactionManagementType;
import jakarta.persistence.EntityManagerFactory;
import jakarta.persistence.PersistenceUnit;
import java.util.logging.Logger;
import javax.sql.DataSource;
import org.flywaydb.core.Flyway;
import org.flywaydb.core.api.output.MigrateResult;
import org.hibernate.SessionFactory;

/**
 * Brings the schema up to date before anything else touches the database, then checks that the
 * JPA mapping matches it. Flyway owns the schema; Hibernate never generates or alters it.
 *
 * <p>WildFly builds the persistence unit before any start-up bean runs, so validation cannot be
 * Hibernate's {@code hbm2ddl=validate}: we validate here, after migrating. Start-up beans that use
 * the database declare {@code @DependsOn("DatabaseMigrator")}. Bean-managed transactions because
 * Flyway manages its own connections and auto-commit.
 */
@Singleton
@Startup
@TransactionManagement(TransactionManagementType.BEAN)
public class DatabaseMigrator {

    private static final Logger LOG = Logger.getLogger(DatabaseMigrator.class.getName());

    @Resource(lookup = "java:jboss/datasources/RoostDS")
    DataSource dataSource;

    @PersistenceUnit(unitName = "roost")
    EntityManagerFactory entityManagerFactory;

    @PostConstruct
    void migrate() {
        long start = System.nanoTime();
        MigrateResult result = Flyway.configure(getClass().getClassLoader())
                .dataSource(dataSource)
                .locations("classpath:db/migration")
                // Two nodes starting together: Flyway takes a PostgreSQL advisory lock.
                .lockRetryCount(120)
                // WildFly's EJB timer store creates its own table before any deployment runs, so a
                // new database is never empty: baseline it at 0 and apply every V1+ migration.
                .baselineOnMigrate(true)
                .baselineVersion("0")
                .load()
                .migrate();
        LOG.info(() -> String.format("Flyway: schema at version %s (%d migration(s) applied) in %d ms",
                result.targetSchemaVersion != null ? result.targetSchemaVersion : result.initialSchemaVersion,
                result.migrationsExecuted, (System.nanoTime() - start) / 1_000_000));
        entityManagerFactory.unwrap(SessionFactory.class).getSchemaManager().validateMappedObjects();
        LOG.info("JPA mapping validated against the schema");
    }
}
