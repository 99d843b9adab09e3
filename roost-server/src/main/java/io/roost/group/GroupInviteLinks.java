package io.roost.group;

import io.roost.group.store.InviteLinkStore;
import io.roost.platform.ids.IdGenerator;
import io.roost.platform.problem.ProblemException;
import jakarta.enterprise.context.ApplicationScoped;
import jakarta.inject.Inject;
import jakarta.transaction.Transactional;
import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.security.SecureRandom;
import java.time.Duration;
import java.time.OffsetDateTime;
import java.time.ZoneOffset;
import java.util.Base64;

/**
 * Invite links: an admin's invitation to whoever holds the link's token, until it expires or an
 * admin revokes it. It admits to any group it was made for, a hidden or invite-only one too, at
 * once and with the group's default role. Each call locks the group row first and checks the
 * caller under that lock, as every change of a group does ({@link GroupService}), and is recorded
 * in the group's events the same way.
 */
@ApplicationScoped
public class GroupInviteLinks {

    public static final Duration DEFAULT_TTL = Duration.ofDays(7);
    public static final Duration MIN_TTL = Duration.ofMinutes(1);
    public static final Duration MAX_TTL = Duration.ofDays(30);
    private static final String PREFIX = "rgl_";
    private static final SecureRandom RANDOM = new SecureRandom();

    @Inject
    GroupService groups;

    @Inject
    InviteLinkStore store;

    @Inject
    IdGenerator ids;

    /** A new link to the group, by one of its admins (or its owner); its token is in the answer and nowhere else. */
    @Transactional
    public InviteLinkView create(long actor, long groupId, Duration ttl) {
        GroupService.Group g = groups.lockForAdmins(actor, groupId);
        byte[] secret = new byte[32];
        RANDOM.nextBytes(secret);
        String token = PREFIX + Base64.getUrlEncoder().withoutPadding().encodeToString(secret);
        InviteLink link = store.insert(ids.nextId(), g.id(), sha256(token), actor, OffsetDateTime.now(ZoneOffset.UTC).plus(ttl));
        groups.recordChange(g.id(), actor, "invite_link_created", null);
        return InviteLinkView.of(link, token);
    }

    /** Revokes one of the group's links (its admins); revoking a revoked link again changes nothing. */
    @Transactional
    public void revoke(long actor, long groupId, long linkId) {
        GroupService.Group g = groups.lockForAdmins(actor, groupId);
        if (store.revoke(linkId, g.id(), actor)) {
            groups.recordChange(g.id(), actor, "invite_link_revoked", null);
        } else if (!store.exists(linkId, g.id())) {
            throw ProblemException.notFound("No invite link " + linkId + " in group " + g.id());
        }
    }

    /**
     * Joins the group of the live link whose token this is. An unknown, expired or revoked token
     * answers the same 404, which names no group.
     */
    @Transactional
    public GroupService.Group join(long uid, String token) {
        byte[] hash = sha256(token == null ? "" : token);
        InviteLink link = store.liveByHash(hash).orElseThrow(GroupInviteLinks::unknownToken);
        GroupService.Group g = groups.lockForInvitee(link.groupId());
        if (!store.live(link.id())) { // revoked or expired while we waited for the group's lock
            throw unknownToken();
        }
        groups.admitInvitee(g, uid, "link");
        return groups.find(g.id()).orElseThrow();
    }

    private static ProblemException unknownToken() {
        return ProblemException.notFound("No live invite link with this token (unknown, expired or revoked).");
    }

    private static byte[] sha256(String token) {
        try {
            return MessageDigest.getInstance("SHA-256").digest(token.getBytes(StandardCharsets.UTF_8));
        } catch (NoSuchAlgorithmException e) {
            throw new IllegalStateException(e);
        }
    }
}
