package io.roost.gateway;

import io.roost.chat.group.GroupChat;
import io.roost.chat.group.GroupMemberState;
import io.roost.chat.group.GroupMembership;
import io.roost.chat.group.GroupPush;
import io.roost.platform.config.NodeIdentity;
import io.roost.presence.session.RouteTarget;
import jakarta.enterprise.context.ApplicationScoped;
import jakarta.enterprise.event.Observes;
import jakarta.enterprise.event.TransactionPhase;
import jakarta.inject.Inject;
import java.util.ArrayList;
import java.util.Collection;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.locks.ReentrantLock;
import java.util.logging.Level;
import java.util.logging.Logger;

/**
 * Group messages to the live devices of their members, node by node. Each node keeps its own
 * online index ({@link GroupIndex}: for each group, its connections that belong to members) and
 * publishes, in {@code group_chat_node}, the groups it holds any member device of. After a send
 * commits, its node reads which nodes hold members of the batch's groups (one query), writes to
 * its own connections and sends each other such node one RocketMQ message with the batch's frames
 * for it (each frame's text made once); a node holding no member of a group gets nothing for it.
 *
 * <p>A login adds the connection to the index of each of its user's groups (one read of the
 * user's groups), publishes the groups new to this node, and only then answers: so a message sent
 * meanwhile is either stored before the publication was visible to the sender's lookup (and the
 * device reads it in its catch-up, which follows the answer) or found this node published (and
 * this node pushes it to every connection its index holds by then). A node that publishes nothing
 * for a group unpublishes it in a sweep once no member connection of it is left; a dead node's
 * rows go once it counts as lost, and a starting node's own before it accepts connections.
 */
@ApplicationScoped
public class GroupFanout {

    private static final Logger LOG = Logger.getLogger(GroupFanout.class.getName());

    @Inject
    GroupChat groupChat;

    @Inject
    Delivery delivery;

    @Inject
    Connections connections;

    @Inject
    AckWheel acks;

    @Inject
    NodeIdentity node;

    @Inject
    GatewayMeters meters;

    private final GroupIndex index = new GroupIndex();
    /** The groups this node has published; changed only under {@link #publication}. */
    private final Set<Long> published = ConcurrentHashMap.newKeySet();
    /** A login's publication and the sweep's unpublication, one at a time (neither may undo the other). */
    private final ReentrantLock publication = new ReentrantLock();

    // ---- the index: logins, closes, membership changes ----

    /**
     * A device of {@code uid} logged in on this node's connection: it joins the index of each of the
     * user's groups, and the groups new to this node are published before this returns.
     */
    public void online(String connectionId, long uid) {
        List<io.roost.chat.group.OnlineGroup> groups = groupChat.currentGroupsOf(uid);
        for (io.roost.chat.group.OnlineGroup g : groups) {
            GroupMemberState m = g.member();
            index.add(m.groupId(), new GroupIndex.Member(connectionId, uid, m.joinedSeq(), Long.MAX_VALUE, m.muted()), g.lastSeq() + 1);
        }
        publish(groups.stream().map(g -> g.member().groupId()).toList());
        if (!connections.has(connectionId)) {
            index.remove(connectionId); // it closed or was kicked meanwhile, maybe before its entries were in
        }
    }

    /** The connection is gone from this node. */
    public void offline(String connectionId) {
        index.remove(connectionId);
    }

    private void publish(Collection<Long> groupIds) {
        if (groupIds.isEmpty()) {
            return;
        }
        publication.lock();
        try {
            List<Long> fresh = groupIds.stream().filter(g -> !published.contains(g)).distinct().toList();
            if (!fresh.isEmpty()) {
                groupChat.publish(node.nodeId(), fresh);
                published.addAll(fresh);
            }
        } finally {
            publication.unlock();
        }
    }

    /** Unpublishes the groups this node published and holds no member connection of any more; how many. */
    int sweep() {
        publication.lock();
        try {
            List<Long> empty = published.stream().filter(g -> index.group(g) == null).toList();
            if (!empty.isEmpty()) {
                groupChat.unpublish(node.nodeId(), empty);
                empty.forEach(published::remove);
            }
            return empty.size();
        } finally {
            publication.unlock();
        }
    }

    /** This node starts: nothing of its previous run is in the index any more. */
    void started() {
        publication.lock();
        try {
            groupChat.nodeStarted(node.nodeId());
            published.clear();
        } finally {
            publication.unlock();
        }
    }

    /** A member joined, left or muted: its connections on every node see it, through each node's own index. */
    void onMembership(@Observes(during = TransactionPhase.AFTER_SUCCESS) GroupMembership change) {
        delivery.offer(new Delivery.Routed() {
            @Override
            public Collection<Long> uids() {
                return List.of(change.uid());
            }

            @Override
            public void deliver(Map<Long, List<RouteTarget>> routesOf) {
                Map<Integer, List<String>> byNode = new TreeMap<>();
                routesOf.getOrDefault(change.uid(), List.of())
                        .forEach(r -> byNode.computeIfAbsent(r.nodeId(), n -> new ArrayList<>()).add(r.connectionId()));
                byNode.forEach((nodeId, connectionIds) -> {
                    GroupForward.IndexChange c = new GroupForward.IndexChange(change.groupId(), change.uid(), change.change().name(),
                            change.joinedSeq(), change.leftSeq() == null ? Long.MAX_VALUE : change.leftSeq(), change.muted(),
                            connectionIds);
                    if (nodeId == node.nodeId()) {
                        apply(c);
                    } else {
                        delivery.forward(nodeId, new GroupForward(null, c).toJson(), () -> { });
                    }
                });
            }
        });
    }

    /** A membership change for connections of this node. */
    void apply(GroupForward.IndexChange c) {
        List<Long> joined = new ArrayList<>();
        for (String connectionId : c.connectionIds()) {
            if (!connections.has(connectionId)) {
                continue;
            }
            GroupIndex.Member now = index.member(c.groupId(), connectionId);
            switch (GroupMembership.Change.valueOf(c.change())) {
                case JOINED -> {
                    index.add(c.groupId(), new GroupIndex.Member(connectionId, c.uid(), c.joinedSeq(), Long.MAX_VALUE, false),
                            c.joinedSeq() + 1);
                    joined.add(c.groupId());
                }
                case LEFT -> {
                    if (now != null) { // it still gets what came up to its leave, however late that arrives
                        index.add(c.groupId(), new GroupIndex.Member(connectionId, c.uid(), now.joinedSeq(), c.leftSeq(), now.muted()), 0);
                    }
                }
                case MUTED -> {
                    if (now != null) {
                        index.add(c.groupId(), new GroupIndex.Member(connectionId, c.uid(), now.joinedSeq(), now.leftSeq(), c.muted()), 0);
                    }
                }
            }
        }
        publish(joined);
    }

    // ---- fan-out ----

    /** After a send commits: to this node's member connections, and one message to each other node holding members. */
    void onPush(@Observes(during = TransactionPhase.AFTER_SUCCESS) GroupPush.Batch batch) {
        if (!delivery.offer(new Delivery.Routed() {
            @Override
            public Collection<Long> uids() {
                return List.of(); // no route read: the groups' nodes say where to go
            }

            @Override
            public void deliver(Map<Long, List<RouteTarget>> routesOf) {
                fanOut(batch.pushes());
            }
        })) {
            LOG.log(Level.WARNING, "delivery queue full: " + batch.pushes().size() + " group frames not pushed; devices read them in their catch-up");
        }
    }

    private void fanOut(List<GroupPush> pushes) {
        Set<Long> groupIds = new HashSet<>();
        pushes.forEach(p -> groupIds.add(p.groupId()));
        Map<Long, List<Integer>> nodes = groupChat.nodesOf(groupIds);
        Map<Integer, List<GroupForward.Push>> byNode = new LinkedHashMap<>();
        for (GroupPush p : pushes) {
            GroupForward.Push f = new GroupForward.Push(p.groupId(), p.seq(), Frames.frame(p.frameType(), p.fields()), p.acknowledged(),
                    p.mentions(), p.mentionAll(), p.memberEpoch(), p.fromConnection());
            deliverHere(f);
            for (int n : nodes.getOrDefault(p.groupId(), List.of())) {
                if (n != node.nodeId()) {
                    byNode.computeIfAbsent(n, x -> new ArrayList<>()).add(f);
                }
            }
        }
        byNode.forEach((n, forwards) -> delivery.forward(n, new GroupForward(forwards, null).toJson(),
                () -> LOG.log(Level.FINE, "node " + n + " did not get " + forwards.size() + " group frames; its devices read them in their catch-up")));
    }

    /** Frames another node sent for this node's member connections. */
    public void received(String json) {
        GroupForward f = GroupForward.parse(json);
        if (f.pushes() != null) {
            f.pushes().forEach(this::deliverHere);
        } else {
            apply(f.change());
        }
    }

    /**
     * Writes a group frame to this node's connections of members who may see it: after their
     * join, not after their leave, and not to a member who muted the group unless it mentions
     * them; not to the connection that sent it. A view older than the frame's member epoch is
     * refreshed first (who left is read again), so a member removed before the message never gets it.
     */
    void deliverHere(GroupForward.Push p) {
        GroupIndex.Group group = index.group(p.groupId());
        if (group == null) {
            return;
        }
        if (!p.acknowledged()) {
            write(p.groupId(), group, p); // a recall names a message's seq; it takes no place in the order
            return;
        }
        // written under the order's lock: two threads (the delivery thread, a consumer's) handing over
        // the group's next messages must not write them to the connections' queues in the other order
        boolean waiting;
        synchronized (group.order) {
            List<GroupForward.Push> ready = group.order.arrived(p, System.nanoTime());
            ready.forEach(r -> write(p.groupId(), group, r));
            waiting = ready.isEmpty();
        }
        if (waiting) {
            scheduleOverdueCheck();
        }
    }

    /**
     * How long a node holds a group message that came before one with a smaller seq (another
     * node's, still on its way through the broker) before it writes it anyway; the device then sees
     * the gap in seqs and catches up.
     */
    static final long ORDER_WAIT_MS = 1000;

    private final java.util.concurrent.atomic.AtomicBoolean checkScheduled = new java.util.concurrent.atomic.AtomicBoolean();

    @jakarta.annotation.Resource
    jakarta.enterprise.concurrent.ManagedScheduledExecutorService scheduler;

    private void scheduleOverdueCheck() {
        if (checkScheduled.compareAndSet(false, true)) {
            try {
                scheduler.schedule(this::writeOverdue, ORDER_WAIT_MS / 2, java.util.concurrent.TimeUnit.MILLISECONDS);
            } catch (RuntimeException e) {
                checkScheduled.set(false);
                LOG.log(Level.FINE, "could not schedule the order check; the next early message tries again", e);
            }
        }
    }

    /** Writes what waited longer than {@link #ORDER_WAIT_MS} for a seq before it; checks again while any waits. */
    void writeOverdue() {
        checkScheduled.set(false);
        long now = System.nanoTime();
        long wait = java.util.concurrent.TimeUnit.MILLISECONDS.toNanos(ORDER_WAIT_MS);
        boolean still = false;
        for (Map.Entry<Long, GroupIndex.Group> e : index.waiting()) {
            GroupIndex.Group group = e.getValue();
            synchronized (group.order) {
                for (GroupForward.Push p : group.order.overdue(now, wait)) {
                    write(e.getKey(), group, p);
                }
                still |= group.order.waiting();
            }
        }
        if (still) {
            scheduleOverdueCheck();
        }
    }

    private void write(long groupId, GroupIndex.Group group, GroupForward.Push p) {
        if (group.epoch < p.memberEpoch()) {
            refresh(groupId, group, p.memberEpoch());
        }
        int reached = 0;
        for (GroupIndex.Member m : group.members.values()) {
            if (m.connectionId().equals(p.fromConnection()) || !m.sees(p.seq()) || (m.muted() && !p.mentions(m.uid()))) {
                continue;
            }
            if (!p.acknowledged()) {
                connections.send(m.connectionId(), p.frame());
            } else if (acks.pushGroup(m.connectionId(), m.uid(), p.groupId(), p.seq(), p.frame())) {
                reached++;
            } else {
                index.remove(m.connectionId()); // the connection is gone; its close will not find it here
            }
        }
        if (reached > 0) { // a message (not a recall) that reached devices here
            meters.groupFanout(reached);
        }
    }

    private void refresh(long groupId, GroupIndex.Group group, long epoch) {
        try {
            Set<Long> uids = new HashSet<>();
            group.members.values().forEach(m -> uids.add(m.uid()));
            Map<Long, GroupMemberState> states = groupChat.members(groupId, uids);
            for (GroupIndex.Member m : group.members.values()) {
                GroupMemberState s = states.get(m.uid());
                if (s == null) {
                    index.remove(groupId, m.connectionId()); // no member, now or before
                    continue;
                }
                if (s.joinedSeq() != m.joinedSeq() && s.current()) {
                    continue; // a newer stint's entry comes with its own change
                }
                long left = s.leftSeq() == null ? Long.MAX_VALUE : s.leftSeq();
                if (left != m.leftSeq() || s.muted() != m.muted()) {
                    index.add(groupId, new GroupIndex.Member(m.connectionId(), m.uid(), m.joinedSeq(), left, s.muted()), 0);
                }
            }
            group.epoch = Math.max(group.epoch, epoch);
        } catch (RuntimeException e) {
            LOG.log(Level.WARNING, "could not refresh group " + groupId + "'s members here; pushing with the view there is", e);
        }
    }

    /** Groups with a member connection here, and entries in all (the admin overview, tests). */
    public int[] indexSize() {
        return new int[] {index.groupCount(), index.entryCount()};
    }

    /** The connections of this node the index holds for group {@code groupId} (tests). */
    public List<String> connectionsOf(long groupId) {
        GroupIndex.Group g = index.group(groupId);
        return g == null ? List.of() : g.members.values().stream().filter(m -> m.leftSeq() == Long.MAX_VALUE)
                .map(GroupIndex.Member::connectionId).sorted().toList();
    }
}
