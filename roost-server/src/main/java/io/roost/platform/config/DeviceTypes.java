package io.roost.platform.config;

import jakarta.annotation.PostConstruct;
import jakarta.enterprise.context.ApplicationScoped;
import jakarta.inject.Inject;
import java.util.Arrays;
import java.util.Collections;
import java.util.LinkedHashSet;
import java.util.Locale;
import java.util.Set;
import java.util.stream.Collectors;
import org.eclipse.microprofile.config.inject.ConfigProperty;

/** The device types this deployment knows (ROOST_SESSION_DEVICE_TYPES); logins and sessions both check them. */
@ApplicationScoped
public class DeviceTypes {

    @Inject
    @ConfigProperty(name = "roost.session.device-types", defaultValue = "android,ios,web,desktop,pad")
    String deviceTypes;

    /** Parsed once: every device's hello and login asks. In the configured order, for error messages. */
    private Set<String> all;

    @PostConstruct
    void init() {
        Set<String> types = Arrays.stream(deviceTypes.split(",")).map(s -> s.trim().toLowerCase(Locale.ROOT))
                .filter(s -> !s.isEmpty()).collect(Collectors.toCollection(LinkedHashSet::new));
        all = Collections.unmodifiableSet(types);
    }

    public Set<String> all() {
        return all;
    }

    /** The normalized type, or null if it is not one of {@link #all()}. */
    public String normalize(String deviceType) {
        if (deviceType == null) {
            return null;
        }
        String t = deviceType.trim().toLowerCase(Locale.ROOT);
        return all().contains(t) ? t : null;
    }
}
