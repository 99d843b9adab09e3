package io.roost.platform.store;

import java.time.Instant;
import java.time.OffsetDateTime;
import java.time.ZoneOffset;

/** Native queries return timestamptz as OffsetDateTime, Instant or Timestamp depending on the path. */
public final class SqlTimes {

    private SqlTimes() {
    }

    public static OffsetDateTime of(Object value) {
        if (value == null) {
            return null;
        }
        if (value instanceof OffsetDateTime t) {
            return t;
        }
        if (value instanceof Instant i) {
            return i.atOffset(ZoneOffset.UTC);
        }
        if (value instanceof java.sql.Timestamp ts) {
            return ts.toInstant().atOffset(ZoneOffset.UTC);
        }
        throw new IllegalArgumentException("not a timestamp: " + value.getClass().getName());
    }
}
