package io.roost.gateway;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.function.LongConsumer;

/**
 * The chat messages pushed to one connection and not acknowledged yet, as (peer, seq, deadline,
 * pushed at, pushes, incoming) in parallel primitive arrays: about 34 bytes an entry and no object per
 * message, so 100,000 pending acknowledgements cost a few MB. An acknowledgement is cumulative per
 * conversation ("I hold everything up to seq"). Pushes, acknowledgements and the timer reach it
 * from different threads, hence the locks. {@code armed} says whether a wheel entry is waiting
 * for the earliest deadline: one per connection, never one per message.
 */
final class PendingAcks {

    /** What a connection's deadline check found: entries to push again, or that the device is given up on. */
    record Expiry(List<long[]> again, boolean giveUp, long nextDeadline) {
    }

    /**
     * Messages of one conversation that the device never acknowledged and its user received (not
     * their own sends synced to it): the highest seq and how many.
     */
    record Undelivered(long peer, long seq, int count) {
    }

    static final long NONE = Long.MIN_VALUE;

    final String connectionId;
    final long owner;
    private long[] peers = new long[4];
    private long[] seqs = new long[4];
    private long[] deadlines = new long[4];
    /** When each was first pushed (nanoTime): its acknowledgement's latency is measured from there. */
    private long[] pushedAt = new long[4];
    private byte[] pushes = new byte[4];
    /** Sent to the owner by the peer, not by the owner from another device: only those can need an offline push. */
    private boolean[] incoming = new boolean[4];
    /** A group message ({@code peers} holds the group): pushed again from the group's store, never an offline push of its own. */
    private boolean[] group = new boolean[4];
    private int size;
    private boolean armed;

    PendingAcks(String connectionId, long owner) {
        this.connectionId = connectionId;
        this.owner = owner;
    }

    /**
     * Adds a pushed message ({@code incoming}: the peer sent it); true if no timer is armed, so the
     * caller must arm one for {@code deadline}.
     */
    synchronized boolean add(long peer, long seq, boolean incoming, long deadline) {
        return add(peer, seq, incoming, false, deadline, deadline);
    }

    /**
     * As {@link #add(long, long, boolean, long)}; {@code group}: a message of group {@code peer};
     * {@code now}: when it is pushed.
     */
    synchronized boolean add(long peer, long seq, boolean incoming, boolean group, long now, long deadline) {
        if (size == seqs.length) {
            int capacity = size * 2;
            peers = Arrays.copyOf(peers, capacity);
            seqs = Arrays.copyOf(seqs, capacity);
            deadlines = Arrays.copyOf(deadlines, capacity);
            pushedAt = Arrays.copyOf(pushedAt, capacity);
            pushes = Arrays.copyOf(pushes, capacity);
            this.incoming = Arrays.copyOf(this.incoming, capacity);
            this.group = Arrays.copyOf(this.group, capacity);
        }
        peers[size] = peer;
        seqs[size] = seq;
        deadlines[size] = deadline;
        pushedAt[size] = now;
        pushes[size] = 1;
        this.incoming[size] = incoming && !group;
        this.group[size] = group;
        size++;
        if (armed) {
            return false;
        }
        armed = true;
        return true;
    }

    /** The device holds everything of the conversation with {@code peer} up to {@code upTo}; how many entries that cleared. */
    synchronized int ack(long peer, long upTo) {
        return ack(peer, upTo, 0, null);
    }

    /**
     * As {@link #ack(long, long)}, acknowledged at {@code now}: {@code latency} is told, for each
     * entry cleared, how long after its first push that was.
     */
    synchronized int ack(long peer, long upTo, long now, LongConsumer latency) {
        return removeIf(peer, false, Long.MIN_VALUE, upTo, now, latency);
    }

    /** The device holds everything of group {@code groupId} up to {@code upTo}; how many entries that cleared. */
    synchronized int ackGroup(long groupId, long upTo) {
        return ackGroup(groupId, upTo, 0, null);
    }

    /** As {@link #ackGroup(long, long)}, with each cleared entry's latency as in {@link #ack(long, long, long, LongConsumer)}. */
    synchronized int ackGroup(long groupId, long upTo, long now, LongConsumer latency) {
        return removeIf(groupId, true, Long.MIN_VALUE, upTo, now, latency);
    }

    /** Forgets one message (deleted by its owner: there is nothing left to deliver). */
    synchronized void forget(long peer, long seq) {
        removeIf(peer, false, seq, seq, 0, null);
    }

    /** Removes the matching entries ({@code latency}, if not null, told each one's time since its push); how many. */
    private int removeIf(long peer, boolean ofGroup, long fromSeq, long toSeq, long now, LongConsumer latency) {
        int kept = 0;
        for (int i = 0; i < size; i++) {
            if (peers[i] == peer && group[i] == ofGroup && seqs[i] >= fromSeq && seqs[i] <= toSeq) {
                if (latency != null) {
                    latency.accept(now - pushedAt[i]);
                }
                continue;
            }
            peers[kept] = peers[i];
            seqs[kept] = seqs[i];
            deadlines[kept] = deadlines[i];
            pushedAt[kept] = pushedAt[i];
            pushes[kept] = pushes[i];
            incoming[kept] = incoming[i];
            group[kept] = group[i];
            kept++;
        }
        int removed = size - kept;
        size = kept;
        return removed;
    }

    /**
     * The timer fired at {@code now}: entries past their deadline ({peer, seq, 1 if a group's}) are pushed again (their deadline
     * moves to now + timeout) unless one of them was pushed {@code maxPushes} times already — then
     * the device is given up on. {@code nextDeadline} is the earliest remaining deadline, or
     * {@link #NONE}, in which case no timer stays armed.
     */
    synchronized Expiry expire(long now, int maxPushes, long timeout) {
        List<long[]> again = new ArrayList<>();
        for (int i = 0; i < size; i++) {
            if (deadlines[i] - now > 0) {
                continue;
            }
            if (pushes[i] >= maxPushes) {
                armed = false;
                return new Expiry(List.of(), true, NONE);
            }
            again.add(new long[] {peers[i], seqs[i], group[i] ? 1 : 0});
        }
        return new Expiry(again, false, moveDue(now, timeout, true));
    }

    /**
     * The timer fired at {@code now} while frames still waited to be written to the connection: the
     * entries past their deadline get {@code timeout} more without counting as pushed again (the
     * device cannot acknowledge what it has not been sent). Returns the earliest deadline.
     */
    synchronized long postpone(long now, long timeout) {
        return moveDue(now, timeout, false);
    }

    /** Gives the entries due at {@code now} another {@code timeout} ({@code pushed}: they were pushed again); the earliest deadline left. */
    private long moveDue(long now, long timeout, boolean pushed) {
        long next = NONE;
        for (int i = 0; i < size; i++) {
            if (deadlines[i] - now <= 0) {
                deadlines[i] = now + timeout;
                if (pushed) {
                    pushes[i]++;
                }
            }
            if (next == NONE || deadlines[i] - next < 0) {
                next = deadlines[i];
            }
        }
        armed = next != NONE;
        return next;
    }

    /** Empties the set: what the user received and the device never acknowledged, per conversation. */
    synchronized List<Undelivered> drain() {
        Map<Long, long[]> byPeer = new LinkedHashMap<>();
        for (int i = 0; i < size; i++) {
            if (!incoming[i]) {
                continue; // the user sent it: no push tells them of their own message
            }
            long[] highestAndCount = byPeer.computeIfAbsent(peers[i], p -> new long[2]);
            highestAndCount[0] = Math.max(highestAndCount[0], seqs[i]);
            highestAndCount[1]++;
        }
        size = 0;
        List<Undelivered> undelivered = new ArrayList<>();
        byPeer.forEach((peer, hc) -> undelivered.add(new Undelivered(peer, hc[0], (int) hc[1])));
        return undelivered;
    }

    synchronized boolean isEmpty() {
        return size == 0;
    }

    synchronized int size() {
        return size;
    }
}
