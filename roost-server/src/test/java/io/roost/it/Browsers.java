package io.roost.it;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.File;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.util.List;
import java.util.Map;
import java.util.logging.Level;
import org.openqa.selenium.OutputType;
import org.openqa.selenium.TakesScreenshot;
import org.openqa.selenium.WebDriver;
import org.openqa.selenium.chrome.ChromeDriver;
import org.openqa.selenium.chrome.ChromeDriverService;
import org.openqa.selenium.chrome.ChromeOptions;
import org.openqa.selenium.logging.LogEntry;
import org.openqa.selenium.logging.LogType;
import org.openqa.selenium.logging.LoggingPreferences;

/**
 * The browser the web tests drive: Debian's headless Chromium through its chromedriver (packages
 * {@code chromium}, {@code chromium-driver}; paths overridable with {@code -Droost.test.chromium=} /
 * {@code -Droost.test.chromedriver=}), its console kept for when a step fails.
 */
public final class Browsers {

    private Browsers() {
    }

    public static ChromeDriver headless() {
        return start(options());
    }

    /**
     * The browser with its language set to {@code lang} (a BCP 47 tag such as {@code zh-CN}): its UI
     * language and the first of {@code navigator.languages} / Accept-Language.
     */
    public static ChromeDriver headless(String lang) {
        ChromeOptions options = options();
        options.addArguments("--lang=" + lang);
        options.setExperimentalOption("prefs", Map.of("intl.accept_languages", lang));
        return start(options);
    }

    private static ChromeOptions options() {
        ChromeOptions options = new ChromeOptions();
        options.setBinary(System.getProperty("roost.test.chromium", "/usr/bin/chromium"));
        options.addArguments("--headless=new", "--no-sandbox", "--disable-gpu", "--disable-dev-shm-usage", "--window-size=1280,1000");
        LoggingPreferences logs = new LoggingPreferences();
        logs.enable(LogType.BROWSER, Level.ALL);
        options.setCapability("goog:loggingPrefs", logs);
        return options;
    }

    private static ChromeDriver start(ChromeOptions options) {
        ChromeDriverService service = new ChromeDriverService.Builder()
                .usingDriverExecutable(new File(System.getProperty("roost.test.chromedriver", "/usr/bin/chromedriver")))
                .usingAnyFreePort().build();
        return new ChromeDriver(service, options);
    }

    /** Saves what the browser shows as {@code target/<name>} (a PNG), and checks it is a picture of something. */
    public static Path screenshot(WebDriver browser, String name) throws Exception {
        Path shot = Path.of("target", name);
        Files.createDirectories(shot.getParent());
        Files.copy(((TakesScreenshot) browser).getScreenshotAs(OutputType.FILE).toPath(), shot, StandardCopyOption.REPLACE_EXISTING);
        assertTrue(Files.size(shot) > 10_000, "a screenshot: " + name);
        return shot;
    }

    /**
     * The page's console since the last read, printed; fails if it holds an error (a script's, or a
     * request the page made that failed).
     */
    public static void assertNoConsoleErrors(WebDriver browser) {
        List<LogEntry> entries = browser.manage().logs().get(LogType.BROWSER).getAll();
        entries.forEach(e -> System.out.println("browser console: " + e.getLevel() + " " + e.getMessage()));
        assertEquals(List.of(), entries.stream().filter(e -> e.getLevel().intValue() >= Level.SEVERE.intValue())
                .map(LogEntry::getMessage).toList(), "errors in the browser's console");
    }

    /** Prints the page's console (for when a step failed) and closes the browser. */
    public static void close(WebDriver browser) {
        if (browser != null) {
            browser.manage().logs().get(LogType.BROWSER)
                    .forEach(e -> System.out.println("browser console: " + e.getLevel() + " " + e.getMessage()));
            browser.quit();
        }
    }
}
