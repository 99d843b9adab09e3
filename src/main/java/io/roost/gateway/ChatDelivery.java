package io.roost.gateway;

import io.roost.chat.ChatPush;
import io.roost.chat.ChatService;
import io.roost.platform.config.NodeIdentity;
import io.roost.platform.json.Jsonp;
import io.roost.presence.session.DeviceRoute;
import io.roost.presence.session.DeviceSessions;
import jakarta.annotation.Resource;
import jakarta.enterprise.concurrent.ManagedExecutorService;
import jakarta.enterprise.context.ApplicationScoped;
import jakarta.enterprise.event.Observes;
import jakarta.enterprise.event.TransactionPhase;
import jakarta.inject.Inject;
import jakarta.json.JsonObject;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.logging.Level;
import java.util.logging.Logger;

/**
 * Pushes a stored chat message after commit, with the three guards against fake online: no
 * route for the recipient (offline: the offline path); a route whose node has no such connection
 * (unreachable: that node repairs the route and the message takes the offline path); a device
 * that does not acknowledge ({@link AckWheel}). The routes are looked up after commit, so a
 * device either has its route by then and gets the push, or logs in later and reads the message
 * in its catch-up.
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

    @Resource
    ManagedExecutorService executor;

    void onPush(@Observes(during = TransactionPhase.AFTER_SUCCESS) ChatPush push) {
        executor.execute(() -> {
            try {
                deliver(push);
            } catch (RuntimeException e) {
                LOG.log(Level.WARNING, "push of message " + push.msgId() + " failed; its devices read it in their catch-up", e);
            }
        });
    }

    void deliver(ChatPush push) {
        String frame = frame(push.message());
        List<DeviceRoute> routes = sessions.routesOf(List.of(push.to(), push.from()));
        if (routes.stream().noneMatch(r -> r.uid() == push.to())) {
            chat.undelivered(push.to(), push.from(), push.seq(), 1); // offline
        }
        Map<Integer, List<DeviceRoute>> byNode = new TreeMap<>();
        routes.forEach(r -> byNode.computeIfAbsent(r.nodeId(), n -> new ArrayList<>()).add(r));
        byNode.forEach((nodeId, here) -> {
            if (nodeId == node.nodeId()) {
                here.forEach(r -> deliverHere(r.connectionId(), r.uid(), push.from(), push.to(), push.seq(), frame));
            } else {
                delivery.forward(nodeId, here, frame, Jsonp.PROVIDER.createObjectBuilder()
                        .add("from", push.from()).add("to", push.to()).add("seq", push.seq()).build());
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
        if (!acks.push(connectionId, owner, peer, seq, frame)) {
            sessions.unreachable(connectionId);
            chat.undelivered(owner, peer, seq, 1);
        }
    }

    /** The {@code chatMsg} frame of a message's fields. */
    static String frame(JsonObject message) {
        var frame = Frames.frame("chatMsg");
        message.forEach(frame::add);
        return frame.build().toString();
    }
}
