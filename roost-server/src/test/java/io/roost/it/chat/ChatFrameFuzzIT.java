package io.roost.it.chat;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assertions.fail;

import io.roost.it.Database;
import io.roost.it.DeployedRoost;
import io.roost.it.Http;
import io.roost.it.TestUsers.User;
import io.roost.it.WsDevice;
import jakarta.json.JsonObject;
import java.nio.file.Files;
import java.nio.file.Path;
import java.sql.Connection;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.Set;
import java.util.TreeSet;
import java.util.concurrent.TimeUnit;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.Test;

/**
 * Random {@code chatOp} and {@code chatAck} frames from one device, half of them broken in a field
 * or two (missing, null, of another JSON type, out of range, too long, malformed): every op gets
 * its answer; one that the protocol makes certainly invalid ({@link ChatFrameOracle}) is refused,
 * as is every certainly invalid acknowledgement; a failure names a code that docs/protocol.md's
 * error lists document and never {@code internal-error}; the connection stays open; and what the
 * answers say was stored is all that was stored. The seed is printed; {@code -Dchat.fuzz.seed=}
 * replays a run.
 */
class ChatFrameFuzzIT extends DeployedRoost {

    static final int FRAMES = 400;
    static final String[] OPS = {"send", "send", "send", "conversations", "messages", "sync", "delete", "recall", "read"};
    /** Wrong values for any field: JSON literals spliced in as they are. */
    static final String[] WRONG = {"null", "true", "{}", "[]", "[1]", "-1", "0", "1.5", "1e309", "9223372036854775808",
            "-9223372036854775809", "\"\"", "\"x\"", "\"-5\"", "\"12abc\"", "\"9223372036854775808\"", "\"\\u0000\"",
            "\"" + "y".repeat(300) + "\"", "\"\uD83D\uDE00\"", "{\"text\":5}", "\"7\""};

    @Test
    void randomFramesGetDocumentedAnswersAndStoreOnlyWhatWasAnsweredAsStored() throws Exception {
        long seed = Long.getLong("chat.fuzz.seed", System.nanoTime());
        System.out.println("ChatFrameFuzzIT seed=" + seed);
        Random random = new Random(seed);
        Codes documented = Codes.of(Files.readString(io.roost.RepoFiles.of("docs/protocol.md")));
        Chats chats = new Chats(baseUrl);
        User a = chats.user();
        User b = chats.user();
        WsDevice device = WsDevice.login(baseUrl, a.token(), "web", "w");
        Frames frames = new Frames(random, a, b);
        ChatFrameOracle oracle = new ChatFrameOracle(a.id(), b.id(), frames.msgIds);
        Run run = new Run(seed, documented);
        TreeSet<Long> storedSeqs = new TreeSet<>();
        List<String> failures = new ArrayList<>();
        try {
            for (int i = 0; i <= FRAMES; i++) {
                if (i < FRAMES && random.nextInt(8) == 0) {
                    String ack = frames.ack();
                    run.acked(oracle, ack);
                    device.send(ack);
                    continue;
                }
                String seq = "f" + i;
                // the last op, a valid one, is answered after every acknowledgement before it was handled
                String frame = i < FRAMES ? frames.op(seq) : "{\"v\":1,\"type\":\"chatOp\",\"seq\":\"" + seq + "\",\"op\":\"conversations\"}";
                String refusal = oracle.refusal(Http.json(frame));
                device.send(frame);
                JsonObject answer = run.answerTo(device, seq, frame);
                if (answer.getString("result").equals("ok")) {
                    assertNull(refusal, "certainly invalid (" + refusal + ") but answered ok: " + frame + " -> " + answer + " (seed " + seed + ")");
                    frames.answered(answer);
                    if (answer.getString("op").equals("send") && !answer.getBoolean("resent")) {
                        assertTrue(storedSeqs.add(answer.getJsonNumber("msgSeq").longValue()), "a new message, a new seq: " + answer);
                    }
                } else {
                    failures.add(answer.getString("code"));
                    run.refused += refusal == null ? 0 : 1;
                }
                if (i % 50 == 0) {
                    device.heartbeat(); // the suite's heartbeat timeout is 8 s
                }
            }
            assertFalse(device.closed.isDone(), "the connection stays open (seed " + seed + ")");
        } finally {
            device.bye();
        }
        System.out.println("ChatFrameFuzzIT: " + storedSeqs.size() + " stored, " + run.refused + " certainly invalid ops refused, "
                + run.invalidAcks + " of " + run.acks + " acknowledgements certainly invalid, failure codes " + new TreeSet<>(failures));
        assertTrue(storedSeqs.size() > 10 && run.refused > FRAMES / 8 && run.invalidAcks > 0,
                "the frames mix stored sends, certainly invalid ops and acknowledgements (seed " + seed + "): " + storedSeqs.size()
                        + " / " + run.refused + " / " + run.invalidAcks);
        try (Connection c = Database.connect()) {
            long aId = Long.parseLong(a.id());
            long stored = Database.queryLong(c, "SELECT count(*) FROM chat_timeline WHERE owner_uid = ? AND sender_uid = ?", aId, aId);
            assertEquals(storedSeqs.size(), stored, "only what was answered as stored is stored (seed " + seed + ")");
            if (!storedSeqs.isEmpty()) {
                assertEquals(storedSeqs.size(), storedSeqs.last(), "gap-free seqs (seed " + seed + ")");
            }
        }
    }

    /**
     * The documented codes: those of an {@code error} frame, the first column of docs/protocol.md's
     * tables headed {@code code}; those of a failed {@code chatOpRet}, the lists that its chatOp
     * sections give after "Failures".
     */
    record Codes(Set<String> errorFrame, Set<String> failedOp) {

        static final Pattern TABLE_CODE = Pattern.compile("^\\|\\s*`([a-z][a-z-]*)`\\s*\\|");
        /** Where a failure list starts: "Failures:", "Failures answer ... a `code`:", "Failures (..., `code`):". */
        static final Pattern FAILURES = Pattern.compile("Failures(?:[^.]*?`code`\\)?)?:");
        static final Pattern CODE = Pattern.compile("`([a-z][a-z-]*)`");

        static Codes of(String doc) {
            Set<String> errorFrame = new TreeSet<>();
            boolean inCodeTable = false;
            for (String line : doc.split("\n")) {
                inCodeTable = line.startsWith("| code |") || inCodeTable && line.startsWith("|");
                Matcher m = TABLE_CODE.matcher(line);
                if (inCodeTable && m.find()) {
                    errorFrame.add(m.group(1));
                }
            }
            Set<String> failedOp = new TreeSet<>();
            for (String paragraph : doc.split("\n\\s*\n")) {
                String text = paragraph.replace('\n', ' ');
                Matcher list = FAILURES.matcher(text);
                while (list.find()) {
                    // the list is the rest of its sentence; a code's explanation in parentheses is no code
                    String items = text.substring(list.end()).replaceAll("\\([^()]*\\)", "").split("\\.(\\s|$)", 2)[0];
                    CODE.matcher(items).results().forEach(c -> failedOp.add(c.group(1)));
                }
            }
            Codes codes = new Codes(errorFrame, failedOp);
            assertTrue(errorFrame.containsAll(Set.of("invalid-ack", "unknown-type", "login-first", "server-busy"))
                    && failedOp.containsAll(Set.of("invalid-send-id", "invalid-body", "recall-window-passed", "invalid-seq", "unknown-op",
                    "internal-error")) && failedOp.stream().noneMatch(Set.of("code", "system", "peer", "send", "text")::contains),
                    "the error codes parsed from docs/protocol.md: " + codes);
            return codes;
        }
    }

    /** What one run saw: acknowledgements sent and how the oracle judged them, the error frames, the refusals. */
    static final class Run {
        final long seed;
        final Codes documented;
        int acks;
        int invalidAcks;
        int unknownAcks;
        int ackErrors;
        int refused;

        Run(long seed, Codes documented) {
            this.seed = seed;
            this.documented = documented;
        }

        void acked(ChatFrameOracle oracle, String ack) {
            JsonObject f = Http.json(ack);
            acks++;
            invalidAcks += oracle.ackRefusal(f) != null ? 1 : 0;
            unknownAcks += oracle.ackRefusal(f) == null && !oracle.ackValid(f) ? 1 : 0;
        }

        /**
         * The answer to the op with this seq. Every error frame on the way must be a documented one
         * that leaves the connection open; frames are handled in order, so by the answer each
         * certainly invalid acknowledgement sent before it has had its error, and no valid one has.
         */
        JsonObject answerTo(WsDevice device, String seq, String frame) throws InterruptedException {
            while (true) {
                JsonObject f = device.frames.poll(20, TimeUnit.SECONDS);
                if (f == null) {
                    fail("no answer within 20 s to " + frame + " (seed " + seed + ")");
                }
                switch (f.getString("type")) {
                    case "error" -> {
                        assertEquals("invalid-ack", f.getString("code"), "only an acknowledgement is answered by an error: " + f);
                        assertTrue(documented.errorFrame().contains(f.getString("code")), "undocumented error " + f);
                        ackErrors++;
                    }
                    case "chatOpRet" -> {
                        assertEquals(seq, f.getString("seq"), "answers come in order: " + f + " for " + frame);
                        if (!f.getString("result").equals("ok")) {
                            assertEquals("fail", f.getString("result"), f.toString());
                            String code = f.getString("code");
                            assertNotEquals("internal-error", code, "a server fault on " + frame + " (seed " + seed + ")");
                            assertTrue(documented.failedOp().contains(code), "undocumented code " + code + " for " + frame + " (seed " + seed + ")");
                        }
                        assertTrue(ackErrors >= invalidAcks && ackErrors <= invalidAcks + unknownAcks, ackErrors + " invalid-ack errors for "
                                + invalidAcks + " certainly invalid and " + unknownAcks + " maybe invalid acknowledgements (seed " + seed + ")");
                        return f;
                    }
                    default -> { } // pushes of this user's own sends to b, receipts
                }
            }
        }
    }

    /**
     * Builds valid frames and breaks half of them: one or two fields removed or given a wrong value
     * (one of {@link #WRONG}, or a near miss of that field's own). Remembers what later frames may
     * refer back to.
     */
    static final class Frames {

        private final Random random;
        private final User a;
        private final User b;
        private final List<String> sendIds = new ArrayList<>();
        /** The msgIds the answers gave, which later sends may quote. */
        final List<String> msgIds = new ArrayList<>();
        private long lastSeq;
        private int sent;

        Frames(Random random, User a, User b) {
            this.random = random;
            this.a = a;
            this.b = b;
        }

        void answered(JsonObject answer) {
            if (answer.getString("op").equals("send")) {
                msgIds.add(answer.getString("msgId"));
                lastSeq = Math.max(lastSeq, answer.getJsonNumber("msgSeq").longValue());
            }
        }

        String op(String seq) {
            String op = pick(OPS);
            Map<String, String> fields = new LinkedHashMap<>();
            Map<String, List<String>> nearMisses = new HashMap<>();
            fields.put("op", q(op));
            nearMisses.put("op", List.of(q("unknown"), q("SEND"), q("")));
            switch (op) {
                case "send" -> {
                    String type = pick("text", "text", "image", "file", "voice", "location", "custom");
                    fields.put("peer", q(b.id()));
                    nearMisses.put("peer", List.of(q(a.id()), q("1234567"), q(b.id() + "0")));
                    fields.put("sendId", sendId());
                    nearMisses.put("sendId", List.of(q(""), q("y".repeat(65)), q("bad id!"), q("\u00e9t\u00e9")));
                    fields.put("msgType", q(type));
                    nearMisses.put("msgType", List.of(q("system"), q("TEXT"), q("sticker")));
                    fields.put("body", body(type));
                    nearMisses.put("body", List.of("{\"text\":\"\"}", "{\"text\":\"nul \\u0000\"}", "{\"text\":\"x\",\"more\":1}",
                            "{\"media\":{\"url\":\"ftp://x\",\"size\":1,\"mime\":\"a/b\"}}",
                            "{\"media\":{\"url\":\"https://x/y\",\"size\":-1,\"mime\":\"a/b\"}}",
                            "{\"media\":{\"url\":\"https://x/y\",\"size\":1.5,\"mime\":\"a/b\"}}",
                            "{\"location\":{\"lat\":91,\"lon\":0}}", "{\"location\":{\"lat\":0,\"lon\":0,\"title\":5}}",
                            "{\"text\":\"" + "z".repeat(17_000) + "\"}"));
                    if (random.nextBoolean()) {
                        fields.put("quote", msgIds.isEmpty() ? q("1") : q(msgIds.get(random.nextInt(msgIds.size()))));
                    }
                    nearMisses.put("quote", List.of(q("1"), q(b.id()), "12"));
                    if (random.nextBoolean()) {
                        fields.put("priority", Integer.toString(random.nextInt(10)));
                    }
                    nearMisses.put("priority", List.of("10", "-1", "1.5", q("3")));
                }
                case "conversations" -> {
                    fields.put("since", Integer.toString(random.nextInt(5)));
                    fields.put("limit", Integer.toString(1 + random.nextInt(100)));
                }
                case "messages", "sync" -> {
                    fields.put("peer", q(b.id()));
                    fields.put(op.equals("sync") || random.nextBoolean() ? "after" : "before", seq());
                    fields.put("limit", Integer.toString(1 + random.nextInt(100)));
                }
                case "delete", "recall" -> {
                    fields.put("peer", q(b.id()));
                    fields.put("msgSeq", seq());
                }
                default -> { // read
                    fields.put("peer", q(b.id()));
                    fields.put("readSeq", seq());
                }
            }
            nearMisses.putIfAbsent("limit", List.of("0", "101", "-3"));
            if (random.nextBoolean()) {
                List<String> names = new ArrayList<>(fields.keySet());
                for (int broken = 1 + random.nextInt(2); broken > 0; broken--) {
                    String name = names.get(random.nextInt(names.size()));
                    int how = random.nextInt(3);
                    if (how == 0) {
                        fields.remove(name);
                    } else {
                        List<String> own = nearMisses.getOrDefault(name, List.of("-1", "0"));
                        fields.put(name, how == 1 ? pick(WRONG) : own.get(random.nextInt(own.size())));
                    }
                }
                if (random.nextInt(4) == 0) {
                    fields.put("unexpected", pick(WRONG));
                }
            }
            StringBuilder f = new StringBuilder("{\"v\":1,\"type\":\"chatOp\",\"seq\":\"" + seq + "\"");
            fields.forEach((name, value) -> f.append(",\"").append(name).append("\":").append(value));
            return f.append('}').toString();
        }

        String ack() {
            String peer = random.nextInt(4) == 0 ? pick(WRONG) : q(b.id());
            String seq = random.nextInt(4) == 0 ? pick(WRONG) : Long.toString(Math.max(1, lastSeq));
            return "{\"v\":1,\"type\":\"chatAck\",\"peer\":" + peer + ",\"seq\":" + seq + "}";
        }

        /** A fresh sendId mostly; sometimes one used before (a resend, or a conflict if the body differs). */
        private String sendId() {
            if (!sendIds.isEmpty() && random.nextInt(5) == 0) {
                return q(sendIds.get(random.nextInt(sendIds.size())));
            }
            String id = "fz-" + (sent++);
            sendIds.add(id);
            return q(id);
        }

        private String seq() {
            return Long.toString(1 + random.nextInt((int) Math.min(lastSeq + 2, 1000)));
        }

        private String body(String type) {
            return switch (type) {
                case "text", "custom" -> "{\"text\":" + q(pick("hi", "\uD83D\uDE00 ok", "x".repeat(200), "lone \\ud800", "tab\\t")) + "}";
                case "location" -> "{\"location\":{\"lat\":" + pick("1.5", "90", "-45") + ",\"lon\":" + pick("2", "180", "-120.25")
                        + (random.nextBoolean() ? ",\"title\":" + q("here") : "") + "}}";
                default -> "{\"media\":{\"url\":" + q(pick("https://cdn.example/a.png", "http://x.example/v.ogg"))
                        + ",\"size\":" + pick("10", "0") + ",\"mime\":" + q(pick("image/png", "audio/ogg"))
                        + (random.nextBoolean() ? ",\"duration\":3" : "") + (random.nextBoolean() ? ",\"name\":" + q("f.bin") : "") + "}}";
            };
        }

        private String pick(String... values) {
            return values[random.nextInt(values.length)];
        }

        private static String q(String s) {
            return "\"" + s + "\"";
        }
    }
}
