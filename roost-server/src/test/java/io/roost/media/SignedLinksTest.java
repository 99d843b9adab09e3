package io.roost.media;

import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.charset.StandardCharsets;
import org.junit.jupiter.api.Test;

class SignedLinksTest {

    private final SignedLinks links = new SignedLinks("a secret of enough bytes".getBytes(StandardCharsets.UTF_8));

    @Test
    void aLinkIsValidForItsFileMessageAndTimeOnly() {
        String sig = links.sign(7, 9, 1000);
        assertTrue(links.valid(7, 9, 1000, sig, 999));
        assertTrue(links.valid(7, 9, 1000, sig, 1000));
        assertFalse(links.valid(7, 9, 1000, sig, 1001), "expired");
        assertFalse(links.valid(8, 9, 1000, sig, 999), "another file");
        assertFalse(links.valid(7, 10, 1000, sig, 999), "another message");
        assertFalse(links.valid(7, 9, 2000, sig, 999), "a later expiry is not signed");
        assertFalse(links.valid(7, 9, 1000, sig.substring(1), 999));
        assertFalse(links.valid(7, 9, 1000, "not base64 !", 999));
        assertFalse(links.valid(7, 9, 1000, null, 999));
        assertFalse(new SignedLinks("another secret, long enough".getBytes(StandardCharsets.UTF_8)).valid(7, 9, 1000, sig, 999),
                "another key");
    }

    @Test
    void aShortKeyIsRefused() {
        assertThrows(IllegalArgumentException.class, () -> new SignedLinks("short".getBytes(StandardCharsets.UTF_8)));
    }
}
