package io.roost.platform.metrics;

import io.micrometer.core.instrument.Counter;
import io.micrometer.core.instrument.DistributionSummary;
import io.micrometer.core.instrument.FunctionCounter;
import io.micrometer.core.instrument.Gauge;
import io.micrometer.core.instrument.Meter;
import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.Tags;
import io.micrometer.core.instrument.Timer;
import jakarta.annotation.PostConstruct;
import jakarta.annotation.PreDestroy;
import jakarta.enterprise.context.ApplicationScoped;
import jakarta.enterprise.inject.Instance;
import jakarta.inject.Inject;
import java.lang.reflect.Field;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.function.DoubleSupplier;
import java.util.function.ToDoubleFunction;
import java.util.logging.Level;
import java.util.logging.Logger;

/**
 * Roost's meters, exported by WildFly's Micrometer subsystem on the management interface in the
 * Prometheus format. Every module registers through here so that names, units and buckets follow
 * one rule: dotted names under {@code roost.<module>.}, which the Prometheus registry turns into
 * {@code roost_<module>_…} with {@code _total} on counters and {@code _seconds} on timers; tags of
 * low cardinality only (a device type, a reason, a store; never a user, a group or a channel).
 * <p>
 * WildFly gives a deployment a registry of its own that forwards only meters asked for by name and
 * tags to the Prometheus registry behind it: a meter built with a description, a base unit or
 * histogram buckets would stay in the deployment's registry and never be exported. So the meters
 * are registered on the registry behind it, with the deployment's tag added as WildFly would, and
 * removed from it when the deployment ends. Where that registry cannot be found (another WildFly),
 * they fall back to the deployment's registry by name and tags: counts and gauges still export, a
 * timer loses its buckets. Without any registry (a unit test) they go to Micrometer's simple one.
 */
@ApplicationScoped
public class Meters {

    private static final Logger LOG = Logger.getLogger(Meters.class.getName());

    /** Latency buckets, 1 ms to 10 s: a local push answers in milliseconds, a stuck one in seconds. */
    public static final Duration[] LATENCY_BUCKETS = {
        Duration.ofMillis(1), Duration.ofMillis(2), Duration.ofMillis(5), Duration.ofMillis(10), Duration.ofMillis(25),
        Duration.ofMillis(50), Duration.ofMillis(100), Duration.ofMillis(250), Duration.ofMillis(500), Duration.ofSeconds(1),
        Duration.ofMillis(2500), Duration.ofSeconds(5), Duration.ofSeconds(10)};

    /** Batch-size buckets: a group commit or a login batch takes 1 to a few hundred. */
    public static final double[] BATCH_BUCKETS = {1, 2, 5, 10, 20, 50, 100, 200, 500, 1000};

    /** Fan-out buckets: a group push reaches from one device to a 100,000-member group's online ones. */
    public static final double[] FANOUT_BUCKETS = {1, 10, 100, 1000, 10_000, 100_000};

    @Inject
    Instance<MeterRegistry> deploymentRegistry;

    private MeterRegistry exported;
    private boolean byBuilder;
    private Tags deploymentTags = Tags.empty();
    private final Map<String, Meter> meters = new ConcurrentHashMap<>();
    private final Map<String, List<DoubleSupplier>> countsByName = new ConcurrentHashMap<>();
    /** Gauges hold their object weakly: these keep them as long as the deployment lives. */
    private final List<Object> gaugeTargets = new CopyOnWriteArrayList<>();

    public Meters() {
    }

    /** Meters over a given registry, registered by builder (a unit test's simple registry). */
    public static Meters over(MeterRegistry registry) {
        Meters m = new Meters();
        m.exported = registry;
        m.byBuilder = true;
        return m;
    }

    @PostConstruct
    void findRegistry() {
        use(deploymentRegistry.isResolvable() ? deploymentRegistry.get() : null);
    }

    /** Registers on the registry behind the deployment's {@code own} where it can be found. */
    void use(MeterRegistry own) {
        if (own == null) {
            exported = new io.micrometer.core.instrument.simple.SimpleMeterRegistry();
            byBuilder = true;
            return;
        }
        Object parent = field(own, "parentRegistry");
        Object deployment = field(own, "deploymentName");
        if (parent instanceof MeterRegistry p && deployment instanceof String d) {
            exported = p;
            byBuilder = true;
            deploymentTags = Tags.of("WF_DEPLOYMENT", d);
        } else {
            LOG.warning("the deployment's meter registry is not WildFly's known one: meters by name and tags only, timers without buckets");
            exported = own;
            byBuilder = false;
        }
    }

    private static Object field(Object o, String name) {
        for (Class<?> c = o.getClass(); c != null; c = c.getSuperclass()) {
            try {
                Field f = c.getDeclaredField(name);
                f.setAccessible(true);
                return f.get(o);
            } catch (NoSuchFieldException e) {
                // a superclass may have it
            } catch (ReflectiveOperationException | RuntimeException e) {
                LOG.log(Level.FINE, "cannot read " + name + " of the meter registry", e);
                return null;
            }
        }
        return null;
    }

    @PreDestroy
    void removeMeters() {
        if (byBuilder) {
            meters.values().forEach(exported::remove);
        }
        meters.clear();
        countsByName.clear();
        gaugeTargets.clear();
    }

    /** A counter ({@code _total}); the same name and tags give the same counter. */
    public Counter counter(String name, String description, String... tags) {
        return (Counter) meters.computeIfAbsent(key(name, tags), k -> {
            Counter c = byBuilder
                    ? Counter.builder(name).description(description).tags(tags(tags)).register(exported)
                    : exported.counter(name, tags(tags));
            countsByName.computeIfAbsent(name, n -> new CopyOnWriteArrayList<>()).add(c::count);
            return c;
        });
    }

    /** A counter read from a count kept elsewhere (monotonic). */
    public <T> void countOf(String name, String description, T target, ToDoubleFunction<T> count, String... tags) {
        gaugeTargets.add(Objects.requireNonNull(target));
        meters.computeIfAbsent(key(name, tags), k -> {
            countsByName.computeIfAbsent(name, n -> new CopyOnWriteArrayList<>()).add(() -> count.applyAsDouble(target));
            return byBuilder
                    ? FunctionCounter.builder(name, target, count).description(description).tags(tags(tags)).register(exported)
                    : exported.more().counter(name, tags(tags), target, count);
        });
    }

    /** A gauge: a value now (a depth, a backlog, a number of connections). */
    public <T> void gauge(String name, String description, T target, ToDoubleFunction<T> value, String... tags) {
        gauge(name, description, null, target, value, tags);
    }

    /** A gauge in seconds ({@code _seconds}): an age, a lag. */
    public <T> void secondsGauge(String name, String description, T target, ToDoubleFunction<T> seconds, String... tags) {
        gauge(name, description, "seconds", target, seconds, tags);
    }

    private <T> void gauge(String name, String description, String baseUnit, T target, ToDoubleFunction<T> value, String... tags) {
        gaugeTargets.add(Objects.requireNonNull(target));
        meters.computeIfAbsent(key(name, tags), k -> {
            if (byBuilder) {
                return Gauge.builder(name, target, value).description(description).baseUnit(baseUnit).tags(tags(tags)).register(exported);
            }
            exported.gauge(name, tags(tags), target, value);
            return exported.find(name).tags(tags(tags)).gauge();
        });
    }

    /** A latency histogram in seconds over {@link #LATENCY_BUCKETS}. */
    public Timer latency(String name, String description, String... tags) {
        return (Timer) meters.computeIfAbsent(key(name, tags), k -> byBuilder
                ? Timer.builder(name).description(description).tags(tags(tags)).serviceLevelObjectives(LATENCY_BUCKETS).register(exported)
                : exported.timer(name, tags(tags)));
    }

    /** A histogram of sizes (a batch, a fan-out) over the given buckets. */
    public DistributionSummary sizes(String name, String description, double[] buckets, String... tags) {
        return (DistributionSummary) meters.computeIfAbsent(key(name, tags), k -> byBuilder
                ? DistributionSummary.builder(name).description(description).tags(tags(tags)).serviceLevelObjectives(buckets).register(exported)
                : exported.summary(name, tags(tags)));
    }

    /** The sum of every counter (and counted function) of this name made here, whatever its tags (the console's charts read it). */
    public double total(String name) {
        List<DoubleSupplier> cs = countsByName.get(name);
        return cs == null ? 0 : cs.stream().mapToDouble(DoubleSupplier::getAsDouble).sum();
    }

    private Tags tags(String... tags) {
        return deploymentTags.and(Tags.of(tags));
    }

    private static String key(String name, String... tags) {
        return tags.length == 0 ? name : name + '|' + String.join("|", tags);
    }
}
