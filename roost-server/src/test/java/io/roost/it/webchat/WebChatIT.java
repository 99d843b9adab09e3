package io.roost.it.webchat;

import static io.roost.it.Http.json;
import static io.roost.it.Http.okJson;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.roost.it.DeployedRoost;
import io.roost.it.Http;
import io.roost.it.Social;
import io.roost.it.TestUsers;
import io.roost.it.TestUsers.User;
import io.roost.it.chat.Chats;
import jakarta.json.JsonObject;
import java.awt.Color;
import java.awt.GradientPaint;
import java.awt.Graphics2D;
import java.awt.image.BufferedImage;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.UUID;
import java.util.stream.LongStream;
import javax.imageio.ImageIO;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.openqa.selenium.By;
import org.openqa.selenium.Keys;
import org.openqa.selenium.WebElement;
import org.openqa.selenium.support.ui.ExpectedConditions;

/**
 * The web chat ({@code /chat/}) in real browsers, one headless Chromium per person, against the
 * suite's server: what people do in it, and what the other side sees.
 */
class WebChatIT extends DeployedRoost {

    private final List<ChatWindow> windows = new ArrayList<>();

    @AfterEach
    void closeWindows() {
        windows.forEach(ChatWindow::close);
    }

    ChatWindow window() {
        ChatWindow w = new ChatWindow(baseUrl);
        windows.add(w);
        return w;
    }

    /** A person with a password, named {@code prefix} + a random suffix. */
    User person(String prefix) throws Exception {
        return TestUsers.register(baseUrl, prefix);
    }

    /** Two friends. */
    User[] friends() throws Exception {
        User ann = person("ann-");
        User bob = person("bob-");
        Social.befriend(baseUrl, ann, bob);
        return new User[] {ann, bob};
    }

    User ann;
    User bob;
    ChatWindow a;
    ChatWindow b;

    /** Two friends, Ann and Bob, each signed in in a window of their own. */
    void annAndBobSignedIn() throws Exception {
        User[] f = friends();
        ann = f[0];
        bob = f[1];
        a = window().signIn(ann);
        b = window().signIn(bob);
    }

    @Test
    void twoPeopleTalkBothWaysSeeReadMarksRecallAndPresence() throws Exception {
        annAndBobSignedIn();
        a.awaitPresence(bob, true);
        b.awaitPresence(ann, true);

        a.startWith(bob);
        a.type("Hello Bob");
        a.awaitState("Hello Bob", "delivered"); // Bob's device acknowledged the push
        assertEquals(1, b.unread("u:" + ann.id()));
        b.openConversation("u:" + ann.id());
        b.awaitText("Hello Bob");
        a.awaitState("Hello Bob", "read"); // Bob opened the conversation: the read receipt
        b.wait.until(d -> b.unread("u:" + ann.id()) == 0);

        b.type("Hi Ann, how are you?");
        a.awaitText("Hi Ann, how are you?");
        a.type("Oops, wrong chat");
        b.awaitText("Oops, wrong chat");
        a.recallLast();
        a.awaitText("You recalled this message");
        b.awaitText("This message was recalled");
        assertEquals(List.of("Hello Bob", "Hi Ann, how are you?", "This message was recalled"), b.texts());
        assertEquals(List.of(1L, 2L, 3L), b.seqs());
        assertEquals("[recalled]", new Chats(baseUrl).existingConversation(bob, ann).getString("lastPreview"));

        b.close(); // Bob closes his window: Ann sees him go offline
        a.awaitPresence(bob, false);
        assertEquals("offline", a.browser.findElement(By.id("chat-sub")).getText());

        String token = (String) a.js("return JSON.parse(sessionStorage.getItem('roost.chat.session')).token");
        a.click(By.id("sign-out"));
        a.wait.until(ExpectedConditions.visibilityOfElementLocated(By.id("auth-name")));
        assertEquals(null, a.js("return sessionStorage.getItem('roost.chat.session')"));
        assertEquals(401, http().get("api/v1/accounts/me", Http.bearer(token)).statusCode(), "signing out revoked the token");
        a.assertNoConsoleErrors();
    }

    @Test
    void anImageGoesUpWithProgressAndShowsOnBothSides() throws Exception {
        annAndBobSignedIn();
        a.startWith(bob);
        a.type("Look at this");
        a.browser.findElement(By.id("file")).sendKeys(picture().toAbsolutePath().toString());
        a.until("the upload done, its bar full", "const p = document.getElementById('upload-progress');"
                + " return p.dataset.done === 'true' && p.value === 1");
        a.awaitImage("mine");
        a.until("the image message stored", "return !!document.querySelector('#timeline .msg.mine[data-seq] img.thumb')");

        b.openConversation("u:" + ann.id());
        b.awaitText("Look at this");
        b.awaitImage("theirs"); // the thumbnail, fetched with Bob's token
        b.click(By.cssSelector("#timeline .msg.theirs button.image"));
        b.until("the full image shown", "const i = document.getElementById('image-full'); return i.complete && i.naturalWidth === 320");
        b.click(By.cssSelector("#image-view button"));
        b.type("Lovely! Where is that?");
        a.awaitText("Lovely! Where is that?");
        a.awaitState("Look at this", "read");

        JsonObject stored = new Chats(baseUrl).items(bob, ann).getJsonObject(1);
        assertEquals("image", stored.getString("type"), stored.toString());
        assertEquals(320, stored.getJsonObject("media").getInt("width"), stored.toString());

        a.resize(1280, 800);
        b.resize(1280, 800);
        a.screenshot("webchat-desktop-ann.png");
        b.screenshot("webchat-desktop-bob.png");
        // at a phone's width one pane at a time: the conversation, and back to the list
        b.resize(390, 844);
        b.assertShown("timeline");
        assertFalse(b.browser.findElement(By.id("sidebar")).isDisplayed(), "the list is hidden while a conversation is open");
        b.screenshot("webchat-phone-bob.png");
        a.resize(390, 844);
        a.click(By.id("back"));
        a.wait.until(ExpectedConditions.visibilityOfElementLocated(By.id("conversations")));
        assertFalse(a.browser.findElement(By.id("chat")).isDisplayed(), "the conversation is hidden while the list is shown");
        a.screenshot("webchat-phone-ann.png");
        a.assertNoConsoleErrors();
        b.assertNoConsoleErrors();
    }

    /** A PNG of 320 × 200, different each run (so never a file the user uploaded before). */
    static Path picture() throws Exception {
        BufferedImage image = new BufferedImage(320, 200, BufferedImage.TYPE_INT_RGB);
        Graphics2D g = image.createGraphics();
        g.setPaint(new GradientPaint(0, 0, new Color(0x1f6feb), 320, 200, new Color((int) (Math.random() * 0xffffff))));
        g.fillRect(0, 0, 320, 200);
        g.setColor(Color.WHITE);
        g.fillOval(200, 30, 70, 70);
        g.dispose();
        Path file = Path.of("target", "webchat", "picture-" + UUID.randomUUID() + ".png");
        Files.createDirectories(file.getParent());
        ImageIO.write(image, "png", file.toFile());
        return file;
    }

    @Test
    void aReloadCatchesUpWithNoDuplicateAndNoGapAndOlderPagesComeOnScrolling() throws Exception {
        User[] f = friends();
        User ann = f[0];
        User bob = f[1];
        Chats chats = new Chats(baseUrl);
        List<String> sent = new ArrayList<>();
        for (int i = 1; i <= 110; i++) { // more than one catch-up page (100)
            sent.add("message " + i);
            chats.sendText(bob, ann, "message " + i);
        }
        ChatWindow a = window().signIn(ann);
        a.openConversation("u:" + bob.id());
        a.awaitText("message 110");
        scrollToStart(a);
        assertEquals(sent, a.texts());

        a.browser.get("about:blank"); // the window goes away (its tab keeps its sessionStorage)
        for (int i = 111; i <= 115; i++) {
            sent.add("message " + i);
            chats.sendText(bob, ann, "message " + i);
        }
        sent.add("Back soon");
        chats.sendText(ann, bob, "Back soon"); // from Ann's other device
        a.open("#u:" + bob.id()).awaitOnline(ann.name());
        a.awaitText("Back soon");
        scrollToStart(a);
        assertEquals(sent, a.texts(), "every message once, in order, the ones sent while away too");
        assertEquals(LongStream.rangeClosed(1, 116).boxed().toList(), a.seqs());

        ChatWindow b = window().signIn(bob); // and live pushes go on after the catch-up
        b.openConversation("u:" + ann.id());
        b.type("Welcome back");
        sent.add("Welcome back");
        a.awaitText("Welcome back");
        assertEquals(sent, a.texts());
        a.wait.until(d -> a.unread("u:" + bob.id()) == 0);
        a.assertNoConsoleErrors();
    }

    /** Scrolls the timeline up until the page shows the start of the conversation (older pages load as it goes). */
    static void scrollToStart(ChatWindow w) {
        w.wait.withMessage("the start of the conversation").until(d -> {
            w.js("document.getElementById('timeline').scrollTop = 0");
            return !d.findElements(By.cssSelector("#timeline .msg.start")).isEmpty();
        });
    }

    @Test
    void aGroupMessageWithAMentionReachesThreeSessions() throws Exception {
        User ann = person("ann-");
        User bob = person("bob-");
        User cat = person("cat-");
        Social.befriend(baseUrl, ann, bob);
        Social.befriend(baseUrl, ann, cat);
        ChatWindow a = window().signIn(ann);
        ChatWindow b = window().signIn(bob);
        ChatWindow c = window().signIn(cat);
        a.awaitPresence(bob, true);
        a.awaitPresence(cat, true);

        String name = "Trip " + ann.name();
        a.click(By.id("new-group"));
        a.wait.until(ExpectedConditions.visibilityOfElementLocated(By.id("group-name"))).sendKeys(name);
        a.click(By.cssSelector("#group-members input[data-uid='" + bob.id() + "']"));
        a.click(By.cssSelector("#group-members input[data-uid='" + cat.id() + "']"));
        a.click(By.id("group-create"));
        a.wait.until(ExpectedConditions.textToBe(By.id("chat-title"), name));
        String group = ((String) a.js("return location.hash")).substring("#g:".length());

        for (ChatWindow invited : List.of(b, c)) {
            invited.tab("contacts");
            invited.click(By.cssSelector(".invitation[data-group='" + group + "'] .accept"));
            invited.wait.until(ExpectedConditions.textToBe(By.id("chat-title"), name));
        }
        a.click(By.id("members-toggle"));
        a.wait.until(d -> d.findElements(By.cssSelector("#member-list .member")).size() == 3);

        WebElement box = a.browser.findElement(By.id("composer-text"));
        box.sendKeys("@" + bob.name().substring(0, 6));
        a.wait.until(ExpectedConditions.visibilityOfElementLocated(By.cssSelector("#mention-picker [data-uid='" + bob.id() + "']")));
        box.sendKeys(Keys.ENTER); // picks Bob
        box.sendKeys("see you at five");
        box.sendKeys(Keys.ENTER);
        String text = "@" + bob.name() + " see you at five";
        a.awaitText(text);
        b.awaitText(text);
        c.awaitText(text);
        assertEquals(List.of(text), b.texts());
        assertEquals(List.of(text), c.texts());
        assertEquals(Boolean.TRUE, b.js("return document.querySelector('#timeline .msg[data-seq]:not(.system)').classList.contains('mentions-me')"));
        assertEquals(Boolean.FALSE, c.js("return document.querySelector('#timeline .msg[data-seq]:not(.system)').classList.contains('mentions-me')"));

        c.type("Count me in");
        a.awaitText("Count me in");
        b.awaitText("Count me in");
        JsonObject stored = okJson(http().get("api/v1/chat/groups/" + group + "/messages?limit=100", bob.auth()));
        JsonObject mention = stored.getJsonArray("items").stream().map(JsonObject.class::cast)
                .filter(m -> text.equals(m.getString("text", null))).findFirst().orElseThrow();
        assertEquals(List.of(bob.id()), mention.getJsonArray("mentions").getValuesAs(jakarta.json.JsonString.class).stream()
                .map(jakarta.json.JsonString::getString).toList(), mention.toString());
        for (ChatWindow w : List.of(a, b, c)) {
            w.assertNoConsoleErrors();
        }
    }

    @Test
    void aBadSignInAndATakenNameAreShownInPlainWords() throws Exception {
        User u = person("wc-");
        JsonObject refused = json(http().post("api/v1/auth/login", null, "{\"login\":\"" + u.name()
                + "\",\"password\":\"not the password\",\"deviceType\":\"web\",\"deviceId\":\"probe\"}"));
        ChatWindow w = window().open("");
        w.submit(u.name(), "not the password", false);
        assertEquals(refused.getString("title") + ": " + refused.getString("detail"), w.notice());
        w.assertShown("auth");

        JsonObject taken = json(http().post("api/v1/registrations", null, "{\"username\":\"" + u.name() + "\",\"password\":\"" + TestUsers.PASSWORD + "\"}"));
        assertEquals("urn:roost:problem:username-taken", taken.getString("type"), taken.toString());
        w.submit(u.name(), TestUsers.PASSWORD, true);
        w.wait.until(ExpectedConditions.textToBe(By.id("notice-text"), taken.getString("title") + ": " + taken.getString("detail")));
        w.assertShown("auth");
    }

    @Test
    void thePagesComeWithTheirPolicyAndAreRevalidated() {
        for (String path : List.of("chat/", "chat/app.js", "chat/style.css", "lib/dom.js")) {
            var r = http().get(path, null);
            assertEquals(200, r.statusCode(), path);
            assertEquals("default-src 'none'; script-src 'self'; style-src 'self'; img-src 'self' blob:; connect-src 'self'; "
                    + "base-uri 'none'; form-action 'none'; frame-ancestors 'none'", r.headers().firstValue("Content-Security-Policy").orElse(null), path);
            assertEquals("no-cache", r.headers().firstValue("Cache-Control").orElse(null), path);
            assertEquals("nosniff", r.headers().firstValue("X-Content-Type-Options").orElse(null), path);
            assertTrue(r.headers().firstValue("Last-Modified").isPresent() || r.headers().firstValue("ETag").isPresent(), path + ": a validator");
        }
    }
}
