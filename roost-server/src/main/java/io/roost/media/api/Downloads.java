package io.roost.media.api;

import io.roost.media.ByteRange;
import io.roost.media.MediaLibrary;
import jakarta.ws.rs.core.Response;
import jakarta.ws.rs.core.StreamingOutput;
import java.io.IOException;
import java.io.InputStream;

/** The answer with a file's bytes: status, range, validators, caching, and the headers that keep a browser from running it. */
final class Downloads {

    private Downloads() {
    }

    @FunctionalInterface
    interface Open {
        MediaLibrary.Content open() throws IOException;
    }

    static Response answer(Open open, String ifNoneMatch) throws IOException {
        MediaLibrary.Content c;
        try {
            c = open.open();
        } catch (ByteRange.RangeNotSatisfiable e) {
            return Response.fromResponse(e.toProblem().toResponse()).header("Content-Range", "bytes */" + e.size()).build();
        }
        if (ifNoneMatch != null && matches(ifNoneMatch, c.etag())) {
            close(c.bytes());
            return Response.notModified().tag(new jakarta.ws.rs.core.EntityTag(c.etag().substring(1, c.etag().length() - 1)))
                    .header("Cache-Control", MediaLibrary.CACHE_CONTROL).build();
        }
        if (c.redirect() != null) {
            // the bucket serves the bytes (and the range); the signed URL is the caller's for a minute, not to be kept
            return Response.temporaryRedirect(c.redirect()).header("Cache-Control", "private, no-store").header("ETag", c.etag()).build();
        }
        ByteRange r = c.range();
        InputStream in = c.bytes();
        StreamingOutput body = out -> {
            try (in) {
                in.transferTo(out);
            }
        };
        Response.ResponseBuilder b = Response.status(r.partial() ? 206 : 200).entity(body).type(c.type())
                .header("Content-Length", r.length())
                .header("Accept-Ranges", "bytes")
                .header("ETag", c.etag())
                .header("Cache-Control", MediaLibrary.CACHE_CONTROL)
                .header("X-Content-Type-Options", "nosniff")
                .header("Content-Security-Policy", "sandbox; default-src 'none'")
                .header("Content-Disposition", c.disposition());
        if (r.partial()) {
            b.header("Content-Range", r.contentRange(c.size()));
        }
        return b.build();
    }


    /** Whether an If-None-Match value names the ETag ({@code *} or a list). */
    static boolean matches(String ifNoneMatch, String etag) {
        for (String t : ifNoneMatch.split(",")) {
            String s = t.trim();
            if (s.startsWith("W/")) {
                s = s.substring(2);
            }
            if (s.equals("*") || s.equals(etag)) {
                return true;
            }
        }
        return false;
    }

    private static void close(InputStream in) {
        try {
            in.close();
        } catch (IOException e) {
            // nothing was read
        }
    }
}
