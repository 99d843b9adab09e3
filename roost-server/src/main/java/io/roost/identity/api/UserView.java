package io.roost.identity.api;

import io.roost.identity.store.Account;

/** What any signed-in caller may see of another user (no e-mail, phone or params). */
public record UserView(String id, String username, String nick, String avatarUrl, String gender, Integer age,
                       String region) {

    public static UserView of(Account a) {
        return new UserView(Long.toString(a.getId()), a.getUsername(), a.getNick(), a.getAvatarUrl(), a.getGender(),
                a.getAge(), a.getRegion());
    }
}
