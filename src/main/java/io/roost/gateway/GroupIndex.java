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

    /** A group's members here, and the member epoch this view reflects. */
    static final class Group {
        final Map<String, Member> members = new ConcurrentHashMap<>();
        volatile long epoch;
    }

    private final Map<Long, Group> groups = new ConcurrentHashMap<>();
    private final Map<String, Set<Long>> groupsOfConnection = new ConcurrentHashMap<>();

    /** Adds (or replaces) a connection's entry in a group. */
    void add(long groupId, Member m) {
        groupsOfConnection.computeIfAbsent(m.connectionId(), c -> ConcurrentHashMap.newKeySet()).add(groupId);
        groups.compute(groupId, (g, group) -> {
            Group here = group != null ? group : new Group();
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

    int groupCount() {
        return groups.size();
    }

    int entryCount() {
        return groups.values().stream().mapToInt(g -> g.members.size()).sum();
    }
}
