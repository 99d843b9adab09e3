package io.roost.identity;

import io.roost.platform.problem.ProblemException;
import java.util.Locale;
import java.util.regex.Pattern;

/**
 * An e-mail address or a phone number a code can be sent to, normalized: e-mail lower-cased,
 * phone in E.164 ({@code +8613800000000}). {@link #key()} is how it appears in the code and
 * throttle tables.
 */
public record ContactAddress(Kind kind, String value) {

    public enum Kind { EMAIL, PHONE }

    // Deliberately loose (RFC 5322 is not worth enforcing): one @, no spaces, a dot in the domain.
    private static final Pattern EMAIL = Pattern.compile("[^@\\s]{1,64}@[^@\\s.]+(\\.[^@\\s.]+)+");
    private static final Pattern PHONE = Pattern.compile("\\+[1-9][0-9]{6,14}");

    public static ContactAddress email(String raw) {
        String v = raw == null ? "" : raw.trim().toLowerCase(Locale.ROOT);
        if (v.length() > 254 || !EMAIL.matcher(v).matches()) {
            throw ProblemException.badRequest("invalid-email", "'" + abbreviate(raw) + "' is not an e-mail address.");
        }
        return new ContactAddress(Kind.EMAIL, v);
    }

    public static ContactAddress phone(String raw) {
        String v = raw == null ? "" : raw.replaceAll("[\\s()-]", "");
        if (!PHONE.matcher(v).matches()) {
            throw ProblemException.badRequest("invalid-phone",
                    "'" + abbreviate(raw) + "' is not a phone number in international form (+ country code, digits).");
        }
        return new ContactAddress(Kind.PHONE, v);
    }

    /** Exactly one of {@code email} and {@code phone}. */
    public static ContactAddress either(String email, String phone) {
        if ((email == null) == (phone == null)) {
            throw ProblemException.badRequest("one-address", "Give exactly one of email and phone.");
        }
        return email != null ? email(email) : phone(phone);
    }

    public String key() {
        return kind.name().toLowerCase(Locale.ROOT) + ":" + value;
    }

    private static String abbreviate(String s) {
        if (s == null) {
            return "";
        }
        return s.length() > 40 ? s.substring(0, 40) + "…" : s;
    }
}
