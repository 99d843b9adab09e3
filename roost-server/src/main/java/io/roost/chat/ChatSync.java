package io.roost.chat;

import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import org.eclipse.microprofile.openapi.annotations.media.Schema;

/**
 * A long-away device's catch-up of one conversation after the last seq it holds: the newest
 * messages (ascending), and, when they do not start right after that seq, the {@link Gap} between.
 * {@code lastSeq} is the conversation's last seq when it was read.
 */
public record ChatSync(List<ChatMessage> items, Gap gap, long lastSeq) {

    /** The message a gap says is still to be loaded: at least one of them is stored, page back with {@code before}. */
    public static final String NOT_LOADED = "not-loaded";
    /** None of them is stored any more: the retention purge deleted them. */
    public static final String PURGED = "purged";

    /** Seqs {@code afterSeq + 1} to {@code beforeSeq - 1} are not in the answer, for {@code reason}. */
    @Schema(name = "ChatGap", description = "Seqs afterSeq+1 .. beforeSeq-1 are not in this answer: not-loaded (page back with"
            + " before=beforeSeq) or purged (gone for good)")
    public record Gap(long afterSeq, long beforeSeq, @Schema(enumeration = {NOT_LOADED, PURGED}) String reason) {
    }

    /**
     * The gap before a catch-up's first seq {@code first} (or the seq after the last when it is
     * empty), if it does not follow {@code afterSeq}: {@code more} stored messages are left out
     * (not loaded), or else none is stored any more (purged). Null when nothing is missing.
     */
    public static Gap gap(long afterSeq, long first, boolean more) {
        return first <= afterSeq + 1 ? null : new Gap(afterSeq, first, more ? NOT_LOADED : PURGED);
    }

    /**
     * The answer from the newest {@code limit + 1} messages after {@code afterSeq} (newest first). More
     * than {@code limit}: the newest {@code limit}, and a gap to page back into. Otherwise every stored
     * message after {@code afterSeq} is here; since seqs are gap-free and a deleted or recalled message
     * keeps its row, a missing seq before the first one (or before {@code lastSeq + 1} when none is
     * left) can only have been purged.
     */
    public static ChatSync of(long afterSeq, List<ChatMessage> newestFirst, int limit, long lastSeq) {
        boolean more = newestFirst.size() > limit;
        List<ChatMessage> items = new ArrayList<>(newestFirst.subList(0, Math.min(limit, newestFirst.size())));
        Collections.reverse(items);
        Gap gap = gap(afterSeq, items.isEmpty() ? Math.max(lastSeq, afterSeq) + 1 : items.get(0).seq(), more);
        return new ChatSync(items, gap, Math.max(lastSeq, items.isEmpty() ? 0 : items.get(items.size() - 1).seq()));
    }
}
