package io.roost.chat;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.List;
import org.junit.jupiter.api.Test;

class WordListTest {

    @Test
    void parsesACommaList() {
        assertEquals(List.of("spam", "scam offer"), WordList.parseWords(" spam, ,scam offer ,"));
        assertEquals(List.of(), WordList.parseWords(""));
    }

    @Test
    void masksEveryOccurrenceCaseInsensitivelyLongestFirst() {
        WordList w = new WordList(List.of("bad", "badword", "Ärger"));
        assertTrue(w.matches("a BadWord here"));
        assertEquals("a ******* and *** and *****", w.mask("a BadWord and bad and ärger"));
        assertFalse(w.matches("all good"));
        assertEquals("all good", w.mask("all good"));
        assertEquals("$1 \\ ***", w.mask("$1 \\ bad"), "replacement text is literal");
    }

    @Test
    void noWordsMatchNothing() {
        WordList w = new WordList(List.of());
        assertFalse(w.matches("anything"));
        assertEquals("anything", w.mask("anything"));
    }

    @Test
    void actions() {
        assertEquals(WordList.Action.MASK, WordList.Action.parse(null));
        assertEquals(WordList.Action.REJECT, WordList.Action.parse(" Reject "));
        assertThrows(IllegalArgumentException.class, () -> WordList.Action.parse("drop"));
    }
}
