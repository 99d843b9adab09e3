package io.roost.platform.config;

import jakarta.annotation.PostConstruct;
import jakarta.ejb.Singleton;
import jakarta.ejb.Startup;
import jakarta.inject.Inject;
import java.util.logging.Logger;
import org.eclipse.microprofile.config.inject.ConfigProperty;

/**
 * {@code ROOST_LOG_FORMAT} is read by WildFly's logging subsystem (roost.cli), which takes any value
 * but {@code json} for {@code text}: a value that is neither is said once at start-up, not silently taken.
 */
@Startup
@Singleton
public class LogFormat {

    private static final Logger LOG = Logger.getLogger(LogFormat.class.getName());

    @Inject
    @ConfigProperty(name = "roost.log.format", defaultValue = "text")
    String format;

    @PostConstruct
    void check() {
        if (!format.equals("text") && !format.equals("json")) {
            LOG.warning(() -> "ROOST_LOG_FORMAT=" + format + " is neither text nor json: the log is text");
        }
    }
}
