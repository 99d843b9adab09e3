package io.roost.group;

import java.time.OffsetDateTime;
import java.util.List;

/** A group as REST, the admin API and {@code groupOp} frames show it: ids as strings (JS-safe). */
public record GroupView(String id, String name, String notice, String iconUrl, List<String> tags, String type,
                        String joinPolicy, String visibility, String ownerId, String status, int memberCount, long version,
                        OffsetDateTime createdAt) {

    public static GroupView of(GroupService.Group g) {
        return new GroupView(Long.toString(g.id()), g.name(), g.notice(), g.iconUrl(), g.tags(), g.type(), g.joinPolicy(),
                g.visibility(), Long.toString(g.ownerId()), g.status(), g.memberCount(), g.version(), g.createdAt());
    }
}
