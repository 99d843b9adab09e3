package io.roost.presence.rtc;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;

import io.roost.platform.problem.ProblemException;
import java.nio.charset.StandardCharsets;
import org.junit.jupiter.api.Test;

class NcsNoticeTest {

    static NcsNotice parse(String json) {
        return NcsNotice.parse(json.getBytes(StandardCharsets.UTF_8));
    }

    @Test
    void parsesTheNcsFormat() {
        NcsNotice n = parse("""
                {"noticeId":"2000001428:4330:107","productId":1,"eventType":103,"notifyMs":1611566412672,"sid":"x",
                 "payload":{"clientSeq":1625051030746,"uid":123,"channelName":"room-1","platform":1,"clientType":3,
                            "ts":1560496834,"account":"alice"}}""");
        assertEquals("2000001428:4330:107", n.noticeId());
        assertEquals(103, n.eventType());
        assertEquals("room-1", n.channelName());
        assertEquals(123, n.uid());
        assertEquals(1625051030746L, n.clientSeq());
        assertEquals(1560496834, n.ts());
        assertEquals(1, n.platform());
        assertEquals(3, n.clientType());
        assertEquals("alice", n.account());
        assertNull(n.reason());
    }

    @Test
    void channelEventsNeedNoClientSeq() {
        NcsNotice n = parse("""
                {"noticeId":"n1","eventType":102,"payload":{"channelName":"c","ts":1560496834,"lastUid":7}}""");
        assertEquals(102, n.eventType());
        assertEquals(1560496834, n.ts());
    }

    @Test
    void unknownTypesParseWithoutPayloadFields() {
        NcsNotice n = parse("{\"noticeId\":\"n2\",\"eventType\":10,\"payload\":{\"a\":\"1\"}}");
        assertEquals(10, n.eventType());
        assertNull(n.channelName());
    }

    @Test
    void badInputIsAProblemNamingTheField() {
        assertType("malformed-json", "{\"noticeId\":");
        assertType("malformed-json", "[1]");
        assertType("invalid-notice", "{\"eventType\":103,\"payload\":{}}");
        assertType("invalid-notice", "{\"noticeId\":\"n\",\"payload\":{}}");
        assertType("invalid-notice", "{\"noticeId\":\"n\",\"eventType\":103}");
        assertType("invalid-notice", "{\"noticeId\":\"n\",\"eventType\":103,\"payload\":{\"channelName\":\"c\",\"uid\":1,\"ts\":1}}");
        assertType("invalid-notice", "{\"noticeId\":\"n\",\"eventType\":103,\"payload\":{\"channelName\":\"c\",\"uid\":1.5,\"clientSeq\":1,\"ts\":1}}");
        assertType("invalid-notice", "{\"noticeId\":\"n\",\"eventType\":103,\"payload\":{\"channelName\":\"\",\"uid\":1,\"clientSeq\":1,\"ts\":1}}");
        assertType("invalid-notice", "{\"noticeId\":\"n\",\"eventType\":\"x\",\"payload\":{}}");
    }

    private static void assertType(String slug, String json) {
        ProblemException e = assertThrows(ProblemException.class, () -> parse(json), json);
        assertEquals(slug, e.type(), json);
        assertEquals(400, e.status());
    }
}
