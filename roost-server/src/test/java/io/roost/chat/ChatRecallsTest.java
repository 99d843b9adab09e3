package io.roost.chat;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;

import io.roost.platform.problem.ProblemException;
import java.time.Duration;
import java.time.OffsetDateTime;
import org.junit.jupiter.api.Test;

class ChatRecallsTest {

    static final OffsetDateTime SENT = OffsetDateTime.parse("2026-01-01T12:00:00Z");
    static final Duration WINDOW = Duration.ofMinutes(2);

    static ChatMessage message(long sender, boolean recalled) {
        return new ChatMessage(7, 8, 3, 99, sender, "s", "text", null, null, 0, SENT, false, recalled);
    }

    static ProblemException refusal(ChatMessage m, OffsetDateTime now) {
        return assertThrows(ProblemException.class, () -> ChatRecalls.check(m, 7, WINDOW, now));
    }

    @Test
    void theSenderRecallsWithinTheWindow() {
        ChatRecalls.check(message(7, false), 7, WINDOW, SENT.plusSeconds(119));
        ChatRecalls.check(message(7, false), 7, WINDOW, SENT.plus(WINDOW));
        ProblemException late = refusal(message(7, false), SENT.plusSeconds(121));
        assertEquals("recall-window-passed", late.type());
        assertEquals(409, late.status());
    }

    @Test
    void onlyTheSenderAndNeverASystemMessage() {
        ProblemException peers = refusal(message(8, false), SENT);
        assertEquals("not-sender", peers.type());
        assertEquals(403, peers.status());
        assertEquals("not-sender", refusal(message(0, false), SENT).type());
    }

    @Test
    void aRecalledMessagePassesHoweverLateSoARepeatGetsTheSameAnswer() {
        ChatRecalls.check(message(7, true), 7, WINDOW, SENT.plusSeconds(3600));
    }
}
