package io.roost.chat.group;

import io.roost.chat.ChatSync;
import java.util.List;
import org.eclipse.microprofile.openapi.annotations.media.Schema;

/** A group catch-up as REST and {@code chatOp sync} answer it; {@code gap} absent when nothing is missing. */
@Schema(name = "GroupChatSync", description = "The newest messages after a seq the reader may see, ascending, and the gap before them if any")
public record GroupSyncView(List<GroupMessageView> items, ChatSync.Gap gap,
                            @Schema(description = "the group's last seq the reader may see") long lastSeq) {

    public static GroupSyncView of(GroupSync s) {
        return new GroupSyncView(s.items().stream().map(GroupMessageView::of).toList(), s.gap(), s.lastSeq());
    }
}
