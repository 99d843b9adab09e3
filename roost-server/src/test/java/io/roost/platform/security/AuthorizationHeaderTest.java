package io.roost.platform.security;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertNull;

import java.nio.charset.StandardCharsets;
import java.util.Base64;
import org.junit.jupiter.api.Test;

class AuthorizationHeaderTest {

    private static String basic(String raw) {
        return "Basic " + Base64.getEncoder().encodeToString(raw.getBytes(StandardCharsets.UTF_8));
    }

    @Test
    void basicSplitsAtTheFirstColonOnly() {
        var credential = assertInstanceOf(Credential.Basic.class, AuthorizationHeader.parse(basic("alice:pa:ss wörd")));
        assertEquals("alice", credential.username());
        assertEquals("pa:ss wörd", credential.password());
    }

    @Test
    void schemesAreCaseInsensitive() {
        assertInstanceOf(Credential.Basic.class, AuthorizationHeader.parse("bAsIc "
                + Base64.getEncoder().encodeToString("a:b".getBytes(StandardCharsets.UTF_8))));
        var bearer = assertInstanceOf(Credential.Bearer.class, AuthorizationHeader.parse("bearer  rst_abc"));
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
    void credentialsDoNotPrintTheirSecrets() {
        assertEquals("Bearer[***]", new Credential.Bearer("secret").toString());
        assertEquals("Basic[alice, ***]", new Credential.Basic("alice", "secret").toString());
    }
}
