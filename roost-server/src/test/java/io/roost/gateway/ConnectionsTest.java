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
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.Executor;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import org.junit.jupiter.api.Test;

/**
 * The queued writes of {@link Connections.Outbound#send(String)}: call order, the bound on frames
 * not yet written, and the IO thread's write queue (one wake-up for a burst, order kept across threads).
 */
class ConnectionsTest {

    /** A session whose socket takes frames and reports them written only when told to. */
    static final class FakeSocket {
        final List<String> queued = new ArrayList<>();
        final List<SendHandler> unfinished = new ArrayList<>();
        CloseReason closedWith;
        /** Whether the socket reports each frame written as soon as it takes it (a reader that keeps up). */
        boolean keepsUp;

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
                        if (keepsUp) {
                            ((SendHandler) args[1]).onResult(new SendResult());
                        } else {
                            unfinished.add((SendHandler) args[1]);
                        }
                        return null;
                    });
        }

        /** The socket wrote every queued frame. */
        void written() {
            unfinished.forEach(h -> h.onResult(new SendResult()));
            unfinished.clear();
        }
    }

    /** A connection on a socket that keeps up, holding back what is sent to it, as while its login is in flight. */
    private static Connections.Outbound loggingIn(FakeSocket socket) {
        socket.keepsUp = true;
        Connections.Outbound out = new Connections.Outbound(socket.session, Connections.DIRECT);
        out.hold();
        return out;
    }

    @Test
    void whileALoginIsInFlightFramesAndACloseWaitAndItsAnswerGoesFirst() {
        FakeSocket socket = new FakeSocket();
        Connections.Outbound out = loggingIn(socket);
        out.send("chatMsg 1");
        out.send("kick");
        out.close(CloseReason.CloseCodes.VIOLATED_POLICY, "kicked");
        out.send("after the close");
        assertEquals(List.of(), socket.queued, "nothing before the login's answer");
        assertNull(socket.closedWith);
        out.release("login");
        assertEquals(List.of("login", "chatMsg 1", "kick"), socket.queued, "the answer, then what waited, in order");
        assertEquals("kicked", socket.closedWith.getReasonPhrase(), "and the close after them");
    }

    @Test
    void aRefusedLoginReleasesWithoutAnAnswerAndFramesGoStraightOutAgain() {
        FakeSocket socket = new FakeSocket();
        Connections.Outbound out = loggingIn(socket);
        out.release(null);
        out.send("error invalid-token");
        assertEquals(List.of("error invalid-token"), socket.queued);
    }

    @Test
    void framesAreQueuedInCallOrderWithoutWaitingForTheWrite() {
        FakeSocket socket = new FakeSocket();
        Connections.Outbound out = new Connections.Outbound(socket.session, Connections.DIRECT);
        for (int i = 0; i < 5; i++) {
            out.send("frame " + i);
        }
        assertEquals(List.of("frame 0", "frame 1", "frame 2", "frame 3", "frame 4"), socket.queued);
        assertNull(socket.closedWith);
    }

    @Test
    void aConnectionThatFallsTooFarBehindIsClosedAsASlowConsumer() {
        FakeSocket socket = new FakeSocket();
        Connections.Outbound out = new Connections.Outbound(socket.session, Connections.DIRECT);
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
        Connections.Outbound out = new Connections.Outbound(socket.session, Connections.DIRECT);
        for (int round = 0; round < 3; round++) {
            for (int i = 0; i < Connections.MAX_UNWRITTEN; i++) {
                out.send("frame " + i);
            }
            socket.written();
        }
        assertNull(socket.closedWith);
        assertEquals(3 * Connections.MAX_UNWRITTEN, socket.queued.size());
    }

    /** An IO thread that runs what it is handed only when the test says so, counting the hand-overs (wake-ups). */
    static final class ManualIoThread implements Executor {
        final List<Runnable> tasks = new ArrayList<>();

        @Override
        public void execute(Runnable task) {
            tasks.add(task);
        }

        void runAll() {
            while (!tasks.isEmpty()) {
                tasks.remove(0).run();
            }
        }
    }

    @Test
    void aBurstOfFramesToOneIoThreadsConnectionsCostsOneHandOver() {
        ManualIoThread io = new ManualIoThread();
        FakeSocket a = new FakeSocket(), b = new FakeSocket();
        Connections.Outbound toA = new Connections.Outbound(a.session, io), toB = new Connections.Outbound(b.session, io);
        for (int i = 0; i < 50; i++) {
            toA.send("a" + i);
            toB.send("b" + i);
        }
        assertEquals(1, io.tasks.size(), "one drain for the burst");
        assertEquals(List.of(), a.queued, "nothing is written before the IO thread runs");
        io.runAll();
        assertEquals(50, a.queued.size());
        assertEquals("a0", a.queued.get(0));
        assertEquals("b49", b.queued.get(49));
        toA.send("later");
        assertEquals(1, io.tasks.size(), "a frame after the drain asks for a drain of its own");
        io.runAll();
        assertEquals("later", a.queued.get(50));
    }

    @Test
    void theCloseFollowsTheFramesQueuedBeforeIt() {
        ManualIoThread io = new ManualIoThread();
        FakeSocket socket = new FakeSocket();
        Connections.Outbound out = new Connections.Outbound(socket.session, io);
        out.send("kick");
        out.close(CloseReason.CloseCodes.VIOLATED_POLICY, "replaced");
        out.send("after the close");
        assertNull(socket.closedWith, "the close waits for the IO thread too");
        io.runAll();
        assertEquals(List.of("kick"), socket.queued);
        assertEquals("replaced", socket.closedWith.getReasonPhrase());
    }

    @Test
    void framesFromManyThreadsKeepEachThreadsOrderAndNoneIsLost() throws Exception {
        ExecutorService io = Executors.newSingleThreadExecutor();
        try {
            // under the bound in all (4 × 450 < MAX_UNWRITTEN), so no close; many rounds for many interleavings
            int threads = 4, frames = 450;
            for (int round = 0; round < 50; round++) {
                FakeSocket socket = new FakeSocket();
                socket.keepsUp = true;
                Connections.Outbound out = new Connections.Outbound(socket.session, io);
                CountDownLatch go = new CountDownLatch(1);
                List<Thread> senders = new ArrayList<>();
                for (int t = 0; t < threads; t++) {
                    String name = "t" + t + ":";
                    Thread sender = new Thread(() -> {
                        try {
                            go.await();
                        } catch (InterruptedException e) {
                            return;
                        }
                        for (int i = 0; i < frames; i++) {
                            out.send(name + i);
                        }
                    });
                    senders.add(sender);
                    sender.start();
                }
                go.countDown();
                for (Thread sender : senders) {
                    sender.join();
                }
                for (int i = 0; i < 10 && io.submit(() -> socket.queued.size()).get() < threads * frames; i++) {
                    // a drain stops at DRAIN_MAX and queues itself again, behind this check: look again
                }
                assertNull(socket.closedWith);
                assertEquals(threads * frames, socket.queued.size(), "every frame written once");
                int[] next = new int[threads];
                for (String frame : socket.queued) {
                    int t = frame.charAt(1) - '0';
                    assertEquals("t" + t + ":" + next[t], frame, "each thread's frames in its order");
                    next[t]++;
                }
            }
        } finally {
            io.shutdownNow();
        }
    }
}
