package io.roost.media;

import java.nio.charset.StandardCharsets;
import java.security.InvalidKeyException;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.util.Base64;
import javax.crypto.Mac;
import javax.crypto.spec.SecretKeySpec;

/**
 * Short-lived download links for a push gateway or a CDN: {@code mediaId}, the message that names
 * the file, and an expiry (epoch seconds), signed with HMAC-SHA256 under {@code ROOST_MEDIA_URL_SECRET}.
 * The signature is compared in constant time; a link's message is checked at download as well, so a
 * recall ends its links before they expire.
 */
public final class SignedLinks {

    private final byte[] key;

    public SignedLinks(byte[] key) {
        if (key == null || key.length < 16) {
            throw new IllegalArgumentException("a link secret has at least 16 bytes");
        }
        this.key = key.clone();
    }

    /** The signature (base64url, no padding) of a link to {@code mediaId} through {@code msgId} until {@code expires}. */
    public String sign(long mediaId, long msgId, long expires) {
        return Base64.getUrlEncoder().withoutPadding().encodeToString(mac(mediaId + "." + msgId + "." + expires));
    }

    /** Whether {@code signature} is this link's and it has not expired at {@code nowSeconds}. */
    public boolean valid(long mediaId, long msgId, long expires, String signature, long nowSeconds) {
        if (signature == null || expires < nowSeconds) {
            return false;
        }
        byte[] given;
        try {
            given = Base64.getUrlDecoder().decode(signature);
        } catch (IllegalArgumentException e) {
            return false;
        }
        return MessageDigest.isEqual(given, mac(mediaId + "." + msgId + "." + expires));
    }

    private byte[] mac(String text) {
        try {
            Mac mac = Mac.getInstance("HmacSHA256");
            mac.init(new SecretKeySpec(key, "HmacSHA256"));
            return mac.doFinal(text.getBytes(StandardCharsets.US_ASCII));
        } catch (NoSuchAlgorithmException | InvalidKeyException e) {
            throw new IllegalStateException(e);
        }
    }
}
