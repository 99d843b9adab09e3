package io.roost.identity;

import io.roost.identity.security.PasswordHasher;
import io.roost.identity.store.Account;
import io.roost.platform.ids.IdGenerator;
import io.roost.platform.problem.ProblemException;
import io.roost.platform.security.Roles;
import jakarta.enterprise.context.ApplicationScoped;
import jakarta.inject.Inject;
import jakarta.persistence.EntityManager;
import jakarta.persistence.PersistenceContext;
import jakarta.transaction.Transactional;
import java.util.List;
import java.util.Optional;
import java.util.Set;
import java.util.regex.Pattern;

/** Accounts: the identity module's public face for creating and finding them. */
@ApplicationScoped
public class AccountService {

    public static final Pattern USERNAME = Pattern.compile("[A-Za-z0-9_-]{3,64}");
    public static final int MIN_PASSWORD = 10;
    public static final int MAX_PASSWORD = 256;

    @PersistenceContext(unitName = "roost")
    EntityManager em;

    @Inject
    IdGenerator ids;

    @Inject
    PasswordHasher hasher;

    /** Creates an account with a password; 409 {@code username-taken} if the name is in use. */
    @Transactional
    public Account create(String username, String password, Set<String> roles) {
        checkPassword(password);
        if (roles.isEmpty() || !roles.stream().allMatch(Roles::isKnown)) {
            throw ProblemException.badRequest("unknown-role", "roles must be a non-empty subset of admin, service, user");
        }
        Account account = new Account(ids.nextId(), username, hasher.hash(password), roles);
        // One conditional statement: two concurrent creations of the same name cannot both win.
        int inserted = em.createNativeQuery("""
                        INSERT INTO account (id, username, password_hash, roles, status, created_at, updated_at, version)
                        VALUES (?1, ?2, ?3, ?4, 'ACTIVE', now(), now(), 0)
                        ON CONFLICT DO NOTHING""")
                .setParameter(1, account.getId())
                .setParameter(2, username)
                .setParameter(3, account.getPasswordHash())
                .setParameter(4, String.join(",", roles))
                .executeUpdate();
        if (inserted == 0) {
            throw ProblemException.conflict("username-taken", "The user name '" + username + "' is already taken.");
        }
        return em.find(Account.class, account.getId());
    }

    public Optional<Account> find(long id) {
        return Optional.ofNullable(em.find(Account.class, id));
    }

    public Optional<Account> findByUsername(String username) {
        List<Account> found = em.createQuery("SELECT a FROM Account a WHERE lower(a.username) = lower(:u)", Account.class)
                .setParameter("u", username)
                .getResultList();
        return found.stream().findFirst();
    }

    public boolean anyAdminExists() {
        return !em.createNativeQuery("SELECT 1 FROM account WHERE ',' || roles || ',' LIKE '%,admin,%' LIMIT 1")
                .getResultList().isEmpty();
    }

    static void checkPassword(String password) {
        if (password == null || password.length() < MIN_PASSWORD || password.length() > MAX_PASSWORD) {
            throw ProblemException.badRequest("weak-password",
                    "A password must have " + MIN_PASSWORD + " to " + MAX_PASSWORD + " characters.");
        }
    }
}
