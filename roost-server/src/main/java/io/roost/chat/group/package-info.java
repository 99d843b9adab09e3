/**
 * Group chat by read diffusion, chat's second idea beside one-to-one chat: one stored row per
 * message per group (its gap-free {@code seq} counted on the group's {@code group_chat} row), each
 * member's own state (visibility by join and leave seq, read cursor, mute, mentions) in
 * {@code group_chat_member}, and no row per member per message. Its public face is
 * {@link io.roost.chat.group.GroupChat}; the gateway fans a stored message out node by node to the
 * members' live devices ({@link io.roost.chat.group.GroupPush}) and keeps each node's index of them
 * ({@link io.roost.chat.group.GroupMembership}).
 */
package io.roost.chat.group;
