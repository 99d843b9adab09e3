package io.roost.gateway;

import io.roost.chat.ChatPush;
import io.roost.chat.ChatService;
import io.roost.platform.config.NodeIdentity;
import io.roost.platform.json.Jsonp;
import io.roost.presence.session.RouteTarget;
import io.roost.presence.session.DeviceSessions;
import jakarta.annotation.Resource;
import jakarta.enterprise.concurrent.ManagedExecutorService;
import jakarta.enterprise.context.ApplicationScoped;
import jakarta.enterprise.event.Observes;
import jakarta.enterprise.event.TransactionPhase;
import jakarta.inject.Inject;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.IdentityHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import java.util.logging.Level;
import java.util.logging.Logger;

/**
 * Pushes a stored chat message after commit, with the three guards against fake online: no
 * route for the recipient (offline: the offline path); a route whose node has no such connection
 * (unreachable: that node repairs the route and the message takes the offline path); a device
 * that does not acknowledge ({@link AckWheel}). The routes are looked up after commit, on the
 * delivery thread with the notices' ({@link Delivery}), so a device either has its route by then
 * and gets the push, or logs in later and reads the message in its catch-up. A push that cannot
 * be made at all (the delivery queue full, the routes unreadable, a forward the broker did not
 * take while {@link Delivery} held it) takes the offline path too.
 */
@ApplicationScoped
public class ChatDelivery {

    private static final Logger LOG = Logger.getLogger(ChatDelivery.class.getName());

    @Inject
    DeviceSessions sessions;

    @Inject
    ChatService chat;

    @Inject
    AckWheel acks;

    @Inject
    Delivery delivery;

    @Inject
    NodeIdentity node;

    @Inject
    GatewayMeters meters;

    @Resource
    ManagedExecutorService executor;

    void onPush(@Observes(during = TransactionPhase.AFTER_SUCCESS) ChatPush.Batch batch) {
        Pushes pushes = new Pushes(batch.pushes());
        if (!delivery.offer(pushes)) {
            LOG.log(Level.WARNING, "delivery queue full: " + batch.pushes().size() + " messages not pushed; they take the offline path");
            pushes.undeliverable();
        }
    }

    /** A send transaction's messages, pushed once the routes of both participants are known. */
    private final class Pushes implements Delivery.Routed {

        private final List<ChatPush> pushes;

        Pushes(List<ChatPush> pushes) {
            this.pushes = pushes;
        }

        @Override
        public Set<Long> uids() {
            Set<Long> uids = new HashSet<>();
            pushes.forEach(p -> {
                uids.add(p.from());
                uids.add(p.to());
            });
            return uids;
        }

        @Override
        public void deliver(Map<Long, List<RouteTarget>> routesOf) {
            Map<List<Long>, long[]> offline = new HashMap<>();
            for (ChatPush push : pushes) {
                try {
                    List<RouteTarget> recipient = routesOf.getOrDefault(push.to(), List.of());
                    if (recipient.isEmpty()) {
                        countOffline(offline, push);
                    }
                    ChatDelivery.this.deliver(push, recipient, routesOf.getOrDefault(push.from(), List.of()));
                } catch (RuntimeException e) {
                    LOG.log(Level.WARNING, "push of message " + push.msgId() + " failed; its devices read it in their catch-up", e);
                }
            }
            takeOfflinePathLater(offline, false);
        }

        /** Pushed to nobody (the queue was full, or the routes could not be read): every message takes the offline path. */
        @Override
        public void undeliverable() {
            Map<List<Long>, long[]> offline = new HashMap<>();
            pushes.forEach(push -> countOffline(offline, push));
            takeOfflinePathLater(offline, false);
        }
    }

    /** (recipient, peer) -> {highest seq, count}: the offline path coalesces a conversation's messages anyway. */
    private static void countOffline(Map<List<Long>, long[]> offline, ChatPush push) {
        long[] seqAndCount = offline.computeIfAbsent(List.of(push.to(), push.from()), k -> new long[2]);
        seqAndCount[0] = Math.max(seqAndCount[0], push.seq());
        seqAndCount[1]++;
    }

    /** {@code byDevice}: the messages missed some of the recipient's devices, which others may report too. */
    private void takeOfflinePathLater(Map<List<Long>, long[]> offline, boolean byDevice) {
        if (!offline.isEmpty()) {
            executor.execute(() -> takeOfflinePath(offline, byDevice));
        }
    }

    /**
     * The offline path for the recipients a batch found without a route: one transaction per
     * conversation, on the executor, so the delivery thread's pushes and notices do not wait on them.
     */
    private void takeOfflinePath(Map<List<Long>, long[]> offline, boolean byDevice) {
        offline.forEach((conversation, seqAndCount) -> {
            try {
                if (byDevice) {
                    chat.undeliveredToDevice(conversation.get(0), conversation.get(1), seqAndCount[0], (int) seqAndCount[1]);
                } else {
                    chat.undelivered(conversation.get(0), conversation.get(1), seqAndCount[0], (int) seqAndCount[1]);
                }
            } catch (RuntimeException e) {
                LOG.log(Level.WARNING, "offline path of " + seqAndCount[1] + " messages to " + conversation.get(0)
                        + " failed; the recipient's devices read them when they sync", e);
            }
        });
    }

    private void deliver(ChatPush push, List<RouteTarget> recipient, List<RouteTarget> sender) {
        // each participant's devices by frame and node: a delivered receipt for that participant rides in its frame
        Map<String, Map<Integer, List<RouteTarget>>> byFrame = new IdentityHashMap<>();
        String plain = null;
        for (List<RouteTarget> routes : List.of(recipient, sender)) { // each list is one participant's routes
            String frame = null;
            for (RouteTarget r : routes) {
                if (r.connectionId().equals(push.fromConnection())) {
                    continue; // it has the answer
                }
                if (frame == null) {
                    long receipt = push.peerDeliveredFor(r.uid());
                    if (receipt > 0) {
                        frame = Frames.frame("chatMsg", Jsonp.PROVIDER.createObjectBuilder(push.message())
                                .add("peerDeliveredSeq", receipt).build());
                    } else {
                        plain = plain != null ? plain : Frames.frame("chatMsg", push.message());
                        frame = plain;
                    }
                }
                byFrame.computeIfAbsent(frame, f -> new TreeMap<>()).computeIfAbsent(r.nodeId(), n -> new ArrayList<>()).add(r);
            }
        }
        byFrame.forEach((frame, byNode) -> deliver(push, byNode, frame));
    }

    private void deliver(ChatPush push, Map<Integer, List<RouteTarget>> byNode, String frame) {
        byNode.forEach((nodeId, here) -> {
            if (nodeId == node.nodeId()) {
                here.forEach(r -> deliverHere(r.connectionId(), r.uid(), push.from(), push.to(), push.seq(), frame));
            } else {
                boolean toRecipient = here.stream().anyMatch(r -> r.uid() == push.to());
                delivery.forward(nodeId, here, frame, new Forwarded.Chat(push.from(), push.to(), push.seq()), () -> {
                    if (toRecipient) { // it never reached that node: for the recipient's devices there, the offline path
                        Map<List<Long>, long[]> offline = new HashMap<>();
                        countOffline(offline, push);
                        takeOfflinePathLater(offline, true);
                    }
                });
            }
        });
    }

    /**
     * Pushes to one of this node's connections, for a route read here or forwarded by another
     * node; if the connection is not here, the route is stale: it is repaired at once and the
     * message takes the offline path.
     */
    public void deliverHere(String connectionId, long owner, long from, long to, long seq, String frame) {
        long peer = owner == from ? to : from;
        if (!acks.push(connectionId, owner, peer, seq, owner != from, frame)) {
            if (sessions.unreachable(connectionId).isPresent()) {
                meters.unreachableRepair();
            }
            chat.undeliveredToDevice(owner, peer, seq, 1);
        }
    }
}
