package io.roost.bench;

import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStreamReader;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentLinkedQueue;

/**
 * Times the room's counts query over JDBC and Redis {@code SCARD} on a set of the same size, in
 * alternation, every 10 ms — in a process of its own, so the load generator's threads, safepoints
 * and collections never sit inside a timed call. {@link LiveRoomBench} starts it for its steady
 * state ({@link #start}) and reads the one {@code PROBE} line it prints.
 */
public final class CountsProbe {

    /** The counts query, as {@code GET /api/v1/rooms/{roomId}/stats} runs it. */
    static final String COUNTS_SQL = """
            SELECT s.id, s.anchor_id, coalesce(sum(c.online), 0)::int, coalesce(sum(c.online_fans), 0)::int
            FROM room_session s LEFT JOIN room_count c ON c.session_id = s.id
            WHERE s.room_id = ? AND s.closed_at IS NULL GROUP BY s.id""";

    static final int WARMUP_SECONDS = 3;

    public static void main(String[] args) throws Exception {
        Map<String, String> o = BenchArgs.parse(args);
        String room = o.get("room");
        int seconds = Integer.parseInt(o.get("seconds"));
        ConcurrentLinkedQueue<Long> sql = new ConcurrentLinkedQueue<>();
        ConcurrentLinkedQueue<Long> scard = new ConcurrentLinkedQueue<>();
        LiveRoomBench.Resp redis = new LiveRoomBench.Resp(Integer.parseInt(o.get("redis-port")));
        try (Connection c = DriverManager.getConnection(o.get("db"), o.get("db-user"), o.get("db-password"));
             PreparedStatement ps = c.prepareStatement(COUNTS_SQL)) {
            ps.setString(1, room);
            long start = System.nanoTime();
            long timedFrom = start + WARMUP_SECONDS * 1_000_000_000L; // compiled by then
            while (System.nanoTime() - start < seconds * 1_000_000_000L) {
                long s = System.nanoTime();
                try (ResultSet rs = ps.executeQuery()) {
                    rs.next();
                }
                long q = System.nanoTime();
                redis.call("SCARD", "online-fans:" + room);
                long r = System.nanoTime();
                if (s >= timedFrom) {
                    sql.add(q - s);
                    scard.add(r - q);
                }
                LiveRoomBench.sleepMs(10);
            }
        }
        System.out.printf("PROBE n=%d sql_p50_ms=%.2f sql_p99_ms=%.2f scard_p50_ms=%.2f scard_p99_ms=%.2f%n", sql.size(),
                LiveRoomBench.pct(sql, 0.5), LiveRoomBench.pct(sql, 0.99), LiveRoomBench.pct(scard, 0.5), LiveRoomBench.pct(scard, 0.99));
    }

    /** Starts the probe in a small JVM of its own (serial collector: it barely allocates). */
    static Process start(String db, String user, String password, int redisPort, String room, int seconds) throws IOException {
        List<String> cmd = new ArrayList<>(List.of(Path.of(System.getProperty("java.home"), "bin", "java").toString(),
                "-Xmx64m", "-XX:+UseSerialGC", "-cp", System.getProperty("java.class.path"), CountsProbe.class.getName(),
                "--db=" + db, "--db-user=" + user, "--db-password=" + password, "--redis-port=" + redisPort,
                "--room=" + room, "--seconds=" + seconds));
        return new ProcessBuilder(cmd).redirectErrorStream(true).start();
    }

    /** Waits for the probe and returns its figures: n, sql p50, sql p99, scard p50, scard p99. */
    static double[] result(Process probe) throws IOException, InterruptedException {
        String line = null;
        try (BufferedReader r = new BufferedReader(new InputStreamReader(probe.getInputStream(), StandardCharsets.UTF_8))) {
            for (String l; (l = r.readLine()) != null; ) {
                if (l.startsWith("PROBE ")) {
                    line = l;
                } else {
                    System.out.println("probe: " + l);
                }
            }
        }
        if (probe.waitFor() != 0 || line == null) {
            throw new IllegalStateException("the counts probe failed (exit " + probe.exitValue() + ")");
        }
        String[] kv = line.substring(6).split(" ");
        double[] v = new double[kv.length];
        for (int i = 0; i < kv.length; i++) {
            v[i] = Double.parseDouble(kv[i].substring(kv[i].indexOf('=') + 1));
        }
        return v;
    }

    private CountsProbe() {
    }
}
