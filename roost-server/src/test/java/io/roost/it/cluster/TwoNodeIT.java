package io.roost.it.cluster;

import static io.roost.it.Http.ADMIN;
import static io.roost.it.Http.json;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.roost.devservices.DevServices;
import io.roost.it.AgoraStub;
import io.roost.it.DeadlockLog;
import io.roost.it.Http;
import io.roost.it.LoginLog;
import io.roost.it.Ncs;
import io.roost.it.Routes;
import io.roost.it.Social;
import io.roost.it.TestUsers;
import io.roost.it.TestUsers.User;
import io.roost.it.TopicEvents;
import io.roost.it.Wait;
import io.roost.it.WsDevice;
import io.roost.it.chat.Chats;
import io.roost.it.cluster.ClusterNodes.Node;
import io.roost.it.presence.RtcConvergence;
import jakarta.json.JsonArray;
import jakarta.json.JsonObject;
import java.net.URI;
import java.net.URL;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
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
import org.junit.jupiter.api.MethodOrderer;
import org.junit.jupiter.api.Order;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestMethodOrder;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * Two nodes on one PostgreSQL and one RocketMQ ({@link ClusterNodes}): what a device, a back end or
 * Agora does on one node takes effect on the other (kicks, chat and receipts, the unreachable
 * repair, RTC presence, friend requests and contact presence, the admin overview), both nodes' send
 * writers commit into the same conversations without a gap or a duplicate, cluster-wide timer work
 * is done once, and the loss of a node takes its devices offline within the documented bound. Node
 * one logs JSON (ROOST_LOG_FORMAT=json), node zero text. The node kill runs last.
 */
@TestMethodOrder(MethodOrderer.OrderAnnotation.class)
class TwoNodeIT {

    @RegisterExtension
    @Order(1)
    static final ClusterNodes cluster = new ClusterNodes(2, Map.of(1, Map.of("ROOST_LOG_FORMAT", "json")));

    @RegisterExtension
    @Order(2)
    static final AgoraStub agora = new AgoraStub();

    /** The roost-offline-push events, by recipient. */
    @RegisterExtension
    @Order(3)
    static final TopicEvents offlinePushes = new TopicEvents("roost-offline-push", "recipient");

    static URL zero() {
        return cluster.node(0).url();
    }

    static URL one() {
        return cluster.node(1).url();
    }

    static JsonObject presence(URL node, String uid) {
        var r = new Http(node).get("api/v1/presence/users/" + uid, ADMIN);
        assertEquals(200, r.statusCode(), r.body());
        return json(r);
    }

    static List<JsonObject> logins(URL node, String uid) {
        var r = new Http(node).get("api/v1/presence/users/" + uid + "/logins", ADMIN);
        assertEquals(200, r.statusCode(), r.body());
        return Http.jsonArray(r.body()).stream().map(JsonObject.class::cast).toList();
    }

    @Test
    @Order(1)
    void aLoginOnOneNodeKicksTheSameDeviceTypeOnTheOtherAndPresenceSaysSoOnBoth() throws Exception {
        User user = TestUsers.create(zero(), "cl-kick-");
        WsDevice old = WsDevice.login(zero(), user.token(), "android", "phone-old");
        WsDevice tablet = WsDevice.login(zero(), user.token(), "ios", "ipad");
        WsDevice fresh = WsDevice.login(one(), user.token(), "android", "phone-new");
        JsonObject kick = old.await("kick");
        assertEquals("replaced_by_new_login", kick.getString("reason"), kick.toString());
        assertEquals(1008, old.closeCode());
        tablet.heartbeat();
        tablet.await("heartbeat");
        for (URL node : List.of(zero(), one())) {
            JsonArray devices = presence(node, user.id()).getJsonArray("devices");
            assertEquals(2, devices.size(), devices.toString());
            JsonObject android = devices.stream().map(JsonObject.class::cast)
                    .filter(d -> d.getString("deviceType").equals("android")).findFirst().orElseThrow();
            assertEquals("phone-new", android.getString("deviceId"));
            assertEquals(cluster.node(1).id(), android.getInt("node"), "the route names the node holding the connection");
        }
        LoginLog.await(zero(), user.id(), List.of("kick", "login"));
        fresh.bye();
        tablet.bye();
    }

    @Test
    @Order(2)
    void aMessageFromNodeZeroIsPushedOnNodeOneAndItsReceiptsComeBack() throws Exception {
        Chats chats = new Chats(zero());
        User a = chats.roaming();
        User b = chats.roaming();
        WsDevice aPhone = WsDevice.login(zero(), a.token(), "android", "a-phone");
        WsDevice bPhone = WsDevice.login(one(), b.token(), "android", "b-phone");
        try {
            JsonObject sent = aPhone.op("chatOp", Chats.textSend(b, "across"));
            assertEquals("ok", sent.getString("result"), sent.toString());
            JsonObject pushed = bPhone.await("chatMsg"); // WsDevice acknowledges it, as a client must
            assertEquals(a.id(), pushed.getString("from"));
            assertEquals("across", pushed.getJsonObject("body").getString("text"), pushed.toString());
            JsonObject delivered = aPhone.await("chatReceipt");
            assertEquals("delivered", delivered.getString("kind"), delivered.toString());
            assertEquals(b.id(), delivered.getString("peer"));
            assertEquals(1, delivered.getInt("seq"));

            JsonObject read = bPhone.op("chatOp", "\"op\":\"read\",\"peer\":\"" + a.id() + "\",\"readSeq\":1");
            assertEquals("ok", read.getString("result"), read.toString());
            JsonObject readReceipt = aPhone.await("chatReceipt");
            assertEquals("read", readReceipt.getString("kind"), readReceipt.toString());
            assertEquals(1, readReceipt.getInt("seq"));
            assertEquals(1, new Chats(one()).conversation(a, b).getInt("peerReadSeq"), "the same on the other node");
        } finally {
            aPhone.bye();
            bPhone.bye();
        }
    }

    @Test
    @Order(3)
    void aRouteToAConnectionNodeOneDoesNotHaveIsRepairedThereAndTheMessageGoesOffline() throws Exception {
        Chats chats = new Chats(zero());
        User a = chats.user();
        User b = chats.user();
        String ghost = "ghost-" + b.id();
        Routes.ghost(b.id(), cluster.node(1).id(), ghost);
        chats.sendText(a, b, "anyone home");
        Wait.until("node 1 repairs the stale route", Duration.ofSeconds(10), () -> !Routes.exists(ghost));
        LoginLog.await(zero(), b.id(), List.of("unreachable"));
        JsonObject repair = logins(zero(), b.id()).stream().filter(e -> e.getString("event").equals("unreachable"))
                .findFirst().orElseThrow();
        assertEquals(cluster.node(1).id(), repair.getInt("node"), "repaired by the node the route named: " + repair);
        JsonObject push = offlinePushes.events(b.id()).poll(20, TimeUnit.SECONDS);
        assertNotNull(push, "no offline push for " + b.id());
        assertEquals(1, push.getInt("count"), push.toString());
    }

    /**
     * Both nodes' send writers commit into the same conversations at once: eight threads, four per
     * node, send 40 messages each over REST in the six conversations of four users, both ways, and
     * every fifth sendId goes to both nodes at the same moment (a client retrying on the other
     * node). Each conversation ends with seqs 1..n on both sides, the same message at each seq, n
     * the number of sendIds sent in it; a sendId sent twice is stored once, one node answering 201
     * and the other 200 with the same answer; and PostgreSQL detected no deadlock between the two
     * writers. (The lock order itself is checked where it can be made to fail every time:
     * ChatInContainerIT holds a conversation row while two batches meet.)
     */
    @Test
    @Order(4)
    void bothNodesWritingIntoTheSameConversationsEndGapFreeIdenticalAndStoreEachSendIdOnce() throws Exception {
        long seed = Long.getLong("roost.seed", System.nanoTime());
        System.out.println("TwoNodeIT seed=" + seed);
        List<Chats> nodes = List.of(new Chats(zero()), new Chats(one()));
        List<User> users = new ArrayList<>();
        for (int i = 0; i < 4; i++) {
            users.add(nodes.get(0).user());
        }
        DeadlockLog deadlocks = DeadlockLog.watch();
        int threads = 8;
        int perThread = 40;
        ExecutorService pool = Executors.newFixedThreadPool(2 * threads);
        CountDownLatch start = new CountDownLatch(1);
        List<Future<Map<String, JsonObject>>> sent = new ArrayList<>();
        try {
            for (int t = 0; t < threads; t++) {
                Chats mine = nodes.get(t % 2);
                Chats other = nodes.get(1 - t % 2);
                Random random = new Random(seed + t);
                int thread = t;
                sent.add(pool.submit(() -> {
                    start.await();
                    Map<String, JsonObject> answers = new HashMap<>(); // by "from to sendId"
                    for (int i = 0; i < perThread; i++) {
                        User from = users.get(random.nextInt(users.size()));
                        User to = users.get((users.indexOf(from) + 1 + random.nextInt(users.size() - 1)) % users.size());
                        String sendId = Chats.sid();
                        String text = "t" + thread + "-" + i;
                        if (i % 5 == 0) {
                            Future<HttpResponse<String>> twin = pool.submit(() -> other.postText(from, to, sendId, text));
                            HttpResponse<String> here = mine.postText(from, to, sendId, text);
                            HttpResponse<String> there = twin.get(60, TimeUnit.SECONDS);
                            assertEquals(Set.of(200, 201), Set.of(here.statusCode(), there.statusCode()),
                                    "one node stores a sendId sent to both, the other answers it: " + here.body() + " / " + there.body());
                            assertEquals(json(here), json(there), "both answers name the one stored message");
                            answers.put(from.id() + " " + to.id() + " " + sendId, json(here));
                        } else {
                            answers.put(from.id() + " " + to.id() + " " + sendId, mine.sendText(from, to, sendId, text));
                        }
                    }
                    return answers;
                }));
            }
            start.countDown();
            Map<Set<String>, Map<Long, String>> answeredByConversation = new HashMap<>(); // seq -> msgId
            int answered = 0;
            for (Future<Map<String, JsonObject>> f : sent) {
                for (Map.Entry<String, JsonObject> e : f.get(120, TimeUnit.SECONDS).entrySet()) {
                    String[] key = e.getKey().split(" ");
                    String previous = answeredByConversation.computeIfAbsent(Set.of(key[0], key[1]), k -> new HashMap<>())
                            .put(e.getValue().getJsonNumber("seq").longValue(), e.getValue().getString("msgId"));
                    assertNull(previous, "two sendIds answered with one seq (seed " + seed + "): " + e);
                    answered++;
                }
            }
            assertEquals(threads * perThread, answered);
            for (int i = 0; i < users.size(); i++) {
                for (int j = i + 1; j < users.size(); j++) {
                    User a = users.get(i);
                    User b = users.get(j);
                    Map<Long, String> expected = answeredByConversation.getOrDefault(Set.of(a.id(), b.id()), Map.of());
                    for (User owner : List.of(a, b)) {
                        List<JsonObject> timeline = nodes.get(1).messagesAfter(owner, owner == a ? b : a, 0);
                        Map<Long, String> stored = new HashMap<>();
                        for (int k = 0; k < timeline.size(); k++) {
                            assertEquals(k + 1, timeline.get(k).getJsonNumber("seq").longValue(), "gap-free from 1 (seed " + seed + ")");
                            stored.put((long) k + 1, timeline.get(k).getString("msgId"));
                        }
                        assertEquals(expected, stored, owner.id() + "'s timeline with the peer is what the answers said (seed " + seed + ")");
                    }
                }
            }
        } finally {
            pool.shutdownNow();
        }
        assertEquals(List.of(), deadlocks.detected(), "deadlocks PostgreSQL detected between the two writers (seed " + seed + ")");
    }

    @Test
    @Order(5)
    void agoraNotificationsOfOneChannelSpreadOverBothNodesEndExact() throws Exception {
        long seed = Long.getLong("roost.seed", System.nanoTime());
        RtcConvergence.round(seed, 1, List.of(ncs(zero()), ncs(one())), new Http(one()));
    }

    @Test
    @Order(6)
    void abnormalLeavesAreKickedOnceWhileBothNodesRunTheKicker() throws Exception {
        List<String> channels = new ArrayList<>();
        long ts = System.currentTimeMillis() / 1000;
        for (int i = 0; i < 10; i++) {
            String channel = "cl-kick-" + UUID.randomUUID().toString().substring(0, 12);
            channels.add(channel);
            // the join on one node, the 999 leave on the other, and NCS's duplicate of it on the first
            assertEquals(200, ncs(zero()).send(Ncs.member(channel + "-1", 103, channel, 77, 1, ts, null)).statusCode());
            assertEquals(200, ncs(one()).send(Ncs.member(channel + "-2", 104, channel, 77, 2, ts, 999)).statusCode());
            assertEquals(200, ncs(zero()).send(Ncs.member(channel + "-2", 104, channel, 77, 2, ts, 999)).statusCode());
        }
        for (String channel : channels) {
            Wait.until("kick of " + channel + " DONE", Duration.ofSeconds(30), () -> {
                JsonArray kicks = json(new Http(one()).get("api/v1/presence/channels/" + channel + "/kicks", ADMIN)).getJsonArray("kicks");
                return kicks.size() == 1 && kicks.getJsonObject(0).getString("status").equals("DONE");
            });
        }
        // A second call could only come from the other node's kicker leasing the same attempt at the
        // same time (a lease moves due_at 30 s on; a DONE kick is never leased again), and a tick makes
        // its calls right after its lease. So every tick that was running when the last kick was seen
        // DONE has made its calls within one kicker period (1 s); half a period more for a loaded box.
        Thread.sleep(1_500);
        for (String channel : channels) {
            assertEquals(1, agora.kicksOf(channel).size(), "one call to Agora for " + channel + ": " + agora.kicksOf(channel));
            JsonObject kick = json(new Http(zero()).get("api/v1/presence/channels/" + channel + "/kicks", ADMIN))
                    .getJsonArray("kicks").getJsonObject(0);
            assertEquals(1, kick.getInt("attempts"), kick.toString());
        }
    }

    @Test
    @Order(7)
    void theAdminOverviewShowsBothNodesWithTheirConnections() throws Exception {
        User user = TestUsers.create(zero(), "cl-admin-");
        WsDevice device = WsDevice.login(one(), user.token(), "web", "admin-view");
        try {
            for (URL node : List.of(zero(), one())) {
                JsonArray nodes = json(new Http(node).get("api/v1/admin/overview", ADMIN)).getJsonArray("nodes");
                for (Node n : cluster.nodes()) {
                    JsonObject row = nodes.stream().map(JsonObject.class::cast).filter(r -> r.getInt("id") == n.id())
                            .findFirst().orElseThrow(() -> new AssertionError("node " + n.id() + " missing: " + nodes));
                    assertTrue(row.getBoolean("alive"), row.toString());
                    assertTrue(row.getString("address").endsWith("/" + n.jvm().orElseThrow().pid()), row.toString());
                    assertNotNull(row.getString("lastHeartbeat"), row.toString());
                }
                JsonObject mine = nodes.stream().map(JsonObject.class::cast).filter(r -> r.getInt("id") == cluster.node(1).id())
                        .findFirst().orElseThrow();
                assertTrue(mine.getInt("connections") >= 1, mine.toString());
            }
        } finally {
            device.bye();
        }
    }

    @Test
    @Order(8)
    void aFriendRequestAndContactPresenceCrossNodes() throws Exception {
        User alice = TestUsers.register(zero(), "cl-cp-");
        User bob = TestUsers.register(zero(), "cl-cp-");
        WsDevice aliceWeb = WsDevice.login(zero(), TestUsers.login(zero(), alice.name(), TestUsers.PASSWORD, "web", "web-1"), "web", "web-1");
        WsDevice bobWeb = WsDevice.login(one(), TestUsers.login(one(), bob.name(), TestUsers.PASSWORD, "web", "web-1"), "web", "web-1");
        Social.befriend(alice, aliceWeb, bob, bobWeb, "hi Bob"); // the request and its answer cross nodes
        // Alice's phone logs in on node 0: Bob, on node 1, hears it
        WsDevice alicePhone = WsDevice.login(zero(), TestUsers.login(zero(), alice.name(), TestUsers.PASSWORD, "android", "a-1"),
                "android", "a-1");
        JsonObject up = bobWeb.await("presence");
        assertEquals(alice.id(), up.getString("uid"));
        assertEquals(2, up.getJsonArray("devices").size(), up.toString());
        alicePhone.bye();
        aliceWeb.bye();
        bobWeb.bye();
    }

    /**
     * Node 1 is killed (SIGKILL) with a device on it: node 0 expires its routes once its heartbeat is
     * older than the node timeout (checked every 5 s), the device shows offline with {@code node_lost} in its login
     * log, and it logs in again on node 0 as a reconnecting client does.
     */
    /** The nodes' ROOST_NODE_TIMEOUT (the pom's cluster execution sets it short). */
    /**
     * Group fan-out node by node: a group whose online members are all on node 0 is published by
     * node 0 only, and node 1 receives nothing for it; a group with members on both nodes reaches
     * both, each node writing to its own connections.
     */
    @Test
    @Order(9)
    void aGroupMessageGoesOnlyToTheNodesHoldingItsOnlineMembers() throws Exception {
        io.roost.it.chat.GroupChats groups = new io.roost.it.chat.GroupChats(zero());
        User owner = TestUsers.create(zero(), "cl-g-");
        User here = TestUsers.create(zero(), "cl-g-");
        User there = TestUsers.create(zero(), "cl-g-");
        String local = groups.group(owner, "chat", here);
        String spread = groups.group(owner, "chat", here, there);
        java.util.concurrent.BlockingQueue<String> toNodeOne = new java.util.concurrent.LinkedBlockingQueue<>();
        org.apache.rocketmq.client.consumer.DefaultMQPushConsumer probe = new org.apache.rocketmq.client.consumer.DefaultMQPushConsumer(
                "roost-it-deliveries-probe-" + System.nanoTime());
        probe.setNamesrvAddr(System.getProperty("roost.test.namesrv"));
        probe.setConsumeFromWhere(org.apache.rocketmq.common.consumer.ConsumeFromWhere.CONSUME_FROM_LAST_OFFSET);
        probe.subscribe("roost-deliveries", "node-" + cluster.node(1).id());
        probe.registerMessageListener((org.apache.rocketmq.client.consumer.listener.MessageListenerConcurrently) (messages, context) -> {
            messages.forEach(m -> toNodeOne.add(new String(m.getBody(), java.nio.charset.StandardCharsets.UTF_8)));
            return org.apache.rocketmq.client.consumer.listener.ConsumeConcurrentlyStatus.CONSUME_SUCCESS;
        });
        probe.start();
        WsDevice herePad = WsDevice.login(zero(), here.token(), "android", "g-here");
        WsDevice therePad = WsDevice.login(one(), there.token(), "android", "g-there");
        try (java.sql.Connection db = io.roost.it.Database.connect()) {
            assertEquals(List.of((long) cluster.node(0).id()), nodesOf(db, local), "only node 0 holds a member of it");
            assertEquals(List.of((long) cluster.node(0).id(), (long) cluster.node(1).id()), nodesOf(db, spread));
            // the probe sees node 1's traffic from here on: a message to the spread group proves it listens
            long probeSeq = groups.text(owner, spread, "probe").getJsonNumber("seq").longValue();
            io.roost.it.chat.GroupChats.awaitGroupMsg(therePad, spread, probeSeq);
            io.roost.it.Wait.until("the probe consumer gets node 1's frames", java.time.Duration.ofSeconds(30),
                    () -> toNodeOne.stream().anyMatch(b -> b.contains("\"g\":" + spread)));
            long localSeq = groups.text(owner, local, "only here").getJsonNumber("seq").longValue();
            long spreadSeq = groups.text(owner, spread, "everywhere").getJsonNumber("seq").longValue();
            io.roost.it.chat.GroupChats.awaitGroupMsg(herePad, local, localSeq);
            io.roost.it.chat.GroupChats.awaitGroupMsg(herePad, spread, spreadSeq);
            io.roost.it.chat.GroupChats.awaitGroupMsg(therePad, spread, spreadSeq);
            io.roost.it.Wait.until("node 1's frame of the later message", java.time.Duration.ofSeconds(30),
                    () -> toNodeOne.stream().anyMatch(b -> b.contains("\"g\":" + spread + ",\"s\":" + spreadSeq)));
            assertTrue(toNodeOne.stream().noneMatch(b -> b.contains("\"g\":" + local + ",")), "node 1 got nothing for the group it holds no member of");
        } finally {
            probe.shutdown();
            herePad.bye();
            therePad.bye();
        }
    }

    static List<Long> nodesOf(java.sql.Connection db, String group) throws java.sql.SQLException {
        List<Long> nodes = new java.util.ArrayList<>();
        try (var ps = db.prepareStatement("SELECT node_id FROM group_chat_node WHERE group_id = ? ORDER BY node_id")) {
            ps.setLong(1, Long.parseLong(group));
            try (var rs = ps.executeQuery()) {
                while (rs.next()) {
                    nodes.add(rs.getLong(1));
                }
            }
        }
        return nodes;
    }

    /** The login-versus-send race with the sender's node and the member's node apart. */
    @Test
    @Order(10)
    void aMemberLoggingInOnOneNodeWhileAMessageIsSentThroughTheOtherGetsIt() throws Exception {
        io.roost.it.chat.GroupChats groups = new io.roost.it.chat.GroupChats(zero());
        User owner = TestUsers.create(zero(), "cl-gr-");
        User member = TestUsers.registerWithoutPassword(zero(), "cl-gr-", "pad", "p");
        String g = groups.group(owner, "chat", member);
        groups.loginRacingSends(one(), owner, member, g, Integer.getInteger("roost.group.race.rounds.cluster", 150));
    }

    /**
     * While the broker is down, a message for a device on the other node cannot be forwarded: it is
     * held on the sending node, not dropped, and reaches the device once the broker is back.
     * A dropped one would leave the device a gap it could acknowledge nothing past, and it would be
     * ended as not acknowledging.
     */
    @Test
    @Order(11)
    void messagesForTheOtherNodeWhileTheBrokerIsDownArriveOnceItIsBack() throws Exception {
        java.nio.file.Path devServices = java.nio.file.Path.of(System.getProperty("roost.test.data", "target/devservices"));
        Chats chats = new Chats(zero());
        User a = chats.roaming();
        User b = chats.roaming();
        WsDevice aPhone = WsDevice.login(zero(), a.token(), "android", "a-phone");
        WsDevice bPhone = WsDevice.login(one(), b.token(), "android", "b-phone");
        try {
            assertEquals("ok", aPhone.op("chatOp", Chats.textSend(b, "before")).getString("result"));
            assertEquals(1, bPhone.await("chatMsg").getInt("seq"));
            int during = 5;
            DevServices.broker(devServices, false);
            try {
                for (int i = 1; i <= during; i++) {
                    JsonObject sent = aPhone.op("chatOp", Chats.textSend(b, "during " + i));
                    assertEquals("ok", sent.getString("result"), "a send needs no broker: " + sent);
                }
            } finally {
                DevServices.broker(devServices, true);
            }
            // stopping the broker takes seconds: the devices say they are alive meanwhile
            aPhone.heartbeat();
            bPhone.heartbeat();
            // the node holds them in order; the broker's queues may hand them over in another (the device sorts by seq)
            Set<Integer> seqs = new java.util.TreeSet<>();
            for (int i = 0; i < during; i++) {
                JsonObject pushed = bPhone.await("chatMsg");
                assertFalse(pushed.getBoolean("again", false), "pushed once, acknowledged in time: " + pushed);
                seqs.add(pushed.getInt("seq"));
            }
            assertEquals(Set.of(2, 3, 4, 5, 6), seqs, "every message of the outage, none twice");
            assertEquals("ok", aPhone.op("chatOp", Chats.textSend(b, "after")).getString("result"));
            assertEquals(2 + during, bPhone.await("chatMsg").getInt("seq"), "and the next one straight through again");
            assertFalse(bPhone.received("kick"), "b's session went on");
        } finally {
            aPhone.bye();
            bPhone.bye();
        }
    }

    static final long NODE_TIMEOUT_SECONDS = Long.getLong("roost.test.node.timeout.seconds", 30);

    /**
     * Node one, started with ROOST_LOG_FORMAT=json: every line of its server.json is a JSON object
     * with its node id, the lines of a request carry the request's id in their MDC, and its console
     * speaks JSON too once its logging subsystem is up; node zero's log is text.
     */
    @Test
    @Order(11)
    void nodeOneLogsJsonLinesWithItsNodeIdAndEachRequestsId() throws Exception {
        String id = "json-" + UUID.randomUUID();
        HttpResponse<String> refused = new Http(one()).get("api/v1/admin/metrics?range=1y", ADMIN, Map.of("X-Request-Id", id));
        assertEquals(400, refused.statusCode(), refused.body());
        Path jsonLog = cluster.node(1).base().resolve("log/server.json");
        Wait.until("node one's JSON line of request " + id, Duration.ofSeconds(20), () -> Files.readString(jsonLog).contains(id));
        List<JsonObject> lines = Files.readAllLines(jsonLog).stream().map(Http::json).toList(); // each line parses
        String nodeId = Integer.toString(cluster.node(1).id());
        assertTrue(lines.size() > 20 && lines.stream().allMatch(l -> nodeId.equals(l.getString("node", null))), "node " + nodeId
                + " on every one of " + lines.size() + " lines");
        JsonObject answered = lines.stream().filter(l -> id.equals(l.getJsonObject("mdc").getString("requestId", null)))
                .findFirst().orElseThrow();
        assertTrue(answered.getString("message").contains("urn:roost:problem:invalid-range"), answered.toString());
        assertEquals("FINE", answered.getString("level"), answered.toString()); // DEBUG, as java.util.logging names it
        assertTrue(cluster.node(1).log().lines().filter(l -> l.startsWith("{")).map(Http::json)
                .anyMatch(l -> l.getString("message").contains("WFLYSRV0025")), "the console's started line, as JSON");

        new Http(zero()).get("api/v1/admin/metrics?range=1y", ADMIN, Map.of("X-Request-Id", id + "-text"));
        Path textLog = cluster.node(0).base().resolve("log/server.log");
        Wait.until("node zero's text line of request " + id, Duration.ofSeconds(20), () -> Files.readString(textLog).contains(id + "-text"));
        assertFalse(Files.readString(textLog).contains("{\"timestamp\""), "node zero logs text");
    }

    /** A node started without ROOST_METRICS_AUTH keeps its metrics behind the management realm. */
    @Test
    @Order(12)
    void eachNodesMetricsNeedTheManagementRealmsCredentials() throws Exception {
        for (int node = 0; node < 2; node++) {
            URI metrics = URI.create("http://127.0.0.1:" + (cluster.node(node).url().getPort() - 8080 + 9990) + "/metrics"); // management = http - 8080 + 9990
            HttpResponse<String> r = HttpClient.newHttpClient().send(HttpRequest.newBuilder(metrics).build(), HttpResponse.BodyHandlers.ofString());
            assertEquals(401, r.statusCode(), "node " + node + ": " + r.body());
            assertFalse(r.body().contains("roost_"), "no meter without credentials");
        }
    }

    @Test
    @Order(100)
    void whenNodeOneDiesItsDevicesGoOfflineWithinTheBoundAndLogInAgainOnNodeZero() throws Exception {
        User user = TestUsers.create(zero(), "cl-loss-");
        WsDevice device = WsDevice.login(one(), user.token(), "android", "phone");
        assertTrue(presence(zero(), user.id()).getBoolean("online"));
        cluster.node(1).kill();
        long killed = System.nanoTime();
        Wait.until("node 1's device offline", Duration.ofSeconds(NODE_TIMEOUT_SECONDS + 15),
                () -> !presence(zero(), user.id()).getBoolean("online"));
        long seconds = TimeUnit.NANOSECONDS.toSeconds(System.nanoTime() - killed);
        System.out.println("TwoNodeIT: node 1's device went offline " + seconds + " s after the kill");
        // its last heartbeat was at most 5 s before the kill (the heartbeat period), and a second of slack
        assertTrue(seconds >= NODE_TIMEOUT_SECONDS - 6, "not before the node's heartbeat was " + NODE_TIMEOUT_SECONDS
                + " s old (heartbeats every 5 s): " + seconds + " s");
        LoginLog.await(zero(), user.id(), List.of("node_lost"));
        assertTrue(device.closeCode() != 0);
        WsDevice again = WsDevice.login(zero(), user.token(), "android", "phone");
        assertEquals(cluster.node(0).id(), presence(zero(), user.id()).getJsonArray("devices").getJsonObject(0).getInt("node"));
        assertFalse(logins(zero(), user.id()).isEmpty());
        again.bye();
    }

    /**
     * Node 0 (the last one left) drains: a bad spread changes nothing; then the load balancer's
     * check says it serves no more, a send in flight is answered before the device is told to
     * reconnect ({@code kick} server_shutdown, close 1012), a new connection is sent away the same
     * way, the login log says why, and the drain reports done once no connection is left.
     */
    @Test
    @Order(200)
    void aDrainingNodeAnswersWhatItBeganThenSendsItsDevicesAwayAndTakesNoNewOnes() throws Exception {
        Http http = new Http(zero());
        HttpResponse<String> bad = http.post("api/v1/gateway/drain", ADMIN, "{\"spreadSeconds\":601}");
        assertEquals(400, bad.statusCode(), bad.body());
        assertTrue(bad.body().contains("invalid-spread"), bad.body());
        assertEquals(200, http.get("api/health/serving", null).statusCode(), "a bad request changes nothing");
        assertFalse(json(http.get("api/v1/gateway/drain", ADMIN)).getBoolean("draining"));

        Chats chats = new Chats(zero());
        User a = chats.roaming();
        User b = chats.roaming();
        WsDevice aPhone = WsDevice.login(zero(), a.token(), "android", "a-phone");
        aPhone.send("{\"v\":1,\"type\":\"chatOp\",\"seq\":\"in-flight\"," + Chats.textSend(b, "just before the drain") + "}");
        HttpResponse<String> drain = http.post("api/v1/gateway/drain", ADMIN, "{\"spreadSeconds\":0}");
        assertEquals(202, drain.statusCode(), drain.body());
        assertTrue(json(drain).getBoolean("draining"));

        JsonObject answer = aPhone.next();
        while (!answer.getString("type").equals("chatOpRet") && !answer.getString("type").equals("error")) {
            answer = aPhone.next();
        }
        boolean stored = answer.getString("type").equals("chatOpRet");
        if (stored) {
            assertEquals("ok", answer.getString("result"), answer.toString());
        } else {
            assertEquals("server-shutdown", answer.getString("code"), "refused, to send again elsewhere: " + answer);
        }
        if (stored) {
            assertEquals(1, chats.messagesAfter(a, b, 0).size(), "stored, as answered");
        } else {
            assertNull(chats.conversation(a, b), "refused, so not stored");
        }
        JsonObject kick = aPhone.await("kick");
        assertEquals("server_shutdown", kick.getString("reason"), "after the answer: " + kick);
        assertEquals(1012, aPhone.closeCode());
        LoginLog.await(zero(), a.id(), List.of("kick", "login"));

        HttpResponse<String> serving = http.get("api/health/serving", null);
        assertEquals(404, serving.statusCode(), "the load balancer's check: no new connections");
        assertTrue(serving.body().contains("draining"), serving.body());
        assertEquals(200, http.get("api/health", null).statusCode(), "what it reaches is unchanged");

        WsDevice late = WsDevice.connect(zero());
        late.sendHello("android", "late-phone");
        assertEquals("server_shutdown", late.await("kick").getString("reason"));
        assertEquals(1012, late.closeCode());
        Wait.until("the drain done", Duration.ofSeconds(20), () -> json(http.get("api/v1/gateway/drain", ADMIN)).getBoolean("done"));
    }

    private static Ncs ncs(URL node) throws Exception {
        return new Ncs(URI.create(node.toString()));
    }
}
