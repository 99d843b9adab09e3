package io.roost.client.device;

import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;

/**
 * The resume and dedupe rule, per conversation: a message is released to the listener once, when
 * every seq below it is released (or is the device's own send, or was skipped by a catch-up), so
 * the listener sees each seq once and in order. A push past a gap waits here until the gap is
 * filled by later pushes or a catch-up; a push at or below the released seq is a duplicate (a push
 * again, or one that also came in a catch-up) and is dropped. A catch-up page is the server's
 * whole timeline after the released seq, so a jump in it (a purge, or a group member's join) is
 * taken as it is. Starts each conversation from the {@link SyncStore}'s seq.
 */
final class Inbox {

    /** What became deliverable: {@code messages} in seq order, and the conversation released up to {@code upTo}. */
    record Release(Conversation conversation, List<Message> messages, long upTo) {
        boolean isEmpty() {
            return messages.isEmpty();
        }
    }

    private static final class Line {
        long released;
        /** Pushes and own sends past a gap, by seq; an own send is held as {@code null}. */
        final TreeMap<Long, Message> ahead = new TreeMap<>();
    }

    private final SyncStore store;
    private final Map<Conversation, Line> lines = new HashMap<>();

    Inbox(SyncStore store) {
        this.store = store;
    }

    private Line line(Conversation c) {
        return lines.computeIfAbsent(c, k -> {
            Line l = new Line();
            l.released = store.held(k);
            return l;
        });
    }

    /** A pushed message. */
    synchronized Release pushed(Message m) {
        Line l = line(m.conversation());
        if (m.seq() > l.released) {
            l.ahead.putIfAbsent(m.seq(), m);
        }
        return drain(m.conversation(), l, new ArrayList<>());
    }

    /** The device's own send, stored at {@code seq}: counts as held, delivers nothing itself, may release what waited behind it. */
    synchronized Release sent(Conversation c, long seq) {
        Line l = line(c);
        if (seq > l.released && !l.ahead.containsKey(seq)) {
            l.ahead.put(seq, null);
        }
        return drain(c, l, new ArrayList<>());
    }

    /** A catch-up page: history items after the released seq, ascending. */
    synchronized Release caughtUp(Conversation c, List<Message> page) {
        Line l = line(c);
        List<Message> out = new ArrayList<>();
        for (Message m : page) {
            if (m.seq() <= l.released) {
                continue;
            }
            // what waited below this seq is in the page or gone: the page is authoritative
            while (!l.ahead.isEmpty() && l.ahead.firstKey() < m.seq()) {
                Map.Entry<Long, Message> e = l.ahead.pollFirstEntry();
                if (e.getValue() != null) {
                    out.add(e.getValue());
                }
                l.released = e.getKey();
            }
            l.ahead.remove(m.seq()); // a push of the same seq, or an own send: this copy is it
            out.add(m);
            l.released = m.seq();
        }
        return drain(c, l, out);
    }

    private static Release drain(Conversation c, Line l, List<Message> out) {
        while (!l.ahead.isEmpty() && l.ahead.firstKey() <= l.released + 1) {
            Map.Entry<Long, Message> e = l.ahead.pollFirstEntry();
            if (e.getKey() <= l.released) {
                continue;
            }
            if (e.getValue() != null) {
                out.add(e.getValue());
            }
            l.released = e.getKey();
        }
        return new Release(c, out, l.released);
    }

    /** The highest seq released without a gap. */
    synchronized long released(Conversation c) {
        return line(c).released;
    }

    /** Whether something waits past a gap: a catch-up of {@code c} is due. */
    synchronized boolean gap(Conversation c) {
        return !line(c).ahead.isEmpty();
    }
}
