package io.roost.identity.api;

import io.roost.identity.store.Account;
import java.time.OffsetDateTime;
import java.util.Set;

/** An account as the API shows it: never the password hash. Ids travel as strings (JS-safe). */
public record AccountView(String id, String username, Set<String> roles, String status, OffsetDateTime createdAt) {

    public static AccountView of(Account a) {
        return new AccountView(Long.toString(a.getId()), a.getUsername(), a.getRoles(), a.getStatus().name(),
                a.getCreatedAt());
    }
}
