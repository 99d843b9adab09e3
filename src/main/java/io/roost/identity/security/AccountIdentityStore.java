package io.roost.identity.security;

import io.roost.identity.AccountService;
import io.roost.identity.AuthThrottle;
import io.roost.identity.IdentitySettings;
import io.roost.platform.problem.ProblemException;
import io.roost.identity.TokenService;
import io.roost.identity.store.Account;
import io.roost.platform.security.BearerCredential;
import jakarta.enterprise.context.ApplicationScoped;
import jakarta.inject.Inject;
import jakarta.security.enterprise.credential.Credential;
import jakarta.security.enterprise.credential.UsernamePasswordCredential;
import jakarta.security.enterprise.identitystore.CredentialValidationResult;
import jakarta.security.enterprise.identitystore.IdentityStore;
import java.util.Optional;

/**
 * Validates passwords (Basic) and bearer tokens against the account table. The caller's
 * principal name is the account id: stable where user names can change.
 */
@ApplicationScoped
public class AccountIdentityStore implements IdentityStore {

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
    public CredentialValidationResult validate(Credential credential) {
        if (credential instanceof BearerCredential bearer) {
            return tokens.authenticate(bearer.token())
                    .map(g -> new CredentialValidationResult(Long.toString(g.accountId()), g.roles()))
                    .orElse(CredentialValidationResult.INVALID_RESULT);
        }
        if (credential instanceof UsernamePasswordCredential basic) {
            String password = basic.getPasswordAsString();
            Optional<Account> account = accounts.findByUsername(basic.getCaller());
            String hash = account.map(Account::getPasswordHash).orElse(null);
            boolean cached = hash != null && verifiedPasswords.contains(basic.getCaller(), password, hash);
            if (!cached && account.isPresent()) {
                // Basic is a password login too: the same per-account lock as /auth/login.
                String key = "login:account:" + account.get().getId();
                try {
                    throttle.guard(key);
                } catch (ProblemException locked) {
                    return CredentialValidationResult.INVALID_RESULT;
                }
                if (!hasher.verify(password, hash)) {
                    throttle.count(key, settings.accountLoginPolicy());
                    return CredentialValidationResult.INVALID_RESULT;
                }
            } else if (!cached) {
                hasher.verify(password, null); // same cost as a real check: no user-name probing by timing
                return CredentialValidationResult.INVALID_RESULT;
            }
            if (!account.get().isActive()) {
                return CredentialValidationResult.INVALID_RESULT;
            }
            verifiedPasswords.put(basic.getCaller(), password, hash);
            return valid(account.get());
        }
        return CredentialValidationResult.NOT_VALIDATED_RESULT;
    }

    private static CredentialValidationResult valid(Account account) {
        return new CredentialValidationResult(Long.toString(account.getId()), account.getRoles());
    }
}
