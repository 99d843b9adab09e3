package io.roost.it.client;

import static io.roost.it.Http.ADMIN;
import static io.roost.it.Http.okJson;
import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.roost.client.device.Conversation;
import io.roost.client.device.Kick;
import io.roost.client.device.Message;
import io.roost.client.device.Outgoing;
import io.roost.client.device.RoostDevice;
import io.roost.client.device.Sent;
import io.roost.client.device.SyncStore;
import io.roost.client.rest.RoostApi;
import io.roost.client.rest.RoostProblemException;
import io.roost.client.rest.model.ChatSend;
import io.roost.client.rest.model.MediaFile;
import io.roost.client.rest.model.PageUserView;
import io.roost.client.rest.model.UserView;
import io.roost.it.DeployedRoost;
import io.roost.it.Devices;
import io.roost.it.Devices.Recorder;
import io.roost.it.TestUsers;
import io.roost.it.TestUsers.User;
import io.roost.it.Wait;
import io.roost.it.chat.Chats;
import io.roost.it.chat.GroupChats;
import io.roost.it.media.MediaFiles;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import java.util.UUID;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.stream.Collectors;
import java.util.stream.LongStream;
import org.junit.jupiter.api.Test;

/**
 * The client library against the real server: a device logs in, chats both ways, survives a
 * dropped connection without losing or repeating a message, sends once per sendId, stops after a
 * final kick and comes back after another, chats in a group with its cursors, uploads and
 * downloads a file; a back end pages through a list and reads a refusal as a typed problem.
 */
class RoostClientIT extends DeployedRoost {

    private static final Duration WITHIN = Duration.ofSeconds(30);

    private User user() throws Exception {
        return TestUsers.registerWithoutPassword(baseUrl, "rc-", "web", "w");
    }

    private RoostDevice device(User u, Recorder r) throws Exception {
        return Devices.online(baseUrl, u, "web", "w", r);
    }

    private static List<Long> seqs(List<Message> messages) {
        return messages.stream().map(Message::seq).toList();
    }

    @Test
    void twoDevicesLogInAndChatBothWays() throws Exception {
        User ann = user();
        User bob = user();
        Recorder annHeard = new Recorder();
        Recorder bobHeard = new Recorder();
        try (RoostDevice a = device(ann, annHeard); RoostDevice b = device(bob, bobHeard)) {
            assertEquals(ann.id(), a.session().uid());
            Sent hi = a.sendText(Conversation.user(bob.id()), "hi Bob").get(30, TimeUnit.SECONDS);
            assertEquals(1, hi.seq());
            assertFalse(hi.resent());
            Message got = bobHeard.awaitMessages(Conversation.user(ann.id()), 1, WITHIN).get(0);
            assertEquals("hi Bob", got.text());
            assertEquals(ann.id(), got.senderUid());
            assertEquals(hi.msgId(), got.msgId());

            Sent back = b.sendText(Conversation.user(ann.id()), "hi Ann").get(30, TimeUnit.SECONDS);
            assertEquals(2, back.seq());
            Message reply = annHeard.awaitMessages(Conversation.user(bob.id()), 1, WITHIN).get(0);
            assertEquals("hi Ann", reply.text());
            assertEquals(2, reply.seq());
            // each side holds the conversation up to 2: its own send counted, the other's delivered
            Wait.until("both devices hold seq 2", WITHIN, () -> a.held(Conversation.user(bob.id())) == 2
                    && b.held(Conversation.user(ann.id())) == 2);
        }
    }

    /**
     * The peer keeps sending while the device's socket is cut (no close frame) and while it is
     * away: after its reconnect and catch-up the listener has every message once, in seq order,
     * the store holds the last, and the server knows the device holds them (its acknowledgements).
     */
    @Test
    void aConnectionDroppedInTheMiddleOfAStreamDeliversEveryMessageOnceInOrder() throws Exception {
        User ann = user();
        User bob = user();
        Recorder bobHeard = new Recorder();
        SyncStore bobStore = SyncStore.inMemory();
        Conversation withAnn = Conversation.user(ann.id());
        int total = 40;
        // a backoff long enough that messages are sent while Bob's device is away
        try (RoostDevice a = device(ann, new Recorder());
             RoostDevice b = Devices.online(Devices.builder(baseUrl, bob, "web", "w").listener(bobHeard).store(bobStore)
                     .backoff(Duration.ofMillis(1500), Duration.ofSeconds(3)))) {
            int sentWhileAway = 0;
            for (int i = 1; i <= total; i++) {
                if (i == 15) {
                    b.dropConnection();
                }
                if (b.state() != RoostDevice.State.ONLINE) {
                    sentWhileAway++;
                }
                a.sendText(Conversation.user(bob.id()), "m" + i).get(30, TimeUnit.SECONDS);
            }
            assertTrue(sentWhileAway > 0, "no message was sent while the device was away");
            List<Message> got = bobHeard.awaitMessages(withAnn, total, WITHIN);
            assertEquals(2, bobHeard.sessions().size(), "the device logged in again, once: " + bobHeard.sessions());
            assertEquals(LongStream.rangeClosed(1, total).boxed().toList(), seqs(bobHeard.messages(withAnn)),
                    "every message once, in order (" + sentWhileAway + " sent while away)");
            for (int i = 0; i < total; i++) {
                assertEquals("m" + (i + 1), got.get(i).text());
            }
            Wait.until("the store holds seq " + total, WITHIN, () -> bobStore.held(withAnn) == total);
            Wait.until("Bob's delivered cursor at " + total, WITHIN, () ->
                    new Chats(baseUrl).existingConversation(bob, ann).getJsonNumber("deliveredSeq").longValue() == total);
        }
    }

    /** A device that starts again from a store it kept gets what came meanwhile, and nothing it had. */
    @Test
    void aNewDeviceOnAKeptStoreCatchesUpOnlyWhatCameMeanwhile() throws Exception {
        User ann = user();
        User bob = user();
        Chats chats = new Chats(baseUrl);
        SyncStore kept = SyncStore.inMemory();
        Conversation withAnn = Conversation.user(ann.id());
        Recorder first = new Recorder();
        try (RoostDevice b = Devices.online(Devices.builder(baseUrl, bob, "web", "w").listener(first).store(kept))) {
            for (int i = 1; i <= 3; i++) {
                chats.sendText(ann, bob, "before " + i);
            }
            first.awaitMessages(withAnn, 3, WITHIN);
            Wait.until("the store holds 3", WITHIN, () -> kept.held(withAnn) == 3);
        }
        for (int i = 1; i <= 4; i++) {
            chats.sendText(ann, bob, "sent while bob was away " + i);
        }
        Recorder second = new Recorder();
        try (RoostDevice again = Devices.online(Devices.builder(baseUrl, bob, "web", "w").listener(second).store(kept))) {
            List<Message> got = second.awaitMessages(withAnn, 4, WITHIN);
            assertEquals(List.of(4L, 5L, 6L, 7L), seqs(got));
            assertEquals("sent while bob was away 1", got.get(0).text());
            Wait.sleep(500); // a late duplicate would show within this
            assertEquals(4, second.messages(withAnn).size());
            assertTrue(kept.syncVersion() > 0, "the sync version was stored");
        }
    }

    @Test
    void theSameSendIdIsOneMessageAndASendCutOffByADroppedConnectionIsAnsweredAfterTheReconnect() throws Exception {
        User ann = user();
        User bob = user();
        Recorder bobHeard = new Recorder();
        Conversation toBob = Conversation.user(bob.id());
        try (RoostDevice a = device(ann, new Recorder()); RoostDevice b = device(bob, bobHeard)) {
            Outgoing once = Outgoing.text(toBob, "once").withSendId("rc-" + UUID.randomUUID());
            Sent first = a.send(once).get(30, TimeUnit.SECONDS);
            Sent second = a.send(once).get(30, TimeUnit.SECONDS);
            assertFalse(first.resent());
            assertTrue(second.resent());
            assertEquals(first.msgId(), second.msgId());
            assertEquals(first.seq(), second.seq());

            // sent, and the connection cut before any answer can come: sent again on the next connection
            var cutOff = a.sendText(toBob, "cut off");
            a.dropConnection();
            Sent answered = cutOff.get(30, TimeUnit.SECONDS);
            assertEquals(2, answered.seq());

            List<Message> got = bobHeard.awaitMessages(Conversation.user(ann.id()), 2, WITHIN);
            assertEquals(List.of("once", "cut off"), got.stream().map(Message::text).toList());
            assertEquals(2, new Chats(baseUrl).items(bob, ann).size(), "one stored message per sendId");
            Wait.sleep(500);
            assertEquals(2, bobHeard.messages().size(), "nothing delivered twice");
        }
    }

    @Test
    void aKickThatSaysNotToComeBackStopsTheDevice() throws Exception {
        User ann = user();
        Recorder heard = new Recorder();
        RoostDevice a = device(ann, heard);
        okJson(http().delete("api/v1/admin/accounts/" + ann.id() + "/devices/web", ADMIN));
        a.stopped().get(30, TimeUnit.SECONDS);
        assertEquals(RoostDevice.State.STOPPED, a.state());
        assertEquals(List.of(new Kick("kicked_by_admin", false)), heard.kicks());
        assertEquals(1, heard.sessions().size(), "no login after the kick");
        ExecutionException refused = assertThrows(ExecutionException.class,
                () -> a.sendText(Conversation.user(ann.id()), "after").get(5, TimeUnit.SECONDS));
        assertEquals("device-stopped", ((io.roost.client.device.RoostFrameException) refused.getCause()).code());
    }

    /**
     * A kick that allows coming back: the listener holds the device's first message until the
     * server, never acknowledged, has ended the session ({@code ack_timeout}: the suite's ack
     * timeout is 3 s, one push again); then the device hears the kick, logs in again, and the
     * message, taken once, is not delivered a second time by the catch-up.
     */
    @Test
    void aKickThatAllowsComingBackIsFollowedByANewLogin() throws Exception {
        User ann = user();
        User bob = user();
        Recorder heard = new Recorder();
        java.util.concurrent.CountDownLatch ended = new java.util.concurrent.CountDownLatch(1);
        io.roost.client.device.DeviceListener holding = new io.roost.client.device.DeviceListener() {
            @Override
            public void onMessage(Message m) {
                try {
                    ended.await(30, TimeUnit.SECONDS); // no acknowledgement until the listener returns
                } catch (InterruptedException e) {
                    Thread.currentThread().interrupt();
                }
                heard.onMessage(m);
            }

            @Override
            public void onKick(Kick kick) {
                heard.onKick(kick);
            }

            @Override
            public void onOnline(io.roost.client.device.Session session) {
                heard.onOnline(session);
            }

            @Override
            public void onStopped(Throwable cause) {
                heard.onStopped(cause);
            }
        };
        try (RoostDevice a = Devices.online(Devices.builder(baseUrl, ann, "web", "w").listener(holding))) {
            String first = a.session().connectionId();
            new Chats(baseUrl).sendText(bob, ann, "held by the listener");
            Wait.until("the session ended as not acknowledging", WITHIN,
                    () -> io.roost.it.LoginLog.events(baseUrl, ann.id()).contains("ack_timeout"));
            ended.countDown();
            Wait.until("the ack_timeout kick", WITHIN, () -> !heard.kicks().isEmpty());
            assertEquals(new Kick("ack_timeout", true), heard.kicks().get(0));
            Wait.until("a new login", WITHIN, () -> heard.sessions().size() >= 2);
            assertNotEquals(first, heard.sessions().get(1).connectionId());
            assertFalse(heard.stopped());
            assertEquals(1, heard.messages().size(), "the held message once, not again from the catch-up");
        }
    }

    @Test
    void aGroupsMessagesArriveOnceInOrderAcrossAReconnectAndTheReadCursorMoves() throws Exception {
        GroupChats groups = new GroupChats(baseUrl);
        User owner = user();
        User member = user();
        String groupId = groups.group(owner, "chat", member);
        Conversation group = Conversation.group(groupId);
        Recorder heard = new Recorder();
        try (RoostDevice o = device(owner, new Recorder()); RoostDevice m = device(member, heard)) {
            List<Long> sent = new ArrayList<>();
            for (int i = 1; i <= 12; i++) {
                if (i == 5) {
                    m.dropConnection();
                }
                sent.add(o.sendText(group, "g" + i).get(30, TimeUnit.SECONDS).seq());
            }
            long last = sent.get(sent.size() - 1);
            Wait.until("the member's listener has the group up to " + last, WITHIN, () ->
                    heard.messages(group).stream().anyMatch(x -> x.seq() == last));
            List<Message> got = heard.messages(group).stream().filter(x -> "text".equals(x.msgType())).toList();
            assertEquals(sent, seqs(got), "each text message once, in order");
            List<Long> all = seqs(heard.messages(group));
            assertEquals(all.stream().sorted().distinct().toList(), all, "system messages too: once, in order");

            var read = m.read(group, last).get(30, TimeUnit.SECONDS);
            assertEquals(last, read.get("readSeq").asLong());
            assertEquals(0, read.get("unread").asInt());
            var state = m.groupState(groupId).get(30, TimeUnit.SECONDS);
            assertEquals(last, state.get("readSeq").asLong());
            assertEquals(last, state.get("lastSeq").asLong());
        }
    }

    @Test
    void aFileUploadedInChunksDownloadsWithTheSameBytes() throws Exception {
        User ann = user();
        User bob = user();
        byte[] bytes = MediaFiles.pdf(2_500_000, 7); // three PUTs of at most 1 MiB
        Recorder bobHeard = new Recorder();
        try (RoostDevice a = device(ann, new Recorder()); RoostDevice b = device(bob, bobHeard)) {
            MediaFile file = a.media().upload(bytes, "notes.pdf").get(60, TimeUnit.SECONDS);
            assertEquals(bytes.length, file.getSize());
            assertEquals(MediaFiles.sha256(bytes), file.getSha256());
            a.send(Outgoing.media(Conversation.user(bob.id()), "file", file.getId())).get(30, TimeUnit.SECONDS);
            Message m = bobHeard.awaitMessages(Conversation.user(ann.id()), 1, WITHIN).get(0);
            String mediaId = m.body().path("media").path("id").asText();
            assertEquals(file.getId(), mediaId);
            assertArrayEquals(bytes, b.media().download(mediaId).get(60, TimeUnit.SECONDS));
        }
    }

    @Test
    void aBackEndIteratesEveryPageOfAList() throws Exception {
        String stem = "rcpage" + UUID.randomUUID().toString().substring(0, 6);
        Set<String> made = new HashSet<>();
        for (int i = 0; i < 7; i++) {
            made.add(TestUsers.registerWithoutPassword(baseUrl, stem, "web", "w").id());
        }
        RoostApi roost = RoostApi.builder(base()).basic(io.roost.it.Http.ADMIN_USER, io.roost.it.Http.ADMIN_PASSWORD).build();
        AtomicInteger pages = new AtomicInteger();
        Set<String> found = roost.pages(cursor -> {
                    pages.incrementAndGet();
                    return roost.call(() -> roost.identity().findUsers(cursor, null, 3, null, null, stem, null));
                }, PageUserView::getItems, PageUserView::getNext)
                .map(UserView::getId).collect(Collectors.toSet());
        assertEquals(made, found);
        assertTrue(pages.get() >= 3, "7 users 3 a page come in 3 pages at least, got " + pages.get());
    }

    @Test
    void aBadRequestIsATypedProblem() throws Exception {
        User ann = user();
        User bob = user();
        RoostApi roost = RoostApi.builder(base()).bearer(ann.token()).build();
        RoostProblemException p = assertThrows(RoostProblemException.class, () -> roost.call(() -> roost.chat().sendChatMessage(
                new ChatSend().peer(bob.id()).sendId("not a send id!").type(ChatSend.TypeEnum.TEXT).text("x"))));
        assertEquals("urn:roost:problem:invalid-send-id", p.type());
        assertEquals("invalid-send-id", p.slug());
        assertEquals(400, p.status());
        assertTrue(p.detail() != null && p.detail().contains("sendId"), p.detail());
        assertTrue(new Chats(baseUrl).conversation(ann, bob) == null, "nothing was stored");
        assertNull(new Chats(baseUrl).conversation(bob, ann));
    }
}
