package io.roost.it;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.roost.it.TestUsers.User;
import java.time.Duration;
import java.util.List;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.openqa.selenium.By;
import org.openqa.selenium.WebDriver;
import org.openqa.selenium.WebElement;
import org.openqa.selenium.support.ui.ExpectedConditions;
import org.openqa.selenium.support.ui.WebDriverWait;

/**
 * The API explorer (/api-docs/) in a real browser: Swagger UI from the WAR lists the document's
 * operations, and a call made through it with a bearer token it was authorized with answers 200.
 */
class ApiExplorerIT extends DeployedRoost {

    WebDriver browser;
    WebDriverWait wait;

    @BeforeEach
    void openBrowser() {
        browser = Browsers.headless();
        wait = new WebDriverWait(browser, Duration.ofSeconds(30));
    }

    @AfterEach
    void closeBrowser() {
        Browsers.close(browser);
    }

    @Test
    void theExplorerListsTheOperationsAndAnAuthorizedCallAnswers200() throws Exception {
        User user = TestUsers.register(baseUrl, "explorer-");
        browser.get(baseUrl + "api-docs/");
        wait.until(ExpectedConditions.numberOfElementsToBeMoreThan(By.cssSelector(".opblock-tag"), 5));
        List<WebElement> tags = browser.findElements(By.cssSelector(".opblock-tag"));
        assertTrue(tags.stream().anyMatch(t -> t.getText().startsWith("media")), "the modules' tags are listed");

        // authorize with the user's bearer token
        browser.findElement(By.cssSelector("button.authorize")).click();
        WebElement bearer = wait.until(ExpectedConditions.visibilityOfElementLocated(
                By.xpath("//div[contains(@class,'auth-container')][.//h4[contains(.,'bearer')]]//input")));
        bearer.sendKeys(user.token());
        browser.findElement(By.xpath("//div[contains(@class,'auth-container')][.//h4[contains(.,'bearer')]]//button[contains(@class,'authorize')]"))
                .click();
        browser.findElement(By.cssSelector("button.btn-done")).click();

        // GET /api/v1/accounts/me, tried out: its tag opened, then the operation
        wait.until(ExpectedConditions.elementToBeClickable(By.id("operations-tag-identity"))).click();
        WebElement op = wait.until(ExpectedConditions.presenceOfElementLocated(By.id("operations-identity-getMyAccount")));
        op.findElement(By.cssSelector(".opblock-summary-control")).click();
        wait.until(ExpectedConditions.elementToBeClickable(op.findElement(By.cssSelector("button.execute")))).click();
        WebElement status = wait.until(d -> {
            List<WebElement> s = op.findElements(By.cssSelector(".live-responses-table tbody .response-col_status"));
            return s.isEmpty() || s.get(0).getText().isBlank() ? null : s.get(0);
        });
        assertEquals("200", status.getText().trim(), "an authorized call through the explorer");
        assertTrue(op.getText().contains(user.id()), "its answer is the caller's account");
    }
}
