/**
 * group: groups and channels, their roles, joins, invitations, owner transfer, search and audit events.
 * Owns the tables grp, group_member, group_request and group_event (their SQL in {@code store}) and the topic
 * {@code roost-group-events} (every change, through the outbox); no timer.
 * Offers GroupService (records {@code Group}, {@code Member}, {@code Request}; the pages REST, the admin API and frames
 * list) and the views GroupView, MemberView, RequestView; fires {@code Notice} (groupOp frames).
 */
package io.roost.group;
