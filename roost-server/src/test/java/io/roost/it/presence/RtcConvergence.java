package io.roost.it.presence;

import static io.roost.it.Http.ADMIN;
import static io.roost.it.Http.okJson;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;

import io.roost.it.Http;
import io.roost.it.Ncs;
import jakarta.json.JsonObject;
import java.net.http.HttpResponse;
import java.util.ArrayList;
import java.util.Collections;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.UUID;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * Property: whatever the duplication and order of delivery, over 16 concurrent connections and any
 * number of nodes, every (channel, uid) ends in the state of its highest-clientSeq event, and the
 * maintained counts equal the online members. Randomized; each round prints its seed.
 */
public final class RtcConvergence {

    static final int[] MEMBER_TYPES = {103, 104, 105, 106, 107, 108, 111, 112};

    private RtcConvergence() {
    }

    /**
     * One round: 150 users' histories over {@code channelCount} channels, each notice delivered 1-3
     * times, scrambled, over 16 connections; delivery i goes to {@code nodes[i % nodes.size()]}.
     * Then every (channel, uid) and each channel's counts are checked on {@code query}'s node.
     */
    public static void round(long seed, int channelCount, List<Ncs> nodes, Http query) throws Exception {
        System.out.println("RtcConvergence seed=" + seed + " (replay with -Droost.seed=" + seed + ")");
        Random random = new Random(seed);
        // a replayed seed on a server that saw it before gets channels and noticeIds of its own
        String prefix = "conv-" + Long.toHexString(seed) + "-" + UUID.randomUUID().toString().substring(0, 6) + "-";
        List<String> channels = new ArrayList<>();
        for (int c = 0; c < channelCount; c++) {
            channels.add(prefix + c);
        }
        // Histories: per user a clientSeq counter; 1-3 channels each; 1-8 events per channel.
        List<Notice> events = new ArrayList<>();
        long ts = System.currentTimeMillis() / 1000;
        int notice = 0;
        for (long uid = 1; uid <= 150; uid++) {
            long seq = random.nextInt(1000);
            List<String> mine = new ArrayList<>(channels);
            Collections.shuffle(mine, random);
            for (String channel : mine.subList(0, 1 + random.nextInt(Math.min(3, channelCount)))) {
                int count = 1 + random.nextInt(8);
                for (int i = 0; i < count; i++) {
                    seq += 1 + random.nextInt(3);
                    int type = MEMBER_TYPES[random.nextInt(MEMBER_TYPES.length)];
                    events.add(new Notice(prefix + "n" + (notice++), type, channel, uid, seq, ts,
                            random.nextInt(10) == 0 ? 1 : null));
                }
            }
        }
        Map<String, Expected> expected = oracle(events);
        // Delivery: each notice 1-3 times, scrambled, over 16 connections.
        List<Notice> deliveries = new ArrayList<>();
        for (Notice e : events) {
            for (int k = 1 + random.nextInt(3); k > 0; k--) {
                deliveries.add(e);
            }
        }
        Collections.shuffle(deliveries, random);
        ExecutorService pool = Executors.newFixedThreadPool(16);
        AtomicInteger next = new AtomicInteger();
        List<Future<Integer>> workers = new ArrayList<>();
        long start = System.nanoTime();
        for (int t = 0; t < 16; t++) {
            workers.add(pool.submit(() -> {
                int failures = 0;
                for (int i; (i = next.getAndIncrement()) < deliveries.size(); ) {
                    Notice e = deliveries.get(i);
                    HttpResponse<String> r = nodes.get(i % nodes.size()).send(Ncs.member(e.noticeId(), e.type(), e.channel(), e.uid(),
                            e.clientSeq(), e.ts(), e.reason()));
                    if (r.statusCode() != 200) {
                        failures++;
                        System.out.println("delivery failed: " + r.statusCode() + " " + r.body());
                    }
                }
                return failures;
            }));
        }
        int failures = 0;
        for (Future<Integer> w : workers) {
            failures += w.get();
        }
        pool.shutdown();
        System.out.printf("seed=%d: %d events, %d deliveries in %.1f s%n", seed, events.size(), deliveries.size(),
                (System.nanoTime() - start) / 1e9);
        assertEquals(0, failures, "every delivery is acknowledged (seed " + seed + ")");

        for (String channel : channels) {
            // any error fails: a channel the server does not know has an empty member list
            Map<Long, JsonObject> actual = new HashMap<>();
            okJson(query.get("api/v1/presence/channels/" + channel + "/members?limit=10000", ADMIN)).getJsonArray("members")
                    .forEach(m -> actual.put(m.asJsonObject().getJsonNumber("uid").longValue(), m.asJsonObject()));
            Map<String, Long> onlineByRole = new HashMap<>();
            for (Map.Entry<String, Expected> x : expected.entrySet()) {
                if (!x.getKey().startsWith(channel + "/")) {
                    continue;
                }
                long uid = Long.parseLong(x.getKey().substring(channel.length() + 1));
                Expected want = x.getValue();
                JsonObject got = actual.remove(uid);
                String where = " (seed " + seed + ", " + channel + ", uid " + uid + ")";
                if (got == null) {
                    // Only a tombstone may be gone (the retention sweep removed it).
                    assertFalse(want.online(), "missing online member" + where);
                    continue;
                }
                assertEquals(want.online(), got.getBoolean("online"), "online" + where);
                assertEquals(want.role(), got.getString("role"), "role" + where);
                assertEquals(want.clientSeq(), got.getJsonNumber("clientSeq").longValue(), "clientSeq" + where);
                assertEquals(want.lastEventType(), got.getInt("lastEventType"), "lastEventType" + where);
                assertEquals(want.leaveReason(), got.containsKey("leaveReason") && !got.isNull("leaveReason")
                        ? Integer.valueOf(got.getInt("leaveReason")) : null, "leaveReason" + where);
                if (want.online()) {
                    onlineByRole.merge(want.role(), 1L, Long::sum);
                }
            }
            assertEquals(Map.of(), actual, "no members beyond the oracle's (seed " + seed + ")");
            HttpResponse<String> r = query.get("api/v1/presence/channels/" + channel, ADMIN);
            if (r.statusCode() == 404) {
                // the sweep forgets a channel with its last row, so only a channel of tombstones may be gone
                assertEquals(Map.of(), onlineByRole, "a channel with members online is unknown (seed " + seed + ", " + channel + ")");
                continue;
            }
            JsonObject counts = okJson(r).getJsonObject("online");
            assertEquals(onlineByRole.getOrDefault("BROADCASTER", 0L), counts.getJsonNumber("broadcasters").longValue(), "count " + channel);
            assertEquals(onlineByRole.getOrDefault("AUDIENCE", 0L), counts.getJsonNumber("audience").longValue(), "count " + channel);
            assertEquals(onlineByRole.getOrDefault("COMMUNICATION", 0L), counts.getJsonNumber("communication").longValue(),
                    "count " + channel);
        }
    }

    /** A member notice of a round, as NCS sends it. */
    record Notice(String noticeId, int type, String channel, long uid, long clientSeq, long ts, Integer reason) {
    }

    /** What one (channel, uid) must end as. */
    record Expected(boolean online, String role, long clientSeq, int lastEventType, Integer leaveReason) {
    }

    /**
     * The rules as docs/architecture.md states them, written here without the production code's
     * help: per (channelName, uid) an event applies only if its clientSeq is greater than the row's,
     * and the first one creates the row whatever it is, so once every notice has arrived the row is
     * the event with the highest clientSeq (a round has no channel destroy). Joins (103, 105, 107)
     * and role changes (111 to broadcaster, 112 to audience) are online, leaves (104, 106, 108)
     * offline; the role is the one the event names, a leave's the role left with; a leave keeps its
     * reason.
     */
    static Map<String, Expected> oracle(List<Notice> events) {
        Map<String, Notice> last = new HashMap<>();
        for (Notice e : events) {
            last.merge(e.channel() + "/" + e.uid(), e, (a, b) -> b.clientSeq() > a.clientSeq() ? b : a);
        }
        Map<String, Expected> expected = new HashMap<>();
        last.forEach((member, e) -> {
            boolean online = switch (e.type()) {
                case 103, 105, 107, 111, 112 -> true;
                case 104, 106, 108 -> false;
                default -> throw new IllegalArgumentException("not a member event: " + e.type());
            };
            String role = switch (e.type()) {
                case 103, 104, 111 -> "BROADCASTER";
                case 105, 106, 112 -> "AUDIENCE";
                default -> "COMMUNICATION";
            };
            expected.put(member, new Expected(online, role, e.clientSeq(), e.type(), online ? null : e.reason()));
        });
        return expected;
    }
}
