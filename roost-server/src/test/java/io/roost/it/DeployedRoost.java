package io.roost.it;

import java.net.URI;
import java.net.URL;
import org.jboss.arquillian.container.test.api.RunAsClient;
import org.jboss.arquillian.test.api.ArquillianResource;
import org.junit.jupiter.api.extension.ExtendWith;

/**
 * What every client-side IT starts from: the real roost.war deployed (the suite's one deployment,
 * {@link Deployments#suite()}), and the test outside the server, calling it over HTTP and
 * WebSockets as apps, back ends and Agora do.
 */
@ExtendWith(SerialArquillian.class)
@RunAsClient
public abstract class DeployedRoost {

    @ArquillianResource
    protected URL baseUrl;

    /** The server's address, as the clients below take it. */
    protected URI base() {
        return URI.create(baseUrl.toString());
    }

    protected Http http() {
        return new Http(baseUrl);
    }

    /** Agora's notification service, signing with the suite's secret. */
    protected Ncs ncs() {
        return new Ncs(base());
    }
}
