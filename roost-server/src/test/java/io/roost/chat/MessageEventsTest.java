package io.roost.chat;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.roost.platform.json.Jsonp;
import io.roost.platform.outbox.OutboxPublisher;
import jakarta.json.JsonObject;
import java.io.StringReader;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import org.junit.jupiter.api.Test;

class MessageEventsTest {

    static MessageEvents.Event event(String type, long msgId, int bodyChars) {
        return new MessageEvents.Event(type, msgId, "{\"msgId\":\"" + msgId + "\",\"body\":{\"text\":\"" + "x".repeat(bodyChars) + "\"}}");
    }

    /** The msgIds in an envelope's body, in order, checked against its key. */
    static List<Long> msgIds(OutboxPublisher.Message m) {
        JsonObject body = Jsonp.PROVIDER.createReader(new StringReader(m.body())).readObject();
        List<Long> ids = body.getJsonArray("messages").getValuesAs(JsonObject.class).stream()
                .map(e -> Long.parseLong(e.getString("msgId"))).toList();
        assertEquals(ids, Arrays.stream(m.key().split(" ")).map(Long::parseLong).toList(), "key = the body's msgIds");
        assertEquals(ChatService.EVENTS_TOPIC, m.topic());
        return ids;
    }

    @Test
    void oneEnvelopePerTypeInFirstSeenOrderEachInBatchOrder() {
        List<OutboxPublisher.Message> out = MessageEvents.envelopes(List.of(event("text", 5, 3), event("image", 3, 3),
                event("text", 9, 3), event("text", 7, 3), event("image", 1, 3)));
        assertEquals(List.of("text", "image"), out.stream().map(OutboxPublisher.Message::tag).toList());
        assertEquals(List.of(5L, 9L, 7L), msgIds(out.get(0)));
        assertEquals(List.of(3L, 1L), msgIds(out.get(1)));
    }

    @Test
    void aFullBatchIsSplitByCountAndEveryMessageIsInExactlyOneEnvelope() {
        List<MessageEvents.Event> events = new ArrayList<>();
        for (long id = 1; id <= 2 * MessageEvents.MAX_MESSAGES + 1; id++) {
            events.add(event("text", id, 10));
        }
        List<OutboxPublisher.Message> out = MessageEvents.envelopes(events);
        assertEquals(List.of(MessageEvents.MAX_MESSAGES, MessageEvents.MAX_MESSAGES, 1), out.stream().map(m -> msgIds(m).size()).toList());
        assertEquals(events.stream().map(MessageEvents.Event::msgId).toList(), out.stream().flatMap(m -> msgIds(m).stream()).toList());
    }

    @Test
    void largeBodiesAreSplitBySizeAndALoneOversizedEventStillGoes() {
        int big = MessageEvents.MAX_CHARS / 3;
        List<OutboxPublisher.Message> out = MessageEvents.envelopes(List.of(event("text", 1, big), event("text", 2, big),
                event("text", 3, big), event("text", 4, MessageEvents.MAX_CHARS), event("text", 5, 1)));
        assertEquals(List.of(List.of(1L, 2L), List.of(3L), List.of(4L), List.of(5L)), out.stream().map(MessageEventsTest::msgIds).toList());
        out.stream().filter(m -> !m.key().equals("4")).forEach(m -> assertTrue(m.body().length() <= MessageEvents.MAX_CHARS + 16, m.key()));
    }
}
