package io.roost.chat;

import io.roost.platform.config.Durations;
import jakarta.enterprise.context.ApplicationScoped;
import jakarta.inject.Inject;
import java.time.Duration;
import java.util.List;
import java.util.Optional;
import org.eclipse.microprofile.config.inject.ConfigProperty;

/** Chat configuration (environment variables in docs/configuration.md). */
@ApplicationScoped
public class ChatSettings {

    @Inject
    @ConfigProperty(name = "roost.chat.max-body-bytes", defaultValue = "16384")
    int maxBodyBytes;

    @Inject
    @ConfigProperty(name = "roost.chat.send-id-retention", defaultValue = "24h")
    String sendIdRetention;

    @Inject
    @ConfigProperty(name = "roost.chat.blocked-words")
    Optional<String> blockedWords;

    @Inject
    @ConfigProperty(name = "roost.chat.blocked-words-action", defaultValue = "mask")
    String blockedWordsAction;

    @Inject
    @ConfigProperty(name = "roost.chat.ack-timeout", defaultValue = "15s")
    String ackTimeout;

    @Inject
    @ConfigProperty(name = "roost.chat.ack-retries", defaultValue = "1")
    int ackRetries;

    @Inject
    @ConfigProperty(name = "roost.chat.delivered-hold", defaultValue = "1s")
    String deliveredHold;

    @Inject
    @ConfigProperty(name = "roost.chat.offline-push-delay", defaultValue = "2s")
    String offlinePushDelay;

    @Inject
    @ConfigProperty(name = "roost.chat.recall-window", defaultValue = "2m")
    String recallWindow;

    @Inject
    @ConfigProperty(name = "roost.chat.retention", defaultValue = "365d")
    String retention;

    @Inject
    @ConfigProperty(name = "roost.group.receipts-max-members", defaultValue = "200")
    int groupReceiptsMaxMembers;

    /** Read receipts (who read a message) are kept for groups of at most this many members. */
    public int groupReceiptsMaxMembers() {
        return groupReceiptsMaxMembers;
    }

    /** The most bytes a message body may take (its JSON form, UTF-8). */
    public int maxBodyBytes() {
        return maxBodyBytes;
    }

    /** A sendId's answer is kept at least this long, so a resend within it writes nothing. */
    public Duration sendIdRetention() {
        return Durations.parse(sendIdRetention);
    }

    /** The default content filter's words (comma-separated, matched case-insensitively). */
    public List<String> blockedWords() {
        return WordList.parseWords(blockedWords.orElse(""));
    }

    /** What the default content filter does with a blocked word: reject the message, or mask the word. */
    public WordList.Action blockedWordsAction() {
        return WordList.Action.parse(blockedWordsAction);
    }

    /** How long a device has to acknowledge a pushed message before it is pushed again (or given up on). */
    public Duration ackTimeout() {
        return Durations.parse(ackTimeout);
    }

    /** How many times an unacknowledged message is pushed again before the device counts as gone. */
    public int ackRetries() {
        return Math.max(0, ackRetries);
    }

    /**
     * How long an acknowledgement's delivered cursor waits for a send in its conversation to carry
     * it before it is written by itself ({@link DeliveredCursors}); a delivered receipt waits as long at most.
     */
    public Duration deliveredHold() {
        return Durations.parse(deliveredHold);
    }

    /**
     * How long undelivered messages gather before their offline push goes out: a burst to an
     * offline user becomes one event with a count.
     */
    public Duration offlinePushDelay() {
        return Durations.parse(offlinePushDelay);
    }

    /** How long after sending its sender may recall a message (operators may at any time). */
    public Duration recallWindow() {
        return Durations.parse(recallWindow);
    }

    /** Messages older than this leave both timelines; zero keeps them forever. */
    public Duration retention() {
        return Durations.parse(retention);
    }
}
