package io.roost.chat;

import jakarta.json.JsonObject;

/**
 * A message to send. {@code sender} is the user it comes from; with {@code system} the message is
 * the system's (stored with sender 0) in the conversation between {@code sender} and {@code peer}.
 * {@code deviceKey} names the sending device (a sendId is unique per device); {@code body} is
 * {@code {"text"}}, {@code {"media":{url,size,mime,...}}} or {@code {"location":{lat,lon,...}}} by type.
 */
public record SendCommand(long sender, long peer, String deviceKey, String sendId, String type, JsonObject body,
                          Long quoteMsgId, int priority, boolean system) {
}
