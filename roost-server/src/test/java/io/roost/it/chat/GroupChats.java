package io.roost.it.chat;

import static io.roost.it.Http.json;
import static io.roost.it.Http.okJson;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.roost.it.Http;
import io.roost.it.LogSecrets;
import io.roost.it.TestUsers;
import io.roost.it.TestUsers.User;
import io.roost.it.Wait;
import io.roost.it.WsDevice;
import jakarta.json.JsonObject;
import java.net.URL;
import java.net.http.HttpResponse;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Random;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.TimeUnit;

/**
 * The group and group chat calls the ITs share (one node or two): groups, sends, history, the list, the login race.
 * Its device helpers keep raw frames ({@link WsDevice}): they check which frames a connection was pushed, which the
 * client library hides (it fetches what a gap misses and drops repeats).
 */
public final class GroupChats {

    private final URL base;
    private final Http http;

    public GroupChats(URL base) {
        this.base = base;
        this.http = new Http(base);
    }


    public User user() throws Exception {
        return TestUsers.registerWithoutPassword(base, "gc-", "pad", "p");
    }

    /** A public open group of {@code type} owned by {@code owner}, joined by {@code members}; its id. */
    public String group(User owner, String type, User... members) {
        JsonObject g = okJson(http.post("api/v1/groups", owner.auth(), "{\"name\":\"gc " + Chats.sid() + "\",\"type\":\"" + type + "\"}"));
        String id = g.getString("id");
        join(id, members);
        return id;
    }

    /** {@code members} join the public open group {@code id}. */
    public void join(String id, User... members) {
        for (User m : members) {
            HttpResponse<String> r = http.post("api/v1/groups/" + id + "/join", m.auth(), "{}");
            assertTrue(r.statusCode() / 100 == 2, r.body());
        }
    }

    /** A send over REST with the body's {@code fields} (a fresh sendId added); its answer as it is. */
    public HttpResponse<String> send(User from, String group, String fields) {
        return http.post("api/v1/chat/groups/" + group + "/messages", from.auth(), "{\"sendId\":\"" + Chats.sid() + "\"," + fields + "}");
    }

    /** A text message over REST; its answer. */
    public JsonObject text(User from, String group, String text) {
        LogSecrets.record(text);
        HttpResponse<String> r = send(from, group, "\"type\":\"text\",\"text\":\"" + text + "\"");
        assertEquals(201, r.statusCode(), r.body());
        return json(r);
    }

    JsonObject sync(User reader, String group, long after, int limit) {
        return okJson(http.get("api/v1/chat/groups/" + group + "/sync?after=" + after + "&limit=" + limit, reader.auth()));
    }

    public JsonObject messages(User reader, String group, String query) {
        return okJson(http.get("api/v1/chat/groups/" + group + "/messages" + query, reader.auth()));
    }

    /** The reader's group entry of its conversation list. */
    JsonObject entry(User reader, String group) {
        JsonObject page = okJson(http.get("api/v1/chat/users/me/conversations?limit=100", reader.auth()));
        return page.getJsonArray("items").getValuesAs(JsonObject.class).stream()
                .filter(e -> "group".equals(e.getString("kind")) && group.equals(e.getString("group", null))).findFirst().orElse(null);
    }

    /** The problem type's code of an error answer ({@code muted}, {@code not-member}, ...). */
    public String code(HttpResponse<String> r) {
        return json(r).getString("type").replaceAll(".*:", "");
    }

    /** The seqs of the chatMsg frames of {@code group} a device got so far, in arrival order (also those awaited). */
    public static List<Long> pushedSeqs(WsDevice d, String group) {
        List<Long> seqs = new ArrayList<>();
        for (JsonObject f : List.copyOf(d.history)) {
            if ("chatMsg".equals(f.getString("type")) && group.equals(f.getString("group", null))) {
                seqs.add(f.getJsonNumber("seq").longValue());
            }
        }
        return seqs;
    }

    public static JsonObject awaitGroupMsg(WsDevice d, String group, long seq) throws Exception {
        while (true) {
            JsonObject f = d.await("chatMsg");
            if (group.equals(f.getString("group", null)) && f.getJsonNumber("seq").longValue() == seq) {
                return f;
            }
        }
    }

    /**
     * {@code rounds} times: {@code member} logs in on {@code loginNode} and at once catches up (sync
     * after the last seq it held), as a client does, while {@code owner} sends to the group through
     * this node, each after a random delay. Whichever comes first, the message must be in that
     * catch-up or be pushed to the device afterwards, and never pushed twice. Prints its seed.
     */
    public void loginRacingSends(URL loginNode, User owner, User member, String g, int rounds) throws Exception {
        long seed = Long.getLong("roost.seed", System.nanoTime());
        System.out.println("login racing sends: seed=" + seed + ", rounds=" + rounds);
        Random random = new Random(seed);
        ExecutorService pool = Executors.newFixedThreadPool(2);
        long held = entry(member, g).getJsonNumber("lastSeq").longValue();
        try {
            for (int i = 0; i < rounds; i++) {
                int sendDelay = random.nextInt(30);
                int loginDelay = random.nextInt(30);
                long after = held;
                CompletableFuture<JsonObject> sent = CompletableFuture.supplyAsync(() -> {
                    Wait.sleep(sendDelay);
                    return text(owner, g, "race");
                }, pool);
                CompletableFuture<WsDevice> device = CompletableFuture.supplyAsync(() -> {
                    Wait.sleep(loginDelay);
                    try {
                        return WsDevice.login(loginNode, member.token(), "pad", "p");
                    } catch (Exception e) {
                        throw new IllegalStateException(e);
                    }
                }, pool);
                WsDevice pad = device.get(30, TimeUnit.SECONDS);
                try {
                    // the catch-up right after the login, whether or not the send has committed yet
                    JsonObject sync = pad.op("chatOp", "\"op\":\"sync\",\"group\":\"" + g + "\",\"after\":" + after);
                    Set<Long> fetched = new HashSet<>();
                    sync.getJsonArray("items").getValuesAs(JsonObject.class).forEach(m -> fetched.add(m.getJsonNumber("seq").longValue()));
                    long seq = sent.get(30, TimeUnit.SECONDS).getJsonNumber("seq").longValue();
                    int round = i;
                    if (!fetched.contains(seq)) {
                        Wait.until("round " + round + " (seed " + seed + "): message " + seq + " pushed, as the catch-up did not have it",
                                java.time.Duration.ofSeconds(10), () -> pushedSeqs(pad, g).contains(seq));
                    }
                    assertTrue(pushedSeqs(pad, g).stream().filter(s -> s == seq).count() <= 1, "pushed twice in round " + i);
                    held = seq;
                } finally {
                    pad.bye();
                }
            }
        } finally {
            pool.shutdownNow();
        }
    }
}
