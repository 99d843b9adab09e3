package io.roost.chat;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;

import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Random;
import org.junit.jupiter.api.Test;

class BatchSeqsTest {

    static final List<Long> A = List.of(1L, 2L);
    static final List<Long> B = List.of(1L, 3L);

    @Test
    void eachConversationsMessagesEndAtItsNewLastSeqInBatchOrder() {
        ChatWriter.BatchSeqs seqs = ChatWriter.BatchSeqs.of(List.of(A, B, A, A));
        assertEquals(Map.of(A, 3, B, 1), seqs.added());
        assertArrayEquals(new long[] {-2, 0, -1, 0}, seqs.fromLast());
    }

    /**
     * Random batches laid onto a running counter per conversation, as the store applies them (last
     * seq + added, then last seq + fromLast per message): every conversation's seqs come out 1..n,
     * gap-free and in the order its messages were batched.
     */
    @Test
    void batchesLaidOneAfterAnotherGiveEveryConversationGapFreeSeqsInSendingOrder() {
        long seed = System.nanoTime();
        System.out.println("BatchSeqsTest seed " + seed);
        Random random = new Random(seed);
        List<List<Long>> conversations = List.of(A, B, List.of(2L, 3L), List.of(4L, 9L));
        Map<List<Long>, Long> lastSeq = new HashMap<>();
        Map<List<Long>, List<Long>> seqsInSendingOrder = new HashMap<>();
        for (int batch = 0; batch < 200; batch++) {
            List<List<Long>> messages = new ArrayList<>();
            for (int n = random.nextInt(40); n > 0; n--) {
                messages.add(conversations.get(random.nextInt(conversations.size())));
            }
            ChatWriter.BatchSeqs seqs = ChatWriter.BatchSeqs.of(messages);
            seqs.added().forEach((c, added) -> lastSeq.merge(c, (long) added, Long::sum));
            for (int k = 0; k < messages.size(); k++) {
                seqsInSendingOrder.computeIfAbsent(messages.get(k), c -> new ArrayList<>()).add(lastSeq.get(messages.get(k)) + seqs.fromLast()[k]);
            }
        }
        seqsInSendingOrder.forEach((c, seqs) -> {
            for (int i = 0; i < seqs.size(); i++) {
                assertEquals(i + 1, seqs.get(i), "seed " + seed + ", conversation " + c);
            }
        });
    }
}
