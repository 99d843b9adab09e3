package io.roost.media;

import io.roost.platform.problem.ProblemException;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.util.HexFormat;

/** SHA-256 as media uses it: the files' and chunks' digests, and the hex form clients declare and read them in. */
public final class Sha256 {

    private Sha256() {
    }

    public static MessageDigest digest() {
        try {
            return MessageDigest.getInstance("SHA-256");
        } catch (NoSuchAlgorithmException e) {
            throw new IllegalStateException(e);
        }
    }

    public static String hex(byte[] b) {
        return HexFormat.of().formatHex(b);
    }

    /** A declared digest: null when absent, 400 {@code invalid-sha256} when not 64 hex digits. */
    public static byte[] parse(String hex) {
        if (hex == null) {
            return null;
        }
        if (hex.length() == 64) {
            try {
                return HexFormat.of().parseHex(hex);
            } catch (IllegalArgumentException e) {
                // below
            }
        }
        throw ProblemException.badRequest("invalid-sha256", "sha256 is 64 hex digits.");
    }
}
