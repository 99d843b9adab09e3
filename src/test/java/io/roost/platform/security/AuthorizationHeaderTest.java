package io.roost.platform.security;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertNull;

import jakarta.security.enterprise.credential.UsernamePasswordCredential;
import java.nio.charset.StandardCharsets;
import java.util.Base64;
import org.junit.jupiter.api.Test;

class AuthorizationHeaderTest {

    private static String basic(String raw) {
        return "Basic " + Base64.getEncoder().encodeToString(raw.getBytes(StandardCharsets.UTF_8));
    }

    @Test
    void basicSplitsAtTheFirstColonOnly() {
        var credential = assertInstanceOf(UsernamePasswordCredential.class,
                AuthorizationHeader.parse(basic("alice:pa:ss wörd")));
        assertEquals("alice", credential.getCaller());
        assertEquals("pa:ss wörd", credential.getPasswordAsString());
    }

    @Test
    void schemesAreCaseInsensitive() {
        assertInstanceOf(UsernamePasswordCredential.class, AuthorizationHeader.parse("bAsIc "
                + Base64.getEncoder().encodeToString("a:b".getBytes(StandardCharsets.UTF_8))));
        var bearer = assertInstanceOf(BearerCredential.class, AuthorizationHeader.parse("bearer  rst_abc"));
        assertEquals("rst_abc", bearer.token());
    }

    @Test
    void malformedHeadersGiveNoCredential() {
        assertNull(AuthorizationHeader.parse("Basic"));
        assertNull(AuthorizationHeader.parse("Basic %%%"));
        assertNull(AuthorizationHeader.parse(basic("no-colon")));
        assertNull(AuthorizationHeader.parse(basic(":empty-user")));
        assertNull(AuthorizationHeader.parse("Bearer "));
        assertNull(AuthorizationHeader.parse("Digest username=x"));
    }

    @Test
    void bearerCredentialDoesNotPrintTheToken() {
        assertEquals("BearerCredential[***]", new BearerCredential("secret").toString());
    }
}
