package io.roost.chat;

import io.roost.chat.store.ChatStore;
import io.roost.chat.store.OfflinePushStore;
import io.roost.platform.ids.Snowflake;
import io.roost.platform.json.Jsonp;
import io.roost.platform.outbox.OutboxPublisher;
import io.roost.presence.session.SessionsLost;
import jakarta.enterprise.context.ApplicationScoped;
import jakarta.enterprise.event.Observes;
import jakarta.inject.Inject;
import jakarta.json.JsonObjectBuilder;
import jakarta.transaction.Transactional;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.HashMap;
import java.util.List;
import java.util.Map;

/**
 * The offline path: a message that reached none of the recipient's devices (no live route, the
 * route's connection gone, or no acknowledgement) waits in the recipient's buffer row; when the
 * row is due, one {@code roost-offline-push} event (through the outbox) tells an external push
 * gateway about all of them — unless the recipient's devices acknowledged the last one meanwhile
 * (another device was online after all). The preview follows the recipient's {@code pushPreview}:
 * {@code full}, {@code sender} (who, not what), {@code none} (only how many).
 */
@ApplicationScoped
public class OfflinePushes {

    public static final String TOPIC = "roost-offline-push";
    static final int FLUSH_BATCH = 500;

    @Inject
    OfflinePushStore store;

    @Inject
    ChatStore chat;

    @Inject
    ChatSettings settings;

    @Inject
    OutboxPublisher outbox;

    /**
     * {@code count} messages of the conversation up to {@code seq} did not reach the recipient's
     * devices; the message at {@code seq} names them in the push. Messages the recipient sent
     * (synced to another of its devices) need no push. {@code byDevice}: one device's report, which
     * another device's report of the same messages may have counted already.
     */
    @Transactional(Transactional.TxType.REQUIRES_NEW)
    public void undelivered(long recipient, long peer, long seq, int count, boolean byDevice) {
        chat.message(recipient, peer, seq)
                .filter(m -> m.senderUid() != recipient && !m.deleted() && !m.recalled())
                .ifPresent(m -> store.add(undelivered(m, count, byDevice), settings.offlinePushDelay()));
    }

    /**
     * Sessions ended by expiry: if their node stopped, it can no longer send what they did not
     * acknowledge to the offline path, so it goes there now, in the expiry's transaction (once). For
     * each lost device's user: the peers' messages above the delivered cursor that were sent since
     * the node could last have settled them itself, which is its last heartbeat less the time a push
     * waits for its acknowledgements (or the login, if later). Counted as device reports, so a
     * message that two lost devices of one user missed counts once, and so does one that a live
     * node reports again as it closes a silent device's connection.
     */
    void onSessionsLost(@Observes SessionsLost lost) {
        Map<Long, Instant> since = unsettledSince(lost.sessions(), settings.ackTimeout().multipliedBy(1L + settings.ackRetries()));
        Long[] owners = since.keySet().toArray(Long[]::new);
        Long[] firstMsgIds = Arrays.stream(owners).map(uid -> Snowflake.firstIdAt(since.get(uid).toEpochMilli())).toArray(Long[]::new);
        store.addAll(chat.unacknowledgedSince(owners, firstMsgIds).stream()
                .map(u -> undelivered(u.newest(), u.count(), true)).toList(), settings.offlinePushDelay());
    }

    /**
     * Per user of the lost sessions: since when their lost devices may have messages their node
     * never settled. A node settles a push within {@code settling} (acknowledged, or sent down the
     * offline path), so the window opens that long before its last heartbeat, or at the login if
     * later; a user with several lost devices gets the earliest.
     */
    static Map<Long, Instant> unsettledSince(List<SessionsLost.Lost> lost, Duration settling) {
        Map<Long, Instant> since = new HashMap<>();
        for (SessionsLost.Lost l : lost) {
            Instant from = l.route().loginAt().toInstant();
            if (l.nodeLastHeartbeat() != null && l.nodeLastHeartbeat().toInstant().minus(settling).isAfter(from)) {
                from = l.nodeLastHeartbeat().toInstant().minus(settling);
            }
            since.merge(l.route().uid(), from, (a, b) -> a.isBefore(b) ? a : b);
        }
        return since;
    }

    private static OfflinePushStore.Undelivered undelivered(ChatMessage m, int count, boolean byDevice) {
        return new OfflinePushStore.Undelivered(m.owner(), m.peer(), m.senderUid(), m.msgId(), m.seq(),
                ChatRules.preview(m.type(), m.body()), Math.max(1, count), byDevice);
    }

    /** Offline pushes waiting, due or not: the rows of both buffers (one-to-one and group), each counted up to a limit. */
    public long waiting() {
        return store.waiting(ChatMeters.OFFLINE_COUNTED_UP_TO);
    }

    /** Sends the due rows (at most one batch); how many rows it took. */
    @Transactional(Transactional.TxType.REQUIRES_NEW)
    public int flush() {
        List<OfflinePushStore.Due> due = store.takeDue(FLUSH_BATCH);
        List<OutboxPublisher.Message> events = new ArrayList<>();
        for (OfflinePushStore.Due d : due) {
            if (d.deliveredSeq() >= d.seq()) {
                continue; // a device of the recipient acknowledged it after all
            }
            events.add(new OutboxPublisher.Message(TOPIC, "chat", Long.toString(d.recipient()), event(d).build().toString()));
        }
        outbox.publishAll(events);
        return due.size();
    }

    static JsonObjectBuilder event(OfflinePushStore.Due d) {
        JsonObjectBuilder b = Jsonp.PROVIDER.createObjectBuilder().add("recipient", Long.toString(d.recipient()))
                .add("count", d.pending()).add("unread", d.unread()).add("firstAt", d.firstAt().toInstant().toEpochMilli());
        if (!"none".equals(d.pushPreview())) {
            b.add("peer", Long.toString(d.peer())).add("from", Long.toString(d.sender()))
                    .add("msgId", Long.toString(d.msgId())).add("seq", d.seq());
            if ("full".equals(d.pushPreview()) && d.preview() != null) {
                b.add("preview", d.preview());
            }
        }
        return b;
    }
}
