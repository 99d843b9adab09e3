package io.roost.chat;

import io.roost.chat.store.ReceiptStore;
import io.roost.platform.delivery.Notice;
import io.roost.platform.delivery.Notices;
import io.roost.platform.json.Jsonp;
import jakarta.enterprise.context.ApplicationScoped;
import jakarta.enterprise.event.Event;
import jakarta.inject.Inject;
import jakarta.transaction.Transactional;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;

/**
 * Delivered and read receipts, a batch a transaction (acknowledgements held by
 * {@link DeliveredCursors} and not carried by a send, read reports by {@link ReadQueue}). Delivered: acknowledgements from the
 * owner's devices move the owner's delivered cursor; the peer's devices get a {@code chatReceipt}
 * after commit. Read: one report counts for all of the reader's devices (the others get
 * {@code chatRead} with the new unread count; the reporting one has it in its answer); the peer
 * gets a read receipt unless the reader turned them off.
 * A read report changes both sides' sync versions (so devices that were away see it when they
 * sync); a delivered cursor does not (it moves with nearly every message, and is live state).
 */
@ApplicationScoped
public class Receipts {

    @Inject
    ReceiptStore store;

    @Inject
    SyncVersions versions;

    @Inject
    Event<Notices> notices;

    /** Applies a batch of acknowledgements (several per conversation are fine: the highest counts); the cursors that moved. */
    @Transactional(Transactional.TxType.REQUIRES_NEW)
    public List<Cursor> delivered(List<Cursor> acks) {
        Map<List<Long>, Cursor> highest = new LinkedHashMap<>();
        for (Cursor a : acks) {
            highest.merge(List.of(a.owner(), a.peer()), a, (x, y) -> x.seq() >= y.seq() ? x : y);
        }
        List<Cursor> moved = store.advanceDelivered(new ArrayList<>(highest.values()));
        deliveredMoved(moved);
        return moved;
    }

    /** Delivered cursors this transaction moved: each peer gets a delivered receipt after its commit. */
    void deliveredMoved(List<Cursor> moved) {
        if (moved.isEmpty()) {
            return;
        }
        List<Notice> receipts = new ArrayList<>();
        for (Cursor c : moved) {
            receipts.add(new Notice(List.of(c.peer()), "chatReceipt", Jsonp.PROVIDER.createObjectBuilder()
                    .add("kind", "delivered").add("peer", Long.toString(c.owner())).add("seq", c.seq()).build()));
        }
        notices.fire(new Notices(receipts));
    }

    /**
     * Applies a batch of read reports ({@code owner} the reader) in one transaction; the readers'
     * sides afterwards, by {@code List.of(reader, peer)} — absent where there is no such
     * conversation. Several reports of one conversation count as the highest. Locks both sides of
     * each conversation in (owner, peer) order, the send's order, and reads them under the locks;
     * then one statement writes every moved read cursor and its mirror on the peer's row.
     * {@code answeredOn}: by {@code List.of(reader, peer)}, the connections whose reports of that
     * conversation are answered with the reader's new side, and so need no {@code chatRead} (a
     * frame less per report on the reporting device).
     */
    @Transactional(Transactional.TxType.REQUIRES_NEW)
    public Map<List<Long>, ReadState> readAll(List<Cursor> reports, Map<List<Long>, Set<String>> answeredOn) {
        Map<List<Long>, Cursor> highest = new TreeMap<>(ChatWriter.PAIR_ORDER);
        for (Cursor r : reports) {
            highest.merge(List.of(r.owner(), r.peer()), r, (x, y) -> x.seq() >= y.seq() ? x : y);
        }
        Map<List<Long>, ReceiptStore.ReadView> rows = store.lockBothSides(new ArrayList<>(highest.values()));
        Map<List<Long>, ReadState> answers = new HashMap<>();
        // per row in (owner, peer) order: {its new read cursor, the peer's read cursor to mirror}, 0 for none
        Map<List<Long>, long[]> changes = new TreeMap<>(ChatWriter.PAIR_ORDER);
        List<Notice> told = new ArrayList<>();
        highest.forEach((key, r) -> {
            ReceiptStore.ReadView view = rows.get(key);
            if (view == null) {
                return;
            }
            long readTo = Math.min(r.seq(), view.lastSeq());
            if (readTo <= view.readSeq()) {
                answers.put(key, new ReadState(view.readSeq(), view.unread())); // already read that far: nothing changes
                return;
            }
            changes.computeIfAbsent(key, k -> new long[2])[0] = readTo;
            List<Long> peerSide = List.of(r.peer(), r.owner());
            if (view.readReceipts() && rows.containsKey(peerSide)) {
                changes.computeIfAbsent(peerSide, k -> new long[2])[1] = readTo;
                told.add(new Notice(List.of(r.peer()), "chatReceipt", Jsonp.PROVIDER.createObjectBuilder()
                        .add("kind", "read").add("peer", Long.toString(r.owner())).add("seq", readTo).build()));
            }
        });
        if (changes.isEmpty()) {
            return answers;
        }
        // each changed row takes its owner's next rank in this transaction
        List<ReceiptStore.ReadChange> applied = new ArrayList<>();
        changes.forEach((key, c) -> applied.add(new ReceiptStore.ReadChange(key.get(0), key.get(1), c[0], c[1],
                versions.next(key.get(0)))));
        store.applyReads(applied).forEach((key, read) -> {
            answers.put(key, read);
            told.add(new Notice(List.of(key.get(0)), "chatRead", Jsonp.PROVIDER.createObjectBuilder()
                    .add("peer", Long.toString(key.get(1))).add("readSeq", read.readSeq()).add("unread", read.unread()).build(),
                    answeredOn.getOrDefault(key, Set.of())));
        });
        notices.fire(new Notices(told));
        return answers;
    }
}
