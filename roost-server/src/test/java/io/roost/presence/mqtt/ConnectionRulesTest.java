package io.roost.presence.mqtt;

import static io.roost.presence.mqtt.MqttStatusEvent.Type.CONNECT;
import static io.roost.presence.mqtt.MqttStatusEvent.Type.DISCONNECT;
import static io.roost.presence.mqtt.MqttStatusEvent.Type.TCPCLEAN;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

class ConnectionRulesTest {

    record E(String channel, MqttStatusEvent.Type type, long time) {
    }

    /** Applies events in the given order (with each delivered twice) and says whether the client is online. */
    static boolean online(List<E> events) {
        Map<String, ConnectionRules.Connection> byChannel = new LinkedHashMap<>();
        for (E e : events) {
            for (int twice = 0; twice < 2; twice++) {
                byChannel.merge(e.channel, ConnectionRules.Connection.empty(e.channel).with(e.type, e.time),
                        (old, x) -> old.with(e.type, e.time));
            }
        }
        return ConnectionRules.online(byChannel.values());
    }

    static <T> List<List<T>> permutations(List<T> items) {
        if (items.isEmpty()) {
            return List.of(List.of());
        }
        List<List<T>> result = new ArrayList<>();
        for (int i = 0; i < items.size(); i++) {
            List<T> rest = new ArrayList<>(items);
            T head = rest.remove(i);
            for (List<T> p : permutations(rest)) {
                List<T> withHead = new ArrayList<>();
                withHead.add(head);
                withHead.addAll(p);
                result.add(withHead);
            }
        }
        return result;
    }

    @Test
    void everySubsetAndOrderOfOneChannelsEvents() {
        E connect = new E("c1", CONNECT, 10);
        E disconnect = new E("c1", DISCONNECT, 20);
        E tcpclean = new E("c1", TCPCLEAN, 21);
        List<E> all = List.of(connect, disconnect, tcpclean);
        for (int mask = 1; mask < 8; mask++) {
            List<E> subset = new ArrayList<>();
            for (int b = 0; b < 3; b++) {
                if ((mask & (1 << b)) != 0) {
                    subset.add(all.get(b));
                }
            }
            boolean expected = subset.equals(List.of(connect));
            for (List<E> order : permutations(subset)) {
                assertEquals(expected, online(order), "order " + order);
            }
        }
    }

    @Test
    void takeoverInEveryOrderIncludingTheOldTcpcleanStampedAfterTheNewConnect() {
        // Device reconnects: c2 connects at 100, the broker then cleans c1 at 101.
        List<E> events = List.of(new E("c1", CONNECT, 50), new E("c2", CONNECT, 100), new E("c1", TCPCLEAN, 101));
        for (List<E> order : permutations(events)) {
            assertTrue(online(order), "still online through c2: " + order);
        }
        // ...and when c2 later closes too, offline in every order.
        List<E> thenGone = new ArrayList<>(events);
        thenGone.add(new E("c2", TCPCLEAN, 300));
        for (List<E> order : permutations(thenGone)) {
            assertFalse(online(order), "offline: " + order);
        }
    }

    @Test
    void threeChannelsFlapping() {
        List<E> events = List.of(new E("a", CONNECT, 1), new E("a", TCPCLEAN, 3), new E("b", CONNECT, 2),
                new E("b", DISCONNECT, 5), new E("c", CONNECT, 4));
        for (List<E> order : permutations(events)) {
            assertTrue(online(order), "c (newest connect) is open: " + order);
        }
        List<E> closed = new ArrayList<>(events);
        closed.add(new E("c", TCPCLEAN, 9));
        for (List<E> order : permutations(closed)) {
            assertFalse(online(order), order.toString());
        }
    }

    @Test
    void aLostTcpcleanIsSupersededByTheNextConnect() {
        // c1's close never arrives; c2 connects later and closes properly: the client is offline.
        assertFalse(online(List.of(new E("c1", CONNECT, 10), new E("c2", CONNECT, 20), new E("c2", TCPCLEAN, 30))));
        // A later close of another channel says nothing about c2.
        assertTrue(online(List.of(new E("c2", CONNECT, 20), new E("c1", CONNECT, 10), new E("c1", TCPCLEAN, 40))));
    }

    @Test
    void equalTimesTheLargerChannelIdIsNewer() {
        assertTrue(online(List.of(new E("aaa", CONNECT, 10), new E("bbb", CONNECT, 10), new E("aaa", TCPCLEAN, 10))));
        assertFalse(online(List.of(new E("aaa", CONNECT, 10), new E("bbb", CONNECT, 10), new E("bbb", TCPCLEAN, 10))));
        var a = ConnectionRules.Connection.empty("aaa").with(CONNECT, 10);
        var b = ConnectionRules.Connection.empty("bbb").with(CONNECT, 10);
        assertTrue(ConnectionRules.superseded(a, List.of(a, b)));
        assertFalse(ConnectionRules.superseded(b, List.of(a, b)));
    }

    @Test
    void parsingTakesTheGroupFromTheClientIdAndRejectsBadInput() {
        MqttStatusEvent e = MqttStatusEvent.parse("""
                {"clientId":"GID_XXX@@@device-1","time":1212121212,"eventType":"connect",
                 "channelId":"2b9b1281046046faafe5e0b458e4XXXX","clientIp":"192.168.0.1:13300"}""", "connect");
        assertEquals("GID_XXX", e.groupId());
        assertEquals(CONNECT, e.type());
        assertEquals(1212121212L, e.time());
        assertEquals("tcpclean", MqttStatusEvent.parse("{\"clientId\":\"x\",\"time\":1,\"channelId\":\"c\"}", "tcpclean").type().wire());
        for (String bad : List.of("not json", "{\"clientId\":\"x\",\"time\":1,\"eventType\":\"connect\"}",
                "{\"clientId\":\"x\",\"time\":\"soon\",\"eventType\":\"connect\",\"channelId\":\"c\"}",
                "{\"clientId\":\"x\",\"time\":1,\"eventType\":\"reboot\",\"channelId\":\"c\"}")) {
            org.junit.jupiter.api.Assertions.assertThrows(MqttStatusEvent.Invalid.class, () -> MqttStatusEvent.parse(bad, null), bad);
        }
    }
}
