package io.roost.chat;

import io.roost.chat.store.ChatStore;
import io.roost.platform.problem.ProblemException;
import io.roost.social.SocialGraph;
import io.roost.social.SocialSettings;
import jakarta.enterprise.context.ApplicationScoped;
import jakarta.inject.Inject;

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
     * messages of its batch are then written one by one, and only the one past the limit is refused).
     */
    void check(SendCommand c) {
        if (c.system() || social.mode() != SocialSettings.Mode.FOLLOW) {
            return;
        }
        if (graph.relation(c.sender(), c.peer()).followedBy()) {
            return;
        }
        int limit = Math.max(0, social.strangerMessageLimit());
        if (store.sentTo(c.sender(), c.peer(), limit + 1) > limit) {
            throw new ProblemException(403, "stranger-limit", "Forbidden", "You may send " + limit
                    + " messages to someone who does not follow you until they follow you.");
        }
    }
}
