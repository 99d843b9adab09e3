package io.roost.chat;

import io.roost.chat.store.ChatStore;
import io.roost.platform.problem.ProblemException;
import io.roost.social.SocialGraph;
import io.roost.social.SocialSettings;
import jakarta.enterprise.context.ApplicationScoped;
import jakarta.inject.Inject;
import java.util.Collection;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Set;

/**
 * Follow mode's stranger limit: a sender the recipient does not follow may send at most
 * {@code ROOST_SOCIAL_STRANGER_MESSAGE_LIMIT} messages into the conversation until the recipient
 * follows them; the next is 403 {@code stranger-limit}. System messages are exempt, and approval
 * mode has no strangers to limit (who may talk is decided by friend requests there).
 */
@ApplicationScoped
public class StrangerLimit {

    @Inject
    SocialSettings social;

    @Inject
    SocialGraph graph;

    @Inject
    ChatStore store;

    /**
     * Called in the send transaction once the conversation's rows are locked and the batch's own
     * messages are in its timeline: the sends of one conversation queue on those rows, so each
     * counts the ones committed before it and its own batch's, and two racing sends cannot both
     * take the last place. A refusal rolls the whole send back (nothing written, no seq spent; the
     * messages of its batch are then written one by one, and only the one past the limit is
     * refused): rare, since {@link #usedUp} refuses the sends of a used-up limit before the batch.
     */
    void check(SendCommand c) {
        if (!applies(c)) {
            return;
        }
        if (graph.relation(c.sender(), c.peer()).followedBy()) {
            return;
        }
        int limit = limit();
        if (store.sentTo(c.sender(), c.peer(), limit + 1) > limit) {
            throw refusal(limit);
        }
    }

    /**
     * The conversations of a send batch, as {@code List.of(sender, peer)}, whose stranger has
     * used up the limit in committed messages: their new sends are refused before the batch is
     * written, in one statement without locks. Without it every batch with such a send would
     * roll back at {@link #check} and be written again one message at a time; {@code check} still
     * decides the sends that race for the last places.
     */
    Set<List<Long>> usedUp(Collection<SendCommand> batch) {
        Set<List<Long>> pairs = new LinkedHashSet<>();
        for (SendCommand c : batch) {
            if (applies(c)) {
                pairs.add(List.of(c.sender(), c.peer()));
            }
        }
        if (pairs.isEmpty()) {
            return Set.of();
        }
        return store.atStrangerLimit(pairs.stream().map(p -> p.get(0)).toArray(Long[]::new),
                pairs.stream().map(p -> p.get(1)).toArray(Long[]::new), limit(), graph::followsSql);
    }

    ProblemException refusal() {
        return refusal(limit());
    }

    private boolean applies(SendCommand c) {
        return !c.system() && social.mode() == SocialSettings.Mode.FOLLOW;
    }

    private int limit() {
        return Math.max(0, social.strangerMessageLimit());
    }

    private static ProblemException refusal(int limit) {
        return new ProblemException(403, "stranger-limit", "Forbidden", "You may send " + limit
                + " messages to someone who does not follow you until they follow you.");
    }
}
