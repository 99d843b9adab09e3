package io.roost.chat;

import jakarta.json.JsonObject;
import java.time.OffsetDateTime;

/**
 * One message in its owner's timeline. A message the owner deleted is a tombstone: {@code deleted},
 * no body, its seq kept so the sequence stays gap-free; a recalled one likewise ({@code recalled}, in
 * both timelines). {@code senderUid} 0 is the system.
 */
public record ChatMessage(long owner, long peer, long seq, long msgId, long senderUid, String sendId, String type,
                          JsonObject body, Long quoteMsgId, int priority, OffsetDateTime createdAt, boolean deleted,
                          boolean recalled) {
}
