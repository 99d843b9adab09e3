/**
 * social: follows (friends are mutual follows), friend requests, blocks, per-contact permissions, presence to contacts.
 * Owns the tables social_follow, social_counts, social_block, social_permission and social_friend_request (their SQL in
 * {@code store}) and the timer {@code social-housekeeping}; no topic.
 * Offers SocialGraph (records {@code Relation}, {@code Counts}, {@code Permission}, {@code FriendRequest}; the pages REST
 * and frames list) and {@code FriendRequestView}; fires {@code Notice} (friendOp, presence), observes PresenceChanged.
 */
package io.roost.social;
