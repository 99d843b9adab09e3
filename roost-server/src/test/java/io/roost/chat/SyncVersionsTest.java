package io.roost.chat;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;

import java.time.OffsetDateTime;
import java.util.List;
import java.util.stream.LongStream;
import org.junit.jupiter.api.Test;

class SyncVersionsTest {

    /** An owner's changed conversations with these versions, in version order as the store reads them. */
    static List<Conversation> changed(long... versions) {
        return LongStream.of(versions).mapToObj(v -> new Conversation(1, 100 + v, 1, 10L, 2L, "hi", 0, 0, 0, 0, 0, v,
                OffsetDateTime.now())).toList();
    }

    static List<Long> versions(List<Conversation> rows) {
        return rows.stream().map(Conversation::syncVersion).toList();
    }

    @Test
    void ranksCountEachOwnersRowsFromZero() {
        SyncVersions.Ranks v = new SyncVersions.Ranks();
        assertEquals(0, v.next(7));
        assertEquals(0, v.next(8), "another owner has its own ranks");
        assertEquals(1, v.next(7));
        assertEquals(2, v.next(7));
        assertEquals(1, v.next(8));
    }

    @Test
    void moreRowsOfOneOwnerThanRanksInOneTransactionIsRefused() {
        SyncVersions.Ranks v = new SyncVersions.Ranks();
        for (int i = 0; i < SyncVersions.RANKS; i++) {
            assertEquals(i, v.next(7));
        }
        assertThrows(IllegalStateException.class, () -> v.next(7));
    }

    @Test
    void aSyncHandsOutOnlyTheChangesBelowTheHorizon() {
        long horizon = 50L * SyncVersions.RANKS; // transaction 50 is the oldest still running
        assertEquals(List.of(10L, 20L), versions(SyncVersions.settled(changed(10, 20), horizon)), "all settled");
        long ofTransaction60 = 60L * SyncVersions.RANKS;
        assertEquals(List.of(10L), versions(SyncVersions.settled(changed(10, ofTransaction60, ofTransaction60 + 1), horizon)),
                "transaction 50 may still commit a version below 60's: stop before it");
        assertEquals(List.of(), versions(SyncVersions.settled(changed(horizon), horizon)), "the horizon itself is not settled");
        assertEquals(List.of(horizon - 1), versions(SyncVersions.settled(changed(horizon - 1), horizon)));
        assertEquals(List.of(), versions(SyncVersions.settled(List.of(), horizon)));
    }
}
