package org.jboss.arquillian.junit5;

import org.junit.jupiter.api.extension.BeforeAllCallback;
import org.junit.jupiter.api.extension.ExtensionContext;

/**
 * Roost's test shim, registered before {@link ArquillianExtension}: Arquillian's start for the
 * suite (its container, the suite's deployment generated) happens once, under a lock, before any
 * class's own Arquillian callbacks. Test classes run two at a time, and ArquillianExtension stores
 * its manager for the suite before it starts it: a class that began meanwhile found the manager
 * without its adaptor and failed with a NullPointerException. It lives in Arquillian's package for
 * the manager's package-private accessor; a later Arquillian that changes it fails to compile this.
 */
public final class ArquillianStartsFirst implements BeforeAllCallback {

    private static final Object STARTING = new Object();

    @Override
    public void beforeAll(ExtensionContext context) throws Exception {
        synchronized (STARTING) {
            JUnitJupiterTestClassLifecycleManager.getManager(context);
        }
    }
}
