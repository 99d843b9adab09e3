package io.roost.chat;

import io.micrometer.core.instrument.Counter;
import io.micrometer.core.instrument.DistributionSummary;
import io.roost.platform.batch.GroupCommit;
import io.roost.platform.metrics.Meters;
import io.roost.platform.metrics.Sampled;
import jakarta.annotation.PostConstruct;
import jakarta.enterprise.context.ApplicationScoped;
import jakarta.inject.Inject;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;

/**
 * Chat's meters ({@code roost.chat.*}): sends committed, the send and read queues and their
 * batches, the offline-push backlog. One-to-one and group sends count apart ({@code kind}); their
 * queues and batches go into one gauge and one histogram.
 */
@ApplicationScoped
public class ChatMeters {

    /** The offline backlog counts each buffer's rows up to this many (a count beyond it would cost a scan of them all). */
    public static final int OFFLINE_COUNTED_UP_TO = 100_000;

    @Inject
    Meters meters;

    private Counter oneToOneSends;
    private Counter groupSends;
    private DistributionSummary sendBatches;
    private DistributionSummary readBatches;
    private final List<GroupCommit<?>> sendQueues = new CopyOnWriteArrayList<>();
    private final List<GroupCommit<?>> readQueues = new CopyOnWriteArrayList<>();
    private final Sampled offlineSample = new Sampled();
    private volatile long offlineBacklog;

    /** Meters over given ones, registered (a unit test). */
    public static ChatMeters over(Meters meters) {
        ChatMeters m = new ChatMeters();
        m.meters = meters;
        m.register();
        return m;
    }

    @PostConstruct
    void register() {
        oneToOneSends = meters.counter("roost.chat.sends", "Messages committed by sends on this node (not resends of a stored sendId)",
                "kind", "one_to_one");
        groupSends = meters.counter("roost.chat.sends", "Messages committed by sends on this node (not resends of a stored sendId)",
                "kind", "group");
        // seqs are taken under the conversation's (one-to-one) or the group's (group) row lock, after the
        // sendId claim: two sends never take one seq, so nothing collides and nothing is retried
        meters.counter("roost.chat.seq.conflicts", "Seq allocations that collided and were retried: always 0, a seq is taken under"
                + " its conversation's or group's row lock and cannot collide");
        sendBatches = meters.sizes("roost.chat.send.batch", "Sends per group commit (one-to-one and group send queues)",
                Meters.BATCH_BUCKETS);
        readBatches = meters.sizes("roost.chat.read.batch", "Read reports per group commit", Meters.BATCH_BUCKETS);
        meters.gauge("roost.chat.send.queue", "Sends waiting in the send queues (one-to-one and group)", sendQueues, ChatMeters::queued);
        meters.gauge("roost.chat.read.queue", "Read reports waiting in the read queue", readQueues, ChatMeters::queued);
        meters.gauge("roost.chat.offline.backlog", "Offline pushes waiting in the buffers, cluster-wide: one row per recipient of"
                + " one-to-one messages and one per group, each buffer counted up to " + OFFLINE_COUNTED_UP_TO
                + " (read from the database every " + Sampled.EVERY.toSeconds() + " s)", this, m -> m.offlineBacklog);
    }

    private static double queued(List<GroupCommit<?>> queues) {
        return queues.stream().mapToInt(GroupCommit::queued).sum();
    }

    /** A send queue, before its writers start: its depth and its batches' sizes are measured. */
    public void sendQueue(GroupCommit<?> queue) {
        sendQueues.add(queue);
        queue.recordBatches(sendBatches::record);
    }

    /** The read queue, before its writers start. */
    public void readQueue(GroupCommit<?> queue) {
        readQueues.add(queue);
        queue.recordBatches(readBatches::record);
    }

    /** One-to-one messages a committed send batch stored. */
    public void sent(int messages) {
        if (messages > 0) {
            oneToOneSends.increment(messages);
        }
    }

    /** Group messages a committed send batch stored. */
    public void groupSent(int messages) {
        if (messages > 0) {
            groupSends.increment(messages);
        }
    }

    /** Whether the offline backlog is due to be read from the database (to one caller per interval). */
    public boolean offlineBacklogDue() {
        return offlineSample.due();
    }

    /** The offline backlog as read from the database. */
    public void offlineBacklog(long waiting) {
        offlineBacklog = waiting;
    }

    /** The offline backlog last read (the console's chart samples it: one number for Grafana and the console). */
    public long offlineBacklog() {
        return offlineBacklog;
    }
}
