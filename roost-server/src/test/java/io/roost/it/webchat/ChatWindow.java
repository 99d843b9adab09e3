package io.roost.it.webchat;

import static org.junit.jupiter.api.Assertions.assertTrue;

import io.roost.it.Browsers;
import io.roost.it.TestUsers;
import io.roost.it.TestUsers.User;
import java.net.URL;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import org.openqa.selenium.By;
import org.openqa.selenium.Dimension;
import org.openqa.selenium.JavascriptExecutor;
import org.openqa.selenium.Keys;
import org.openqa.selenium.StaleElementReferenceException;
import org.openqa.selenium.WebElement;
import org.openqa.selenium.chrome.ChromeDriver;
import org.openqa.selenium.support.ui.ExpectedConditions;
import org.openqa.selenium.support.ui.WebDriverWait;

/**
 * One person's window of the web chat at {@code /chat/}: a headless Chromium of its own (so its own
 * sessionStorage), used as a person would: typing, clicking, reading what the page shows.
 */
final class ChatWindow implements AutoCloseable {

    /** The messages of the open conversation (system lines left out), as the page shows them. */
    private static final String MESSAGES = "#timeline .msg[data-seq]:not(.system)";

    private final URL base;
    final ChromeDriver browser;
    final WebDriverWait wait;
    private boolean closed;

    ChatWindow(URL base) {
        this.base = base;
        this.browser = Browsers.headless();
        this.wait = new WebDriverWait(browser, Duration.ofSeconds(30));
        wait.ignoring(StaleElementReferenceException.class); // the page redraws its lists as frames come
    }

    ChatWindow open(String hash) {
        browser.get(base + "chat/" + hash);
        return this;
    }

    /** Types a user name and password into the sign-in form and presses the button (register: the other button). */
    void submit(String name, String password, boolean register) {
        WebElement field = wait.until(ExpectedConditions.visibilityOfElementLocated(By.id("auth-name")));
        field.clear();
        field.sendKeys(name);
        browser.findElement(By.id("auth-password")).clear();
        browser.findElement(By.id("auth-password")).sendKeys(password);
        click(By.id(register ? "register" : "sign-in"));
    }

    /** Opens the app and signs in as {@code user}; returns once its WebSocket is logged in. */
    ChatWindow signIn(User user) {
        open("");
        submit(user.name(), TestUsers.PASSWORD, false);
        return awaitOnline(user.name());
    }

    ChatWindow awaitOnline(String name) {
        wait.until(ExpectedConditions.textToBe(By.id("me-name"), name));
        wait.until(ExpectedConditions.textToBe(By.id("connection"), "Online"));
        return this;
    }

    String notice() {
        return wait.until(ExpectedConditions.visibilityOfElementLocated(By.id("notice-text"))).getText();
    }

    Object js(String script, Object... args) {
        return ((JavascriptExecutor) browser).executeScript(script, args);
    }

    /** Waits until the page's script gives true. */
    /** Clicks what {@code by} finds once it is clickable, found afresh on each try: the page redraws its lists as frames come. */
    void click(By by) {
        wait.withMessage("clickable: " + by).until(d -> {
            WebElement e = d.findElement(by);
            if (!e.isDisplayed() || !e.isEnabled()) {
                return false;
            }
            e.click();
            return true;
        });
    }

    /**
     * Recalls the last message of mine: the recall button shows on the message under the pointer
     * (or focused). Found afresh on each try: the timeline redraws as receipts come.
     */
    void recallLast() {
        wait.withMessage("the recall button of my last message").until(d -> {
            WebElement last = d.findElement(By.cssSelector("#timeline .msg.mine:last-child"));
            new org.openqa.selenium.interactions.Actions(d).moveToElement(last).perform();
            WebElement recall = last.findElement(By.cssSelector(".recall"));
            if (!recall.isDisplayed() || !recall.isEnabled()) {
                return false;
            }
            recall.click();
            return true;
        });
    }

    void until(String what, String script, Object... args) {
        wait.withMessage(what).until(d -> Boolean.TRUE.equals(js(script, args)));
    }

    void tab(String name) {
        click(By.id("tab-" + name));
    }

    /** Opens the conversation with a contact from the contact list. */
    void startWith(User contact) {
        tab("contacts");
        click(By.cssSelector("#contacts .contact[data-uid='" + contact.id() + "']"));
        wait.until(ExpectedConditions.textToBe(By.id("chat-title"), contact.name()));
    }

    /** Opens a conversation from the list ({@code u:<peer>} or {@code g:<group>}). */
    void openConversation(String key) {
        tab("chats");
        click(By.cssSelector("#conversations .conv[data-key='" + key + "']"));
    }

    /** The unread badge of a conversation in the list (0 when it has none), once the list shows the conversation. */
    long unread(String key) {
        wait.until(ExpectedConditions.presenceOfElementLocated(By.cssSelector("#conversations .conv[data-key='" + key + "']")));
        Object n = js("const b = document.querySelector(`#conversations .conv[data-key='${arguments[0]}'] .unread`);"
                + " return b ? Number(b.textContent) : 0", key);
        return ((Number) n).longValue();
    }

    /** Types into the composer and presses Enter. */
    void type(String text) {
        WebElement box = wait.until(ExpectedConditions.elementToBeClickable(By.id("composer-text")));
        box.sendKeys(text);
        box.sendKeys(Keys.ENTER);
    }

    @SuppressWarnings("unchecked")
    List<String> texts() {
        return (List<String>) js("return [...document.querySelectorAll(arguments[0])].map(m => m.querySelector('.text, .gone')?.textContent ?? '')",
                MESSAGES);
    }

    @SuppressWarnings("unchecked")
    List<Long> seqs() {
        return ((List<Object>) js("return [...document.querySelectorAll(arguments[0])].map(m => Number(m.dataset.seq))", MESSAGES))
                .stream().map(n -> ((Number) n).longValue()).toList();
    }

    /** Waits until the open conversation shows a message with this text. */
    void awaitText(String text) {
        until("a message '" + text + "'", "return [...document.querySelectorAll(arguments[0])].some(m => m.querySelector('.text, .gone')?.textContent === arguments[1])",
                MESSAGES, text);
    }

    /** The mark on my message with this text: sending, sent, delivered, read, failed. */
    String stateOf(String text) {
        return (String) js("return [...document.querySelectorAll('#timeline .msg.mine')].find(m => m.querySelector('.text')?.textContent === arguments[0])"
                + "?.dataset.state ?? null", text);
    }

    void awaitState(String text, String state) {
        wait.withMessage("'" + text + "' marked " + state).until(d -> state.equals(stateOf(text)));
    }

    /** Whether the contact list's dot of this contact shows them online. */
    boolean online(User contact) {
        return Boolean.TRUE.equals(js("return document.querySelector(`#contacts .dot[data-uid='${arguments[0]}']`)?.classList.contains('online') ?? null",
                contact.id()));
    }

    void awaitPresence(User contact, boolean online) {
        wait.withMessage(contact.name() + (online ? " online" : " offline")).until(d -> online == online(contact));
    }

    /** Whether the newest image of the open conversation (mine or theirs) is loaded: complete, and a picture (naturalWidth > 0). */
    void awaitImage(String side) {
        until("an image " + side + " loaded", "const i = [...document.querySelectorAll('#timeline .msg.' + arguments[0] + ' img.thumb')].pop();"
                + " return !!i && i.complete && i.naturalWidth > 0", side);
    }

    void resize(int width, int height) {
        browser.manage().window().setSize(new Dimension(width, height));
    }

    Path screenshot(String name) throws Exception {
        return Browsers.screenshot(browser, name);
    }

    void assertNoConsoleErrors() {
        Browsers.assertNoConsoleErrors(browser);
    }

    void assertShown(String id) {
        assertTrue(browser.findElement(By.id(id)).isDisplayed(), id + " shown");
    }

    @Override
    public void close() {
        if (!closed) {
            closed = true;
            Browsers.close(browser);
        }
    }
}
