package io.roost.identity.store;

import io.roost.platform.metrics.StoreTimed;
import io.roost.platform.store.Jdbc;
import io.roost.platform.store.LikePatterns;
import jakarta.annotation.Resource;
import jakarta.enterprise.context.ApplicationScoped;
import jakarta.persistence.EntityManager;
import jakarta.persistence.LockModeType;
import jakarta.persistence.PersistenceContext;
import java.util.Collection;
import java.util.HashSet;
import java.util.List;
import java.util.Optional;
import java.util.Set;
import javax.sql.DataSource;

/**
 * The account rows, as {@link Account} entities (which never leave identity). No transaction of
 * its own: every statement runs in its caller's, and changes to a loaded entity are written when
 * that transaction flushes.
 */
@StoreTimed
@ApplicationScoped
public class AccountStore {

    @PersistenceContext(unitName = "roost")
    EntityManager em;

    @Resource(lookup = "java:jboss/datasources/RoostDS")
    DataSource dataSource;

    /**
     * Inserts an active account unless one has the same user name, e-mail or phone: one
     * conditional statement, so of two concurrent creations exactly one wins. False for the loser.
     */
    public boolean insert(long id, String username, String passwordHash, String roles, String email, String phone) {
        return em.createNativeQuery("""
                        INSERT INTO account (id, username, password_hash, roles, status, email, phone, created_at, updated_at, version)
                        VALUES (:id, :u, :h, :r, 'ACTIVE', :email, :phone, now(), now(), 0)
                        ON CONFLICT DO NOTHING""")
                .setParameter("id", id)
                .setParameter("u", username)
                .setParameter("h", passwordHash)
                .setParameter("r", roles)
                .setParameter("email", email)
                .setParameter("phone", phone)
                .executeUpdate() == 1;
    }

    /** Those of {@code ids} that are active accounts: one probe over plain JDBC, for a batch of messages. */
    public Set<Long> activeAmong(Collection<Long> ids) {
        return ids.isEmpty() ? Set.of() : new HashSet<>(Jdbc.query(dataSource,
                "SELECT x.u FROM unnest(?::int8[]) AS x(u) WHERE " + activeSql("x.u"), rs -> rs.getLong(1), (Object) ids.toArray(Long[]::new)));
    }

    /**
     * SQL that is true where the user {@code uid} (an SQL expression) is an active account: the one
     * definition, for {@link #activeAmong} and for another module's statement that checks it in passing.
     */
    public static String activeSql(String uid) {
        return "EXISTS (SELECT 1 FROM account WHERE id = " + uid + " AND status = 'ACTIVE')";
    }

    public Optional<Account> find(long id) {
        return Optional.ofNullable(em.find(Account.class, id));
    }

    /** The account with its row locked until the caller's transaction ends. */
    public Optional<Account> lock(long id) {
        return Optional.ofNullable(em.find(Account.class, id, LockModeType.PESSIMISTIC_WRITE));
    }

    /** By user name, case-insensitive. */
    public Optional<Account> findByUsername(String username) {
        return first(em.createQuery("SELECT a FROM Account a WHERE lower(a.username) = lower(:u)", Account.class)
                .setParameter("u", username).getResultList());
    }

    public Optional<Account> findByEmail(String email) {
        return findBy("email", email);
    }

    public Optional<Account> findByPhone(String phone) {
        return findBy("phone", phone);
    }

    private Optional<Account> findBy(String field, String value) {
        return first(em.createQuery("SELECT a FROM Account a WHERE a." + field + " = :v", Account.class)
                .setParameter("v", value).getResultList());
    }

    public boolean anyAdminExists() {
        return !em.createNativeQuery("SELECT 1 FROM account WHERE ',' || roles || ',' LIKE '%,admin,%' LIMIT 1")
                .getResultList().isEmpty();
    }

    /**
     * Accounts whose user name starts with {@code prefix} (case-insensitive), after {@code after}
     * in lower-case name order; active ones only unless {@code anyStatus}.
     */
    @SuppressWarnings("unchecked")
    public List<Account> searchByPrefix(String prefix, String after, int limit, boolean anyStatus) {
        return em.createNativeQuery("""
                        SELECT * FROM account WHERE lower(username) LIKE :p ESCAPE '\\' AND lower(username) > :after
                          AND (status = 'ACTIVE' OR :any) ORDER BY lower(username) LIMIT :n""", Account.class)
                .setParameter("any", anyStatus)
                .setParameter("p", LikePatterns.startingWith(prefix.toLowerCase()))
                .setParameter("after", after == null ? "" : after.toLowerCase())
                .setParameter("n", limit)
                .getResultList();
    }

    /** The best {@code limit} active matches: names containing {@code text} or similar to it (trigram index). */
    @SuppressWarnings("unchecked")
    public List<Account> searchFuzzy(String text, int limit) {
        String t = text.toLowerCase();
        return em.createNativeQuery("""
                        SELECT * FROM account WHERE (lower(username) LIKE :p ESCAPE '\\' OR lower(username) % :t)
                          AND status = 'ACTIVE'
                        ORDER BY similarity(lower(username), :t) DESC, lower(username) LIMIT :n""", Account.class)
                .setParameter("p", LikePatterns.containing(t))
                .setParameter("t", t)
                .setParameter("n", limit)
                .getResultList();
    }

    /** Writes pending entity changes now, so a unique index refuses them here rather than at commit. */
    public void flush() {
        em.flush();
    }

    private static <T> Optional<T> first(List<T> list) {
        return list.stream().findFirst();
    }
}
