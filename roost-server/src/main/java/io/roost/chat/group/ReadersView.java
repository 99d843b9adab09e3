package io.roost.chat.group;

import java.util.List;
import org.eclipse.microprofile.openapi.annotations.media.Schema;

/** Who read a group message (small groups): how many, and a page of them by uid. */
@Schema(name = "GroupReaders", description = "How many members read a message, and a page of who")
public record ReadersView(long seq, long count, List<String> uids, String next) {
}
