package io.roost.it.chat;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.roost.it.Database;
import io.roost.it.DeployedRoost;
import io.roost.it.Http;
import io.roost.it.LoginLog;
import io.roost.it.Routes;
import io.roost.it.TestUsers.User;
import io.roost.it.TopicEvents;
import io.roost.it.Wait;
import io.roost.it.WsDevice;
import io.roost.platform.ids.Snowflake;
import jakarta.json.JsonObject;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Order;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * Delivery of one-to-one chat to real devices: receipts, and the three guards against fake
 * online — no route (offline), a stale route (unreachable), a silent device (no acknowledgement)
 * — each ending in one coalesced roost-offline-push event. The suite runs with a 3 s
 * acknowledgement deadline and a 3 s offline-push delay. The longest class that shares the server
 * (most of it is waiting for those timers), it starts first, and the other classes run beside it.
 */
@Order(1)
class ChatDeliveryIT extends DeployedRoost {

    /** The roost-offline-push events, by recipient. */
    @RegisterExtension
    static final TopicEvents offlinePushes = new TopicEvents("roost-offline-push", "recipient");

    Chats chats() {
        return new Chats(baseUrl);
    }

    /** Two roaming users online: a on a phone, b on a phone and a desktop; closing says bye on all three. */
    record Devices(User a, User b, WsDevice aPhone, WsDevice bPhone, WsDevice bDesk) implements AutoCloseable {

        @Override
        public void close() {
            aPhone.bye();
            bPhone.bye();
            bDesk.bye();
        }
    }

    Devices devices(Chats chats) throws Exception {
        User a = chats.roaming();
        User b = chats.roaming();
        return new Devices(a, b, WsDevice.login(baseUrl, a.token(), "android", "a-phone"),
                WsDevice.login(baseUrl, b.token(), "android", "b-phone"), WsDevice.login(baseUrl, b.token(), "desktop", "b-desk"));
    }

    @Test
    void receiptsReachTheSenderAndOneReadReportCountsForAllOfTheReadersDevices() throws Exception {
        Chats chats = chats();
        try (Devices d = devices(chats)) {
            User a = d.a();
            User b = d.b();
            WsDevice aPhone = d.aPhone();
            WsDevice bPhone = d.bPhone();
            WsDevice bDesk = d.bDesk();
            JsonObject sent = aPhone.op("chatOp", Chats.textSend(b, "read me"));
            assertEquals("ok", sent.getString("result"), sent.toString());
            bPhone.await("chatMsg");
            bDesk.await("chatMsg");
            // both of b's devices acknowledged (WsDevice does, as a client must): a hears it once the cursor moved
            JsonObject delivered = aPhone.await("chatReceipt");
            assertEquals("delivered", delivered.getString("kind"), delivered.toString());
            assertEquals(b.id(), delivered.getString("peer"));
            assertEquals(1, delivered.getInt("seq"));
            assertEquals(1, chats.conversation(b, a).getInt("unread"));

            JsonObject read = bPhone.op("chatOp", "\"op\":\"read\",\"peer\":\"" + a.id() + "\",\"readSeq\":1");
            assertEquals("ok", read.getString("result"), read.toString());
            assertEquals(1, read.getInt("readSeq"));
            assertEquals(0, read.getInt("unread"));
            JsonObject synced = bDesk.await("chatRead");
            assertEquals(a.id(), synced.getString("peer"));
            assertEquals(0, synced.getInt("unread"));
            JsonObject receipt = aPhone.await("chatReceipt");
            assertEquals("read", receipt.getString("kind"), receipt.toString());
            assertEquals(1, receipt.getInt("seq"));
            // the reporting device has the new side in its answer, so no chatRead: one queued for it with
            // bDesk's would have come before the answer to its next request
            assertEquals(1, bPhone.op("chatOp", "\"op\":\"read\",\"peer\":\"" + a.id() + "\",\"readSeq\":1").getInt("readSeq"));
            assertFalse(bPhone.received("chatRead"), "the reporting device got a chatRead");

            JsonObject bSide = chats.conversation(b, a);
            assertEquals(1, bSide.getInt("readSeq"));
            assertEquals(1, bSide.getInt("deliveredSeq"));
            assertEquals(0, bSide.getInt("unread"));
            JsonObject aSide = chats.conversation(a, b);
            assertEquals(1, aSide.getInt("peerReadSeq"), aSide.toString());
            assertEquals(1, aSide.getInt("peerDeliveredSeq"));

            // a repeated or older report changes nothing; a report past the end reads up to the last message
            JsonObject again = bDesk.op("chatOp", "\"op\":\"read\",\"peer\":\"" + a.id() + "\",\"readSeq\":1");
            assertEquals(1, again.getInt("readSeq"), again.toString());
            for (String bad : List.of("\"x\"", "18446744073709551617", "1.5")) { // 2^64 + 1 is not 1, nor is 1.5
                assertEquals("invalid-seq", bDesk.op("chatOp", "\"op\":\"read\",\"peer\":\"" + a.id() + "\",\"readSeq\":" + bad)
                        .getString("code"), bad);
            }
            bDesk.send("{\"v\":1,\"type\":\"chatAck\",\"peer\":\"" + a.id() + "\",\"seq\":18446744073709551617}");
            assertEquals("invalid-ack", bDesk.await("error").getString("code"));
            assertEquals("not-found", bDesk.op("chatOp", "\"op\":\"read\",\"peer\":\"1\",\"readSeq\":1").getString("code"));
        }
    }

    /**
     * A delivered receipt rides on the conversation's next message when that comes within the hold:
     * the sending device finds it in its answer, the other devices of the user it tells in their
     * {@code chatMsg}, and no {@code chatReceipt} of its own follows.
     */
    @Test
    void aDeliveredReceiptRidesOnTheConversationsNextMessage() throws Exception {
        try (Devices d = devices(chats())) {
            WsDevice aPhone = d.aPhone();
            aPhone.autoAck = false; // a's acknowledgements come when the test says
            assertEquals("ok", d.bPhone().op("chatOp", Chats.textSend(d.a(), "one")).getString("result"));
            assertEquals(1, aPhone.await("chatMsg").getInt("seq"));
            chatMsg(d.bDesk(), 1); // b's desk syncs b's message and acknowledges it: b's cursor moves too

            // b sends next: b's answer and b's desk carry a's cursor, a's phone b's (one push, both cursors)
            long held = aPhone.ackHeld(d.b().id(), 1);
            JsonObject answer = d.bPhone().op("chatOp", Chats.textSend(d.a(), "two"));
            assertEquals(2, answer.getInt("msgSeq"), answer.toString());
            assertEquals(1, answer.getInt("peerDeliveredSeq", 0), "a's receipt rides on b's answer: " + answer);
            JsonObject onDesk = chatMsg(d.bDesk(), 2);
            assertEquals(1, onDesk.getInt("peerDeliveredSeq", 0), onDesk.toString());
            JsonObject onPhone = chatMsg(aPhone, 2);
            assertEquals(1, onPhone.getInt("peerDeliveredSeq", 0), "b's desk's receipt rides on the push to a: " + onPhone);
            withinTheHold(held);

            // a sends next: b's devices find a's cursor in the push
            held = aPhone.ackHeld(d.b().id(), 2);
            assertEquals("ok", aPhone.op("chatOp", Chats.textSend(d.b(), "three")).getString("result"));
            for (WsDevice device : List.of(d.bPhone(), d.bDesk())) {
                JsonObject pushed = chatMsg(device, 3);
                assertEquals(2, pushed.getInt("peerDeliveredSeq", 0), pushed.toString());
            }
            withinTheHold(held);

            // a receipt of its own would go out once the hold of a's last acknowledgement is over (and the
            // flush's pacing of 100 ms with it): wait that out, not more. Then every frame b's devices got
            // counts, those that chatMsg() skipped on its way too.
            Wait.sleep(Math.max(0, DELIVERED_HOLD.plusMillis(500).minusNanos(System.nanoTime() - held).toMillis()));
            for (WsDevice device : List.of(d.bPhone(), d.bDesk())) {
                assertFalse(device.received("chatReceipt"), "a delivered receipt of its own reached b's device");
            }
        }
    }

    /** The suite's {@code ROOST_CHAT_DELIVERED_HOLD} (the default). */
    static final Duration DELIVERED_HOLD = Duration.ofSeconds(1);

    /** The device's next {@code chatMsg} of this seq, skipping others. */
    private static JsonObject chatMsg(WsDevice device, int seq) throws InterruptedException {
        while (true) {
            JsonObject pushed = device.await("chatMsg");
            if (pushed.getInt("seq") == seq) {
                return pushed;
            }
        }
    }

    /** A send that was to carry an acknowledgement held at {@code held} (nanoTime) came within the hold, or the test says why not. */
    private static void withinTheHold(long held) {
        assertTrue(Duration.ofNanos(System.nanoTime() - held).compareTo(DELIVERED_HOLD) < 0,
                "the acknowledgement and the send took longer than the hold: the flush may have written the cursor");
    }

    @Test
    void aReaderWithReadReceiptsOffSendsNoReadReceipt() throws Exception {
        Chats chats = chats();
        User a = chats.roaming();
        User b = chats.user();
        chats.sendText(a, b, "quietly read");
        String settings = "api/v1/chat/users/me/settings";
        String read = "api/v1/chat/users/me/conversations/" + a.id() + "/read";
        Http.ok(http().put(settings, b.auth(), "{\"readReceipts\":false}"));
        WsDevice aPhone = WsDevice.login(baseUrl, a.token(), "android", "a-phone");
        try {
            Http.ok(http().post(read, b.auth(), "{\"readSeq\":1}"));
            assertEquals(0, chats.conversation(b, a).getInt("unread"));
            assertEquals(0, chats.conversation(a, b).getInt("peerReadSeq"));
            // no wait for what does not come: with read receipts on again, b's next report reaches a's phone as a
            // receipt, and one delivery thread keeps a connection's frames in the order they were fired, so a
            // receipt of the first report would have come before it
            Http.ok(http().put(settings, b.auth(), "{\"readReceipts\":true}"));
            chats.sendText(a, b, "read out loud");
            Http.ok(http().post(read, b.auth(), "{\"readSeq\":2}"));
            JsonObject receipt = aPhone.await("chatReceipt");
            assertEquals("read", receipt.getString("kind"), receipt.toString());
            assertEquals(2, receipt.getInt("seq"), "the first read receipt is the second report's: " + receipt);
            assertEquals(2, chats.conversation(a, b).getInt("peerReadSeq"));
        } finally {
            aPhone.bye();
        }
    }

    @Test
    void aBurstToAnOfflineRecipientIsOneOfflinePushWithACount() throws Exception {
        Chats chats = chats();
        User a = chats.user();
        User b = chats.user();
        long start = System.nanoTime();
        for (int i = 0; i < 20; i++) {
            chats.sendText(a, b, "ping " + i);
        }
        long sendMillis = TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - start);
        // a window starts with the first message: a burst sent within it is one event
        int windows = 1 + (int) (sendMillis / OFFLINE_PUSH_DELAY.toMillis());
        List<JsonObject> pushes = new java.util.ArrayList<>();
        int count = 0;
        while (count < 20) {
            JsonObject push = offlinePushes.events(b.id()).poll(20, TimeUnit.SECONDS);
            assertNotNull(push, "offline pushes for " + b.id() + " cover " + count + " of 20 messages: " + pushes);
            pushes.add(push);
            count += push.getInt("count");
        }
        assertEquals(20, count, pushes.toString());
        assertTrue(pushes.size() <= windows, pushes.size() + " events for a burst sent in " + sendMillis + " ms: " + pushes);
        // a burst that spans two windows is two events, which the topic may hand over in either order
        JsonObject last = pushes.stream().max(java.util.Comparator.comparingInt(p -> p.getInt("seq"))).orElseThrow();
        assertEquals(a.id(), last.getString("from"));
        assertEquals(20, last.getInt("seq"));
        assertEquals("ping 19", last.getString("preview"));
        assertNull(offlinePushes.events(b.id()).poll(NO_SECOND_PUSH.toMillis(), TimeUnit.MILLISECONDS), "nothing after the burst");
    }

    @Test
    void anOfflinePushCarriesTheRecipientsUnreadMessagesOfEveryConversation() throws Exception {
        Chats chats = chats();
        User a = chats.user();
        User c = chats.user();
        User b = chats.user();
        chats.sendText(c, b, "one");
        chats.sendText(c, b, "two");
        // b reads the first of them elsewhere (over REST: none of b's devices is online)
        var read = http().post("api/v1/chat/users/me/conversations/" + c.id() + "/read", b.auth(), "{\"readSeq\":1}");
        assertEquals(200, read.statusCode(), read.body());
        for (int i = 0; i < 3; i++) {
            chats.sendText(a, b, "three " + i);
        }
        // one event, or two if the window closed in between: the one naming a's last message went out after all of it
        JsonObject last = offlinePush(b);
        while (!a.id().equals(last.getString("from")) || last.getInt("seq") != 3) {
            last = offlinePush(b);
        }
        assertEquals(4, last.getInt("unread"), "c's unread second and a's three: " + last);
    }

    @Test
    void anOfflinePushShowsWhatTheRecipientsPreviewSettingAllowsAndNoRecalledText() throws Exception {
        Chats chats = chats();
        User a = chats.user();
        User full = chats.user();
        User sender = chats.user();
        User none = chats.user();
        for (User u : List.of(sender, none)) {
            String setting = u == sender ? "sender" : "none";
            assertEquals(200, http().put("api/v1/chat/users/me/settings", u.auth(), "{\"pushPreview\":\"" + setting + "\"}").statusCode());
        }
        User recalled = chats.user();
        for (User to : List.of(full, sender, none, recalled)) {
            chats.sendText(a, to, "secret for " + to.id());
        }
        // recalled within the window, after its offline push is buffered (a message recalled before that
        // is never buffered) and before it goes out (3 s later in the suite)
        Wait.until("the offline push to " + recalled.id() + " buffered", Duration.ofSeconds(10), () -> {
            try (Connection c = Database.connect()) {
                return Database.queryLong(c, "SELECT count(*) FROM chat_offline_push WHERE recipient_uid = ?", Long.parseLong(recalled.id())) == 1;
            }
        });
        var recall = http().post("api/v1/chat/users/me/conversations/" + recalled.id() + "/messages/1/recall", a.auth(), "");
        assertEquals(200, recall.statusCode(), recall.body());

        JsonObject shown = offlinePush(full);
        assertEquals("secret for " + full.id(), shown.getString("preview"), shown.toString());
        assertEquals(a.id(), shown.getString("from"));
        JsonObject who = offlinePush(sender);
        assertEquals(a.id(), who.getString("from"), who.toString());
        assertFalse(who.containsKey("preview"), "who, not what: " + who);
        JsonObject count = offlinePush(none);
        assertEquals(1, count.getInt("count"), count.toString());
        assertEquals(1, count.getInt("unread"), "the badge, whatever the preview: " + count);
        for (String hidden : List.of("from", "peer", "msgId", "seq", "preview")) {
            assertFalse(count.containsKey(hidden), "only how many: " + count);
        }
        JsonObject gone = offlinePush(recalled);
        assertFalse(gone.containsKey("preview"), "a recalled message's text never reaches the push gateway: " + gone);
    }

    private JsonObject offlinePush(User recipient) throws InterruptedException {
        JsonObject push = offlinePushes.events(recipient.id()).poll(20, TimeUnit.SECONDS);
        assertNotNull(push, "no offline push for " + recipient.id());
        return push;
    }

    @Test
    void aRouteToAConnectionItsNodeDoesNotHaveIsRepairedAndTheMessageGoesOffline() throws Exception {
        Chats chats = chats();
        User a = chats.user();
        User b = chats.user();
        // b looks online on this node (the suite's node id is 1), but no such connection exists there
        String ghost = "ghost-" + b.id();
        Routes.ghost(b.id(), 1, ghost);
        chats.sendText(a, b, "anyone home");
        Wait.until("the stale route is repaired", Duration.ofSeconds(5), () -> !Routes.exists(ghost));
        LoginLog.await(baseUrl, b.id(), List.of("unreachable"));
        JsonObject push = offlinePush(b);
        assertEquals(1, push.getInt("count"), push.toString());
    }

    @Test
    void aDeviceThatStopsAcknowledgingIsPushedAgainThenEndedAndTheMessageGoesOffline() throws Exception {
        Chats chats = chats();
        User a = chats.user();
        User b = chats.roaming();
        WsDevice silent = WsDevice.login(baseUrl, b.token(), "android", "silent-phone");
        silent.autoAck = false;
        JsonObject sent = chats.sendText(a, b, "say something");
        long start = System.nanoTime();
        // it still heartbeats (the connection looks alive); it only never acknowledges
        JsonObject first = silent.await("chatMsg");
        silent.heartbeat();
        JsonObject again = silent.await("chatMsg");
        silent.heartbeat();
        long pushedAgainAfter = TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - start);
        assertEquals(sent.getString("msgId"), first.getString("msgId"));
        assertEquals(sent.getString("msgId"), again.getString("msgId"), "the same message pushed again");
        assertFalse(first.containsKey("again"), first.toString());
        assertTrue(again.getBoolean("again", false), "a push after a missed acknowledgement says so: " + again);
        assertTrue(pushedAgainAfter >= 2_500, "pushed again only after the 3 s deadline, not after " + pushedAgainAfter + " ms");
        JsonObject kick = silent.await("kick");
        assertEquals("ack_timeout", kick.getString("reason"), kick.toString());
        assertEquals(1008, silent.closeCode());
        LoginLog.await(baseUrl, b.id(), List.of("ack_timeout"));
        JsonObject push = offlinePush(b);
        assertEquals(sent.getString("msgId"), push.getString("msgId"), push.toString());
        assertEquals(0, chats.conversation(b, a).getInt("deliveredSeq"));
    }

    /** Both of the recipient's devices miss the message (neither acknowledges): the push gateway hears of one message, not two. */
    @Test
    void aMessageThatMissedTwoDevicesIsOneMessageInTheOfflinePush() throws Exception {
        Chats chats = chats();
        User a = chats.user();
        User b = chats.roaming();
        List<WsDevice> silent = List.of(WsDevice.login(baseUrl, b.token(), "android", "silent-phone"),
                WsDevice.login(baseUrl, b.token(), "desktop", "silent-desk"));
        silent.forEach(d -> d.autoAck = false);
        JsonObject sent = chats.sendText(a, b, "anyone there");
        for (int push = 0; push < 2; push++) { // pushed, then pushed again
            for (WsDevice d : silent) {
                assertEquals(sent.getString("msgId"), d.await("chatMsg").getString("msgId"));
                d.heartbeat(); // alive all along: it only never acknowledges
            }
        }
        for (WsDevice d : silent) {
            assertEquals("ack_timeout", d.await("kick").getString("reason"));
        }
        JsonObject push = offlinePush(b);
        assertEquals(1, push.getInt("count"), push.toString());
        assertNull(offlinePushes.events(b.id()).poll(NO_SECOND_PUSH.toMillis(), TimeUnit.MILLISECONDS), "one event");
    }

    /**
     * b's two devices sit on a node that dies: what was forwarded to it there takes the offline path
     * when a live node expires that node's routes. One event counts each message once (two devices
     * missed them), and counts neither what b acknowledged, nor b's own message, nor one sent
     * before b logged in there (that one had its offline push already).
     */
    @Test
    void whatTheDevicesOfALostNodeDidNotAcknowledgeGoesOfflineWhenItsRoutesExpire() throws Exception {
        int dyingNode = 9103;
        devicesOfAStoppingNodeGoOffline(dyingNode, devices -> {
            Routes.heartbeat(devices);
            Routes.node(dyingNode, Duration.ofSeconds(31));
        }, "node_lost");
    }

    /**
     * The same when the devices' heartbeat timeout (8 s in this suite) is shorter than a node's
     * (30 s): the stopped node's devices fall silent before the node counts as lost, and their
     * routes expire as silent ones, with the node's last heartbeat.
     */
    @Test
    void whatTheSilentDevicesOfAStoppedNodeDidNotAcknowledgeGoesOfflineBeforeTheNodeCountsAsLost() throws Exception {
        int stoppedNode = 9104;
        devicesOfAStoppingNodeGoOffline(stoppedNode, devices -> Routes.node(stoppedNode, Duration.ofSeconds(10)), "timeout");
    }

    private interface NodeStop {
        void stop(String... devices) throws Exception;
    }

    private void devicesOfAStoppingNodeGoOffline(int node, NodeStop stop, String loginLogEvent) throws Exception {
        Chats chats = chats();
        User a = chats.user();
        User b = chats.user();
        long before = Long.parseLong(chats.sendText(a, b, "before the login").getString("msgId"));
        assertEquals(1, offlinePush(b).getInt("count"), "b was offline");
        Routes.node(node, Duration.ZERO);
        // the login (the route's login_at, the database's now()) after that message's id time, which the lost
        // node's window of messages is measured against
        Wait.until("the database's clock is past the message's id", Duration.ofSeconds(5),
                () -> databaseMillis() > Snowflake.timestampMs(before));
        String[] devices = {"dying-phone-" + b.id(), "dying-desk-" + b.id()};
        Routes.ghost(b.id(), node, "android", devices[0]);
        Routes.ghost(b.id(), node, "desktop", devices[1]);
        chats.sendText(a, b, "acknowledged");
        setDeliveredSeq(b, a, 2); // as the dying node's devices reported it
        chats.sendText(a, b, "forwarded 1");
        JsonObject last = chats.sendText(a, b, "forwarded 2");
        chats.sendText(b, a, "b's own, from a back end");
        Routes.heartbeat(devices); // the devices stay alive (the suite's heartbeat timeout is 8 s): only their node dies
        assertNull(offlinePushes.events(b.id()).poll(NO_SECOND_PUSH.toMillis(), TimeUnit.MILLISECONDS), "the node lives: it pushes (the forwards wait for it)");

        stop.stop(devices);
        LoginLog.await(baseUrl, b.id(), List.of(loginLogEvent));
        JsonObject push = offlinePush(b);
        assertEquals(2, push.getInt("count"), push.toString());
        assertEquals(last.getString("msgId"), push.getString("msgId"), push.toString());
        assertEquals(4, push.getInt("seq"), push.toString());
    }

    private static long databaseMillis() throws Exception {
        try (Connection c = Database.connect()) {
            return Database.queryLong(c, "SELECT (extract(epoch FROM clock_timestamp()) * 1000)::int8");
        }
    }

    private static void setDeliveredSeq(User owner, User peer, long seq) throws Exception {
        try (Connection c = Database.connect()) {
            assertEquals(1, Database.execute(c, "UPDATE chat_conversation SET delivered_seq = ? WHERE owner_uid = ? AND peer_uid = ?",
                    seq, Long.parseLong(owner.id()), Long.parseLong(peer.id())));
        }
    }

    /**
     * A message sent from a device is pushed to the recipient's devices and to the sender's other
     * devices, not back to the sending connection: its answer is that device's copy.
     */
    @Test
    void theSendingConnectionGetsTheAnswerAndTheSendersOtherDevicesThePush() throws Exception {
        Chats chats = chats();
        User a = chats.roaming();
        User b = chats.roaming();
        WsDevice aPhone = WsDevice.login(baseUrl, a.token(), "android", "a-phone");
        WsDevice aDesk = WsDevice.login(baseUrl, a.token(), "desktop", "a-desk");
        WsDevice bPhone = WsDevice.login(baseUrl, b.token(), "android", "b-phone");
        try {
            aPhone.send("{\"v\":1,\"type\":\"chatOp\",\"seq\":\"1\"," + Chats.textSend(b, "from the phone") + "}");
            assertEquals("from the phone", bPhone.await("chatMsg").getJsonObject("body").getString("text"));
            assertEquals("from the phone", aDesk.await("chatMsg").getJsonObject("body").getString("text"), "the sender's other device syncs");
            // every frame the phone gets up to b's delivered receipt, which follows b's acknowledgement of the push
            List<JsonObject> toPhone = new java.util.ArrayList<>();
            do {
                toPhone.add(aPhone.next());
            } while (!toPhone.get(toPhone.size() - 1).getString("type").equals("chatReceipt"));
            JsonObject answer = toPhone.stream().filter(f -> f.getString("type").equals("chatOpRet")).findFirst().orElseThrow();
            assertEquals("ok", answer.getString("result"), answer.toString());
            assertEquals(1, answer.getInt("msgSeq"));
            assertEquals(List.of(), toPhone.stream().filter(f -> f.getString("type").equals("chatMsg")).toList(),
                    "no push of its own message to the sending connection");
        } finally {
            aPhone.bye();
            aDesk.bye();
            bPhone.bye();
        }
    }

    @Test
    void anAcknowledgedMessageNeedsNoOfflinePush() throws Exception {
        Chats chats = chats();
        User a = chats.user();
        User b = chats.roaming();
        WsDevice phone = WsDevice.login(baseUrl, b.token(), "android", "b-phone");
        try {
            chats.sendText(a, b, "got it?");
            phone.await("chatMsg");
            long pushed = System.nanoTime();
            Wait.until("b's delivered cursor moves", Duration.ofSeconds(5), () -> chats.conversation(b, a).getInt("deliveredSeq") == 1);
            // an acknowledgement the wheel missed would show as a push again after the deadline and a kick after
            // the retry's: wait out both (and a wheel tick), heartbeating, and no longer
            heartbeatUntil(phone, pushed + ACK_TIMEOUT.multipliedBy(2).plusSeconds(1).toNanos());
            assertFalse(phone.closed.isDone(), "an acknowledging device stays connected");
            assertEquals(0, phone.frames.stream().filter(f -> f.getString("type").equals("chatMsg")).count(),
                    "not pushed again: " + phone.frames);
            assertNull(offlinePushes.events(b.id()).poll(1, TimeUnit.SECONDS));
        } finally {
            if (!phone.closed.isDone()) { // a kicked device cannot say bye, and trying would hide why the test failed
                phone.bye();
            }
        }
    }

    /** The suite's {@code ROOST_CHAT_ACK_TIMEOUT}. */
    static final Duration ACK_TIMEOUT = Duration.ofSeconds(3);

    /** The suite's {@code ROOST_CHAT_OFFLINE_PUSH_DELAY}: the window an offline push gathers its messages in. */
    static final Duration OFFLINE_PUSH_DELAY = Duration.ofMillis(Long.getLong("roost.test.offline.push.delay.ms", 3_000));

    /** A second push of a window would have come by now: one window, and a second for its event to arrive. */
    static final Duration NO_SECOND_PUSH = OFFLINE_PUSH_DELAY.plusSeconds(1);

    /** How often a test that keeps a device heartbeats (the suite's heartbeat timeout is 8 s). */
    static final Duration HEARTBEAT_EVERY = Duration.ofSeconds(2);

    /** Heartbeats every {@link #HEARTBEAT_EVERY} until {@code deadline} (nanoTime). */
    private static void heartbeatUntil(WsDevice device, long deadline) {
        for (long left; (left = deadline - System.nanoTime()) > 0; ) {
            device.heartbeat();
            Wait.sleep(Math.min(HEARTBEAT_EVERY.toMillis(), TimeUnit.NANOSECONDS.toMillis(left) + 1));
        }
    }

    /**
     * A message recalled while its push waits for the device's acknowledgement is pushed again as
     * it now is (docs/protocol.md, chatMsg): the same msgId and seq, {@code again} and
     * {@code recalled}, and no body; acknowledged, it counts as delivered like any other.
     */
    @Test
    void aMessageRecalledBeforeItsAcknowledgementIsPushedAgainAsRecalledWithoutItsBody() throws Exception {
        Chats chats = chats();
        User a = chats.user();
        User b = chats.roaming();
        WsDevice phone = WsDevice.login(baseUrl, b.token(), "android", "b-phone");
        phone.autoAck = false;
        try {
            JsonObject sent = chats.sendText(a, b, "take it back");
            JsonObject first = phone.await("chatMsg");
            long pushed = System.nanoTime();
            assertEquals(sent.getString("msgId"), first.getString("msgId"), first.toString());
            assertEquals("take it back", first.getJsonObject("body").getString("text"), first.toString());
            Http.ok(chats.recall(a, a.auth(), b, 1));
            long recalledAfterMs = TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - pushed);
            phone.heartbeat();

            // every frame up to the push again: the recall's notice among them, since it came within the deadline
            List<JsonObject> meanwhile = new java.util.ArrayList<>();
            JsonObject again;
            while (!(again = phone.next()).getString("type").equals("chatMsg")) {
                meanwhile.add(again);
            }
            assertTrue(meanwhile.stream().anyMatch(f -> f.getString("type").equals("chatRecall")),
                    "recalled " + recalledAfterMs + " ms after the push (the deadline is " + ACK_TIMEOUT.toMillis() + "), before the push again: "
                            + meanwhile);
            assertTrue(again.getBoolean("again", false), again.toString());
            assertTrue(again.getBoolean("recalled", false), "pushed again as it now is: " + again);
            assertFalse(again.containsKey("body"), "a recalled message's content is nobody's any more: " + again);
            assertEquals(List.of(sent.getString("msgId"), 1, a.id(), b.id()),
                    List.of(again.getString("msgId"), again.getInt("seq"), again.getString("from"), again.getString("to")), again.toString());

            phone.ack(a.id(), 1);
            Wait.until("b's delivered cursor moves", Duration.ofSeconds(5), () -> chats.conversation(b, a).getInt("deliveredSeq") == 1);
        } finally {
            phone.bye();
        }
    }

    /**
     * Six pairs chat while half of the recipients drop their TCP connection mid-flood and log in
     * again, and half of the senders (devices, the others back ends over REST) drop right after a
     * send and send it again on their next connection: each recipient ends with every message
     * exactly once (pushed, or read in its catch-up after the reconnect), no connection got a
     * message pushed twice, each resend was answered with the message's one seq, and both timelines
     * hold each message once, gap-free.
     */
    @Test
    void aReconnectStormDuringASendFloodLosesAndDuplicatesNothing() throws Exception {
        long seed = Long.getLong("chat.storm.seed", System.nanoTime());
        System.out.println("aReconnectStormDuringASendFloodLosesAndDuplicatesNothing seed=" + seed + " (-Dchat.storm.seed= replays it)");
        java.util.Random random = new java.util.Random(seed);
        Chats chats = chats();
        int pairs = 6;
        int perSender = 40;
        List<User> senders = new java.util.ArrayList<>();
        java.util.Map<Integer, Sender> senderDevices = new java.util.HashMap<>();
        List<Recipient> recipients = new java.util.ArrayList<>();
        for (int i = 0; i < pairs; i++) {
            senders.add(i % 3 == 0 ? chats.user() : chats.roaming());
            recipients.add(new Recipient(chats.roaming()));
        }
        // every account first (a password each, hashed slowly on purpose), then the devices, so that none
        // sits silent for the heartbeat timeout before the flood
        for (int i = 0; i < pairs; i++) {
            if (i % 3 != 0) { // pairs 1, 2, 4, 5: the sender is a device; in 2 and 4 its recipient drops too
                senderDevices.put(i, new Sender(senders.get(i)));
            }
        }
        for (Recipient r : recipients) {
            r.connect();
        }
        var pool = java.util.concurrent.Executors.newFixedThreadPool(pairs);
        var drops = java.util.concurrent.Executors.newFixedThreadPool(pairs); // a recipient drops and catches up while its sender goes on
        try {
            List<java.util.concurrent.Future<?>> flood = new java.util.ArrayList<>();
            for (int i = 0; i < pairs; i++) {
                User from = senders.get(i);
                Recipient to = recipients.get(i);
                int dropAt = i % 2 == 0 ? 5 + random.nextInt(perSender - 10) : -1;
                Sender device = senderDevices.get(i);
                int senderDropAt = device == null ? -1 : 5 + random.nextInt(perSender - 10);
                flood.add(pool.submit(() -> {
                    java.util.concurrent.Future<?> drop = null;
                    long beat = System.nanoTime();
                    for (int n = 1; n <= perSender; n++) {
                        if (device == null) {
                            chats.sendText(from, to.user, "m" + n);
                        } else {
                            assertEquals(n, device.send(to.user, n, n == senderDropAt), "the message's one seq (seed " + seed + ")");
                        }
                        // by the clock, not every so many messages: on a busy box ten sends can outlast the heartbeat timeout
                        if (System.nanoTime() - beat > HEARTBEAT_EVERY.toNanos()) {
                            beat = System.nanoTime();
                            to.heartbeat();
                            if (device != null) {
                                device.heartbeat();
                            }
                        }
                        if (n == dropAt) {
                            drop = drops.submit(() -> {
                                to.dropAndReconnect(chats, from);
                                return null;
                            });
                        }
                    }
                    return drop == null ? null : drop.get(60, TimeUnit.SECONDS);
                }));
            }
            for (var f : flood) {
                f.get(120, TimeUnit.SECONDS);
            }
        } finally {
            pool.shutdownNow();
            drops.shutdownNow();
        }
        try {
            for (int i = 0; i < pairs; i++) {
                Recipient r = recipients.get(i);
                User from = senders.get(i);
                Wait.until(r.user.id() + " holds every message", Duration.ofSeconds(20), () -> r.holds(from) == perSender);
                assertEquals(0, r.pushedTwice, "no connection got a message pushed twice");
                for (User owner : List.of(from, r.user)) {
                    User peer = owner == from ? r.user : from;
                    assertEquals(List.of((long) perSender, (long) perSender, 1L, (long) perSender), timeline(owner, peer),
                            "rows, distinct seqs, min and max seq of " + owner.id() + "'s timeline");
                }
            }
        } finally {
            recipients.forEach(Recipient::bye);
            senderDevices.values().forEach(d -> d.device.bye());
        }
    }

    /** A sending device that may drop its connection right after a send, and sends it again on its next connection. */
    final class Sender {
        final User user;
        volatile WsDevice device;

        Sender(User user) throws Exception {
            this.user = user;
            connect();
        }

        private void connect() throws Exception {
            device = WsDevice.login(baseUrl, user.token(), "android", "storm-sender-" + user.id());
        }

        /** Sends message n (sendId and text "m" + n) and returns its seq from the answer; {@code dropAfter}: sent, dropped unanswered, sent again. */
        long send(User to, int n, boolean dropAfter) throws Exception {
            String fields = "\"op\":\"send\",\"peer\":\"" + to.id() + "\",\"sendId\":\"m" + n
                    + "\",\"msgType\":\"text\",\"body\":{\"text\":\"m" + n + "\"}";
            if (dropAfter) {
                device.sendOpAndDrop("chatOp", fields);
                connect();
            }
            JsonObject answer;
            try {
                answer = device.op("chatOp", fields);
            } catch (RuntimeException | AssertionError e) {
                throw new AssertionError("no answer to message " + n + (dropAfter ? ", sent again after a drop" : "") + ": close "
                        + device.closed.getNow(null) + (device.received("kick") ? ", kicked" : ""), e);
            }
            assertEquals("ok", answer.getString("result"), answer.toString());
            return answer.getJsonNumber("msgSeq").longValue();
        }

        void heartbeat() {
            device.heartbeat();
        }
    }

    /** A recipient device that may drop and log in again; what it holds, by seq, across its connections. */
    final class Recipient {
        final User user;
        final java.util.Set<Long> held = java.util.concurrent.ConcurrentHashMap.newKeySet();
        volatile int pushedTwice;
        final List<WsDevice> connections = new java.util.concurrent.CopyOnWriteArrayList<>();
        /** The seqs pushed to each connection so far. */
        final java.util.Map<WsDevice, java.util.Set<Long>> pushedTo = new java.util.concurrent.ConcurrentHashMap<>();

        Recipient(User user) {
            this.user = user;
        }

        void connect() throws Exception {
            connections.add(WsDevice.login(baseUrl, user.token(), "android", "storm-" + user.id()));
        }

        /** Drops the connection without a close, logs in again and catches up from the highest seq held without a gap. */
        void dropAndReconnect(Chats chats, User peer) throws Exception {
            connections.get(connections.size() - 1).abort();
            collectPushes();
            connect();
            chats.messagesAfter(user, peer, contiguous()).forEach(m -> held.add(m.getJsonNumber("seq").longValue()));
        }

        void heartbeat() {
            try {
                connections.get(connections.size() - 1).heartbeat();
            } catch (RuntimeException e) {
                // dropped just now: the next connection heartbeats
            }
        }

        int holds(User peer) {
            collectPushes();
            return held.size();
        }

        private synchronized void collectPushes() {
            for (WsDevice d : connections) {
                java.util.Set<Long> pushed = pushedTo.computeIfAbsent(d, x -> new java.util.HashSet<>());
                for (JsonObject f; (f = d.frames.poll()) != null; ) {
                    if (f.getString("type").equals("chatMsg")) {
                        long seq = f.getJsonNumber("seq").longValue();
                        if (!pushed.add(seq)) {
                            pushedTwice++;
                        }
                        held.add(seq);
                    }
                }
            }
        }

        private long contiguous() {
            long s = 0;
            while (held.contains(s + 1)) {
                s++;
            }
            return s;
        }

        void bye() {
            for (WsDevice d : connections) {
                try {
                    d.bye();
                } catch (RuntimeException e) {
                    // dropped already
                }
            }
        }
    }

    /** Rows, distinct seqs, lowest and highest seq of the owner's timeline with peer. */
    private static List<Long> timeline(User owner, User peer) throws Exception {
        try (Connection c = Database.connect(); PreparedStatement ps = c.prepareStatement(
                "SELECT count(*), count(DISTINCT seq), min(seq), max(seq) FROM chat_timeline WHERE owner_uid = ? AND peer_uid = ?")) {
            ps.setLong(1, Long.parseLong(owner.id()));
            ps.setLong(2, Long.parseLong(peer.id()));
            try (ResultSet rs = ps.executeQuery()) {
                rs.next();
                return List.of(rs.getLong(1), rs.getLong(2), rs.getLong(3), rs.getLong(4));
            }
        }
    }

    /**
     * docs/protocol.md, "What an acknowledgement moves": the sender's other devices acknowledge the
     * sender's own message, which moves the sender's delivered cursor (the peer hears of it), never
     * the sender's view of the peer's: only a recipient's device makes the message delivered. The
     * recipient is offline until then, so no acknowledgement deadline runs for it.
     */
    @Test
    void theSendersOtherDevicesAcknowledgementsNeverMakeItsMessageDelivered() throws Exception {
        Chats chats = chats();
        User a = chats.roaming();
        User b = chats.roaming();
        WsDevice bPhone = WsDevice.login(baseUrl, b.token(), "android", "b-phone");
        WsDevice bDesk = WsDevice.login(baseUrl, b.token(), "desktop", "b-desk");
        try {
            assertEquals("ok", bPhone.op("chatOp", Chats.textSend(a, "one")).getString("result"));
            chatMsg(bDesk, 1); // b's desk is pushed b's own message and acknowledges it
            Wait.until("b's desk's acknowledgement is stored", DELIVERED_HOLD.plusSeconds(5),
                    () -> chats.existingConversation(a, b).getInt("peerDeliveredSeq") == 1);
            JsonObject ofB = chats.existingConversation(b, a);
            assertEquals(1, ofB.getInt("deliveredSeq"), "b's devices hold 1: " + ofB);
            assertEquals(0, ofB.getInt("peerDeliveredSeq"), "b's own desk did not deliver it to a: " + ofB);

            WsDevice aPhone = WsDevice.login(baseUrl, a.token(), "android", "a-phone");
            try {
                aPhone.ack(b.id(), 1); // a caught up (nothing was pushed to this device) and holds 1
                Wait.until("a's acknowledgement makes b's message delivered", DELIVERED_HOLD.plusSeconds(5),
                        () -> chats.existingConversation(b, a).getInt("peerDeliveredSeq") == 1);
            } finally {
                aPhone.bye();
            }
        } finally {
            bPhone.bye();
            bDesk.bye();
        }
    }
}
