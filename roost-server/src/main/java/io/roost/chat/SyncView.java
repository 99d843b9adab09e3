package io.roost.chat;

import java.util.List;
import org.eclipse.microprofile.openapi.annotations.media.Schema;

/**
 * A catch-up as REST and {@code chatOp sync} answers show it; {@code gap} is absent when nothing is
 * missing (as every null field of the API's views is).
 */
@Schema(name = "ChatSync", description = "The newest messages after a seq, ascending, and the gap before them if any (absent: none)")
public record SyncView(List<MessageView> items, ChatSync.Gap gap, long lastSeq) {

    public static SyncView of(ChatSync s) {
        return new SyncView(s.items().stream().map(MessageView::of).toList(), s.gap(), s.lastSeq());
    }
}
