package io.roost.it;

import io.roost.identity.AccountService;
import io.roost.platform.security.Roles;
import java.util.Set;
import java.util.UUID;

/** Accounts for the in-container tests, made by the identity module's own service: role user, {@link TestUsers#PASSWORD}. */
public final class InContainerUsers {

    private InContainerUsers() {
    }

    /** A new account named {@code prefix} + a random suffix; its id. */
    public static long create(AccountService accounts, String prefix) {
        return accounts.create(prefix + UUID.randomUUID().toString().substring(0, 12), TestUsers.PASSWORD, Set.of(Roles.USER)).getId();
    }
}
