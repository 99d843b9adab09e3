package io.roost.identity;

import io.roost.identity.security.PasswordHasher;
import io.roost.identity.store.Account;
import io.roost.identity.store.AccountStore;
import io.roost.platform.ids.IdGenerator;
import io.roost.platform.json.Jsonp;
import io.roost.platform.problem.ProblemException;
import io.roost.platform.security.Roles;
import jakarta.enterprise.context.ApplicationScoped;
import jakarta.enterprise.event.Event;
import jakarta.inject.Inject;
import jakarta.json.JsonObject;
import jakarta.json.JsonObjectBuilder;
import jakarta.json.JsonString;
import jakarta.transaction.Transactional;
import java.io.StringReader;
import java.util.Collection;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.regex.Pattern;

/** Accounts: the identity module's public face for creating, finding, changing and ending them. */
@ApplicationScoped
public class AccountService {

    public static final Pattern USERNAME = Pattern.compile("[A-Za-z0-9_-]{3,64}");
    public static final int MIN_PASSWORD = 10;
    public static final int MAX_PASSWORD = 256;
    static final int MAX_PARAMS = 32;

    /** What a profile update may change; null leaves a field alone, "" clears it. */
    public record ProfileChange(String username, String nick, String avatarUrl, String gender, Integer age,
                                String region, Map<String, String> params) {
    }

    @Inject
    AccountStore store;

    @Inject
    IdGenerator ids;

    @Inject
    PasswordHasher hasher;

    @Inject
    TokenService tokens;

    @Inject
    Event<AccountDeactivated> deactivated;

    /** Creates an account with a password; 409 {@code username-taken} if the name is in use. */
    @Transactional
    public Account create(String username, String password, Set<String> roles) {
        checkPassword(password);
        if (roles.isEmpty() || !roles.stream().allMatch(Roles::isKnown)) {
            throw ProblemException.badRequest("unknown-role", "roles must be a non-empty subset of admin, service, user");
        }
        return insert(username, hasher.hash(password), roles, null);
    }

    /**
     * One conditional statement: two concurrent creations of the same name or address cannot both
     * win. 409 {@code username-taken} / {@code already-registered} for the loser.
     */
    Account insert(String username, String passwordHash, Set<String> roles, ContactAddress address) {
        checkUsername(username);
        long id = ids.nextId();
        boolean inserted = store.insert(id, username == null ? "u" + id : username, passwordHash, String.join(",", roles),
                address != null && address.kind() == ContactAddress.Kind.EMAIL ? address.value() : null,
                address != null && address.kind() == ContactAddress.Kind.PHONE ? address.value() : null);
        if (!inserted) {
            if (address != null && findByAddress(address).isPresent()) {
                throw alreadyRegistered(address);
            }
            throw ProblemException.conflict("username-taken", "The user name '" + username + "' is already taken.");
        }
        return store.find(id).orElseThrow();
    }

    static ProblemException alreadyRegistered(ContactAddress address) {
        return ProblemException.conflict("already-registered", "An account with this "
                + (address.kind() == ContactAddress.Kind.EMAIL ? "e-mail address" : "phone number")
                + " exists: log in with its password, or reset the password with a code sent to it.");
    }

    public Optional<Account> find(long id) {
        return store.find(id);
    }

    public Account require(long id) {
        return find(id).orElseThrow(() -> ProblemException.notFound("No account " + id));
    }

    /** The account as its owner and operators see it; 404 if there is none. */
    public AccountView view(long id) {
        return AccountView.of(require(id));
    }

    public Optional<AccountView> findView(long id) {
        return find(id).map(AccountView::of);
    }

    /**
     * Whether {@code uid} is an active account: what other modules ask before they relate a user to
     * anything (the account itself stays inside identity).
     */
    public boolean isActive(long uid) {
        return store.find(uid).filter(Account::isActive).isPresent();
    }

    /** Those of {@code uids} that are active accounts (one query for a whole batch). */
    public Set<Long> activeAmong(Collection<Long> uids) {
        return store.activeAmong(uids);
    }

    /**
     * SQL that is true where the user {@code uid} (an SQL expression of the caller's statement) is
     * an active account: for a statement on a hot path that checks it without a query of its own.
     */
    public String activeSql(String uid) {
        return AccountStore.activeSql(uid);
    }

    /** 404 {@code not-found} ("No user ...") unless {@code uid} is an active account. */
    public void requireActiveUser(long uid) {
        if (!isActive(uid)) {
            throw ProblemException.notFound("No user " + uid);
        }
    }

    public Optional<Account> findByUsername(String username) {
        return store.findByUsername(username);
    }

    public Optional<Account> findByAddress(ContactAddress address) {
        return address.kind() == ContactAddress.Kind.EMAIL ? store.findByEmail(address.value())
                : store.findByPhone(address.value());
    }

    /** A login name is a user name, an e-mail address or a phone number. */
    public Optional<Account> findByLogin(String login) {
        if (login.indexOf('@') > 0) {
            return findByAddress(ContactAddress.email(login));
        }
        if (login.startsWith("+")) {
            return findByAddress(ContactAddress.phone(login));
        }
        return findByUsername(login);
    }

    public boolean anyAdminExists() {
        return store.anyAdminExists();
    }

    @Transactional
    public Account updateProfile(long id, ProfileChange change) {
        Account a = requireActive(id);
        if (change.username() != null && !change.username().equalsIgnoreCase(a.getUsername())) {
            checkUsername(change.username());
            if (findByUsername(change.username()).isPresent()) {
                throw ProblemException.conflict("username-taken", "The user name '" + change.username() + "' is already taken.");
            }
            a.setUsername(change.username());
        }
        if (change.nick() != null) {
            a.setNick(blankToNull(change.nick()));
        }
        if (change.avatarUrl() != null) {
            String url = blankToNull(change.avatarUrl());
            if (url != null && !url.matches("https?://\\S{1,1000}")) {
                throw ProblemException.badRequest("invalid-avatar-url", "avatarUrl must be an http(s) URL.");
            }
            a.setAvatarUrl(url);
        }
        if (change.gender() != null) {
            a.setGender(blankToNull(change.gender()));
        }
        if (change.age() != null) {
            a.setAge(change.age() < 0 ? null : change.age());
        }
        if (change.region() != null) {
            a.setRegion(blankToNull(change.region()));
        }
        if (change.params() != null) {
            a.setParams(change.params().isEmpty() ? null : paramsJson(change.params()));
        }
        store.flush(); // a concurrent rename to the same name fails here (unique index) → 409 via the mapper
        return a;
    }

    @Transactional
    public void changePassword(long id, String currentPassword, String newPassword) {
        Account a = requireActive(id);
        if (a.getPasswordHash() != null && !hasher.verify(currentPassword == null ? "" : currentPassword, a.getPasswordHash())) {
            throw ProblemException.forbidden("The current password is wrong.");
        }
        checkPassword(newPassword);
        a.setPasswordHash(hasher.hash(newPassword));
    }

    /** Admin disable, or a user locking their own account (e.g. from another device after a loss). */
    @Transactional
    public AccountView disable(long id, boolean byAdmin) {
        Account a = lock(id);
        if (a.getStatus() == Account.Status.UNREGISTERED) {
            throw ProblemException.conflict("account-unregistered", "Account " + id + " is unregistered.");
        }
        if (a.getStatus() != Account.Status.DISABLED || byAdmin) {
            a.changeStatus(Account.Status.DISABLED, byAdmin ? "admin" : "self");
        }
        end(a, AccountDeactivated.DISABLED);
        return AccountView.of(a);
    }

    /** Admin recovery: any disabled account becomes active again (an unregistered one never does). */
    @Transactional
    public AccountView recover(long id) {
        Account a = lock(id);
        if (a.getStatus() == Account.Status.UNREGISTERED) {
            throw ProblemException.conflict("account-unregistered", "Account " + id + " is unregistered and cannot be recovered.");
        }
        if (a.getStatus() == Account.Status.DISABLED) {
            a.changeStatus(Account.Status.ACTIVE, null);
        }
        return AccountView.of(a);
    }

    /** Irreversible: the id is never given to anyone else; registering the same address again revives it. */
    @Transactional
    public void unregister(long id) {
        Account a = lock(id);
        if (a.getStatus() == Account.Status.UNREGISTERED) {
            return;
        }
        a.changeStatus(Account.Status.UNREGISTERED, null);
        a.setPasswordHash(null);
        end(a, AccountDeactivated.UNREGISTERED);
    }

    private void end(Account a, String reason) {
        tokens.revokeAll(a.getId());
        deactivated.fire(new AccountDeactivated(a.getId(), reason));
    }

    Account lock(long id) {
        return store.lock(id).orElseThrow(() -> ProblemException.notFound("No account " + id));
    }

    private Account requireActive(long id) {
        Account a = require(id);
        if (!a.isActive()) {
            throw ProblemException.conflict("account-not-active", "Account " + id + " is " + a.getStatus().name().toLowerCase() + ".");
        }
        return a;
    }

    /** Active accounts whose user name starts with {@code prefix} (case-insensitive), keyset-paged by name. */
    public List<Account> searchByPrefix(String prefix, String after, int limit) {
        return store.searchByPrefix(prefix, after, limit, false);
    }

    /** Accounts of any status, disabled and unregistered too (operators look for them), keyset-paged by name. */
    public List<AccountView> searchAnyStatus(String prefix, String after, int limit) {
        return store.searchByPrefix(prefix, after, limit, true).stream().map(AccountView::of).toList();
    }

    /** The best {@code limit} matches: names containing {@code text} or similar to it (trigram index). */
    public List<Account> searchFuzzy(String text, int limit) {
        return store.searchFuzzy(text, limit);
    }

    static void checkUsername(String username) {
        if (username != null && !USERNAME.matcher(username).matches()) {
            throw ProblemException.badRequest("invalid-username", "A user name has 3 to 64 letters, digits, '_' or '-'.");
        }
    }

    static void checkPassword(String password) {
        if (password == null || password.length() < MIN_PASSWORD || password.length() > MAX_PASSWORD) {
            throw ProblemException.badRequest("weak-password",
                    "A password must have " + MIN_PASSWORD + " to " + MAX_PASSWORD + " characters.");
        }
    }

    static String paramsJson(Map<String, String> params) {
        if (params.size() > MAX_PARAMS) {
            throw ProblemException.badRequest("too-many-params", "At most " + MAX_PARAMS + " params.");
        }
        JsonObjectBuilder b = Jsonp.PROVIDER.createObjectBuilder();
        params.forEach((k, v) -> {
            if (k == null || k.isBlank() || k.length() > 64 || v == null || v.length() > 512) {
                throw ProblemException.badRequest("invalid-param", "A param has a key of 1-64 characters and a value of at most 512.");
            }
            b.add(k, v);
        });
        String json = b.build().toString();
        if (json.length() > 4000) {
            throw ProblemException.badRequest("too-many-params", "params take at most 4000 characters as JSON.");
        }
        return json;
    }

    public static Map<String, String> params(Account a) {
        Map<String, String> out = new LinkedHashMap<>();
        if (a.getParams() != null) {
            JsonObject o = Jsonp.PROVIDER.createReader(new StringReader(a.getParams())).readObject();
            o.forEach((k, v) -> out.put(k, ((JsonString) v).getString()));
        }
        return out;
    }

    private static String blankToNull(String s) {
        return s.isBlank() ? null : s.trim();
    }
}
