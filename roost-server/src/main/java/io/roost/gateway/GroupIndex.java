package io.roost.gateway;

import java.util.Collection;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;

/**
 * This node's online index of group members: for each group, which of this node's connections
 * belong to its members, with each member's visibility and mute. A message for a group with no
 * entry here costs one map lookup. Keyed by connection: a login and a logout racing on one user
 * touch different entries (each connection's own), so neither can leave the other's behind.
 */
final class GroupIndex {

    /** One member connection: it sees seqs after {@code joinedSeq} up to {@code leftSeq} ({@link Long#MAX_VALUE}: a member). */
    record Member(String connectionId, long uid, long joinedSeq, long leftSeq, boolean muted) {

        boolean sees(long seq) {
            return seq > joinedSeq && seq <= leftSeq;
        }
    }

    /**
     * A group's members here, the member epoch this view reflects, and the order its messages are
     * written in: every message of the group comes to every node that holds members of it, from
     * whichever node stored it, so this node can write them in seq order ({@link Order}).
     */
    static final class Group {
        final Map<String, Member> members = new ConcurrentHashMap<>();
        volatile long epoch;
        final Order order;

        Group(long nextSeq) {
            order = new Order(nextSeq);
        }
    }

    /**
     * A group's messages in seq order on this node: the next seq to write, those that came early,
     * and the seqs given up waiting for (written if they still come). A message below the next seq
     * that was not given up is a second copy (a redelivered broker message) and is dropped.
     */
    static final class Order {
        long next;
        final java.util.TreeMap<Long, GroupForward.Push> early = new java.util.TreeMap<>();
        final java.util.TreeSet<Long> givenUp = new java.util.TreeSet<>();
        /** When the oldest early message came (nanoTime); 0 with none waiting. */
        long waitingSince;

        Order(long next) {
            this.next = next;
        }

        /**
         * What to write now that {@code p} came, in order: it and what was waiting behind it; or
         * nothing (it waits for a seq before it, or it is a second copy).
         */
        synchronized java.util.List<GroupForward.Push> arrived(GroupForward.Push p, long now) {
            long seq = p.seq();
            if (seq < next) {
                return givenUp.remove(seq) ? java.util.List.of(p) : java.util.List.of();
            }
            if (seq > next) {
                if (early.isEmpty()) {
                    waitingSince = now;
                }
                early.put(seq, p);
                return java.util.List.of();
            }
            java.util.List<GroupForward.Push> ready = new java.util.ArrayList<>();
            ready.add(p);
            next = seq + 1;
            drain(ready);
            return ready;
        }

        /** Past the wait: what came early is written, and the seqs missing before it given up on. */
        synchronized java.util.List<GroupForward.Push> overdue(long now, long waitNanos) {
            if (early.isEmpty() || now - waitingSince < waitNanos) {
                return java.util.List.of();
            }
            java.util.List<GroupForward.Push> ready = new java.util.ArrayList<>();
            long first = early.firstKey();
            for (long s = next; s < first && givenUp.size() < MAX_GIVEN_UP; s++) {
                givenUp.add(s);
            }
            while (givenUp.size() > MAX_GIVEN_UP) {
                givenUp.pollFirst();
            }
            next = first;
            drain(ready);
            waitingSince = early.isEmpty() ? 0 : now;
            return ready;
        }

        private void drain(java.util.List<GroupForward.Push> ready) {
            while (!early.isEmpty() && early.firstKey() == next) {
                ready.add(early.pollFirstEntry().getValue());
                next++;
            }
            if (!early.isEmpty() && early.firstKey() < next) { // below next: written already in a drain
                early.headMap(next).clear();
            }
            if (early.isEmpty()) {
                waitingSince = 0;
            }
        }

        synchronized boolean waiting() {
            return !early.isEmpty();
        }
    }

    /** How many missed seqs a group remembers as given up on (a late one is still written). */
    static final int MAX_GIVEN_UP = 1_000;

    private final Map<Long, Group> groups = new ConcurrentHashMap<>();
    private final Map<String, Set<Long>> groupsOfConnection = new ConcurrentHashMap<>();

    /**
     * Adds (or replaces) a connection's entry in a group; {@code nextSeq}: the seq the group's next
     * message will have, if this entry is the group's first here (a login read its last seq).
     */
    void add(long groupId, Member m, long nextSeq) {
        groupsOfConnection.computeIfAbsent(m.connectionId(), c -> ConcurrentHashMap.newKeySet()).add(groupId);
        groups.compute(groupId, (g, group) -> {
            Group here = group != null ? group : new Group(nextSeq);
            here.members.put(m.connectionId(), m);
            return here;
        });
    }

    /** The group's view here, or null if no member connection of it is here. */
    Group group(long groupId) {
        return groups.get(groupId);
    }

    /** Removes one connection from one group. */
    void remove(long groupId, String connectionId) {
        groups.computeIfPresent(groupId, (g, group) -> {
            group.members.remove(connectionId);
            return group.members.isEmpty() ? null : group;
        });
        Set<Long> of = groupsOfConnection.get(connectionId);
        if (of != null) {
            of.remove(groupId);
        }
    }

    /** Removes a connection from every group it is in (it closed, or was kicked). */
    void remove(String connectionId) {
        Set<Long> of = groupsOfConnection.remove(connectionId);
        if (of != null) {
            of.forEach(g -> remove(g, connectionId));
        }
    }

    /** A connection's entries, to update them (mute, leave). */
    Member member(long groupId, String connectionId) {
        Group g = groups.get(groupId);
        return g == null ? null : g.members.get(connectionId);
    }

    /** Which of these groups have a member connection here. */
    List<Long> present(Collection<Long> groupIds) {
        return groupIds.stream().filter(groups::containsKey).toList();
    }

    /** The groups with early messages waiting for a seq before them. */
    List<Map.Entry<Long, Group>> waiting() {
        return groups.entrySet().stream().filter(e -> e.getValue().order.waiting()).toList();
    }

    int groupCount() {
        return groups.size();
    }

    int entryCount() {
        return groups.values().stream().mapToInt(g -> g.members.size()).sum();
    }
}
