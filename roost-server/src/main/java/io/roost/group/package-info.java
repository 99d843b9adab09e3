/**
 * group: groups and channels, their roles, joins, invitations, owner transfer, search and audit events.
 * Owns the tables grp, group_member, group_request, group_event and group_invite_link (their SQL in {@code store}) and the topic
 * {@code roost-group-events} (every change, through the outbox); no timer.
 * Offers GroupService (records {@code Group}, {@code Member}, {@code Request}; the pages REST, the admin API and frames
 * list), GroupInviteLinks (record InviteLink) and the views GroupView, MemberView, RequestView, InviteLinkView; fires
 * {@code Notice} (groupOp frames). A hidden group is, to anyone not its member, an id that names no group.
 */
package io.roost.group;
