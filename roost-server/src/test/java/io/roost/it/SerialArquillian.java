package io.roost.it;

import org.jboss.arquillian.junit5.ArquillianExtension;
import org.junit.jupiter.api.extension.ExtensionContext;

/**
 * Arquillian's JUnit 5 extension for test classes that run side by side: Arquillian's class-level
 * and per-test events fire for one class at a time, while the tests themselves run in parallel.
 * Arquillian is not written for two classes at once: its manager for the suite was found by a
 * second class before the first had started it (a NullPointerException), and a class starting
 * while another deployed the suite's WAR added a second {@code engine} node to the shared
 * configuration ("Multiple nodes matching expression found"). The suite's start, in the first
 * class's {@code beforeAll}, takes the lock as long as it takes.
 */
public class SerialArquillian extends ArquillianExtension {

    private static final Object EVENTS = new Object();

    @Override
    public void beforeAll(ExtensionContext context) throws Exception {
        synchronized (EVENTS) {
            super.beforeAll(context);
        }
    }

    @Override
    public void afterAll(ExtensionContext context) throws Exception {
        synchronized (EVENTS) {
            super.afterAll(context);
        }
    }

    @Override
    public void beforeEach(ExtensionContext context) throws Exception {
        synchronized (EVENTS) {
            super.beforeEach(context);
        }
    }

    @Override
    public void afterEach(ExtensionContext context) throws Exception {
        synchronized (EVENTS) {
            super.afterEach(context);
        }
    }

    @Override
    public void beforeTestExecution(ExtensionContext context) throws Exception {
        synchronized (EVENTS) {
            super.beforeTestExecution(context);
        }
    }
}
