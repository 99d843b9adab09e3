package io.roost.platform.ids;

import java.util.function.LongSupplier;

/**
 * 64-bit time-ordered ids: 41 bits of milliseconds since {@link #EPOCH_MS}, 10 bits of node id,
 * 12 bits of sequence. Ids are unique per node and strictly increasing per node.
 *
 * <p>When the wall clock goes backwards (NTP step, VM migration) we do not wait and we do not
 * fail: the generator keeps its own logical clock, {@code max(wall clock, last used ms)}, and keeps
 * counting the sequence on it, borrowing the next millisecond when the sequence overflows. Ids then
 * run slightly ahead of the wall clock until it catches up, but never repeat and never decrease.
 */
public final class Snowflake {

    /** 2024-01-01T00:00:00Z: 41 bits of ms from here last until 2093. */
    public static final long EPOCH_MS = 1_704_067_200_000L;
    public static final int NODE_BITS = 10;
    public static final int SEQUENCE_BITS = 12;
    public static final int MAX_NODE_ID = (1 << NODE_BITS) - 1;
    private static final long SEQUENCE_MASK = (1L << SEQUENCE_BITS) - 1;

    private final long nodeId;
    private final LongSupplier clock;
    private long lastMs = -1;
    private long sequence;

    public Snowflake(int nodeId) {
        this(nodeId, System::currentTimeMillis);
    }

    public Snowflake(int nodeId, LongSupplier clock) {
        if (nodeId < 0 || nodeId > MAX_NODE_ID) {
            throw new IllegalArgumentException("node id must be 0.." + MAX_NODE_ID + ", was " + nodeId);
        }
        this.nodeId = nodeId;
        this.clock = clock;
    }

    public synchronized long nextId() {
        long now = clock.getAsLong();
        if (now > lastMs) {
            lastMs = now;
            sequence = 0;
        } else if (++sequence > SEQUENCE_MASK) {
            // Same (or an earlier, clock-went-back) millisecond and the sequence is spent:
            // move the logical clock on instead of spinning on the wall clock.
            lastMs++;
            sequence = 0;
        }
        return ((lastMs - EPOCH_MS) << (NODE_BITS + SEQUENCE_BITS)) | (nodeId << SEQUENCE_BITS) | sequence;
    }

    /** The smallest id of millisecond {@code epochMs}, on any node: every id taken at or after it is at least this. */
    public static long firstIdAt(long epochMs) {
        return Math.max(0, epochMs - EPOCH_MS) << (NODE_BITS + SEQUENCE_BITS);
    }

    public static long timestampMs(long id) {
        return (id >>> (NODE_BITS + SEQUENCE_BITS)) + EPOCH_MS;
    }

    public static int nodeId(long id) {
        return (int) ((id >>> SEQUENCE_BITS) & MAX_NODE_ID);
    }
}
