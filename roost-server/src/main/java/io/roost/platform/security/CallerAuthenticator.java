package io.roost.platform.security;

import java.util.Optional;
import java.util.Set;

/**
 * Checks a credential against the accounts (the identity module implements it), so that the
 * platform's {@link AuthenticationFilter} and the admin sign-in need not know where accounts live.
 */
public interface CallerAuthenticator {

    /** An authenticated caller: the account id (the principal's name) and its roles. */
    record Authenticated(String uid, Set<String> roles) {
    }

    /** The caller, or empty when the credential is wrong, expired, revoked, throttled, or the account is not active. */
    Optional<Authenticated> authenticate(Credential credential);
}
