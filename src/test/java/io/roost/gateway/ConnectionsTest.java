package io.roost.gateway;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;

import jakarta.websocket.CloseReason;
import jakarta.websocket.RemoteEndpoint;
import jakarta.websocket.SendHandler;
import jakarta.websocket.SendResult;
import jakarta.websocket.Session;
import java.lang.reflect.Proxy;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;

/** The queued writes of {@link Connections.Outbound#send(String)}: call order, and the bound on frames not yet written. */
class ConnectionsTest {

    /** A session whose socket takes frames and reports them written only when told to. */
    static final class FakeSocket {
        final List<String> queued = new ArrayList<>();
        final List<SendHandler> unfinished = new ArrayList<>();
        CloseReason closedWith;

        final Session session = (Session) Proxy.newProxyInstance(Session.class.getClassLoader(), new Class<?>[] {Session.class},
                (proxy, method, args) -> switch (method.getName()) {
                    case "isOpen" -> closedWith == null;
                    case "getId" -> "fake";
                    case "getAsyncRemote" -> remote();
                    case "close" -> {
                        closedWith = (CloseReason) args[0];
                        yield null;
                    }
                    case "hashCode" -> System.identityHashCode(proxy);
                    case "equals" -> proxy == args[0];
                    default -> throw new UnsupportedOperationException(method.getName());
                });

        private RemoteEndpoint.Async remote() {
            return (RemoteEndpoint.Async) Proxy.newProxyInstance(Session.class.getClassLoader(), new Class<?>[] {RemoteEndpoint.Async.class},
                    (proxy, method, args) -> {
                        if (!method.getName().equals("sendText") || args.length != 2) {
                            throw new UnsupportedOperationException(method.getName());
                        }
                        queued.add((String) args[0]);
                        unfinished.add((SendHandler) args[1]);
                        return null;
                    });
        }

        /** The socket wrote every queued frame. */
        void written() {
            unfinished.forEach(h -> h.onResult(new SendResult()));
            unfinished.clear();
        }
    }

    @Test
    void framesAreQueuedInCallOrderWithoutWaitingForTheWrite() {
        FakeSocket socket = new FakeSocket();
        Connections.Outbound out = new Connections.Outbound(socket.session);
        for (int i = 0; i < 5; i++) {
            out.send("frame " + i);
        }
        assertEquals(List.of("frame 0", "frame 1", "frame 2", "frame 3", "frame 4"), socket.queued);
        assertNull(socket.closedWith);
    }

    @Test
    void aConnectionThatFallsTooFarBehindIsClosedAsASlowConsumer() {
        FakeSocket socket = new FakeSocket();
        Connections.Outbound out = new Connections.Outbound(socket.session);
        for (int i = 0; i < Connections.MAX_UNWRITTEN; i++) {
            out.send("frame " + i);
        }
        assertNull(socket.closedWith, "at the bound, not over it");
        out.send("one too many");
        assertEquals(Connections.MAX_UNWRITTEN, socket.queued.size(), "the frame over the bound is not queued");
        assertEquals(CloseReason.CloseCodes.VIOLATED_POLICY, socket.closedWith.getCloseCode());
        assertEquals(Connections.SLOW_CONSUMER, socket.closedWith.getReasonPhrase());
        out.send("after the close");
        assertEquals(Connections.MAX_UNWRITTEN, socket.queued.size(), "nothing is queued on a closed connection");
    }

    @Test
    void writtenFramesMakeRoomAgain() {
        FakeSocket socket = new FakeSocket();
        Connections.Outbound out = new Connections.Outbound(socket.session);
        for (int round = 0; round < 3; round++) {
            for (int i = 0; i < Connections.MAX_UNWRITTEN; i++) {
                out.send("frame " + i);
            }
            socket.written();
        }
        assertNull(socket.closedWith);
        assertEquals(3 * Connections.MAX_UNWRITTEN, socket.queued.size());
    }
}
