package io.roost.platform.security;

/** What an {@code Authorization} header carries: HTTP Basic (RFC 7617) or a bearer token (RFC 6750). */
public sealed interface Credential permits Credential.Basic, Credential.Bearer {

    /** The {@link jakarta.servlet.http.HttpServletRequest#getAuthType()} of a request authenticated with it. */
    String scheme();

    record Basic(String username, String password) implements Credential {
        @Override
        public String scheme() {
            return "BASIC";
        }

        @Override
        public String toString() {
            return "Basic[" + username + ", ***]";
        }
    }

    record Bearer(String token) implements Credential {
        @Override
        public String scheme() {
            return "BEARER";
        }

        @Override
        public String toString() {
            return "Bearer[***]";
        }
    }
}
