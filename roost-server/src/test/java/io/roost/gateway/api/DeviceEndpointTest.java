package io.roost.gateway.api;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.roost.platform.json.Jsonp;
import jakarta.json.JsonObject;
import org.junit.jupiter.api.Test;

/** Which device frames leave the IO thread ({@link DeviceEndpoint#waitsOnDatabase}), and how large a frame may be. */
class DeviceEndpointTest {

    private static JsonObject chatOp(String op) {
        return Jsonp.PROVIDER.createObjectBuilder().add("type", "chatOp").add("op", op).build();
    }

    private static final JsonObject NONE = Jsonp.PROVIDER.createObjectBuilder().build();

    @Test
    void framesThatOnlyQueueWorkStayOnTheIoThread() {
        for (String type : new String[] {"hello", "heartbeat", "chatAck", "no-such-type"}) {
            assertFalse(DeviceEndpoint.waitsOnDatabase(type, NONE), type);
        }
        assertFalse(DeviceEndpoint.waitsOnDatabase("chatOp", chatOp("send")));
        assertFalse(DeviceEndpoint.waitsOnDatabase("chatOp", chatOp("read")));
        assertFalse(DeviceEndpoint.waitsOnDatabase("chatOp", chatOp("no-such-op")), "answered with unknown-op at once");
    }

    @Test
    void framesThatWaitOnTheDatabaseGoToAWorker() {
        for (String type : new String[] {"login", "logout", "friendOp", "groupOp", "roomOp", "mediaOp"}) {
            assertTrue(DeviceEndpoint.waitsOnDatabase(type, NONE), type);
        }
        for (String op : new String[] {"conversations", "messages", "sync", "delete", "recall"}) {
            assertTrue(DeviceEndpoint.waitsOnDatabase("chatOp", chatOp(op)), op);
        }
    }

    @Test
    void theFrameLimitLeavesRoomForTheLargestBodyWithinWhatTheContainerTakes() {
        assertEquals(16 * 1024, DeviceEndpoint.frameLimit(1_000), "never below 16 KiB");
        assertEquals(16 * 1024 + 2 * 1024, DeviceEndpoint.frameLimit(16 * 1024), "the default body limit and a send's envelope");
        assertEquals(64 * 1024, DeviceEndpoint.frameLimit(100_000), "the container drops frames above 64 KiB");
    }
}
