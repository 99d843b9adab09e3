package io.roost.gateway;

import io.netty.util.HashedWheelTimer;
import io.netty.util.Timer;
import io.roost.chat.ChatService;
import io.roost.chat.ChatSettings;
import io.roost.platform.json.Jsonp;
import io.roost.presence.session.DeviceSessions;
import jakarta.annotation.PostConstruct;
import jakarta.annotation.PreDestroy;
import jakarta.annotation.Resource;
import jakarta.enterprise.concurrent.ManagedExecutorService;
import jakarta.enterprise.concurrent.ManagedThreadFactory;
import jakarta.enterprise.context.ApplicationScoped;
import jakarta.inject.Inject;
import jakarta.json.JsonObject;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.TimeUnit;
import java.util.logging.Level;
import java.util.logging.Logger;

/**
 * The third guard against fake online: every chat message pushed to one of this node's devices
 * waits here for that device's acknowledgement. All of them share one timing wheel (one thread a
 * node, 100 ms ticks); a connection with messages pending holds one wheel entry, armed for its
 * earliest deadline, and the messages themselves are primitive entries ({@link PendingAcks}).
 * The clock of a connection counts only while nothing waits to be written to it
 * ({@link Connections#allWritten}). A message not acknowledged in time is pushed again (read back from the store, so nothing
 * holds frames); if it is still not acknowledged, the device counts as gone: its session ends
 * ({@code ack_timeout}), its connection is kicked and closed, and whatever it never acknowledged
 * takes the offline path. A connection that closes with messages pending sends them down the
 * offline path too.
 */
@ApplicationScoped
public class AckWheel {

    private static final Logger LOG = Logger.getLogger(AckWheel.class.getName());

    @Inject
    ChatService chat;

    @Inject
    io.roost.chat.group.GroupChat groupChat;

    @Inject
    ChatSettings settings;

    @Inject
    Connections connections;

    @Inject
    DeviceSessions sessions;

    @Inject
    GatewayMeters meters;

    @Resource
    ManagedExecutorService executor;

    @Resource
    ManagedThreadFactory threads;

    private final Map<String, PendingAcks> pending = new ConcurrentHashMap<>();
    private Timer wheel;
    private long timeoutNanos;
    private int maxPushes;

    @PostConstruct
    void start() {
        timeoutNanos = settings.ackTimeout().toNanos();
        maxPushes = 1 + settings.ackRetries();
        wheel = new HashedWheelTimer(threads, 100, TimeUnit.MILLISECONDS, 512);
    }

    @PreDestroy
    void stop() {
        wheel.stop();
    }

    /**
     * Writes a {@code chatMsg} frame to one of this node's connections and expects its
     * acknowledgement ({@code incoming}: the peer sent it, not the owner from another device);
     * false if this node has no such connection (the route that named it is stale).
     */
    public boolean push(String connectionId, long owner, long peer, long seq, boolean incoming, String frame) {
        return push(connectionId, owner, peer, seq, incoming, false, frame);
    }

    /** The same for a message of group {@code groupId} (acknowledged per group, pushed again from the group's store). */
    public boolean pushGroup(String connectionId, long owner, long groupId, long seq, String frame) {
        return push(connectionId, owner, groupId, seq, false, true, frame);
    }

    private boolean push(String connectionId, long owner, long peer, long seq, boolean incoming, boolean group, String frame) {
        if (!connections.has(connectionId)) {
            return false;
        }
        long now = System.nanoTime();
        long deadline = now + timeoutNanos;
        pending.compute(connectionId, (id, p) -> {
            PendingAcks acks = p != null ? p : new PendingAcks(id, owner);
            if (acks.add(peer, seq, incoming, group, now, deadline)) {
                arm(acks, deadline);
            }
            return acks;
        });
        connections.send(connectionId, frame);
        meters.pushed(group);
        if (!connections.has(connectionId)) {
            // it closed while we pushed, maybe before its close drained what it had pending: drain that now, not at the deadline
            closed(connectionId);
        }
        return true;
    }

    /** The device on this connection holds every message of its conversation with {@code peer} up to {@code seq}. */
    public void ack(String connectionId, long peer, long seq) {
        PendingAcks acks = pending.get(connectionId);
        if (acks != null) {
            acks.ack(peer, seq, System.nanoTime(), meters::ackLatency);
        }
    }

    /** The device on this connection holds every message of group {@code groupId} up to {@code seq}. */
    public void ackGroup(String connectionId, long groupId, long seq) {
        PendingAcks acks = pending.get(connectionId);
        if (acks != null) {
            acks.ackGroup(groupId, seq, System.nanoTime(), meters::ackLatency);
        }
    }

    /** The connection closed: what it never acknowledged takes the offline path. */
    public void closed(String connectionId) {
        PendingAcks acks = pending.remove(connectionId);
        if (acks != null && !acks.isEmpty()) {
            executor.execute(() -> offline(acks, acks.drain()));
        }
    }

    /** Messages waiting for an acknowledgement on this node. */
    public int pendingCount() {
        return pending.values().stream().mapToInt(PendingAcks::size).sum();
    }

    private void arm(PendingAcks acks, long deadline) {
        long delay = Math.max(0, deadline - System.nanoTime());
        // the wheel's own thread only hands over: pushing again reads the store
        wheel.newTimeout(t -> executor.execute(() -> expire(acks)), delay, TimeUnit.NANOSECONDS);
    }

    void expire(PendingAcks acks) {
        try {
            if (!connections.allWritten(acks.connectionId)) {
                // the clock counts only once what was pushed reached the socket: a write queue behind
                // (a busy IO thread, a login still committing) is not the device's fault
                rearm(acks, acks.postpone(System.nanoTime(), timeoutNanos));
                return;
            }
            PendingAcks.Expiry expiry = acks.expire(System.nanoTime(), maxPushes, timeoutNanos);
            if (expiry.giveUp()) {
                giveUp(acks);
                return;
            }
            for (long[] peerAndSeq : expiry.again()) {
                (peerAndSeq[2] == 1 ? groupChat.pushAgain(peerAndSeq[0], peerAndSeq[1])
                        : chat.pushAgain(acks.owner, peerAndSeq[0], peerAndSeq[1])).ifPresentOrElse(
                        message -> {
                            connections.send(acks.connectionId, Frames.frame("chatMsg", pushedAgain(message)));
                            meters.pushedAgain();
                        },
                        () -> acks.forget(peerAndSeq[0], peerAndSeq[1]));
            }
            rearm(acks, expiry.nextDeadline());
        } catch (RuntimeException e) {
            LOG.log(Level.WARNING, "acknowledgement check of connection " + acks.connectionId + " failed; checking again", e);
            arm(acks, System.nanoTime() + timeoutNanos);
        }
    }

    /** Arms the connection's entry for its next deadline, or forgets the connection when nothing is pending. */
    private void rearm(PendingAcks acks, long nextDeadline) {
        if (nextDeadline != PendingAcks.NONE) {
            arm(acks, nextDeadline);
        } else {
            pending.computeIfPresent(acks.connectionId, (id, p) -> p == acks && p.isEmpty() ? null : p);
        }
    }

    /**
     * The message marked as pushed again ({@code again: true}): the device may have it already (its
     * acknowledgement was late or lost), and whoever counts pushes can tell a redelivery from a duplicate.
     */
    private static JsonObject pushedAgain(JsonObject message) {
        return Jsonp.PROVIDER.createObjectBuilder(message).add("again", true).build();
    }

    private void giveUp(PendingAcks acks) {
        pending.remove(acks.connectionId, acks);
        meters.ackTimeouts(acks.size()); // every message still pending was never acknowledged in time
        List<PendingAcks.Undelivered> undelivered = acks.drain();
        try {
            sessions.unacknowledged(acks.connectionId); // kick and close after commit; the login log says ack_timeout
        } catch (RuntimeException e) {
            // the drained messages still need their offline path; the heartbeat timeout ends the session instead
            LOG.log(Level.WARNING, "could not end the session of unacknowledging connection " + acks.connectionId, e);
        }
        offline(acks, undelivered);
    }

    private void offline(PendingAcks acks, List<PendingAcks.Undelivered> undelivered) {
        for (PendingAcks.Undelivered u : undelivered) {
            try {
                chat.undeliveredToDevice(acks.owner, u.peer(), u.seq(), u.count());
            } catch (RuntimeException e) {
                LOG.log(Level.WARNING, "offline path for " + u.count() + " messages to " + acks.owner + " failed", e);
            }
        }
    }
}
