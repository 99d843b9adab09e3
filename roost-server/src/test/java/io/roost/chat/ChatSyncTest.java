package io.roost.chat;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;

import java.time.OffsetDateTime;
import java.util.List;
import java.util.stream.LongStream;
import org.junit.jupiter.api.Test;

class ChatSyncTest {

    /** Seqs from {@code high} down to {@code low}, as the store answers (newest first). */
    static List<ChatMessage> newestFirst(long high, long low) {
        return LongStream.rangeClosed(low, high).map(s -> high - (s - low)).mapToObj(s -> new ChatMessage(1, 2, s, 1000 + s, 1, "s" + s,
                "text", null, null, 0, OffsetDateTime.now(), false, false)).toList();
    }

    static List<Long> seqs(ChatSync s) {
        return s.items().stream().map(ChatMessage::seq).toList();
    }

    @Test
    void moreThanTheLimitGivesTheNewestAndAGapToPageBackInto() {
        // 150 messages, the device holds none: the store was asked for limit + 1 = 101
        ChatSync s = ChatSync.of(0, newestFirst(150, 50), 100, 150);
        assertEquals(LongStream.rangeClosed(51, 150).boxed().toList(), seqs(s));
        assertEquals(new ChatSync.Gap(0, 51, ChatSync.NOT_LOADED), s.gap());
        assertEquals(150, s.lastSeq());
    }

    @Test
    void everythingAfterTheSeqFitsAndNothingIsMissing() {
        ChatSync s = ChatSync.of(40, newestFirst(45, 41), 100, 45);
        assertEquals(List.of(41L, 42L, 43L, 44L, 45L), seqs(s));
        assertNull(s.gap());
        assertNull(ChatSync.of(45, List.of(), 100, 45).gap(), "up to date");
        assertNull(ChatSync.of(0, List.of(), 100, 0).gap(), "no conversation");
    }

    @Test
    void aHoleBeforeTheFirstStoredMessageWasPurged() {
        ChatSync s = ChatSync.of(10, newestFirst(80, 31), 100, 80);
        assertEquals(31, s.items().get(0).seq());
        assertEquals(new ChatSync.Gap(10, 31, ChatSync.PURGED), s.gap());
        assertEquals(new ChatSync.Gap(10, 81, ChatSync.PURGED), ChatSync.of(10, List.of(), 100, 80).gap(),
                "all of them purged: the conversation's last seq says how many");
        assertNull(ChatSync.of(90, List.of(), 100, 80).gap(), "a device ahead of the server lacks nothing");
    }

    @Test
    void exactlyTheLimitLeftIsNoGap() {
        ChatSync s = ChatSync.of(0, newestFirst(100, 1), 100, 100);
        assertEquals(100, s.items().size());
        assertNull(s.gap());
    }
}
