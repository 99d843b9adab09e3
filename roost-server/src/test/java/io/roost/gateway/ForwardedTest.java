package io.roost.gateway;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;

import java.util.List;
import org.junit.jupiter.api.Test;

class ForwardedTest {

    @Test
    void aChatMessageCrossesToAnotherNodeWithItsOwnersAndPlace() {
        Forwarded sent = new Forwarded(List.of("c1", "c2"), List.of(384140281575903232L, 7L),
                "{\"type\":\"chatMsg\",\"seq\":5}", new Forwarded.Chat(7L, 384140281575903232L, 5));
        assertEquals(sent, Forwarded.parse(sent.toJson()));
    }

    @Test
    void anyOtherFrameCrossesWithoutOwners() {
        Forwarded sent = new Forwarded(List.of("c1"), List.of(), "{\"type\":\"presence\"}", null);
        Forwarded received = Forwarded.parse(sent.toJson());
        assertEquals(sent, received);
        assertNull(received.chat());
    }

    @Test
    void aFrameFromANodeOfTheEarlierFormatIsStillRead() {
        Forwarded received = Forwarded.parse("{\"connectionIds\":[\"c9\"],\"frame\":\"{}\"}");
        assertEquals(List.of("c9"), received.connectionIds());
        assertNull(received.chat());
    }
}
