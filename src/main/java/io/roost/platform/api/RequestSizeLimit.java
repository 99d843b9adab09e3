package io.roost.platform.api;

import io.roost.platform.problem.Problem;
import jakarta.inject.Inject;
import jakarta.ws.rs.container.ContainerRequestContext;
import jakarta.ws.rs.container.ContainerRequestFilter;
import jakarta.ws.rs.container.PreMatching;
import jakarta.ws.rs.ext.Provider;
import org.eclipse.microprofile.config.inject.ConfigProperty;

/**
 * Refuses a declared body larger than {@code ROOST_MAX_REQUEST_BYTES} with a 413 problem before
 * anything reads it. Undertow's max-post-size (twice as large, in roost.cli) is the backstop for
 * bodies without a Content-Length; it can only cut the connection, not explain.
 */
@Provider
@PreMatching
public class RequestSizeLimit implements ContainerRequestFilter {

    @Inject
    @ConfigProperty(name = "roost.max-request-bytes", defaultValue = "1048576")
    long maxBytes;

    @Override
    public void filter(ContainerRequestContext request) {
        if (request.getLength() > maxBytes) {
            request.abortWith(Problem.of(413, "payload-too-large", "Payload too large",
                    "The request body has " + request.getLength() + " bytes; this server accepts at most " + maxBytes
                            + ".").toResponse());
        }
    }
}
