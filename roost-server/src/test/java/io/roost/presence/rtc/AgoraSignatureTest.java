package io.roost.presence.rtc;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.charset.StandardCharsets;
import java.util.List;
import org.junit.jupiter.api.Test;

class AgoraSignatureTest {

    // Agora's published test vector.
    static final byte[] BODY = ("{\"eventMs\":1560408533119,\"eventType\":10,\"noticeId\":\"4eb720f0-8da7-11e9-a43e-53f411c2761f\","
            + "\"notifyMs\":1560408533119,\"payload\":{\"a\":\"1\",\"b\":2},\"productId\":1}").getBytes(StandardCharsets.UTF_8);
    static final String SHA1 = "033c62f40f687675f17f0f41f91a40c71c0f134c";
    static final String SHA256 = "6d3320c60b11101395b7fc8f9068748808a0aa1bfa064438e39d1bc2c7d74d99";

    @Test
    void agorasPublishedVector() {
        assertEquals(SHA1, AgoraSignature.hmacHex("HmacSHA1", "secret", BODY));
        assertEquals(SHA256, AgoraSignature.hmacHex("HmacSHA256", "secret", BODY));
    }

    @Test
    void eitherHeaderSuffices() {
        assertTrue(AgoraSignature.verify(BODY, SHA1, null, List.of("secret")));
        assertTrue(AgoraSignature.verify(BODY, null, SHA256, List.of("secret")));
        assertTrue(AgoraSignature.verify(BODY, SHA1, SHA256, List.of("secret")));
        assertTrue(AgoraSignature.verify(BODY, SHA1.toUpperCase(), null, List.of("secret")), "hex case does not matter");
        // One valid header is enough even if the other is garbage.
        assertTrue(AgoraSignature.verify(BODY, "zz-not-hex", SHA256, List.of("secret")));
    }

    @Test
    void refusesMissingWrongOrTampered() {
        assertFalse(AgoraSignature.verify(BODY, null, null, List.of("secret")));
        assertFalse(AgoraSignature.verify(BODY, "", " ", List.of("secret")));
        assertFalse(AgoraSignature.verify(BODY, SHA1, SHA256, List.of("other-secret")));
        assertFalse(AgoraSignature.verify(BODY, SHA1, SHA256, List.of()));
        byte[] tampered = BODY.clone();
        tampered[tampered.length - 2] = '2';
        assertFalse(AgoraSignature.verify(tampered, SHA1, SHA256, List.of("secret")));
        assertFalse(AgoraSignature.verify(BODY, SHA1.substring(2), null, List.of("secret")), "truncated signature");
    }

    @Test
    void anyRotatedSecretVerifies() {
        assertTrue(AgoraSignature.verify(BODY, SHA1, null, List.of("new-secret", "secret")));
    }
}
