package io.roost.platform.problem;

import io.roost.platform.api.RequestIds;
import jakarta.ws.rs.container.ContainerRequestContext;
import jakarta.ws.rs.container.ContainerResponseContext;
import jakarta.ws.rs.container.ContainerResponseFilter;
import jakarta.ws.rs.ext.Provider;
import java.util.logging.Logger;

/**
 * Every problem a JAX-RS resource, mapper or request filter answers names its request in
 * {@code instance}: the one place they all pass, also for an answer that completes on another thread.
 * Each is logged at FINE (DEBUG) with its type and the request's method and path (never its query or
 * body, which may hold a token or a message), under the request's id.
 */
@Provider
public class ProblemInstances implements ContainerResponseFilter {

    private static final Logger LOG = Logger.getLogger(ProblemInstances.class.getName());

    @Override
    public void filter(ContainerRequestContext request, ContainerResponseContext response) {
        if (response.getEntity() instanceof Problem p && p.instance() == null) {
            LOG.fine(() -> "answered " + p.status() + " " + p.type() + " to " + request.getMethod() + " /"
                    + request.getUriInfo().getPath(false).replaceFirst("^/", ""));
            response.setEntity(p.forRequest((String) request.getProperty(RequestIds.ATTRIBUTE)), response.getEntityAnnotations(),
                    Problem.MEDIA_TYPE);
        }
    }
}
