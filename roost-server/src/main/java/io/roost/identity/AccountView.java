package io.roost.identity;

import io.roost.identity.store.Account;
import java.time.OffsetDateTime;
import java.util.Map;
import java.util.Set;

/**
 * An account as its owner and operators see it (REST and the admin API): never the password hash.
 * Ids travel as strings (JS-safe).
 */
public record AccountView(String id, String username, Set<String> roles, String status, String email, String phone,
                          String nick, String avatarUrl, String gender, Integer age, String region,
                          Map<String, String> params, OffsetDateTime createdAt, OffsetDateTime updatedAt) {

    public static AccountView of(Account a) {
        return new AccountView(Long.toString(a.getId()), a.getUsername(), a.getRoles(), a.getStatus().name(),
                a.getEmail(), a.getPhone(), a.getNick(), a.getAvatarUrl(), a.getGender(), a.getAge(), a.getRegion(),
                AccountService.params(a), a.getCreatedAt(), a.getUpdatedAt());
    }
}
