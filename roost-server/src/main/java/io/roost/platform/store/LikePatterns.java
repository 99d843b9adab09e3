package io.roost.platform.store;

/** LIKE patterns for {@code ... LIKE ? ESCAPE '\'}: the text's own {@code \}, {@code %} and {@code _} match themselves. */
public final class LikePatterns {

    private LikePatterns() {
    }

    public static String escape(String text) {
        return text.replace("\\", "\\\\").replace("%", "\\%").replace("_", "\\_");
    }

    /** Matches what starts with {@code text}. */
    public static String startingWith(String text) {
        return escape(text) + "%";
    }

    /** Matches what contains {@code text}. */
    public static String containing(String text) {
        return "%" + escape(text) + "%";
    }
}
