package io.roost.chat.group;

import io.roost.group.GroupChanged;
import jakarta.enterprise.context.ApplicationScoped;
import jakarta.enterprise.event.Observes;
import jakarta.inject.Inject;

/** Every group change becomes part of the group's conversation, in the change's own transaction. */
@ApplicationScoped
public class GroupEvents {

    /** Changes that only the audit log keeps: they are nobody's message in the group. */
    private static final java.util.Set<String> AUDIT_ONLY = java.util.Set.of("invited", "join_requested");

    @Inject
    GroupChatWriter writer;

    void onChange(@Observes GroupChanged change) {
        if (!AUDIT_ONLY.contains(change.type())) {
            writer.groupChanged(change);
        }
    }
}
