package io.roost.it.chat;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.roost.chat.ChatHousekeeping;
import io.roost.chat.ChatMessage;
import io.roost.chat.ChatRules;
import io.roost.chat.ChatService;
import io.roost.chat.ChatSettings;
import io.roost.chat.ChatWriter;
import io.roost.chat.Conversation;
import io.roost.chat.Cursor;
import io.roost.chat.ReadState;
import io.roost.chat.Receipts;
import io.roost.chat.SendCommand;
import io.roost.chat.Sent;
import io.roost.chat.store.OfflinePushStore;
import io.roost.chat.store.SyncVersionSql;
import io.roost.identity.AccountService;
import io.roost.it.Database;
import io.roost.it.InContainer;
import io.roost.it.InContainerUsers;
import io.roost.it.LockOrder;
import io.roost.it.Routes;
import io.roost.it.Wait;
import io.roost.platform.api.Page;
import io.roost.platform.ids.Snowflake;
import io.roost.platform.json.Jsonp;
import io.roost.presence.session.DeviceSessions;
import jakarta.annotation.Resource;
import jakarta.inject.Inject;
import jakarta.json.JsonObject;
import jakarta.transaction.UserTransaction;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.Statement;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.Set;
import java.util.UUID;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.stream.LongStream;
import javax.sql.DataSource;
import org.junit.jupiter.api.Test;

/** The send core in the container against the real database: concurrent resends and concurrent senders. */
@InContainer
class ChatInContainerIT {

    @Inject
    ChatService chat;

    @Inject
    ChatWriter writer;

    @Inject
    AccountService accounts;

    @Inject
    ChatSettings settings;

    @Inject
    Receipts receipts;

    @Resource(lookup = "java:jboss/datasources/RoostDS")
    DataSource db;

    @Inject
    OfflinePushStore offlinePushes;

    @Inject
    UserTransaction transaction;

    @Inject
    ChatHousekeeping housekeeping;

    @Inject
    DeviceSessions sessions;

    long user() {
        return InContainerUsers.create(accounts, "ci-");
    }

    static JsonObject text(String t) {
        return Jsonp.PROVIDER.createObjectBuilder().add("text", t).build();
    }

    List<ChatMessage> timeline(long owner, long peer) {
        List<ChatMessage> all = new ArrayList<>();
        Long after = 0L;
        while (after != null) {
            Page<ChatMessage> page = chat.messages(owner, peer, after, null, ChatService.MAX_LIMIT);
            all.addAll(page.items());
            after = page.next() == null ? null : Long.parseLong(page.next());
        }
        return all;
    }

    /**
     * A sendId is kept for {@code ROOST_CHAT_SEND_ID_RETENTION} (24 h): within it a resend gets the
     * stored answer; the purge takes only the claims older than that, after which the same sendId
     * is a new message.
     */
    @Test
    void sendIdsAreKeptForTheirRetentionAndPurgedAfterIt() throws Exception {
        long a = user();
        long b = user();
        SendCommand old = new SendCommand(a, b, "web:p", "old-" + UUID.randomUUID(), "text", text("old"), null, 0, false);
        SendCommand young = new SendCommand(a, b, "web:p", "young-" + UUID.randomUUID(), "text", text("young"), null, 0, false);
        chat.send(old);
        chat.send(young);
        // just past the retention, and just inside it
        for (var sendIdAndShift : Map.of(old.sendId(), "1 minute", young.sendId(), "-1 minute").entrySet()) {
            assertEquals(1, Database.queryLong(db, """
                    WITH backdated AS (
                        UPDATE chat_send SET created_at = now() - make_interval(secs => ?) - ?::interval WHERE sender_uid = ? AND send_id = ?
                        RETURNING 1)
                    SELECT count(*) FROM backdated""", (double) settings.sendIdRetention().toSeconds(), sendIdAndShift.getValue(), a,
                    sendIdAndShift.getKey()));
        }
        // the minute's timer may hold the task at that moment and purge it itself
        Wait.until("the expired claim is purged", Duration.ofSeconds(20), () -> {
            housekeeping.purgeSends();
            return Database.queryLong(db, "SELECT count(*) FROM chat_send WHERE sender_uid = ? AND send_id = ?", a, old.sendId()) == 0;
        });
        assertTrue(chat.send(young).resent(), "inside the retention: the stored answer");
        Sent again = chat.send(old);
        assertFalse(again.resent(), "past it, the sendId is free again");
        assertEquals(3, again.seq());
    }

    /** A recalled copy, and a copy its owner deleted, keep their rows but not their content. */
    @Test
    void recallAndDeleteForMeEraseTheContentTheyHide() throws Exception {
        long a = user();
        long b = user();
        Sent first = chat.send(new SendCommand(a, b, "web:e", "e1-" + UUID.randomUUID(), "text", text("first secret"), null, 0, false));
        chat.send(new SendCommand(a, b, "web:e", "e2-" + UUID.randomUUID(), "text", text("second secret"), first.msgId(), 0, false));
        chat.send(new SendCommand(b, a, "web:e", "e3-" + UUID.randomUUID(), "text", text("third secret"), null, 0, false));
        chat.recall(a, b, 2);
        chat.deleteForMe(a, b, 3);
        String content = "SELECT count(*) FROM chat_timeline WHERE owner_uid = ? AND peer_uid = ? AND seq = ? AND body = '{}' AND quote_msg_id IS NULL";
        assertEquals(1, Database.queryLong(db, content, a, b, 2L), "the sender's recalled copy");
        assertEquals(1, Database.queryLong(db, content, b, a, 2L), "the recipient's recalled copy");
        assertEquals(1, Database.queryLong(db, content, a, b, 3L), "the copy its owner deleted");
        assertEquals(0, Database.queryLong(db, content, b, a, 3L), "the other side keeps its copy");
        assertEquals(0, Database.queryLong(db, content, a, b, 1L), "the others are untouched");
        assertEquals("third secret", timeline(b, a).get(2).body().getString("text"));
        assertTrue(timeline(a, b).get(1).recalled());
        assertTrue(timeline(a, b).get(2).deleted());
    }

    @Test
    void fiftyConcurrentResendsOfOneSendIdStoreOneMessage() throws Exception {
        long a = user();
        long b = user();
        SendCommand c = new SendCommand(a, b, "web:phone", "once-" + UUID.randomUUID(), "text", text("only once"), null, 0, false);
        ExecutorService pool = Executors.newFixedThreadPool(50);
        CountDownLatch start = new CountDownLatch(1);
        List<Future<Sent>> answers = new ArrayList<>();
        for (int i = 0; i < 50; i++) {
            answers.add(pool.submit(() -> {
                start.await();
                return chat.send(c);
            }));
        }
        start.countDown();
        List<Sent> sent = new ArrayList<>();
        for (Future<Sent> f : answers) {
            sent.add(f.get(60, TimeUnit.SECONDS));
        }
        pool.shutdown();
        assertEquals(1, sent.stream().filter(s -> !s.resent()).count(), "exactly one send wrote");
        assertEquals(1, sent.stream().map(s -> List.of(s.msgId(), s.seq(), s.tm().toInstant())).distinct().count(),
                "all 50 got the same answer: " + sent);
        assertEquals(1L, sent.get(0).seq());
        assertEquals(1, timeline(a, b).size());
        assertEquals(1, timeline(b, a).size());
        assertEquals(1, chat.conversations(b, 0, 10).items().get(0).unread());
    }

    /**
     * A send batch takes its conversation rows in one pass, in (owner, peer) order, after its
     * sendId keys and before any other row a send batch shares, so two send writers (two nodes)
     * whose batches share conversations never deadlock: with the first row of conversation P0 held
     * by a third transaction, batch A (P0, P1, P2) waits for it holding no conversation row, and
     * batch B (P1, P2) goes through meanwhile. A row taken out of order would leave A holding one of
     * P1's or P2's while it waits, and B waiting for A.
     */
    @Test
    void aSendBatchWaitingForOneConversationHoldsNoOther() throws Exception {
        List<long[]> pairs = new ArrayList<>(); // users created in order: low < high, P0 < P1 < P2, so (P0 low, P0 high) is A's first row
        for (int i = 0; i < 3; i++) {
            long low = user();
            long high = user();
            chat.send(new SendCommand(low, high, "web:w", "first-" + UUID.randomUUID(), "text", text("first"), null, 0, false));
            pairs.add(new long[] {low, high});
        }
        LockOrder.Outcome<List<Sent>, List<Sent>> written = LockOrder.secondPassesWhileFirstWaits(db,
                "SELECT pg_backend_pid() FROM chat_conversation WHERE owner_uid = ? AND peer_uid = ? FOR UPDATE",
                List.of(pairs.get(0)[0], pairs.get(0)[1]),
                () -> writer.writeAll(pairs.stream().map(p -> write(p[0], p[1], "A")).toList()),
                () -> writer.writeAll(pairs.subList(1, 3).stream().map(p -> write(p[1], p[0], "B")).toList()));
        assertEquals(List.of(2L, 2L), written.second().stream().map(Sent::seq).toList(), "B wrote while A waited");
        assertEquals(List.of(2L, 3L, 3L), written.first().stream().map(Sent::seq).toList(), "A after B where they share pairs");
        for (long[] p : pairs) {
            for (long owner : p) {
                List<ChatMessage> timeline = timeline(owner, owner == p[0] ? p[1] : p[0]);
                assertEquals(LongStream.rangeClosed(1, timeline.size()).boxed().toList(), timeline.stream().map(ChatMessage::seq).toList());
            }
        }
    }

    /**
     * Both conversation rows count the conversation's seq and every send moves them together; rows
     * that disagree (changed by hand) would give the message's two copies different seqs, so the send
     * writer refuses the batch and writes nothing.
     */
    @Test
    void conversationRowsThatDisagreeOnTheLastSeqStopTheSendAndWriteNothing() throws Exception {
        long a = user();
        long b = user();
        chat.send(new SendCommand(a, b, "web:w", "first-" + UUID.randomUUID(), "text", text("first"), null, 0, false));
        try (Connection c = db.getConnection();
             PreparedStatement ps = c.prepareStatement("UPDATE chat_conversation SET last_seq = last_seq + 5 WHERE owner_uid = ? AND peer_uid = ?")) {
            ps.setLong(1, b);
            ps.setLong(2, a);
            assertEquals(1, ps.executeUpdate());
        }
        IllegalStateException refused = assertThrows(IllegalStateException.class, () -> writer.writeAll(List.of(write(a, b, "second"))));
        assertTrue(refused.getMessage().contains("disagree on their last seq"), refused.getMessage());
        assertEquals(1, timeline(a, b).size());
        assertEquals(1, timeline(b, a).size());
        String lastSeq = "SELECT last_seq FROM chat_conversation WHERE owner_uid = ? AND peer_uid = ?";
        assertEquals(1, Database.queryLong(db, lastSeq, a, b), "rolled back");
        assertEquals(6, Database.queryLong(db, lastSeq, b, a), "rolled back");
    }

    /** A text message as SendQueue hands it to the send writer: the body as stored (no word to mask in it) and its hash. */
    static ChatWriter.Write write(long from, long to, String text) {
        SendCommand c = new SendCommand(from, to, "web:w", "lo-" + UUID.randomUUID(), "text", text(text), null, 0, false);
        return new ChatWriter.Write(c, c.body(), ChatRules.hash(c), null);
    }

    @Test
    void twoDevicesOfOneUserAndThePeerSendingAtOnceEndGapFreeAndIdentical() throws Exception {
        long seed = System.nanoTime();
        System.out.println("ChatInContainerIT seed=" + seed);
        long a = user();
        long b = user();
        int perSender = 100;
        record Sender(long from, long to, String device) {
        }
        List<Sender> senders = List.of(new Sender(a, b, "web:a1"), new Sender(a, b, "phone:a2"), new Sender(b, a, "web:b1"));
        ExecutorService pool = Executors.newFixedThreadPool(senders.size());
        CountDownLatch start = new CountDownLatch(1);
        List<Future<List<Sent>>> results = new ArrayList<>();
        for (int t = 0; t < senders.size(); t++) {
            Sender s = senders.get(t);
            Random random = new Random(seed + t);
            results.add(pool.submit(() -> {
                start.await();
                List<Sent> mine = new ArrayList<>();
                for (int i = 0; i < perSender; i++) {
                    mine.add(chat.send(new SendCommand(s.from(), s.to(), s.device(), "m-" + i, "text",
                            text(s.device() + " " + i + " " + "x".repeat(random.nextInt(200))), null, 0, false)));
                }
                return mine;
            }));
        }
        long began = System.nanoTime();
        start.countDown();
        List<Sent> all = new ArrayList<>();
        for (Future<List<Sent>> f : results) {
            all.addAll(f.get(300, TimeUnit.SECONDS));
        }
        long tookMs = (System.nanoTime() - began) / 1_000_000;
        pool.shutdown();
        int n = senders.size() * perSender;
        System.out.println("ChatInContainerIT: " + n + " concurrent sends (3 senders) took " + tookMs + " ms, "
                + (n * 1000L / Math.max(1, tookMs)) + " sends/s");
        // each sender's own answers increase (one thread sends in order)
        for (int t = 0; t < senders.size(); t++) {
            List<Sent> mine = results.get(t).get();
            for (int i = 1; i < mine.size(); i++) {
                if (mine.get(i).seq() <= mine.get(i - 1).seq()) {
                    throw new AssertionError("a sender's seqs must increase: " + mine.get(i - 1) + " then " + mine.get(i));
                }
            }
        }
        assertEquals(n, all.stream().map(Sent::seq).distinct().count(), "every answer has its own seq");
        List<ChatMessage> ofA = timeline(a, b);
        List<ChatMessage> ofB = timeline(b, a);
        assertEquals(n, ofA.size());
        assertEquals(n, ofB.size());
        for (int i = 0; i < n; i++) {
            assertEquals(i + 1, ofA.get(i).seq(), "a's timeline is gap-free");
            assertEquals(i + 1, ofB.get(i).seq(), "b's timeline is gap-free");
            assertEquals(ofA.get(i).msgId(), ofB.get(i).msgId(), "both copies of seq " + (i + 1) + " are one message");
            assertEquals(ofA.get(i).body(), ofB.get(i).body());
        }
        Conversation aSide = chat.conversations(a, 0, 10).items().get(0);
        Conversation bSide = chat.conversations(b, 0, 10).items().get(0);
        assertEquals(n, aSide.lastSeq());
        assertEquals(n, bSide.lastSeq());
        assertEquals(perSender, aSide.unread(), "b's messages are unread for a");
        assertEquals(2 * perSender, bSide.unread(), "a's two devices' messages are unread for b");
        assertNull(chat.conversations(a, aSide.syncVersion(), 10).next());
        assertEquals(0, chat.conversations(a, aSide.syncVersion(), 10).items().size());
    }

    /**
     * Receipts racing sends: a sends 100 messages while b's two devices acknowledge and report
     * reads with growing seqs, all at once. No deadlock, and the cursors end where the last reports
     * put them: delivered and read up to the last message on b's side, mirrored on a's, unread 0.
     */
    @Test
    void readsAndAcknowledgementsRacingSendsEndOnTheLastReport() throws Exception {
        long a = user();
        long b = user();
        int n = 100;
        ExecutorService pool = Executors.newFixedThreadPool(3);
        CountDownLatch start = new CountDownLatch(1);
        Future<List<Sent>> sending = pool.submit(() -> {
            start.await();
            List<Sent> sent = new ArrayList<>();
            for (int i = 0; i < n; i++) {
                sent.add(chat.send(new SendCommand(a, b, "web:a", "r-" + i, "text", text("m" + i), null, 0, false)));
            }
            return sent;
        });
        List<Future<?>> receipts = new ArrayList<>();
        for (int device = 0; device < 2; device++) {
            receipts.add(pool.submit(() -> {
                start.await();
                long last = 0;
                while (last < n) {
                    long seen = chat.conversation(b, a).map(Conversation::lastSeq).orElse(0L);
                    if (seen > last) {
                        this.receipts.delivered(List.of(new Cursor(b, a, seen)));
                        chat.read(b, a, seen);
                        last = seen;
                    }
                }
                return null;
            }));
        }
        start.countDown();
        assertEquals(n, sending.get(120, TimeUnit.SECONDS).size());
        for (Future<?> f : receipts) {
            f.get(120, TimeUnit.SECONDS);
        }
        pool.shutdown();
        Conversation bSide = chat.conversation(b, a).orElseThrow();
        Conversation aSide = chat.conversation(a, b).orElseThrow();
        assertEquals(n, bSide.readSeq());
        assertEquals(n, bSide.deliveredSeq());
        assertEquals(0, bSide.unread());
        assertEquals(n, aSide.peerReadSeq());
        assertEquals(n, aSide.peerDeliveredSeq());
    }

    /**
     * Delivered cursors of many conversations in one batch, in random order, racing batches of sends
     * into the same conversations from every side: both take the conversation rows' locks in
     * (owner, peer) order, so neither deadlocks (PostgreSQL would abort one of them, and the send or
     * the cursor batch would fail). Acknowledgements held meanwhile ride on those sends or are
     * flushed, and the last ones, at each conversation's last message, move every cursor to the end.
     */
    @Test
    void deliveredCursorsOfManyConversationsRacingSendsNeverDeadlock() throws Exception {
        int users = 5;
        int rounds = 20;
        long[] u = new long[users];
        for (int i = 0; i < users; i++) {
            u[i] = user();
        }
        long seed = System.nanoTime();
        System.out.println("deliveredCursorsOfManyConversationsRacingSendsNeverDeadlock seed=" + seed);
        Random random = new Random(seed);
        ExecutorService pool = Executors.newFixedThreadPool(users + 1);
        CountDownLatch start = new CountDownLatch(1);
        List<Future<?>> senders = new ArrayList<>();
        for (int i = 0; i < users; i++) {
            int from = i;
            senders.add(pool.submit(() -> {
                start.await();
                for (int r = 0; r < rounds; r++) {
                    for (int to = 0; to < users; to++) {
                        if (to != from) {
                            chat.send(new SendCommand(u[from], u[to], "web:" + from, "d-" + r + "-" + to, "text", text("m"), null, 0, false));
                        }
                    }
                }
                return null;
            }));
        }
        Future<Integer> acking = pool.submit(() -> {
            start.await();
            int batches = 0;
            while (senders.stream().anyMatch(f -> !f.isDone())) {
                receipts.delivered(shuffledCursorsAtLastSeq(u, random));
                shuffledCursorsAtLastSeq(u, random).forEach(c -> chat.acknowledged(c.owner(), c.peer(), c.seq()));
                batches++;
            }
            shuffledCursorsAtLastSeq(u, random).forEach(c -> chat.acknowledged(c.owner(), c.peer(), c.seq()));
            return batches;
        });
        start.countDown();
        for (Future<?> f : senders) {
            f.get(120, TimeUnit.SECONDS);
        }
        System.out.println("delivered batches during the sends: " + acking.get(120, TimeUnit.SECONDS));
        pool.shutdown();
        Wait.until("the held acknowledgements reach the last messages", settings.deliveredHold().plusSeconds(10), () -> {
            for (long owner : u) {
                for (long peer : u) {
                    if (owner != peer && chat.conversation(owner, peer).orElseThrow().deliveredSeq() < 2L * rounds) {
                        return false;
                    }
                }
            }
            return true;
        });
        for (long owner : u) {
            for (long peer : u) {
                if (owner != peer) {
                    Conversation side = chat.conversation(owner, peer).orElseThrow();
                    assertEquals(2L * rounds, side.lastSeq());
                    assertEquals(side.lastSeq(), side.deliveredSeq(), "the last acknowledgements moved every cursor to the end");
                    assertEquals(side.lastSeq(), chat.conversation(peer, owner).orElseThrow().peerDeliveredSeq(),
                            "the peer's side reads it");
                }
            }
        }
    }

    /**
     * An acknowledgement rides on the conversation's next send, in either direction: the send's
     * rewrite of the owner's row moves its delivered cursor, well before the hold would have it
     * written by itself, and never past the messages sent before that send.
     */
    @Test
    void anAcknowledgementRidesOnTheConversationsNextSend() {
        long a = user();
        long b = user();
        chat.send(new SendCommand(a, b, "web:a", "s-" + UUID.randomUUID(), "text", text("one"), null, 0, false));
        Conversation bSide = acknowledgedThenSent(b, a, 1, b, a);
        assertEquals(1, bSide.deliveredSeq(), "b's reply carried b's acknowledgement");
        assertEquals(2, bSide.lastSeq());
        // beyond anything sent: capped at the last message before the send that carries it
        Conversation aSide = acknowledgedThenSent(a, b, 99, b, a);
        assertEquals(2, aSide.deliveredSeq(), "a's acknowledgement rode on b's send, up to the message before it");
        assertEquals(3, aSide.lastSeq());
    }

    /**
     * {@code owner} acknowledges its conversation with {@code peer} up to {@code seq}, then
     * {@code from} sends {@code to}: the owner's side right after, read well within the hold (so the
     * flush cannot have written the cursor).
     */
    private Conversation acknowledgedThenSent(long owner, long peer, long seq, long from, long to) {
        long held = System.nanoTime();
        chat.acknowledged(owner, peer, seq);
        chat.send(new SendCommand(from, to, "web:" + from, "s-" + UUID.randomUUID(), "text", text("m"), null, 0, false));
        Conversation side = chat.conversation(owner, peer).orElseThrow();
        assertTrue(Duration.ofNanos(System.nanoTime() - held).compareTo(settings.deliveredHold()) < 0,
                "the send and the read took longer than the hold: the flush may have written the cursor");
        return side;
    }

    /**
     * Both participants' read reports in one batch: each side's row gets its own read cursor
     * (reading implies delivered; the unread count recounted) and the other's read receipt
     * mirrored, one update per row; the same reports again change nothing.
     */
    @Test
    void bothSidesReadInOneBatch() {
        long a = user();
        long b = user();
        for (String t : List.of("one", "two")) {
            chat.send(new SendCommand(a, b, "web:a", "s-" + UUID.randomUUID(), "text", text(t), null, 0, false));
        }
        chat.send(new SendCommand(b, a, "web:b", "s-" + UUID.randomUUID(), "text", text("three"), null, 0, false));
        List<Cursor> reports = List.of(new Cursor(a, b, 3), new Cursor(b, a, 1));
        Map<List<Long>, ReadState> answers = receipts.readAll(reports, Map.of());
        assertEquals(new ReadState(3, 0), answers.get(List.of(a, b)));
        assertEquals(new ReadState(1, 1), answers.get(List.of(b, a)), "a's second message is still unread for b");
        Conversation aSide = chat.conversation(a, b).orElseThrow();
        Conversation bSide = chat.conversation(b, a).orElseThrow();
        assertEquals(List.of(3L, 3L, 0, 1L), List.of(aSide.readSeq(), aSide.deliveredSeq(), aSide.unread(), aSide.peerReadSeq()));
        assertEquals(List.of(1L, 1L, 1, 3L), List.of(bSide.readSeq(), bSide.deliveredSeq(), bSide.unread(), bSide.peerReadSeq()));

        assertEquals(answers, receipts.readAll(reports, Map.of()), "the same reports again: the same answers");
        assertEquals(aSide, chat.conversation(a, b).orElseThrow(), "and no change, not even a new sync version");
        assertEquals(bSide, chat.conversation(b, a).orElseThrow());
    }

    /** A delivered cursor for every conversation side among {@code u} that has messages, at its last seq, shuffled. */
    private List<Cursor> shuffledCursorsAtLastSeq(long[] u, Random random) {
        List<Cursor> cursors = new ArrayList<>();
        for (long owner : u) {
            for (long peer : u) {
                if (owner != peer) {
                    chat.conversation(owner, peer).ifPresent(c -> cursors.add(new Cursor(owner, peer, c.lastSeq())));
                }
            }
        }
        java.util.Collections.shuffle(cursors, random);
        return cursors;
    }

    /**
     * Sync versions come from transaction ids, which are not commit order: a transaction that took
     * its id first may commit a conversation change after a later transaction's change was read.
     * A sync waits for it, and if it outlasts the wait, stops before the later change, so the
     * version a device stores never jumps over the earlier transaction's change.
     */
    @Test
    void aSyncNeverSkipsAChangeOfAnOlderTransactionThatCommitsLater() throws Exception {
        long a = user();
        long b = user();
        long c = user();
        chat.send(new SendCommand(b, a, "web:w", "s-" + UUID.randomUUID(), "text", text("one"), null, 0, false));
        ExecutorService pool = Executors.newSingleThreadExecutor();
        try (Connection older = db.getConnection()) {
            older.setAutoCommit(false);
            try (Statement s = older.createStatement()) {
                s.execute("SELECT pg_current_xact_id()"); // takes its id now, before the next send's
            }
            chat.send(new SendCommand(c, a, "web:w", "s-" + UUID.randomUUID(), "text", text("two"), null, 0, false));

            long started = System.nanoTime();
            Page<Conversation> first = chat.conversations(a, 0, 10);
            long waitedMs = TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - started);
            assertEquals(List.of(b), peers(first), "the change after the running transaction's id is held back");
            assertTrue(waitedMs >= 900, "it waited for the older transaction first: " + waitedMs + " ms");
            long token = first.items().get(0).syncVersion();

            // the older transaction changes a's conversation with b as a writer does, and commits while a sync waits
            try (PreparedStatement s = older.prepareStatement("UPDATE chat_conversation SET sync_version = "
                    + SyncVersionSql.of("0") + ", last_preview = 'older' WHERE owner_uid = ? AND peer_uid = ?")) {
                s.setLong(1, a);
                s.setLong(2, b);
                assertEquals(1, s.executeUpdate());
            }
            long submitted = Database.queryLong(db, NOW_MICROS);
            Future<Page<Conversation>> waiting = pool.submit(() -> chat.conversations(a, token, 10));
            // the sync reads, finds c's change above the horizon and reads again while the older transaction
            // runs: it waits on no lock, so its repeated reads (pg_stat_activity) show that it waits
            syncReadAfter(syncReadAfter(submitted));
            assertFalse(waiting.isDone(), "the sync waits for the older transaction");
            older.commit();
            Page<Conversation> next = waiting.get(5, TimeUnit.SECONDS);
            assertEquals(List.of(b, c), peers(next), "both changes after the token, the older transaction's first");
            assertEquals("older", next.items().get(0).lastPreview());
        } finally {
            pool.shutdownNow();
        }
    }

    /** The database's clock, in µs since the epoch (pg_stat_activity's times are on it). */
    static final String NOW_MICROS = "SELECT (extract(epoch FROM clock_timestamp()) * 1e6)::int8";

    /** When the latest read of a sync ({@code ChatStore.conversationsSince}) of another backend started, in µs; 0 if none. */
    static final String SYNC_READ_STARTED = """
            SELECT coalesce(max((extract(epoch FROM query_start) * 1e6)::int8), 0) FROM pg_stat_activity
            WHERE pid <> pg_backend_pid() AND query LIKE '%pg_snapshot_xmin(pg_current_snapshot())%'""";

    /**
     * Waits for a sync's read that started after {@code after} (µs); when it started. Polled every few
     * milliseconds, not at Wait's 100 ms: the sync waits at most a second for the older transaction
     * (ChatService.SETTLE_WAIT_MS), and the test must see it waiting, and commit, within that second.
     */
    private long syncReadAfter(long after) throws Exception {
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(5);
        for (long started; ; Thread.sleep(5)) {
            if ((started = Database.queryLong(db, SYNC_READ_STARTED)) > after) {
                return started;
            }
            assertTrue(System.nanoTime() < deadline, "no sync read after " + after + " within 5 s");
        }
    }

    static List<Long> peers(Page<Conversation> page) {
        return page.items().stream().map(Conversation::peer).toList();
    }

    /**
     * Offline-push adds come from several paths in no set order (after a send, an unreachable
     * route, an unacknowledged push): the recipient's row keeps naming the newest message of the
     * conversation, whose acknowledgement the flush checks; another conversation's message takes over.
     */
    @Test
    void anOfflinePushRowKeepsTheNewestMessageWhateverOrderTheAddsCome() throws Exception {
        long recipient = user();
        long peer = user();
        long other = user();
        addOfflinePushes(new OfflinePushStore.Undelivered(recipient, peer, peer, 1002, 2, "two", 1, false),
                new OfflinePushStore.Undelivered(recipient, peer, peer, 1001, 1, "one", 1, false));
        assertEquals(List.of(2L, peer, 1002L, 2L, "two"), offlinePushRow(recipient), "the older message counts, the newer is named");
        addOfflinePushes(new OfflinePushStore.Undelivered(recipient, other, other, 1003, 1, "elsewhere", 1, false));
        assertEquals(List.of(3L, other, 1003L, 1L, "elsewhere"), offlinePushRow(recipient), "another conversation's message is newer");
        deleteOfflinePushRow(recipient);
    }

    /**
     * A message that missed two devices of the recipient (each reports it: a stale route, no
     * acknowledgement) is one message in the push's count; a report of no device (no route at all)
     * counts as it comes.
     */
    @Test
    void anOfflinePushCountsAMessageThatMissedSeveralDevicesOnce() throws Exception {
        long recipient = user();
        long peer = user();
        long other = user();
        addOfflinePushes(device(recipient, peer, 3, 3), device(recipient, peer, 3, 3));
        assertEquals(3L, offlinePushRow(recipient).get(0), "seqs 1-3, reported by two devices");
        addOfflinePushes(device(recipient, peer, 5, 4));
        assertEquals(5L, offlinePushRow(recipient).get(0), "a device that missed 2-5: only 4 and 5 are new");
        addOfflinePushes(device(recipient, peer, 2, 1));
        assertEquals(5L, offlinePushRow(recipient).get(0), "a late report of a counted message");
        addOfflinePushes(noDevice(recipient, peer, 6));
        assertEquals(6L, offlinePushRow(recipient).get(0), "a message that found no route");
        addOfflinePushes(device(recipient, other, 2, 2), device(recipient, peer, 7, 1));
        assertEquals(List.of(9L, peer, 1007L, 7L, "7"), offlinePushRow(recipient), "each conversation's device reports count apart");
        deleteOfflinePushRow(recipient);
    }

    /**
     * Reports of the same messages racing each other, each in its own transaction as the
     * acknowledgement wheel's threads make them: the device reports count the messages once, the
     * reports of no device each count.
     */
    @Test
    void racingOfflinePathReportsCountEachMessageOnce() throws Exception {
        long recipient = user();
        long peer = user();
        long other = user();
        addOfflinePushes(new OfflinePushStore.Undelivered(recipient, other, other, 999, 1, "elsewhere", 1, false));
        ExecutorService pool = Executors.newFixedThreadPool(8);
        try {
            List<Future<?>> reports = new ArrayList<>();
            for (int i = 0; i < 20; i++) {
                // 16 reports of seqs 1-3 by devices, 4 of no device
                OfflinePushStore.Undelivered report = i % 5 != 0 ? device(recipient, peer, 3, 3) : noDevice(recipient, peer, 3);
                reports.add(pool.submit(() -> {
                    addOfflinePushes(report);
                    return null;
                }));
            }
            for (Future<?> report : reports) {
                report.get(30, TimeUnit.SECONDS);
            }
        } finally {
            pool.shutdownNow();
        }
        assertEquals(List.of(1L + 3 + 4, peer, 1003L, 3L, "3"), offlinePushRow(recipient));
        deleteOfflinePushRow(recipient);
    }

    /** One device's report: {@code count} messages up to {@code seq} (message 1000 + seq, preview the seq). */
    private static OfflinePushStore.Undelivered device(long recipient, long peer, long seq, int count) {
        return new OfflinePushStore.Undelivered(recipient, peer, peer, 1000 + seq, seq, Long.toString(seq), count, true);
    }

    /** A report of no device (no route at all) of message {@code seq}, named as {@link #device} names it. */
    private static OfflinePushStore.Undelivered noDevice(long recipient, long peer, long seq) {
        return new OfflinePushStore.Undelivered(recipient, peer, peer, 1000 + seq, seq, Long.toString(seq), 1, false);
    }

    /**
     * A node starting again ends the sessions its previous run left at once: the user is offline,
     * and the message that run never saw acknowledged takes the offline path (one device's report
     * of it, named in the user's buffer row). Another node's routes stay.
     */
    @Test
    void aStartingNodeEndsItsPreviousRunsSessionsAndTheirUnacknowledgedMessagesGoOffline() throws Exception {
        long a = user();
        long b = user();
        long elsewhere = user();
        int restarting = 9006; // its last heartbeat 10 s ago: not lost to the other nodes yet
        int live = 9007;
        long msgId = Snowflake.firstIdAt(System.currentTimeMillis()); // a message of now, pushed to b by the run that died
        try (Connection c = db.getConnection()) {
            Routes.node(c, restarting, Duration.ofSeconds(10));
            Routes.node(c, live, Duration.ZERO);
            Database.execute(c, """
                    INSERT INTO presence_device_route (uid, device_type, session_key, node_id, connection_id, device_id, epoch, login_at)
                    VALUES (?, 'android', '', ?, ?, 'd', 1, now() - interval '1 minute'), (?, 'android', '', ?, ?, 'd', 1, now())""",
                    b, restarting, "left-" + b, elsewhere, live, "live-" + elsewhere);
            Database.execute(c, """
                    INSERT INTO chat_timeline (owner_uid, peer_uid, seq, msg_id, sender_uid, send_id, msg_type, body)
                    VALUES (?, ?, 1, ?, ?, 's-left', 'text', '{"text":"left behind"}')""", b, a, msgId, a);
            Database.execute(c, """
                    INSERT INTO chat_conversation (owner_uid, peer_uid, last_seq, last_msg_id, last_sender_uid, last_preview, unread, sync_version)
                    VALUES (?, ?, 1, ?, ?, 'left behind', 1, 1)""", b, a, msgId, a);
        }
        assertEquals(1, sessions.endLeftoverSessions(restarting));
        assertEquals(0, sessions.endLeftoverSessions(restarting), "nothing left");
        assertTrue(sessions.routesOf(b).isEmpty(), "b is offline at once");
        assertEquals(List.of(1L, a, msgId, 1L, "left behind"), offlinePushRow(b));
        assertEquals(1, sessions.routesOf(elsewhere).size(), "another node's route stays");
        sessions.logout("live-" + elsewhere);
        deleteOfflinePushRow(b);
    }

    /** Adds to the buffer in one transaction, not due for an hour (the flush timer leaves the row alone). */
    private void addOfflinePushes(OfflinePushStore.Undelivered... adds) throws Exception {
        transaction.begin();
        for (OfflinePushStore.Undelivered add : adds) {
            offlinePushes.add(add, Duration.ofHours(1));
        }
        transaction.commit();
    }

    private void deleteOfflinePushRow(long recipient) throws Exception {
        try (Connection c = db.getConnection(); PreparedStatement s = c.prepareStatement("DELETE FROM chat_offline_push WHERE recipient_uid = ?")) {
            s.setLong(1, recipient);
            s.executeUpdate();
        }
    }

    /** The recipient's offline-push row: pending, last peer, last msgId, last seq, preview. */
    List<Object> offlinePushRow(long recipient) throws Exception {
        try (Connection c = db.getConnection(); PreparedStatement s = c.prepareStatement(
                "SELECT pending, last_peer_uid, last_msg_id, last_seq, preview FROM chat_offline_push WHERE recipient_uid = ?")) {
            s.setLong(1, recipient);
            try (ResultSet rs = s.executeQuery()) {
                assertTrue(rs.next(), "a row for " + recipient);
                return List.of((long) rs.getInt(1), rs.getLong(2), rs.getLong(3), rs.getLong(4), rs.getString(5));
            }
        }
    }

    /**
     * ANALYZE of a timeline partition and of the sendId table keeps statistics of the key columns
     * only (sorting the bodies and sendIds of a 30,000-row sample cost a quarter second of CPU per
     * partition), and autovacuum analyzes a partition after a million changed rows at the earliest.
     */
    @Test
    void analyzeKeepsStatisticsOfTheKeyColumnsOnly() throws Exception {
        long a = user();
        long b = user();
        chat.send(new SendCommand(a, b, "web:stats", "stats-" + UUID.randomUUID(), "text", text("statistics"), null, 0, false));
        try (Connection c = db.getConnection(); Statement s = c.createStatement()) {
            String partition;
            try (ResultSet rs = s.executeQuery("SELECT tableoid::regclass::text FROM chat_timeline WHERE owner_uid = " + a)) {
                assertTrue(rs.next(), "the sender's timeline row");
                partition = rs.getString(1);
            }
            assertEquals(Set.of("owner_uid", "peer_uid", "seq", "msg_id", "sender_uid", "created_at", "deleted_for_owner", "recalled"),
                    analyzedColumns(s, partition));
            assertEquals(Set.of("sender_uid", "msg_id", "peer_uid", "created_at"), analyzedColumns(s, "chat_send"));
            try (ResultSet rs = s.executeQuery("""
                    SELECT count(*) FROM pg_inherits i JOIN pg_class p ON p.oid = i.inhrelid
                    WHERE i.inhparent = 'chat_timeline'::regclass AND 'autovacuum_analyze_threshold=1000000' = ANY(p.reloptions)""")) {
                rs.next();
                assertEquals(16, rs.getInt(1), "every timeline partition waits for a million changed rows");
            }
        }
    }

    /**
     * A message is found by id (a quote's check, a resend's lookup) through the one unique index
     * that leads with msg_id, whose new entries go to the right-hand edge of the B-tree; the index
     * that led with owner_uid, and put each entry on a random page, is gone (V25). Sequential scans
     * are off so that the plan shows an index even on this test's small partitions.
     */
    @Test
    void aMessageIsFoundByIdThroughTheIndexThatLeadsWithMsgId() throws Exception {
        long a = user();
        long b = user();
        Sent sent = chat.send(new SendCommand(a, b, "web:byid", "byid-" + UUID.randomUUID(), "text", text("by id"), null, 0, false));
        try (Connection c = db.getConnection(); Statement s = c.createStatement()) {
            Set<String> indexes = new HashSet<>();
            try (ResultSet rs = s.executeQuery("""
                    SELECT regexp_replace(pg_get_indexdef(i.indexrelid), '^.* USING ', ''), i.indisunique, i.indisvalid FROM pg_index i
                    WHERE i.indrelid = 'chat_timeline'::regclass AND NOT i.indisprimary""")) {
                while (rs.next()) {
                    indexes.add(rs.getString(1) + (rs.getBoolean(2) ? " unique" : "") + (rs.getBoolean(3) ? "" : " invalid"));
                }
            }
            assertEquals(Set.of("btree (msg_id, owner_uid) unique"), indexes, "the timeline's indexes besides its key");
            s.execute("SET enable_seqscan = off");
            try {
                String lookup = "SELECT 1 FROM chat_timeline WHERE owner_uid = %d AND msg_id = %d".formatted(b, sent.msgId());
                String plan = Database.plan(s, lookup);
                assertTrue(plan.contains("msg_id_owner_uid_idx") && plan.contains("Index Cond: ((msg_id = "), lookup + " →\n" + plan);
            } finally {
                s.execute("RESET enable_seqscan"); // the connection goes back to the pool
            }
        }
    }

    /** The columns ANALYZE of {@code table} kept statistics of. */
    static Set<String> analyzedColumns(Statement s, String table) throws Exception {
        s.execute("ANALYZE " + table);
        Set<String> columns = new HashSet<>();
        try (ResultSet rs = s.executeQuery("SELECT attname FROM pg_stats WHERE schemaname = 'public' AND tablename = '" + table + "'")) {
            while (rs.next()) {
                columns.add(rs.getString(1));
            }
        }
        return columns;
    }

    /**
     * Recalls, deletes for me, read reports and sends of one conversation at once: none deadlocks
     * or fails, the racing recalls store one recall and all answer it, and each side's unread count
     * is what its timeline says.
     */
    @Test
    void racingRecallsDeletesReadsAndSendsOfOneConversationAllCommitAndCountRight() throws Exception {
        long a = user();
        long b = user();
        for (int i = 1; i <= 3; i++) {
            chat.send(new SendCommand(a, b, "web:a", "r-" + UUID.randomUUID(), "text", text("m" + i), null, 0, false));
        }
        ExecutorService pool = Executors.newFixedThreadPool(24);
        CountDownLatch start = new CountDownLatch(1);
        List<Future<ChatMessage>> recalls = new ArrayList<>();
        List<Future<?>> others = new ArrayList<>();
        try {
            for (int i = 0; i < 8; i++) {
                recalls.add(pool.submit(() -> {
                    start.await();
                    return chat.recall(a, b, 1);
                }));
            }
            for (int i = 0; i < 4; i++) {
                others.add(pool.submit(() -> {
                    start.await();
                    chat.deleteForMe(a, b, 2);
                    return null;
                }));
                others.add(pool.submit(() -> {
                    start.await();
                    return chat.read(b, a, 3);
                }));
            }
            for (int i = 0; i < 8; i++) {
                long from = i % 2 == 0 ? a : b;
                long to = from == a ? b : a;
                others.add(pool.submit(() -> {
                    start.await();
                    return chat.send(new SendCommand(from, to, "web:x", "r-" + UUID.randomUUID(), "text", text("racing"), null, 0, false));
                }));
            }
            start.countDown();
            for (Future<ChatMessage> r : recalls) {
                assertTrue(r.get(30, TimeUnit.SECONDS).recalled(), "every racing recall answers the recalled message");
            }
            for (Future<?> f : others) {
                f.get(30, TimeUnit.SECONDS); // none failed, none deadlocked
            }
        } finally {
            pool.shutdownNow();
        }
        List<ChatMessage> ofA = timeline(a, b);
        List<ChatMessage> ofB = timeline(b, a);
        assertEquals(11, ofA.size());
        assertTrue(ofA.get(0).recalled() && ofB.get(0).recalled(), "both copies of seq 1 recalled");
        assertTrue(ofA.get(1).deleted() && !ofB.get(1).deleted(), "a's delete touched a's copy only");
        assertUnreadIsWhatTheTimelineSays(a, b, ofA);
        assertUnreadIsWhatTheTimelineSays(b, a, ofB);
    }

    /** The owner's unread count: the peer's messages after the read cursor that are neither deleted nor recalled. */
    void assertUnreadIsWhatTheTimelineSays(long owner, long peer, List<ChatMessage> timeline) {
        Conversation side = chat.conversation(owner, peer).orElseThrow();
        long expected = timeline.stream().filter(m -> m.senderUid() == peer && m.seq() > side.readSeq() && !m.deleted() && !m.recalled())
                .count();
        assertEquals(expected, side.unread(), "unread of " + owner + " (read up to " + side.readSeq() + ")");
    }
}
