package io.roost.chat.group;

import io.roost.chat.ChatSync;
import java.util.List;

/** A device's catch-up of one group: the newest messages it may see after its seq, and the gap before them if any. */
public record GroupSync(List<GroupMessage> items, ChatSync.Gap gap, long lastSeq) {
}
