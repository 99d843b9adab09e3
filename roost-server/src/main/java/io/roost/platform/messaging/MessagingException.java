package io.roost.platform.messaging;

/** A message could not be handed to the broker. */
public class MessagingException extends Exception {
    public MessagingException(String message, Throwable cause) {
        super(message, cause);
    }
}
