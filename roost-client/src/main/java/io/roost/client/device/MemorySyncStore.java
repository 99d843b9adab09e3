package io.roost.client.device;

import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ConcurrentMap;

/** {@link SyncStore#inMemory()}: the seqs and the version in this process only. */
final class MemorySyncStore implements SyncStore {

    private final ConcurrentMap<Conversation, Long> held = new ConcurrentHashMap<>();
    private volatile long syncVersion;

    @Override
    public long held(Conversation conversation) {
        return held.getOrDefault(conversation, 0L);
    }

    @Override
    public void held(Conversation conversation, long seq) {
        held.merge(conversation, seq, Math::max);
    }

    @Override
    public long syncVersion() {
        return syncVersion;
    }

    @Override
    public synchronized void syncVersion(long version) {
        syncVersion = Math.max(syncVersion, version);
    }
}
