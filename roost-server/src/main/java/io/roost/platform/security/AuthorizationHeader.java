package io.roost.platform.security;

import java.nio.charset.StandardCharsets;
import java.util.Base64;

/** Parses {@code Authorization: Basic ...} and {@code Authorization: Bearer ...} (RFC 7617, 6750). */
public final class AuthorizationHeader {

    private AuthorizationHeader() {
    }

    /** The credential in the header, or null when it is neither well-formed Basic nor Bearer. */
    public static Credential parse(String header) {
        int space = header.indexOf(' ');
        if (space < 0) {
            return null;
        }
        String scheme = header.substring(0, space);
        String value = header.substring(space + 1).trim();
        if (value.isEmpty()) {
            return null;
        }
        if (scheme.equalsIgnoreCase("Bearer")) {
            return new Credential.Bearer(value);
        }
        if (scheme.equalsIgnoreCase("Basic")) {
            String decoded;
            try {
                decoded = new String(Base64.getDecoder().decode(value), StandardCharsets.UTF_8);
            } catch (IllegalArgumentException e) {
                return null;
            }
            int colon = decoded.indexOf(':');
            if (colon <= 0) {
                return null;
            }
            return new Credential.Basic(decoded.substring(0, colon), decoded.substring(colon + 1));
        }
        return null;
    }
}
