/**
 * chat: one-to-one messages by write diffusion. Owns the tables chat_pair (each conversation's seq),
 * chat_user (each owner's sync version), chat_timeline (hash-partitioned by owner), chat_conversation
 * and chat_send (idempotent sendIds), their SQL in {@code store}, and the topic {@code roost-chat-events}.
 * Offers ChatService (records SendCommand, Sent, ChatMessage, Conversation) and the CDI interface
 * ContentFilter; asks identity who is active and social who blocks whom; fires {@code Notice} (chatMsg).
 */
package io.roost.chat;
