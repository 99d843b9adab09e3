package io.roost.platform.security;

/** The three roles of Roost. An account holds one or more of them. */
public final class Roles {
    /** Operators: the admin API and UI. */
    public static final String ADMIN = "admin";
    /** Enterprise back ends calling the REST API on behalf of their users. */
    public static final String SERVICE = "service";
    /** End users (devices). */
    public static final String USER = "user";

    private Roles() {
    }

    public static boolean isKnown(String role) {
        return ADMIN.equals(role) || SERVICE.equals(role) || USER.equals(role);
    }
}
