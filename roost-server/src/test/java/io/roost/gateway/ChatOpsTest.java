package io.roost.gateway;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import org.junit.jupiter.api.Test;

class ChatOpsTest {

    @Test
    void aDeviceKeyIsTypeAndIdAndAlwaysFitsTheChatService() {
        assertEquals("ios:phone-1", ChatOps.deviceKey("ios", "phone-1"));
        String longId = "d".repeat(128);
        String key = ChatOps.deviceKey("android", longId);
        assertTrue(key.length() <= 80, key);
        assertTrue(key.startsWith("android#"), key);
        assertEquals(key, ChatOps.deviceKey("android", longId), "stable across resends");
        assertNotEquals(key, ChatOps.deviceKey("android", "e" + longId.substring(1)), "two devices, two keys");
    }
}
