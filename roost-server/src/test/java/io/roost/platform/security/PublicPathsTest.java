package io.roost.platform.security;

import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import org.junit.jupiter.api.Test;

class PublicPathsTest {

    @Test
    void theWaysInAreExactPaths() {
        for (String open : new String[] {"/api/health", "/api/v1/registrations", "/api/v1/auth/login",
                "/api/v1/auth/password-resets", "/api/v1/auth/recoveries", "/api/v1/admin/session"}) {
            assertTrue(PublicPaths.isPublic(open), open);
            assertFalse(PublicPaths.isPublic(open + "/x"), open + "/x");
            assertFalse(PublicPaths.isPublic(open + "x"), open + "x");
        }
    }

    @Test
    void webhooksAreAPublicTree() {
        assertTrue(PublicPaths.isPublic("/api/v1/webhooks"));
        assertTrue(PublicPaths.isPublic("/api/v1/webhooks/agora"));
        assertFalse(PublicPaths.isPublic("/api/v1/webhooksx"));
    }

    @Test
    void everythingElseNeedsACaller() {
        for (String closed : new String[] {"/api", "/api/", "/api/v1/accounts/me", "/api/v1/auth/tokens", "/api/v1/admin/accounts",
                "/api/v1/rooms/r1/stats", "/api/HEALTH", "/api/v1/auth"}) {
            assertFalse(PublicPaths.isPublic(closed), closed);
        }
    }
}
