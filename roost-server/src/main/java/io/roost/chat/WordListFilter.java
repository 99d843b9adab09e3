package io.roost.chat;

import jakarta.annotation.PostConstruct;
import jakarta.enterprise.context.ApplicationScoped;
import jakarta.inject.Inject;

/** The default {@link ContentFilter}: the words of {@code ROOST_CHAT_BLOCKED_WORDS}, rejected or masked. */
@ApplicationScoped
public class WordListFilter implements ContentFilter {

    @Inject
    ChatSettings settings;

    private WordList words;
    private WordList.Action action;

    @PostConstruct
    void init() {
        words = new WordList(settings.blockedWords());
        action = settings.blockedWordsAction();
    }

    @Override
    public String check(long sender, long recipient, String text) throws ContentRejected {
        if (!words.matches(text)) {
            return text;
        }
        if (action == WordList.Action.REJECT) {
            throw new ContentRejected("The message contains a word this service does not accept.");
        }
        return words.mask(text);
    }
}
