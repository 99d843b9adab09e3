package io.roost.identity.security;

import jakarta.enterprise.context.ApplicationScoped;
import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.util.Base64;
import java.util.concurrent.ConcurrentHashMap;

/**
 * Back ends that use HTTP Basic on every call would pay a deliberately slow PBKDF2 check per
 * request. We remember a successful check for a minute, keyed by a SHA-256 of (user, password,
 * stored hash): a password change (new hash) or a wrong password never hits the cache, and the
 * cache holds no password. Account status is still checked on every request.
 */
@ApplicationScoped
public class VerifiedPasswordCache {

    static final long TTL_NANOS = 60_000_000_000L;
    static final int MAX_ENTRIES = 10_000;

    private final ConcurrentHashMap<String, Long> verifiedAt = new ConcurrentHashMap<>();

    boolean contains(String user, String password, String storedHash) {
        Long at = verifiedAt.get(key(user, password, storedHash));
        return at != null && System.nanoTime() - at < TTL_NANOS;
    }

    void put(String user, String password, String storedHash) {
        if (verifiedAt.size() >= MAX_ENTRIES) {
            long now = System.nanoTime();
            verifiedAt.values().removeIf(at -> now - at >= TTL_NANOS);
            if (verifiedAt.size() >= MAX_ENTRIES) {
                verifiedAt.clear();
            }
        }
        verifiedAt.put(key(user, password, storedHash), System.nanoTime());
    }

    private static String key(String user, String password, String storedHash) {
        try {
            MessageDigest digest = MessageDigest.getInstance("SHA-256");
            digest.update(user.toLowerCase().getBytes(StandardCharsets.UTF_8));
            digest.update((byte) 0);
            digest.update(password.getBytes(StandardCharsets.UTF_8));
            digest.update((byte) 0);
            digest.update(storedHash.getBytes(StandardCharsets.UTF_8));
            return Base64.getEncoder().encodeToString(digest.digest());
        } catch (NoSuchAlgorithmException e) {
            throw new IllegalStateException(e);
        }
    }
}
