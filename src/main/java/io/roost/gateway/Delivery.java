package io.roost.gateway;

import io.roost.presence.session.DeviceRoute;
import io.roost.platform.config.NodeIdentity;
import io.roost.platform.delivery.Notice;
import io.roost.platform.ids.IdGenerator;
import io.roost.platform.messaging.MessagingException;
import io.roost.platform.messaging.RocketMqProducer;
import io.roost.presence.session.DeviceSessions;
import jakarta.annotation.Resource;
import jakarta.enterprise.concurrent.ManagedExecutorService;
import jakarta.enterprise.context.ApplicationScoped;
import jakarta.enterprise.event.Observes;
import jakarta.enterprise.event.TransactionPhase;
import jakarta.inject.Inject;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.logging.Level;
import java.util.logging.Logger;

/**
 * Delivers {@link Notice}s after commit, off the caller's thread: the route table says which node
 * holds each of the users' connections; this node writes to its own, and sends one RocketMQ
 * message per other node ({@code roost-deliveries}, tagged with the node) for the rest.
 */
@ApplicationScoped
public class Delivery {

    public static final String TOPIC = "roost-deliveries";
    private static final Logger LOG = Logger.getLogger(Delivery.class.getName());
    static final int ROUTE_BATCH = 1000;

    @Inject
    DeviceSessions sessions;

    @Inject
    Connections connections;

    @Inject
    NodeIdentity node;

    @Inject
    RocketMqProducer producer;

    @Inject
    IdGenerator ids;

    @Resource
    ManagedExecutorService executor;

    void onNotice(@Observes(during = TransactionPhase.AFTER_SUCCESS) Notice notice) {
        executor.execute(() -> {
            try {
                deliver(notice);
            } catch (RuntimeException e) {
                LOG.log(Level.WARNING, "delivery of a " + notice.type() + " notice failed", e);
            }
        });
    }

    void deliver(Notice notice) {
        String text = Frames.frame(notice.type(), notice.body());
        List<Long> uids = new ArrayList<>(notice.uids());
        for (int from = 0; from < uids.size(); from += ROUTE_BATCH) {
            Map<Integer, List<String>> byNode = new TreeMap<>();
            for (DeviceRoute r : sessions.routesOf(uids.subList(from, Math.min(uids.size(), from + ROUTE_BATCH)))) {
                byNode.computeIfAbsent(r.nodeId(), n -> new ArrayList<>()).add(r.connectionId());
            }
            byNode.forEach((nodeId, connectionIds) -> {
                if (nodeId == node.nodeId()) {
                    connectionIds.forEach(c -> connections.send(c, text));
                } else {
                    forward(nodeId, connectionIds, text);
                }
            });
        }
    }

    private void forward(int nodeId, List<String> connectionIds, String text) {
        send(nodeId, new Forwarded(connectionIds, List.of(), text, null).toJson());
    }

    /** A chat message for devices that another node holds, with their owners and its place ({@link Forwarded}). */
    void forward(int nodeId, List<DeviceRoute> routes, String text, Forwarded.Chat chat) {
        send(nodeId, new Forwarded(routes.stream().map(DeviceRoute::connectionId).toList(), routes.stream().map(DeviceRoute::uid).toList(),
                text, chat).toJson());
    }

    private void send(int nodeId, String body) {
        try {
            producer.send(ids.nextId(), TOPIC, "node-" + nodeId, null, body);
        } catch (MessagingException e) {
            LOG.log(Level.WARNING, "could not forward a frame to node " + nodeId + ": " + e.getMessage());
        }
    }
}
