package io.roost.bench;

import java.util.Arrays;
import java.util.Map;
import java.util.TreeMap;

/** What both chat load generators (Roost, XMPP) count and time, on their one client thread. */
final class ChatStats {

    /** A growable array of nanosecond latencies. */
    static final class Latencies {
        long[] v = new long[1 << 16];
        int n;

        /** Room for {@code capacity} values without growing. */
        void reserve(int capacity) {
            if (capacity > v.length) {
                v = Arrays.copyOf(v, capacity);
            }
        }

        void add(long nanos) {
            if (n == v.length) {
                v = Arrays.copyOf(v, n * 2);
            }
            v[n++] = nanos;
        }

        /** Quantile q (0..1) in milliseconds, -1 if none. */
        double ms(double q) {
            if (n == 0) {
                return -1;
            }
            long[] s = Arrays.copyOf(v, n);
            Arrays.sort(s);
            return s[Math.min(n - 1, (int) (n * q))] / 1e6;
        }
    }

    /**
     * Latencies grouped by the second (of the measured phase) in which the message was sent: tells a few
     * stalls (most seconds fast, some very slow) from steady queueing (every second alike).
     */
    static final class PerSecond {
        final Latencies[] seconds;

        PerSecond(int n) {
            seconds = new Latencies[n];
            Arrays.setAll(seconds, i -> new Latencies());
        }

        void add(int second, long nanos) {
            if (second >= 0 && second < seconds.length) {
                seconds[second].add(nanos);
            }
        }

        /** "p99 by second: 12 15 340 … (ms); 3 of 60 seconds over 100 ms". */
        String p99Line(double overMs) {
            StringBuilder b = new StringBuilder("p99 by second (ms):");
            int over = 0;
            for (Latencies l : seconds) {
                double ms = l.ms(0.99);
                b.append(' ').append(Math.round(ms));
                if (ms > overMs) {
                    over++;
                }
            }
            return b.append(String.format("; %d of %d seconds over %.0f ms", over, seconds.length, overMs)).toString();
        }
    }

    /** Sends skipped because the in-flight cap was reached: in the measured phase, and in the whole run. */
    static final class Skips {
        long measured;
        long all;

        void add(long now, long measureFrom, long measureTo) {
            all++;
            if (now >= measureFrom && now < measureTo) {
                measured++;
            }
        }

        String text(int cap) {
            return String.format("%d skipped at the in-flight cap %d (%d in the whole run)", measured, cap, all);
        }
    }

    /** Counts by name (failure codes, kick reasons, receipt kinds). */
    static final class Counts {
        final Map<String, Long> m = new TreeMap<>();

        void add(String key) {
            m.merge(key == null ? "?" : key, 1L, Long::sum);
        }

        long get(String key) {
            return m.getOrDefault(key, 0L);
        }

        long total() {
            return m.values().stream().mapToLong(Long::longValue).sum();
        }

        @Override
        public String toString() {
            return m.isEmpty() ? "none" : m.toString();
        }
    }

    private ChatStats() {
    }

    /** The string value of {@code "field":"..."} in a compact JSON text (first occurrence), or null. */
    static String str(String json, String field) {
        String k = "\"" + field + "\":\"";
        int i = json.indexOf(k);
        if (i < 0) {
            return null;
        }
        int from = i + k.length();
        int to = json.indexOf('"', from);
        return to < 0 ? null : json.substring(from, to);
    }

    /** The integer value of {@code "field":N} in a compact JSON text (first occurrence), or {@code dflt}. */
    static long num(String json, String field, long dflt) {
        String k = "\"" + field + "\":";
        int i = json.indexOf(k);
        if (i < 0) {
            return dflt;
        }
        int p = i + k.length();
        long v = 0;
        boolean any = false;
        boolean neg = p < json.length() && json.charAt(p) == '-';
        if (neg) {
            p++;
        }
        for (; p < json.length(); p++) {
            char ch = json.charAt(p);
            if (ch < '0' || ch > '9') {
                break;
            }
            v = v * 10 + (ch - '0');
            any = true;
        }
        return any ? (neg ? -v : v) : dflt;
    }

    /** The frame's type (the server writes {@code "type"} right after {@code "v"}). */
    static String type(String json) {
        return str(json, "type");
    }
}
