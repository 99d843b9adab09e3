package io.roost.chat.group;

import io.roost.chat.OfflinePushes;
import io.roost.chat.store.GroupChatStore;
import io.roost.platform.json.JsonText;
import io.roost.platform.json.Jsonp;
import io.roost.platform.outbox.OutboxPublisher;
import io.roost.presence.session.DeviceSessions;
import jakarta.enterprise.context.ApplicationScoped;
import jakarta.inject.Inject;
import jakarta.json.JsonArrayBuilder;
import jakarta.transaction.Transactional;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Set;

/**
 * The offline push of group messages, coalesced per group: a send batch adds its messages to the
 * group's {@code group_offline_push} row (one row, whatever the group's size); once the row is due
 * ({@code ROOST_CHAT_OFFLINE_PUSH_DELAY} after its first message), the members who have not read
 * them and have no live device get one {@code roost-offline-push} event per
 * {@value #RECIPIENTS_PER_EVENT} of them (tag {@code group}: the group and how many messages), except
 * those who muted the group; the members the messages mention (by name, or everyone) get one more
 * (tag {@code group-mention}), muted or not. No event shows a message's text.
 */
@ApplicationScoped
public class GroupOfflinePushes {

    static final int FLUSH_BATCH = 50;
    static final int RECIPIENTS_PER_EVENT = 500;
    static final int PAGE = 1000;

    @Inject
    GroupChatStore store;

    @Inject
    DeviceSessions sessions;

    @Inject
    OutboxPublisher outbox;

    /** Sends the due rows (at most one batch); how many rows it took. */
    @Transactional(Transactional.TxType.REQUIRES_NEW)
    public int flush() {
        List<GroupChatStore.OfflineDue> due = store.takeDueOfflinePushes(FLUSH_BATCH);
        List<OutboxPublisher.Message> events = new ArrayList<>();
        for (GroupChatStore.OfflineDue d : due) {
            Set<Long> mentioned = new HashSet<>(d.mentioned());
            List<Long> pushed = new ArrayList<>();
            List<Long> mentions = new ArrayList<>();
            long after = Long.MIN_VALUE;
            List<GroupChatStore.Candidate> page;
            do {
                page = store.unreadBy(d.groupId(), d.lastSeq(), after, PAGE);
                if (page.isEmpty()) {
                    break;
                }
                after = page.get(page.size() - 1).uid();
                Set<Long> online = sessions.onlineAmong(page.stream().map(GroupChatStore.Candidate::uid).toList());
                for (GroupChatStore.Candidate c : page) {
                    if (online.contains(c.uid())) {
                        continue;
                    }
                    if (d.mentionAll() || mentioned.contains(c.uid())) {
                        mentions.add(c.uid());
                    } else if (!c.muted()) {
                        pushed.add(c.uid());
                    }
                }
                flushFull(events, d, pushed, "group", false);
                flushFull(events, d, mentions, "group-mention", false);
            } while (page.size() == PAGE);
            flushFull(events, d, pushed, "group", true);
            flushFull(events, d, mentions, "group-mention", true);
        }
        outbox.publishAll(events);
        return due.size();
    }

    /** Moves the recipients into events of at most RECIPIENTS_PER_EVENT ({@code all}: the rest too). */
    private static void flushFull(List<OutboxPublisher.Message> events, GroupChatStore.OfflineDue d, List<Long> recipients, String tag,
                                  boolean all) {
        while (recipients.size() >= RECIPIENTS_PER_EVENT || (all && !recipients.isEmpty())) {
            List<Long> chunk = new ArrayList<>(recipients.subList(0, Math.min(RECIPIENTS_PER_EVENT, recipients.size())));
            recipients.subList(0, chunk.size()).clear();
            JsonArrayBuilder uids = Jsonp.PROVIDER.createArrayBuilder();
            chunk.forEach(u -> uids.add(Long.toString(u)));
            String body = JsonText.of(Jsonp.PROVIDER.createObjectBuilder().add("group", Long.toString(d.groupId()))
                    .add("count", d.pending()).add("firstSeq", d.firstSeq()).add("lastSeq", d.lastSeq())
                    .add("firstAt", d.firstAt().toInstant().toEpochMilli()).add("recipients", uids).build());
            events.add(new OutboxPublisher.Message(OfflinePushes.TOPIC, tag, Long.toString(d.groupId()), body));
        }
    }
}
