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
     * Called in the send transaction after the conversation's seq row is locked: the sends of one
     * conversation queue there, so each counts the ones committed before it (and {@code
     * earlierInBatch}, the same sender's messages to the same peer earlier in its own batch) and two
     * racing sends cannot both take the last place. A refusal rolls the whole send back (nothing
     * written, no seq spent; the other messages of its batch are then written one by one).
     */
    void check(SendCommand c, int earlierInBatch) {
        if (c.system() || social.mode() != SocialSettings.Mode.FOLLOW) {
            return;
        }
        if (graph.relation(c.sender(), c.peer()).followedBy()) {
            return;
        }
        int limit = Math.max(0, social.strangerMessageLimit());
        if (store.sentTo(c.sender(), c.peer(), limit) + earlierInBatch >= limit) {
            throw new ProblemException(403, "stranger-limit", "Forbidden", "You may send " + limit
                    + " messages to someone who does not follow you until they follow you.");
        }
    }
}
