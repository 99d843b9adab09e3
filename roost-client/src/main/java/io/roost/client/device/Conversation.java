package io.roost.client.device;

import java.util.Objects;

/**
 * A conversation a device takes part in: one-to-one with a peer, or a group's. Its messages carry
 * a gap-free seq from 1 (a group's member sees the part from its join on).
 */
public record Conversation(Kind kind, String id) {

    public enum Kind { USER, GROUP }

    public Conversation {
        Objects.requireNonNull(kind, "kind");
        Objects.requireNonNull(id, "id");
    }

    /** The one-to-one conversation with user {@code uid}. */
    public static Conversation user(String uid) {
        return new Conversation(Kind.USER, uid);
    }

    public static Conversation group(String groupId) {
        return new Conversation(Kind.GROUP, groupId);
    }

    public boolean isGroup() {
        return kind == Kind.GROUP;
    }

    /** The frame field that names it: {@code peer} or {@code group}. */
    String field() {
        return kind == Kind.GROUP ? "group" : "peer";
    }

    @Override
    public String toString() {
        return (kind == Kind.GROUP ? "group:" : "user:") + id;
    }
}
