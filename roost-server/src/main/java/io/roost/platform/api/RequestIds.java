package io.roost.platform.api;

import jakarta.servlet.http.HttpServletRequest;
import java.util.concurrent.ThreadLocalRandom;
import java.util.regex.Pattern;
import org.jboss.logging.MDC;

/**
 * A request's id: the caller's {@code X-Request-Id} when it is sane (1 to 128 letters, digits and
 * {@code . _ : = + / -}: nothing that could forge a log line or a header), else a new one. It is
 * answered in the {@code X-Request-Id} response header and in every problem's {@code instance}, and
 * sits in the logging MDC under {@code requestId} while the request runs on its thread, so every log
 * line of the request carries it (the text pattern and the JSON formatter print it).
 */
public final class RequestIds {

    public static final String HEADER = "X-Request-Id";
    public static final String MDC_KEY = "requestId";
    /** The request attribute (a JAX-RS request property too) that holds the id. */
    public static final String ATTRIBUTE = RequestIds.class.getName();
    private static final Pattern SANE = Pattern.compile("[A-Za-z0-9._:=+/-]{1,128}");
    private static final String INSTANCE_PREFIX = "urn:roost:request:";

    private RequestIds() {
    }

    /** The caller's id if it is sane, else a new one. */
    public static String accept(String header) {
        return header != null && SANE.matcher(header).matches() ? header : generate();
    }

    /** 128 random bits in hex: unique enough to find a request's lines, and no secret. */
    static String generate() {
        ThreadLocalRandom random = ThreadLocalRandom.current();
        return String.format("%016x%016x", random.nextLong(), random.nextLong());
    }

    /** The id a servlet request was given ({@link RequestIdFilter}), or null. */
    public static String of(HttpServletRequest request) {
        return (String) request.getAttribute(ATTRIBUTE);
    }

    /** A problem's {@code instance} for the request: {@code urn:roost:request:<id>}; null without an id. */
    public static String instance(String id) {
        return id == null ? null : INSTANCE_PREFIX + id;
    }

    /** Puts the id in the logging MDC of this thread; {@link #clear()} takes it out. */
    public static void enter(String id) {
        MDC.put(MDC_KEY, id);
    }

    public static void clear() {
        MDC.remove(MDC_KEY);
    }
}
