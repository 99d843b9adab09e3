package io.roost.presence;

import io.micrometer.core.instrument.Counter;
import io.roost.platform.metrics.Meters;
import jakarta.annotation.PostConstruct;
import jakarta.enterprise.context.ApplicationScoped;
import jakarta.inject.Inject;
import java.util.Locale;

/**
 * The presence module's meters: what became of each Agora webhook event and each MQTT
 * notification ({@code roost.presence.rtc.events}, {@code roost.presence.mqtt.events}, by
 * {@link Outcome}), registered once.
 */
@ApplicationScoped
public class PresenceMeters {

    /** What an event did. */
    public enum Outcome {
        /** It changed the state (or, for an MQTT close seen before its connect, was remembered for it). */
        APPLIED,
        /** It had been seen already (a redelivery): nothing to do. */
        DUPLICATE,
        /** It came after a newer one and changes nothing (an older clientSeq; a superseded MQTT connection). */
        STALE;

        final String label = name().toLowerCase(Locale.ROOT);
    }

    @Inject
    Meters meters;

    private final Counter[] rtc = new Counter[Outcome.values().length];
    private final Counter[] mqtt = new Counter[Outcome.values().length];

    public PresenceMeters() {
    }

    /** Meters on the given ones (a unit test's). */
    public static PresenceMeters over(Meters meters) {
        PresenceMeters m = new PresenceMeters();
        m.meters = meters;
        m.register();
        return m;
    }

    @PostConstruct
    void register() {
        for (Outcome o : Outcome.values()) {
            rtc[o.ordinal()] = meters.counter("roost.presence.rtc.events", "Agora webhook events by outcome", "outcome", o.label);
            mqtt[o.ordinal()] = meters.counter("roost.presence.mqtt.events", "MQTT notifications by outcome", "outcome", o.label);
        }
    }

    /** {@code n} Agora webhook events ended so. */
    public void rtc(Outcome outcome, long n) {
        if (n > 0) {
            rtc[outcome.ordinal()].increment(n);
        }
    }

    /** {@code n} MQTT notifications ended so. */
    public void mqtt(Outcome outcome, long n) {
        if (n > 0) {
            mqtt[outcome.ordinal()].increment(n);
        }
    }
}
