package io.roost.media.api;

import io.roost.media.ByteRange;
import io.roost.media.MediaFile;
import io.roost.media.MediaLibrary;
import jakarta.ws.rs.core.Response;
import jakarta.ws.rs.core.StreamingOutput;
import java.io.IOException;
import java.io.InputStream;
import java.net.URLEncoder;
import java.nio.charset.StandardCharsets;
import java.util.Set;

/** The answer with a file's bytes: status, range, validators, caching, and the headers that keep a browser from running it. */
final class Downloads {

    /** Types a browser may show in its page; every other is an attachment. */
    private static final Set<String> INLINE_KINDS = Set.of("image", "voice", "video");

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
        MediaFile f = c.file();
        if (ifNoneMatch != null && matches(ifNoneMatch, c.etag())) {
            close(c.bytes());
            return Response.notModified().tag(new jakarta.ws.rs.core.EntityTag(c.etag().substring(1, c.etag().length() - 1)))
                    .header("Cache-Control", "private, max-age=31536000, immutable").build();
        }
        ByteRange r = c.range();
        InputStream in = c.bytes();
        StreamingOutput body = out -> {
            try (in) {
                in.transferTo(out);
            }
        };
        boolean thumbnail = c.etag().startsWith("\"t"); // a thumbnail's tag; a file's is its hex SHA-256
        Response.ResponseBuilder b = Response.status(r.partial() ? 206 : 200).entity(body).type(c.type())
                .header("Content-Length", r.length())
                .header("Accept-Ranges", "bytes")
                .header("ETag", c.etag())
                // the bytes of an id never change; private: only who may see the message may keep them
                .header("Cache-Control", "private, max-age=31536000, immutable")
                .header("X-Content-Type-Options", "nosniff")
                .header("Content-Security-Policy", "sandbox; default-src 'none'")
                .header("Content-Disposition", disposition(f, thumbnail));
        if (r.partial()) {
            b.header("Content-Range", r.contentRange(c.size()));
        }
        return b.build();
    }

    static String disposition(MediaFile f, boolean thumbnail) {
        String how = thumbnail || INLINE_KINDS.contains(f.kind()) ? "inline" : "attachment";
        String name = f.name() == null ? f.id() : f.name();
        return how + "; filename*=UTF-8''" + URLEncoder.encode(name, StandardCharsets.UTF_8).replace("+", "%20");
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
