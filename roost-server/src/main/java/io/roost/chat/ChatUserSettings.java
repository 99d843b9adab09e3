package io.roost.chat;

import java.util.Set;
import org.eclipse.microprofile.openapi.annotations.media.Schema;

/**
 * A user's chat settings: whether their peers get read receipts from them, and how much of a
 * message an offline push to them may show ({@code full} preview, the {@code sender} only, or
 * {@code none}). A user who never set them has the defaults.
 */
@Schema(name = "ChatUserSettings")
public record ChatUserSettings(boolean readReceipts,
                               @Schema(enumeration = {"full", "sender", "none"}) String pushPreview) {

    public static final String FULL = "full";
    public static final String SENDER = "sender";
    public static final String NONE = "none";
    public static final Set<String> PUSH_PREVIEWS = Set.of(FULL, SENDER, NONE);

    public static final ChatUserSettings DEFAULTS = new ChatUserSettings(true, FULL);
}
