package io.roost.identity.security;

import jakarta.annotation.PostConstruct;
import jakarta.enterprise.context.ApplicationScoped;
import jakarta.inject.Inject;
import jakarta.security.enterprise.identitystore.Pbkdf2PasswordHash;
import java.util.Map;
import org.eclipse.microprofile.config.inject.ConfigProperty;
import org.glassfish.soteria.identitystores.hash.Pbkdf2PasswordHashImpl;

/**
 * PBKDF2-HMAC-SHA512 with a random 32-byte salt per hash (Jakarta Security's format stores the
 * algorithm, iterations and salt with the hash, so the cost can be raised later without
 * invalidating existing hashes). 210,000 iterations is OWASP's figure for SHA-512.
 * The implementation is Soteria's, made here: without a Jakarta Security mechanism in the
 * application (see AuthenticationFilter), WildFly does not offer it as a bean.
 */
@ApplicationScoped
public class PasswordHasher {

    private final Pbkdf2PasswordHash pbkdf2 = new Pbkdf2PasswordHashImpl();

    @Inject
    @ConfigProperty(name = "roost.password.iterations", defaultValue = "210000")
    int iterations;

    /** Verified against when the account does not exist, so timing does not reveal user names. */
    private String decoy;

    @PostConstruct
    void init() {
        pbkdf2.initialize(Map.of(
                "Pbkdf2PasswordHash.Algorithm", "PBKDF2WithHmacSHA512",
                "Pbkdf2PasswordHash.Iterations", Integer.toString(iterations),
                "Pbkdf2PasswordHash.SaltSizeBytes", "32",
                "Pbkdf2PasswordHash.KeySizeBytes", "64"));
        decoy = pbkdf2.generate("decoy-password".toCharArray());
    }

    public String hash(String password) {
        return pbkdf2.generate(password.toCharArray());
    }

    /** Constant-time comparison inside Pbkdf2PasswordHash; a null hash never verifies. */
    public boolean verify(String password, String storedHash) {
        if (storedHash == null) {
            pbkdf2.verify(password.toCharArray(), decoy);
            return false;
        }
        return pbkdf2.verify(password.toCharArray(), storedHash);
    }
}
