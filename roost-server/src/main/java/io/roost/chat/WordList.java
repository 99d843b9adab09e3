package io.roost.chat;

import java.util.Arrays;
import java.util.List;
import java.util.Locale;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Collectors;

/** The default content rule, pure: which blocked words a text contains, and the text with them masked. */
public final class WordList {

    /** What to do with a text that contains a blocked word. */
    public enum Action {
        REJECT, MASK;

        public static Action parse(String value) {
            return switch (value == null ? "" : value.trim().toLowerCase(Locale.ROOT)) {
                case "reject" -> REJECT;
                case "mask", "" -> MASK;
                default -> throw new IllegalArgumentException("ROOST_CHAT_BLOCKED_WORDS_ACTION is reject or mask, not '" + value + "'");
            };
        }
    }

    private final Pattern pattern; // null: no words

    public WordList(List<String> words) {
        List<String> quoted = words.stream().filter(w -> !w.isBlank()).distinct()
                .sorted((a, b) -> b.length() - a.length()) // the longest match first ("badword" before "bad")
                .map(Pattern::quote).toList();
        pattern = quoted.isEmpty() ? null
                : Pattern.compile(String.join("|", quoted), Pattern.CASE_INSENSITIVE | Pattern.UNICODE_CASE);
    }

    /** Comma-separated words, trimmed, empty ones dropped. */
    public static List<String> parseWords(String list) {
        return Arrays.stream(list.split(",")).map(String::trim).filter(w -> !w.isEmpty()).collect(Collectors.toList());
    }

    public boolean matches(String text) {
        return pattern != null && text != null && pattern.matcher(text).find();
    }

    /** The text with every blocked word replaced by as many {@code *} as it has code points. */
    public String mask(String text) {
        if (pattern == null || text == null) {
            return text;
        }
        Matcher m = pattern.matcher(text);
        StringBuilder out = new StringBuilder(text.length());
        while (m.find()) {
            m.appendReplacement(out, "*".repeat(m.group().codePointCount(0, m.group().length())));
        }
        m.appendTail(out);
        return out.toString();
    }
}
