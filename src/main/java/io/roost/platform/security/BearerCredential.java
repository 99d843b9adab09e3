package io.roost.platform.security;

import jakarta.security.enterprise.credential.Credential;

/** An opaque bearer token from {@code Authorization: Bearer ...}; validated by an identity store. */
public record BearerCredential(String token) implements Credential {

    @Override
    public String toString() {
        return "BearerCredential[***]";
    }
}
