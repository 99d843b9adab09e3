package io.roost.chat;

/** A position in one owner's side of a conversation: "the owner's devices hold (or read) up to seq". */
public record Cursor(long owner, long peer, long seq) {
}
