package io.roost.chat;

/** The reader's side of a conversation after a read report: how far it is read, and how many messages are still unread. */
public record ReadState(long readSeq, int unread) {
}
