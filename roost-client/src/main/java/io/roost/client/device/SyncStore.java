package io.roost.client.device;

/**
 * What a device keeps between connections (and, with a durable implementation, between runs) so
 * that a reconnect delivers every message once: per conversation the highest seq the listener has
 * taken without a gap, and the conversation list's sync version. {@link RoostDevice} writes a seq
 * only after the listener returned for that message, and a version only after every message of
 * the conversations listed up to it was taken. Calls come from one device at a time, but from
 * different threads: an implementation shared by several devices must be thread-safe.
 */
public interface SyncStore {

    /** The highest seq of {@code conversation} taken without a gap; 0 if none. */
    long held(Conversation conversation);

    /** The listener took every message of {@code conversation} up to {@code seq}. Never called with a lower seq than before. */
    void held(Conversation conversation, long seq);

    /** The conversation list's sync version to catch up from; 0: from the start. */
    long syncVersion();

    void syncVersion(long version);

    /** A store in memory: a new process starts from nothing (and catches up on every conversation). */
    static SyncStore inMemory() {
        return new MemorySyncStore();
    }
}
