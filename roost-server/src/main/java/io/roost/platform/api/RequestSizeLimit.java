package io.roost.platform.api;

import io.roost.platform.problem.Problem;
import jakarta.inject.Inject;
import jakarta.ws.rs.container.ContainerRequestContext;
import jakarta.ws.rs.container.ContainerRequestFilter;
import jakarta.ws.rs.container.PreMatching;
import jakarta.ws.rs.ext.Provider;
import java.io.FilterInputStream;
import java.io.IOException;
import java.io.InputStream;
import org.eclipse.microprofile.config.inject.ConfigProperty;

/**
 * Refuses a body larger than {@code ROOST_MAX_REQUEST_BYTES} with a 413 problem: before anything
 * reads it when it declares its length, and as soon as it passes the limit when it does not (chunked).
 * File uploads ({@code /api/v1/media} and its uploads) have their own limit, {@code ROOST_MEDIA_MAX_BYTES},
 * which the upload checks against the size it declares. Undertow's max-post-size (in roost.cli, above
 * the upload limit) is the backstop; it can only cut the connection, not explain.
 */
@Provider
@PreMatching
public class RequestSizeLimit implements ContainerRequestFilter {

    @Inject
    @ConfigProperty(name = "roost.max-request-bytes", defaultValue = "1048576")
    long maxBytes;

    @Override
    public void filter(ContainerRequestContext request) {
        if (upload(request.getUriInfo().getPath())) {
            return;
        }
        if (request.getLength() > maxBytes) {
            request.abortWith(Problem.of(413, "payload-too-large", "Payload too large", "The request body has " + request.getLength()
                    + " bytes; this server accepts at most " + maxBytes + ".").toResponse());
        } else if (request.getLength() < 0 && request.hasEntity()) {
            request.setEntityStream(new Limited(request.getEntityStream(), maxBytes));
        }
    }

    /** File uploads: the one-shot POST and a resumable upload's appends. */
    static boolean upload(String path) {
        String p = path.startsWith("/") ? path : "/" + path;
        return p.equals("/v1/media") || p.startsWith("/v1/media/uploads/");
    }

    /** Named as Undertow's own: the problem mappers answer either with 413 {@code payload-too-large}. */
    static final class RequestTooBigException extends IOException {
        RequestTooBigException() {
            super("the request body passed the limit");
        }
    }

    /** A body without a declared length, cut with a 413 once it passes the limit. */
    private static final class Limited extends FilterInputStream {
        private long left;

        Limited(InputStream in, long limit) {
            super(in);
            this.left = limit;
        }

        @Override
        public int read() throws IOException {
            int b = super.read();
            if (b >= 0 && --left < 0) {
                throw new RequestTooBigException();
            }
            return b;
        }

        @Override
        public int read(byte[] b, int off, int len) throws IOException {
            int n = super.read(b, off, len);
            if (n > 0 && (left -= n) < 0) {
                throw new RequestTooBigException();
            }
            return n;
        }
    }
}
