package io.roost.identity.security;

import io.roost.identity.AccountService;
import io.roost.identity.AuthThrottle;
import io.roost.identity.IdentitySettings;
import io.roost.platform.problem.ProblemException;
import io.roost.identity.TokenService;
import io.roost.identity.store.Account;
import io.roost.platform.security.CallerAuthenticator;
import io.roost.platform.security.Credential;
import jakarta.enterprise.context.ApplicationScoped;
import jakarta.inject.Inject;
import java.util.Optional;

/**
 * Validates passwords (Basic) and bearer tokens against the account table. The caller's
 * principal name is the account id: stable where user names can change.
 */
@ApplicationScoped
public class AccountAuthenticator implements CallerAuthenticator {

    @Inject
    AccountService accounts;

    @Inject
    TokenService tokens;

    @Inject
    PasswordHasher hasher;

    @Inject
    VerifiedPasswordCache verifiedPasswords;

    @Inject
    AuthThrottle throttle;

    @Inject
    IdentitySettings settings;

    @Override
    public Optional<Authenticated> authenticate(Credential credential) {
        if (credential instanceof Credential.Bearer bearer) {
            return tokens.authenticate(bearer.token()).map(g -> new Authenticated(Long.toString(g.accountId()), g.roles()));
        }
        Credential.Basic basic = (Credential.Basic) credential; // the only other kind (sealed)
        return password(basic.username(), basic.password());
    }

    private Optional<Authenticated> password(String username, String password) {
        Optional<Account> account = accounts.findByUsername(username);
        String hash = account.map(Account::getPasswordHash).orElse(null);
        boolean cached = hash != null && verifiedPasswords.contains(username, password, hash);
        if (!cached && account.isPresent()) {
            // Basic is a password login too: the same per-account lock as /auth/login.
            String key = "login:account:" + account.get().getId();
            try {
                throttle.guard(key);
            } catch (ProblemException locked) {
                return Optional.empty();
            }
            if (!hasher.verify(password, hash)) {
                throttle.count(key, settings.accountLoginPolicy());
                return Optional.empty();
            }
        } else if (!cached) {
            hasher.verify(password, null); // same cost as a real check: no user-name probing by timing
            return Optional.empty();
        }
        if (!account.get().isActive()) {
            return Optional.empty();
        }
        verifiedPasswords.put(username, password, hash);
        return Optional.of(new Authenticated(Long.toString(account.get().getId()), account.get().getRoles()));
    }
}
