package io.roost.client.device;

/**
 * The peer's devices hold ({@code DELIVERED}) or the peer read ({@code READ}) the one-to-one
 * conversation up to {@code seq}. Delivered only once per seq and only forward: a receipt that
 * would not raise the last one of its kind is dropped.
 */
public record Receipt(Kind kind, Conversation conversation, long seq) {

    public enum Kind { DELIVERED, READ }
}
