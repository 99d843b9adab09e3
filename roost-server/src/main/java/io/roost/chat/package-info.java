/**
 * chat: one-to-one messages by write diffusion. Owns the tables chat_user (each user's chat
 * settings), chat_timeline (hash-partitioned by owner), chat_conversation (each side of a
 * conversation, both carrying its seq counter) and chat_send (idempotent sendIds), their SQL in {@code store}, the topic
 * {@code roost-chat-events} and the timers {@code chat-send-purge} and {@code chat-retention-purge}.
 * Offers ChatService (records SendCommand, Sent, ChatMessage, Conversation, ChatSync, ChatUserSettings;
 * the views MessageView, ConversationView, SyncView) and the CDI interface ContentFilter; asks identity
 * who is active and social who blocks and who follows whom; fires {@code Notice} (chatMsg, chatRecall).
 */
package io.roost.chat;
