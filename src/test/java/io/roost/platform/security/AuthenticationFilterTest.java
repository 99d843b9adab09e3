package io.roost.platform.security;

import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import org.junit.jupiter.api.Test;

class AuthenticationFilterTest {

    @Test
    void theWaysInAreExactPaths() {
        for (String open : new String[] {"/api/health", "/api/v1/registrations", "/api/v1/auth/login",
                "/api/v1/auth/password-resets", "/api/v1/auth/recoveries", "/api/v1/admin/session"}) {
            assertTrue(AuthenticationFilter.isPublic(open), open);
            assertFalse(AuthenticationFilter.isPublic(open + "/x"), open + "/x");
            assertFalse(AuthenticationFilter.isPublic(open + "x"), open + "x");
        }
    }

    @Test
    void webhooksAreAPublicTree() {
        assertTrue(AuthenticationFilter.isPublic("/api/v1/webhooks"));
        assertTrue(AuthenticationFilter.isPublic("/api/v1/webhooks/agora"));
        assertFalse(AuthenticationFilter.isPublic("/api/v1/webhooksx"));
    }

    @Test
    void everythingElseNeedsACaller() {
        for (String closed : new String[] {"/api", "/api/", "/api/v1/accounts/me", "/api/v1/auth/tokens", "/api/v1/admin/accounts",
                "/api/v1/rooms/r1/stats", "/api/HEALTH", "/api/v1/auth"}) {
            assertFalse(AuthenticationFilter.isPublic(closed), closed);
        }
    }
}
