package io.roost.it.presence;

import static io.roost.it.Http.ADMIN;
import static io.roost.it.Http.json;
import static org.junit.jupiter.api.Assertions.assertEquals;

import io.roost.it.Http;
import io.roost.it.Ncs;
import io.roost.presence.rtc.MemberTransitions;
import io.roost.presence.rtc.NcsNotice;
import io.roost.presence.rtc.RtcRole;
import jakarta.json.JsonObject;
import java.net.http.HttpResponse;
import java.util.ArrayList;
import java.util.Collections;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Random;
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
        String prefix = "conv-" + Long.toHexString(seed) + "-";
        List<String> channels = new ArrayList<>();
        for (int c = 0; c < channelCount; c++) {
            channels.add(prefix + c);
        }
        // Histories: per user a clientSeq counter; 1-3 channels each; 1-8 events per channel.
        List<NcsNotice> events = new ArrayList<>();
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
                    events.add(new NcsNotice(prefix + "n" + (notice++), type, 0, channel, uid, seq, ts, 1, 3,
                            random.nextInt(10) == 0 ? 1 : null, null));
                }
            }
        }
        // Oracle: the rules applied in clientSeq order.
        Map<String, MemberTransitions.State> expected = new HashMap<>();
        List<NcsNotice> ordered = new ArrayList<>(events);
        ordered.sort((a, b) -> Long.compare(a.clientSeq(), b.clientSeq()));
        for (NcsNotice e : ordered) {
            expected.merge(e.channelName() + "/" + e.uid(), MemberTransitions.apply(null, e, null),
                    (old, ignored) -> MemberTransitions.apply(old, e, null));
        }
        // Delivery: each notice 1-3 times, scrambled, over 16 connections.
        List<NcsNotice> deliveries = new ArrayList<>();
        for (NcsNotice e : events) {
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
                    NcsNotice e = deliveries.get(i);
                    HttpResponse<String> r = nodes.get(i % nodes.size()).send(Ncs.member(e.noticeId(), e.eventType(), e.channelName(), e.uid(),
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

        Http http = query;
        for (String channel : channels) {
            HttpResponse<String> r = http.get("api/v1/presence/channels/" + channel + "/members?limit=10000", ADMIN);
            Map<Long, JsonObject> actual = new HashMap<>();
            if (r.statusCode() == 200) {
                json(r).getJsonArray("members").forEach(m -> actual.put(
                        m.asJsonObject().getJsonNumber("uid").longValue(), m.asJsonObject()));
            }
            long[] onlineByRole = new long[4];
            for (Map.Entry<String, MemberTransitions.State> x : expected.entrySet()) {
                if (!x.getKey().startsWith(channel + "/")) {
                    continue;
                }
                long uid = Long.parseLong(x.getKey().substring(channel.length() + 1));
                MemberTransitions.State want = x.getValue();
                JsonObject got = actual.remove(uid);
                String where = " (seed " + seed + ", " + channel + ", uid " + uid + ")";
                if (got == null) {
                    // Only a tombstone may be gone (the retention sweep removed it).
                    assertEquals(false, want.online(), "missing online member" + where);
                    continue;
                }
                assertEquals(want.online(), got.getBoolean("online"), "online" + where);
                assertEquals(want.role().name(), got.getString("role"), "role" + where);
                assertEquals(want.clientSeq(), got.getJsonNumber("clientSeq").longValue(), "clientSeq" + where);
                if (want.online()) {
                    onlineByRole[want.role().code]++;
                }
            }
            assertEquals(Map.of(), actual, "no members beyond the oracle's (seed " + seed + ")");
            if (onlineByRole[1] + onlineByRole[2] + onlineByRole[3] > 0 || r.statusCode() == 200) {
                JsonObject counts = json(http.get("api/v1/presence/channels/" + channel, ADMIN)).getJsonObject("online");
                assertEquals(onlineByRole[RtcRole.BROADCASTER.code], counts.getInt("broadcasters"), "count" + channel);
                assertEquals(onlineByRole[RtcRole.AUDIENCE.code], counts.getInt("audience"), "count" + channel);
                assertEquals(onlineByRole[RtcRole.COMMUNICATION.code], counts.getInt("communication"), "count" + channel);
            }
        }
    }
}
