package io.roost.platform.security;

import java.util.Set;

/**
 * The paths under {@code /api} that need no credentials: health (probes), the ways in (registration,
 * device login, password reset, self-recovery and the operator sign-in: codes, passwords and
 * throttles guard them), the webhooks (they check their own signatures) and signed media links. The authentication
 * filter lets them through and the OpenAPI document declares them public, both from this list.
 */
public final class PublicPaths {

    /** The admin console's sign-in: it checks the password itself. */
    public static final String OPERATOR_SIGN_IN = "/api/v1/admin/session";

    /** Signed download links: the signature in the query is the credential. */
    public static final String MEDIA_LINKS = "/api/v1/media-links";

    /** Every webhook lives under this tree; its callers sign their requests instead of logging in. */
    public static final String WEBHOOKS = "/api/v1/webhooks";

    private static final Set<String> EXACT = Set.of("/api/health", "/api/health/serving", "/api/v1/registrations", "/api/v1/auth/login",
            "/api/v1/auth/password-resets", "/api/v1/auth/recoveries", OPERATOR_SIGN_IN);

    private PublicPaths() {
    }

    /** Whether {@code path} (canonical and decoded, with the /api prefix) may be called without credentials. */
    public static boolean isPublic(String path) {
        return EXACT.contains(path) || isWebhook(path) || path.startsWith(MEDIA_LINKS + "/");
    }

    /** Whether {@code path} is a webhook's: authenticated by its signature, not by an account. */
    public static boolean isWebhook(String path) {
        return path.equals(WEBHOOKS) || path.startsWith(WEBHOOKS + "/");
    }
}
