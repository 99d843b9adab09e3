package io.roost.chat;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;

import java.util.Optional;
import org.junit.jupiter.api.Test;

/** The default content filter as configured: mask or reject. */
class WordListFilterTest {

    static WordListFilter filter(String words, String action) {
        ChatSettings settings = new ChatSettings();
        settings.blockedWords = Optional.ofNullable(words);
        settings.blockedWordsAction = action;
        WordListFilter f = new WordListFilter();
        f.settings = settings;
        f.init();
        return f;
    }

    @Test
    void masksByDefault() throws Exception {
        assertEquals("a **** offer", filter("spam, scam", "mask").check(1, 2, "a SPAM offer"));
        assertEquals("clean", filter("spam", "mask").check(1, 2, "clean"));
        assertEquals("anything", filter(null, "mask").check(1, 2, "anything"));
    }

    @Test
    void rejectsWhenSoConfigured() throws Exception {
        WordListFilter f = filter("spam", "reject");
        assertThrows(ContentFilter.ContentRejected.class, () -> f.check(1, 2, "buy spam now"));
        assertEquals("fine", f.check(1, 2, "fine"));
    }
}
