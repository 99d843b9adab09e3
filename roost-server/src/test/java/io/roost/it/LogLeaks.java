package io.roost.it;

import java.util.ArrayList;
import java.util.Collection;
import java.util.HashMap;
import java.util.List;
import java.util.Map;

/**
 * Which of many secrets occur in a large text, in one pass over it: each secret is keyed by its
 * first {@link #KEY} characters packed into a long, the text's window of that many characters is
 * rolled along it, and only a window that starts some secret is compared in full. (Asking the text
 * for each secret in turn would scan a suite's log once per token: minutes.)
 */
public final class LogLeaks {

    /** Secrets shorter than this are not looked for. */
    public static final int MIN_LENGTH = 8;
    private static final int KEY = 4; // 4 chars × 16 bits = one long

    private final Map<Long, List<String>> byKey = new HashMap<>();

    public LogLeaks(Collection<String> secrets) {
        for (String s : secrets) {
            if (s.length() >= MIN_LENGTH) {
                byKey.computeIfAbsent(key(s, 0), k -> new ArrayList<>()).add(s);
            }
        }
    }

    /** The secrets that occur in {@code text}, each once, in the order first found. */
    public List<String> in(CharSequence text) {
        List<String> found = new ArrayList<>();
        if (byKey.isEmpty() || text.length() < KEY) {
            return found;
        }
        long window = key(text, 0);
        for (int i = 0; ; i++) {
            List<String> candidates = byKey.get(window);
            if (candidates != null) {
                for (String s : candidates) {
                    if (i + s.length() <= text.length() && !found.contains(s) && matches(text, i, s)) {
                        found.add(s);
                    }
                }
            }
            if (i + KEY >= text.length()) {
                return found;
            }
            window = (window << 16) | text.charAt(i + KEY);
        }
    }

    private static boolean matches(CharSequence text, int at, String s) {
        for (int j = 0; j < s.length(); j++) {
            if (text.charAt(at + j) != s.charAt(j)) {
                return false;
            }
        }
        return true;
    }

    private static long key(CharSequence s, int at) {
        long k = 0;
        for (int j = 0; j < KEY; j++) {
            k = (k << 16) | s.charAt(at + j);
        }
        return k;
    }
}
