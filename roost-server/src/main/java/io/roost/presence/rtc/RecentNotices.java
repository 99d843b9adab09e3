package io.roost.presence.rtc;

import java.util.LinkedHashMap;
import java.util.Map;

/** A bounded, thread-safe memory of recently applied noticeIds (oldest forgotten first). */
final class RecentNotices {

    private final Map<String, Boolean> ids;

    RecentNotices(int capacity) {
        this.ids = new LinkedHashMap<>(capacity * 4 / 3 + 1, 0.75f, false) {
            @Override
            protected boolean removeEldestEntry(Map.Entry<String, Boolean> eldest) {
                return size() > capacity;
            }
        };
    }

    synchronized boolean contains(String noticeId) {
        return ids.containsKey(noticeId);
    }

    synchronized void add(String noticeId) {
        ids.put(noticeId, Boolean.TRUE);
    }
}
