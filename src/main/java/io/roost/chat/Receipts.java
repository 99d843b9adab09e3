package io.roost.chat;

import io.roost.chat.store.ChatStore;
import io.roost.chat.store.ReceiptStore;
import io.roost.platform.delivery.Notice;
import io.roost.platform.json.Jsonp;
import io.roost.platform.problem.ProblemException;
import jakarta.enterprise.context.ApplicationScoped;
import jakarta.enterprise.event.Event;
import jakarta.inject.Inject;
import jakarta.transaction.Transactional;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;

/**
 * Delivered and read receipts, each its own transaction. Delivered: acknowledgements from the
 * owner's devices move the owner's delivered cursor; the peer's devices get a {@code chatReceipt}
 * after commit. Read: one report counts for all of the reader's devices (they get {@code chatRead}
 * with the new unread count); the peer gets a read receipt unless the reader turned them off.
 * A read report changes both sides' sync versions (so devices that were away see it when they
 * sync); a delivered cursor does not (it moves with nearly every message, and is live state).
 */
@ApplicationScoped
public class Receipts {

    @Inject
    ReceiptStore store;

    @Inject
    ChatStore chat;

    @Inject
    Event<Notice> notices;

    /** Applies a batch of acknowledgements (several per conversation are fine: the highest counts); the cursors that moved. */
    @Transactional(Transactional.TxType.REQUIRES_NEW)
    public List<Cursor> delivered(List<Cursor> acks) {
        Map<List<Long>, Cursor> highest = new LinkedHashMap<>();
        for (Cursor a : acks) {
            highest.merge(List.of(a.owner(), a.peer()), a, (x, y) -> x.seq() >= y.seq() ? x : y);
        }
        List<Cursor> batch = new ArrayList<>(highest.values());
        store.lockBothSides(batch);
        List<Cursor> moved = store.advanceDelivered(batch);
        for (Cursor c : moved) {
            notices.fire(new Notice(List.of(c.peer()), "chatReceipt", Jsonp.PROVIDER.createObjectBuilder()
                    .add("kind", "delivered").add("peer", Long.toString(c.owner())).add("seq", c.seq()).build()));
        }
        return moved;
    }

    /** The reader has read everything up to {@code seq}; 404 if there is no such conversation. */
    @Transactional(Transactional.TxType.REQUIRES_NEW)
    public ReadState read(long reader, long peer, long seq) {
        if (seq < 0) {
            throw ProblemException.badRequest("invalid-seq", "readSeq is a message seq, 0 or more.");
        }
        ReceiptStore.ReadView view = store.readView(reader, peer)
                .orElseThrow(() -> ProblemException.notFound("No conversation with " + peer + "."));
        if (Math.min(seq, view.lastSeq()) <= view.readSeq()) {
            return new ReadState(view.readSeq(), view.unread()); // already read that far: nothing changes
        }
        boolean receipt = view.readReceipts();
        Map<Long, Long> versions = chat.bumpVersions(receipt ? ChatService.sorted(reader, peer) : new Long[] {reader});
        store.lockBothSides(List.of(new Cursor(reader, peer, seq)));
        Optional<ReadState> state = store.advanceRead(reader, peer, seq, versions.get(reader));
        if (state.isEmpty()) { // a concurrent report got there first
            ReceiptStore.ReadView now = store.readView(reader, peer).orElseThrow();
            return new ReadState(now.readSeq(), now.unread());
        }
        ReadState read = state.get();
        notices.fire(new Notice(List.of(reader), "chatRead", Jsonp.PROVIDER.createObjectBuilder()
                .add("peer", Long.toString(peer)).add("readSeq", read.readSeq()).add("unread", read.unread()).build()));
        if (receipt) {
            store.mirrorRead(reader, peer, read.readSeq(), versions.get(peer));
            notices.fire(new Notice(List.of(peer), "chatReceipt", Jsonp.PROVIDER.createObjectBuilder()
                    .add("kind", "read").add("peer", Long.toString(reader)).add("seq", read.readSeq()).build()));
        }
        return read;
    }
}
