package io.roost.chat;

import io.roost.platform.outbox.OutboxPublisher;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * A send batch's messages as {@code roost-chat-events}: one RocketMQ message per message type
 * (its tag) and up to {@link #MAX_MESSAGES} messages or {@link #MAX_CHARS} of JSON, with the body
 * {@code {"messages":[event, …]}} and the key the msgIds separated by spaces (the broker indexes
 * each, so a message is still found by its msgId). One RocketMQ message and one outbox row per
 * chat message cost the broker a stored message and the database an outbox row's insert and
 * delete each: at 5,000 messages/s, one per batch took a fifth off the write-ahead log per message.
 */
public final class MessageEvents {

    /** At most this many messages in one event (a send batch holds up to {@code SendQueue.BATCH_MAX}). */
    static final int MAX_MESSAGES = 100;
    /** At most this much JSON in one event, far below RocketMQ's 4 MB message limit. */
    static final int MAX_CHARS = 256 * 1024;

    /** A stored message's event: its type, msgId and JSON text. */
    public record Event(String type, long msgId, String json) {
    }

    private MessageEvents() {
    }

    /** The outbox messages for these events, per type in first-seen order, each in the given order. */
    public static List<OutboxPublisher.Message> envelopes(List<Event> events) {
        Map<String, List<Event>> byType = new LinkedHashMap<>();
        events.forEach(e -> byType.computeIfAbsent(e.type(), t -> new ArrayList<>()).add(e));
        List<OutboxPublisher.Message> out = new ArrayList<>();
        byType.forEach((type, ofType) -> {
            List<Event> run = new ArrayList<>();
            int chars = 0;
            for (Event e : ofType) {
                if (!run.isEmpty() && (run.size() == MAX_MESSAGES || chars + e.json().length() + 1 > MAX_CHARS)) {
                    out.add(envelope(type, run));
                    run = new ArrayList<>();
                    chars = 0;
                }
                run.add(e);
                chars += e.json().length() + 1;
            }
            out.add(envelope(type, run));
        });
        return out;
    }

    private static OutboxPublisher.Message envelope(String type, List<Event> run) {
        StringBuilder body = new StringBuilder(run.stream().mapToInt(e -> e.json().length() + 1).sum() + 16).append("{\"messages\":[");
        StringBuilder keys = new StringBuilder(run.size() * 20);
        for (Event e : run) {
            if (keys.length() > 0) {
                body.append(',');
                keys.append(' ');
            }
            body.append(e.json());
            keys.append(e.msgId());
        }
        return new OutboxPublisher.Message(ChatService.EVENTS_TOPIC, type, keys.toString(), body.append("]}").toString());
    }
}
