package io.roost.gateway;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.roost.chat.ChatPush;
import io.roost.chat.ChatService;
import io.roost.platform.config.NodeIdentity;
import io.roost.presence.session.DeviceSessions;
import io.roost.presence.session.RouteTarget;
import jakarta.enterprise.concurrent.ManagedExecutorService;
import jakarta.json.JsonObject;
import java.lang.reflect.Proxy;
import java.util.ArrayList;
import java.util.Collection;
import java.util.List;
import java.util.Map;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicReference;
import org.junit.jupiter.api.Test;

/** A push that cannot be made at all still reaches the offline path: a full queue, unreadable routes, a forward given up. */
class ChatDeliveryTest {

    /** The offline path's calls: recipient, peer, highest seq, count, 1 if one device's report (else 0). */
    private final List<List<Long>> undelivered = new ArrayList<>();
    private final AtomicReference<Delivery.Routed> queued = new AtomicReference<>();
    private final ChatDelivery chatDelivery = new ChatDelivery();

    ChatDeliveryTest() {
        chatDelivery.chat = new ChatService() {
            @Override
            public void undelivered(long recipient, long peer, long seq, int count) {
                undelivered.add(List.of(recipient, peer, seq, (long) count, 0L));
            }

            @Override
            public void undeliveredToDevice(long recipient, long peer, long seq, int count) {
                undelivered.add(List.of(recipient, peer, seq, (long) count, 1L));
            }
        };
        chatDelivery.executor = (ManagedExecutorService) Proxy.newProxyInstance(getClass().getClassLoader(),
                new Class<?>[] {ManagedExecutorService.class}, (proxy, method, args) -> {
                    if (!method.getName().equals("execute")) {
                        throw new UnsupportedOperationException(method.getName());
                    }
                    ((Runnable) args[0]).run(); // on the caller's thread: the test sees its outcome at once
                    return null;
                });
        chatDelivery.node = new NodeIdentity() {
            @Override
            public int nodeId() {
                return 1;
            }
        };
    }

    /** A delivery whose queue takes work (into {@link #queued}) or is full, and which gives every forward up (the broker never took it). */
    private Delivery delivery(boolean queueFull) {
        return new Delivery() {
            @Override
            boolean offer(Routed work) {
                queued.set(work);
                return !queueFull;
            }

            @Override
            void forward(int nodeId, List<RouteTarget> routes, String text, Forwarded.Chat chat, Runnable onGiveUp) {
                onGiveUp.run();
            }
        };
    }

    /** The offline path's calls in recipient order (the executor ran them, in any order of a map's). */
    private List<List<Long>> undeliveredByRecipient() {
        return undelivered.stream().sorted((x, y) -> Long.compare(x.get(0), y.get(0))).toList();
    }

    private static ChatPush push(long from, long to, long seq) {
        return new ChatPush(from, to, seq, 1000 + seq, JsonObject.EMPTY_JSON_OBJECT, null, List.of());
    }

    @Test
    void aFullQueueSendsEveryMessageOfTheBatchTheOfflineWayOncePerConversation() {
        chatDelivery.delivery = delivery(true);
        chatDelivery.onPush(new ChatPush.Batch(List.of(push(1, 2, 1), push(1, 2, 2), push(3, 4, 7))));
        assertEquals(List.of(List.of(2L, 1L, 2L, 2L, 0L), List.of(4L, 3L, 7L, 1L, 0L)),
                undeliveredByRecipient());
    }

    @Test
    void aForwardGivenUpSendsTheRecipientsMessageTheOfflineWay() {
        chatDelivery.delivery = delivery(false);
        chatDelivery.onPush(new ChatPush.Batch(List.of(push(1, 2, 5), push(3, 4, 6))));
        // 2's device and 3's other device are on node 2; 4 has none
        queued.get().deliver(Map.of(2L, List.of(new RouteTarget(2, 2, "c-2")), 3L, List.of(new RouteTarget(3, 2, "c-3"))));
        assertEquals(List.of(List.of(2L, 1L, 5L, 1L, 1L), List.of(4L, 3L, 6L, 1L, 0L)),
                undeliveredByRecipient(),
                "the recipient whose forward failed (as its devices on that node: another node's may report it too), and the one"
                        + " without a route; not the sender's own other device");
    }

    @Test
    void routesThatCannotBeReadMakeTheWorkUndeliverable() {
        Delivery delivery = new Delivery();
        delivery.sessions = new DeviceSessions() {
            @Override
            public List<RouteTarget> targetsOf(List<Long> uids) {
                throw new IllegalStateException("the database is out of reach");
            }
        };
        AtomicBoolean delivered = new AtomicBoolean();
        AtomicBoolean undeliverable = new AtomicBoolean();
        delivery.deliverAll(List.of(new Delivery.Routed() {
            @Override
            public Collection<Long> uids() {
                return List.of(1L);
            }

            @Override
            public void deliver(Map<Long, List<RouteTarget>> routesOf) {
                delivered.set(true);
            }

            @Override
            public void undeliverable() {
                undeliverable.set(true);
            }
        }));
        assertTrue(undeliverable.get(), "told it reaches no device");
        assertFalse(delivered.get(), "and not delivered");
    }
}
