package io.roost.it.admin;

import static io.roost.it.Http.ADMIN;
import static io.roost.it.Http.ADMIN_PASSWORD;
import static io.roost.it.Http.ADMIN_USER;
import static io.roost.it.Http.json;
import static io.roost.it.Http.okJson;
import static io.roost.it.Problems.assertProblem;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.roost.admin.AdminConsoleCatalogue;
import io.roost.it.Browsers;
import io.roost.it.DeployedRoost;
import io.roost.it.Ncs;
import io.roost.it.TestUsers;
import io.roost.it.TestUsers.User;
import io.roost.it.Devices;
import io.roost.it.Devices.Recorder;
import io.roost.it.chat.Chats;
import io.roost.it.chat.GroupChats;
import jakarta.json.JsonObject;
import java.time.Duration;
import java.time.OffsetDateTime;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import java.util.regex.Pattern;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.openqa.selenium.By;
import org.openqa.selenium.JavascriptExecutor;
import org.openqa.selenium.StaleElementReferenceException;
import org.openqa.selenium.WebDriver;
import org.openqa.selenium.WebElement;
import org.openqa.selenium.support.ui.ExpectedConditions;
import org.openqa.selenium.support.ui.Select;
import org.openqa.selenium.support.ui.WebDriverWait;

/** The admin web UI in a real browser ({@link Browsers}: Debian's headless Chromium). */
class AdminUiIT extends DeployedRoost {

    static final String PASSWORD = TestUsers.PASSWORD;

    WebDriver browser;
    WebDriverWait wait;

    @BeforeEach
    void openBrowser() {
        use(Browsers.headless());
    }

    void use(WebDriver b) {
        browser = b;
        wait = new WebDriverWait(browser, Duration.ofSeconds(20));
        wait.ignoring(StaleElementReferenceException.class); // the dashboard replaces its elements as it refreshes
    }

    @AfterEach
    void closeBrowser() {
        Browsers.close(browser);
    }

    User user() throws Exception {
        return TestUsers.register(baseUrl, "ui-");
    }

    void open(String hash) {
        browser.get(baseUrl.toString() + "admin/" + hash);
    }

    void signIn(String user, String password) {
        WebElement name = wait.until(ExpectedConditions.visibilityOfElementLocated(By.id("login-username")));
        name.clear();
        name.sendKeys(user);
        browser.findElement(By.id("login-password")).sendKeys(password);
        browser.findElement(By.id("login-submit")).click();
    }

    String notice() {
        return wait.until(ExpectedConditions.visibilityOfElementLocated(By.id("notice"))).getText();
    }

    void confirm(String buttonId) {
        wait.until(ExpectedConditions.elementToBeClickable(By.id(buttonId))).click();
        wait.until(ExpectedConditions.elementToBeClickable(By.id("confirm-ok"))).click();
    }

    long number(String id) {
        // The dashboard re-renders every 3 s: find and read inside the wait, which retries an element
        // replaced between the two (stale) instead of failing. Counts are formatted in the locale (1,234).
        return wait.until(d -> {
            WebElement e = d.findElement(By.id(id));
            String text = e.isDisplayed() ? e.getText().trim().replace(",", "") : "";
            return text.matches("\\d+") ? Long.valueOf(text) : null;
        });
    }

    /** Waits until the element's text is exactly the text. */
    void textIs(By element, String text) {
        wait.until(ExpectedConditions.textToBe(element, text));
    }

    void pageIn(String lang) {
        wait.until(ExpectedConditions.attributeToBe(By.tagName("html"), "lang", lang));
        wait.until(ExpectedConditions.attributeToBe(By.id("lang-" + lang), "aria-pressed", "true"));
    }

    /** How many API requests the page made so far. */
    long apiRequests() {
        return (Long) ((JavascriptExecutor) browser).executeScript(
                "return performance.getEntriesByType('resource').filter(e => e.name.includes('/api/')).length");
    }

    @Test
    void aUserWhoIsNoOperatorIsRefused() throws Exception {
        User plain = user();
        open("");
        signIn(plain.name(), PASSWORD);
        wait.until(ExpectedConditions.textToBePresentInElementLocated(By.id("notice"), "Forbidden"));
        assertTrue(notice().contains("403"), notice());
        assertTrue(browser.findElement(By.id("login")).isDisplayed());
        signIn(ADMIN_USER, "wrong password");
        wait.until(ExpectedConditions.textToBePresentInElementLocated(By.id("notice"), "401"));
    }

    @Test
    void anOperatorWatchesTheDashboardAndActs() throws Exception {
        open("");
        signIn(ADMIN_USER, ADMIN_PASSWORD);
        long channelsBefore = number("rtc-channels");

        // webhook events arrive: the dashboard (refreshing every 3 s) shows the new channel
        String channel = "ui-ch-" + UUID.randomUUID().toString().substring(0, 8);
        Ncs ncs = ncs();
        assertEquals(200, ncs.send(Ncs.member("u1-" + channel, 103, channel, 9001, 1, System.currentTimeMillis(), null)).statusCode());
        wait.until(d -> number("rtc-channels") > channelsBefore);
        Browsers.screenshot(browser, "admin-dashboard.png");
        // the node table: this node (the suite's ROOST_NODE_ID is 1), alive, with its address
        wait.until(ExpectedConditions.textToBePresentInElementLocated(By.id("nodes"), "alive"));
        String nodes = wait.until(d -> d.findElement(By.id("nodes")).getText());
        assertTrue(nodes.lines().anyMatch(l -> l.startsWith("1 ") && l.contains("alive")), nodes);

        // kick the channel member (the Agora kicking-rule path)
        open("#/channel?name=" + channel);
        confirm("kick-9001");
        wait.until(ExpectedConditions.textToBePresentInElementLocated(By.id("notice"), "Kick of 9001 scheduled"));
        assertEquals(9001, json(http().get("api/v1/presence/channels/" + channel + "/kicks", ADMIN)).getJsonArray("kicks")
                .getJsonObject(0).getInt("uid"));

        // find an account and disable it: its WebSocket is closed
        User u = user();
        Recorder device = new Recorder();
        Devices.online(baseUrl, u, "web", "w", device);
        open("#/accounts");
        WebElement q = wait.until(ExpectedConditions.visibilityOfElementLocated(By.name("q")));
        q.sendKeys(u.name());
        q.submit();
        wait.until(ExpectedConditions.elementToBeClickable(By.xpath("//td[text()='" + u.name() + "']"))).click();
        wait.until(ExpectedConditions.textToBePresentInElementLocated(By.id("account-status"), "ACTIVE"));
        confirm("action-disable");
        wait.until(ExpectedConditions.textToBePresentInElementLocated(By.id("notice"), "is DISABLED"));
        assertEquals("account_disabled", device.awaitKick(Duration.ofSeconds(20)));
        device.awaitStopped(Duration.ofSeconds(20));
        assertEquals(List.of(1008), device.closes());
        wait.until(ExpectedConditions.textToBePresentInElementLocated(By.id("account-status"), "DISABLED"));

        // dissolve a group
        User owner = user();
        var created = http().post("api/v1/groups", owner.auth(), "{\"name\":\"UI club " + owner.name() + "\",\"type\":\"chat\"}");
        String groupId = json(created).getString("id");
        open("#/group?id=" + groupId);
        confirm("action-dissolve");
        wait.until(ExpectedConditions.textToBePresentInElementLocated(By.id("notice"), "is DISSOLVED"));
        assertEquals("DISSOLVED", json(http().get("api/v1/admin/groups/" + groupId, ADMIN)).getString("status"));

        // an API error is shown readably
        open("#/account?id=123");
        wait.until(ExpectedConditions.textToBePresentInElementLocated(By.id("notice"), "Not found (404"));

        // the audit page lists what was done
        open("#/audit");
        wait.until(ExpectedConditions.textToBePresentInElementLocated(By.id("view"), "dissolve"));
        wait.until(ExpectedConditions.textToBePresentInElementLocated(By.id("view"), "disable"));

        // narrow screens keep working
        browser.manage().window().setSize(new org.openqa.selenium.Dimension(390, 800));
        open("#/dashboard");
        assertTrue(wait.until(ExpectedConditions.visibilityOfElementLocated(By.id("online-users"))).isDisplayed());
        browser.findElement(By.id("sign-out")).click();
        wait.until(ExpectedConditions.visibilityOfElementLocated(By.id("login-username")));
    }
    /** An operator finds a user's conversation from the account page and recalls a message in it: both sides see it recalled, audited. */
    @Test
    void anOperatorRecallsAMessageFromAUsersConversation() throws Exception {
        User a = user();
        User b = user();
        Chats chats = new Chats(baseUrl);
        chats.sendText(a, b, "hello there");
        chats.sendText(a, b, "something to take back");
        open("");
        signIn(ADMIN_USER, ADMIN_PASSWORD);
        open("#/account?id=" + b.id());
        wait.until(ExpectedConditions.elementToBeClickable(By.xpath("//td[text()='something to take back']"))).click();
        wait.until(ExpectedConditions.textToBePresentInElementLocated(By.id("view"), "hello there"));
        confirm("recall-2");
        wait.until(ExpectedConditions.textToBePresentInElementLocated(By.id("notice"), "Message 2 recalled."));
        wait.until(ExpectedConditions.textToBePresentInElementLocated(By.id("view"), "[recalled]"));
        assertTrue(browser.findElements(By.id("recall-2")).isEmpty(), "no recall of a recalled message");
        assertTrue(browser.findElement(By.id("view")).getText().contains("hello there"), "the other message is untouched");
        for (User side : List.of(a, b)) {
            var history = json(http().get("api/v1/chat/users/" + side.id() + "/conversations/" + (side == a ? b : a).id() + "/messages", ADMIN));
            List<Boolean> recalled = history.getJsonArray("items").stream().map(m -> m.asJsonObject().getBoolean("recalled")).toList();
            assertEquals(List.of(false, true), recalled, "the timeline of " + side.id());
        }
        open("#/audit");
        wait.until(ExpectedConditions.textToBePresentInElementLocated(By.id("view"), "chat-message " + b.id() + "/" + a.id() + "/2"));
    }

    /**
     * An operator reads a group's messages on its page and recalls one (audited, any age), mutes a
     * member and removes another, through the admin API: in a group it owns and in one it has no role
     * in, where it mutes for an hour (the member list shows until when), unmutes and removes.
     */
    @Test
    void anOperatorModeratesAGroupFromItsPage() throws Exception {
        GroupChats chats = new GroupChats(baseUrl);
        User a = user();
        User b = user();
        String g = okJson(http().post("api/v1/groups", ADMIN, "{\"name\":\"UI moderated " + a.name() + "\",\"type\":\"chat\"}")).getString("id");
        chats.join(g, a, b);
        chats.text(a, g, "first words");
        long taken = chats.text(b, g, "something to take back").getJsonNumber("seq").longValue();
        chats.text(a, g, "last words");

        open("");
        signIn(ADMIN_USER, ADMIN_PASSWORD);
        open("#/group?id=" + g);
        By messages = By.id("group-messages");
        wait.until(ExpectedConditions.textToBePresentInElementLocated(messages, "something to take back"));
        String shown = browser.findElement(messages).getText();
        assertTrue(shown.contains("first words") && shown.contains("last words"), shown);
        assertEquals(1, browser.findElements(By.cssSelector("#group-messages a[href='#/account?id=" + b.id() + "']")).size(), "the sender links its account");

        confirm("recall-" + taken);
        wait.until(ExpectedConditions.textToBePresentInElementLocated(By.id("notice"), "Message " + taken + " recalled."));
        wait.until(ExpectedConditions.textToBePresentInElementLocated(messages, "[recalled]"));
        assertTrue(browser.findElements(By.id("recall-" + taken)).isEmpty(), "no recall of a recalled message");
        JsonObject recalled = okJson(http().get("api/v1/chat/groups/" + g + "/messages?limit=50", ADMIN)).getJsonArray("items")
                .getValuesAs(JsonObject.class).stream().filter(m -> m.getJsonNumber("seq").longValue() == taken).findFirst().orElseThrow();
        assertTrue(recalled.getBoolean("recalled"), recalled.toString());

        confirm("mute-" + b.id());
        wait.until(ExpectedConditions.textToBePresentInElementLocated(By.id("notice"), b.id() + " is muted."));
        textIs(By.id("muted-" + b.id()), "for good");
        var refused = chats.send(b, g, "\"type\":\"text\",\"text\":\"still here?\"");
        assertEquals(403, refused.statusCode(), refused.body());
        assertEquals("muted", chats.code(refused));

        confirm("remove-" + a.id());
        wait.until(ExpectedConditions.textToBePresentInElementLocated(By.id("notice"), a.id() + " removed from the group."));
        List<String> members = okJson(http().get("api/v1/admin/groups/" + g + "/members?limit=100", ADMIN)).getJsonArray("items")
                .getValuesAs(JsonObject.class).stream().map(m -> m.getString("uid")).toList();
        assertTrue(!members.contains(a.id()) && members.contains(b.id()), members.toString());
        wait.until(ExpectedConditions.invisibilityOfElementLocated(By.id("remove-" + a.id())));

        // a group the operator has no role in: the admin API acts there all the same, audited
        String other = chats.group(a, "chat", b);
        open("#/group?id=" + other);
        textIs(By.id("group-id"), other); // the new page, not the old one's buttons of the same ids
        new Select(browser.findElement(By.id("mute-for"))).selectByValue("3600");
        confirm("mute-" + b.id());
        wait.until(ExpectedConditions.textToBePresentInElementLocated(By.id("notice"), b.id() + " is muted."));
        wait.until(ExpectedConditions.textToBePresentInElementLocated(By.id("muted-" + b.id()), "until "));
        JsonObject mutedHere = member(other, b);
        OffsetDateTime until = OffsetDateTime.parse(mutedHere.getString("mutedUntil"));
        assertTrue(until.isAfter(OffsetDateTime.now().plusMinutes(50)) && until.isBefore(OffsetDateTime.now().plusMinutes(61)), mutedHere.toString());
        assertEquals("muted", chats.code(chats.send(b, other, "\"type\":\"text\",\"text\":\"and here?\"")));
        confirm("unmute-" + b.id());
        wait.until(ExpectedConditions.textToBePresentInElementLocated(By.id("notice"), b.id() + " may send again."));
        wait.until(ExpectedConditions.invisibilityOfElementLocated(By.id("muted-" + b.id())));
        assertFalse(member(other, b).getBoolean("muted"));
        confirm("remove-" + b.id());
        wait.until(ExpectedConditions.textToBePresentInElementLocated(By.id("notice"), b.id() + " removed from the group."));
        wait.until(ExpectedConditions.invisibilityOfElementLocated(By.id("remove-" + b.id())));
        assertProblem(http().put("api/v1/admin/groups/" + other + "/mutes/" + b.id(), ADMIN, "{}"), 404, "not-found");
        List<String> audited = okJson(http().get("api/v1/admin/audit?targetType=group&targetId=" + other, ADMIN)).getJsonArray("items")
                .getValuesAs(JsonObject.class).stream().map(e -> e.getString("action") + ":" + e.getString("outcome")).toList();
        assertEquals(List.of("mute-member:refused", "remove-member:ok", "unmute-member:ok", "mute-member:ok"), audited);
        open("#/audit");
        wait.until(ExpectedConditions.textToBePresentInElementLocated(By.id("view"), "group-message " + g + "/" + taken));
        wait.until(ExpectedConditions.textToBePresentInElementLocated(By.id("view"), "remove-member"));
    }

    /** A member as the admin API lists it. */
    JsonObject member(String group, User u) {
        return okJson(http().get("api/v1/admin/groups/" + group + "/members?limit=100", ADMIN)).getJsonArray("items")
                .getValuesAs(JsonObject.class).stream().filter(m -> m.getString("uid").equals(u.id())).findFirst().orElseThrow();
    }

    /**
     * A browser in Chinese gets the console in Chinese (dates by Intl in zh-CN); the switch in the
     * header turns it to English without asking the server, and the choice outlives a reload.
     */
    @Test
    void theConsoleFollowsTheBrowsersLanguageAndTheOperatorsChoice() throws Exception {
        Map<String, String> zh = AdminConsoleCatalogue.read("zh-CN");
        Map<String, String> en = AdminConsoleCatalogue.read("en");
        Browsers.close(browser);
        use(Browsers.headless("zh-CN"));
        open("");
        pageIn("zh-CN");
        textIs(By.cssSelector("#login h1"), zh.get("login.title"));
        assertEquals(zh.get("app.title"), browser.getTitle());
        signIn(ADMIN_USER, ADMIN_PASSWORD);
        textIs(By.cssSelector("#view h1"), zh.get("dashboard.title"));
        textIs(By.cssSelector("nav a[href='#/accounts']"), zh.get("nav.accounts"));
        number("online-users");
        // "更新于 2025年1月5日 15:04:05": the catalogue's words around a date that Intl wrote in Chinese
        String[] updated = zh.get("dashboard.updated").split("\\{time}", -1);
        Pattern chineseDate = Pattern.compile(Pattern.quote(updated[0]) + "\\d{4}年\\d{1,2}月\\d{1,2}日 .+" + Pattern.quote(updated[1]));
        wait.until(d -> chineseDate.matcher(d.findElement(By.cssSelector("#view > p.sub")).getText()).matches());
        wait.until(ExpectedConditions.textToBePresentInElementLocated(By.id("nodes"), zh.get("node.alive")));
        Browsers.screenshot(browser, "admin-zh.png");

        open("#/audit");
        textIs(By.cssSelector("#view h1"), zh.get("audit.title"));
        long requests = apiRequests();
        browser.findElement(By.id("lang-en")).click();
        pageIn("en");
        textIs(By.cssSelector("#view h1"), en.get("audit.title"));
        textIs(By.cssSelector("nav a[href='#/accounts']"), en.get("nav.accounts"));
        textIs(By.cssSelector("#view th"), en.get("col.when"));
        assertEquals(requests, apiRequests(), "the page is drawn again in English from what it had, without asking the server");

        browser.navigate().refresh();
        pageIn("en");
        textIs(By.cssSelector("#view h1"), en.get("audit.title"));
        assertEquals(en.get("app.title"), browser.getTitle());
    }
}
