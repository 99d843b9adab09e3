package io.roost.presence.rtc;

import java.nio.charset.StandardCharsets;
import java.security.GeneralSecurityException;
import java.security.MessageDigest;
import java.util.HashMap;
import java.util.HexFormat;
import java.util.List;
import java.util.Map;
import javax.crypto.Mac;
import javax.crypto.spec.SecretKeySpec;

/**
 * Verifies NCS signatures: {@code Agora-Signature} is hex HMAC-SHA1 of the raw body,
 * {@code Agora-Signature-V2} hex HMAC-SHA256. A request is genuine if either header verifies
 * under any configured secret (several during a rotation). Comparison is constant-time.
 */
public final class AgoraSignature {

    private AgoraSignature() {
    }

    public static boolean verify(byte[] body, String sha1Hex, String sha256Hex, List<String> secrets) {
        boolean ok = false;
        for (String secret : secrets) {
            // No early exit: the work does not depend on which secret or header matched.
            ok |= matches("HmacSHA1", secret, body, sha1Hex);
            ok |= matches("HmacSHA256", secret, body, sha256Hex);
        }
        return ok;
    }

    public static String hmacHex(String algorithm, String secret, byte[] body) {
        return HexFormat.of().formatHex(hmac(algorithm, secret, body));
    }

    private static boolean matches(String algorithm, String secret, byte[] body, String presentedHex) {
        if (presentedHex == null || presentedHex.isBlank()) {
            return false;
        }
        byte[] presented;
        try {
            presented = HexFormat.of().parseHex(presentedHex.trim().toLowerCase());
        } catch (IllegalArgumentException e) {
            return false;
        }
        return MessageDigest.isEqual(hmac(algorithm, secret, body), presented);
    }

    /** Keyed Macs per thread: a provider look-up and key set-up per request cost more than the HMAC. */
    private static final ThreadLocal<Map<String, Mac>> MACS = ThreadLocal.withInitial(HashMap::new);

    private static byte[] hmac(String algorithm, String secret, byte[] body) {
        Mac mac = MACS.get().computeIfAbsent(algorithm + '\u0000' + secret, k -> {
            try {
                Mac m = Mac.getInstance(algorithm);
                m.init(new SecretKeySpec(secret.getBytes(StandardCharsets.UTF_8), algorithm));
                return m;
            } catch (GeneralSecurityException e) {
                throw new IllegalStateException(e);
            }
        });
        return mac.doFinal(body); // doFinal resets the Mac for the next body, keeping the key
    }
}
