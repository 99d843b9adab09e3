package io.roost.social;

import io.roost.platform.api.Page;
import io.roost.platform.delivery.Notice;
import io.roost.platform.json.Jsonp;
import io.roost.presence.session.DeviceSessions;
import io.roost.presence.session.PresenceChanged;
import jakarta.annotation.Resource;
import jakarta.enterprise.concurrent.ManagedExecutorService;
import jakarta.enterprise.context.ApplicationScoped;
import jakarta.enterprise.event.Event;
import jakarta.enterprise.event.Observes;
import jakarta.enterprise.event.TransactionPhase;
import jakarta.inject.Inject;
import jakarta.json.JsonArrayBuilder;
import jakarta.json.JsonObject;
import java.util.ArrayList;
import java.util.List;
import java.util.Queue;
import java.util.Set;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.logging.Level;
import java.util.logging.Logger;

/**
 * Tells a user's contacts who are online that the user's presence changed: a {@code presence}
 * frame {@code {uid, online, devices, version}}. The audience is friends (or followers, see
 * ROOST_SOCIAL_PRESENCE_AUDIENCE), minus those the user hides presence from. It runs after commit on
 * a managed thread, a page of contacts at a time, so a user with many followers never holds up a
 * login.
 */
@ApplicationScoped
public class ContactPresence {

    private static final Logger LOG = Logger.getLogger(ContactPresence.class.getName());
    static final int PAGE = 1000;

    @Inject
    SocialGraph graph;

    @Inject
    SocialSettings settings;

    @Inject
    DeviceSessions sessions;

    @Inject
    Event<Notice> notices;

    @Resource
    ManagedExecutorService executor;

    /** Changes waiting for the audience check; a login burst turns into one query per batch, not one per user. */
    private final Queue<PresenceChanged> pending = new ConcurrentLinkedQueue<>();
    private final AtomicBoolean draining = new AtomicBoolean();

    void onPresenceChanged(@Observes(during = TransactionPhase.AFTER_SUCCESS) PresenceChanged changed) {
        pending.add(changed);
        drainSoon();
    }

    private void drainSoon() {
        if (draining.compareAndSet(false, true)) {
            executor.execute(this::drain);
        }
    }

    /**
     * Users without followers have nobody to tell (friends are mutual follows): most users at a
     * login burst. One query sorts them out; the others fan out on their own managed threads.
     */
    private void drain() {
        try {
            List<PresenceChanged> batch = new ArrayList<>();
            for (PresenceChanged c; batch.size() < PAGE && (c = pending.poll()) != null; ) {
                batch.add(c);
            }
            if (batch.isEmpty()) {
                return;
            }
            Set<Long> audience = graph.withFollowers(batch.stream().map(PresenceChanged::uid).distinct().toList());
            batch.stream().filter(c -> audience.contains(c.uid())).forEach(changed -> executor.execute(() -> {
                try {
                    announce(changed);
                } catch (RuntimeException e) {
                    LOG.log(Level.WARNING, "presence fan-out for " + changed.uid() + " failed", e);
                }
            }));
        } catch (RuntimeException e) {
            LOG.log(Level.WARNING, "presence fan-out audience check failed", e);
        } finally {
            draining.set(false);
            if (!pending.isEmpty()) {
                drainSoon(); // more arrived meanwhile (or the batch was full)
            }
        }
    }

    /**
     * The presence of the contacts whose {@code presence} frames {@code viewer} gets (friends, or
     * those it follows when the audience is followers), by id, keyset paged: what a device shows at
     * its start, before the frames.
     */
    public Page<ContactPresenceView> contactsOf(long viewer, Long after, int limit) {
        int n = Page.checkLimit(limit, SocialGraph.MAX_LIMIT);
        List<Long> fetched = settings.presenceAudience() == SocialSettings.Audience.FOLLOWERS
                ? graph.following(viewer, after, n + 1) : graph.friends(viewer, null, after, n + 1);
        List<Long> contacts = fetched.stream().limit(n).toList();
        Set<Long> hiding = Set.copyOf(graph.hidingFrom(viewer, contacts));
        List<ContactPresenceView> items = sessions.presenceOf(contacts).stream().map(p -> hiding.contains(p.uid())
                ? new ContactPresenceView(Long.toString(p.uid()), false, List.of(), 0)
                : new ContactPresenceView(Long.toString(p.uid()), p.online(),
                        p.devices().stream().map(d -> new ContactPresenceView.Device(d.deviceType(), d.deviceId())).toList(),
                        p.version())).toList();
        return new Page<>(items, fetched.size() > n ? items.get(items.size() - 1).uid() : null);
    }

    void announce(PresenceChanged changed) {
        JsonArrayBuilder devices = Jsonp.PROVIDER.createArrayBuilder();
        changed.devices().forEach(d -> devices.add(Jsonp.PROVIDER.createObjectBuilder()
                .add("deviceType", d.deviceType()).add("deviceId", d.deviceId() == null ? "" : d.deviceId())));
        JsonObject body = Jsonp.PROVIDER.createObjectBuilder().add("uid", Long.toString(changed.uid()))
                .add("online", changed.online()).add("devices", devices).add("version", changed.version()).build();
        boolean followers = settings.presenceAudience() == SocialSettings.Audience.FOLLOWERS;
        Long after = null;
        while (true) {
            List<Long> page = followers ? graph.followers(changed.uid(), after, PAGE)
                    : graph.friends(changed.uid(), null, after, PAGE);
            if (page.isEmpty()) {
                return;
            }
            Set<Long> online = sessions.onlineAmong(page);
            online.removeAll(graph.hiddenFrom(changed.uid(), List.copyOf(online)));
            if (!online.isEmpty()) {
                notices.fire(new Notice(online, "presence", body));
            }
            if (page.size() < PAGE) {
                return;
            }
            after = page.get(page.size() - 1);
        }
    }
}
