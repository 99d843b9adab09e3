package io.roost.it;

import java.io.IOException;
import org.jboss.as.arquillian.container.ManagementClient;
import org.jboss.as.controller.client.helpers.Operations;
import org.jboss.dmr.ModelNode;

/**
 * Runs a server timer's work now instead of waiting for its schedule: WildFly's management
 * operation {@code trigger} on a deployed bean's timer calls its timeout method at once (in the
 * management thread, before the operation returns), as the schedule would. For tests of work on
 * a long period, such as the MQTT housekeeping's 30 s. A client test gets the client with
 * {@code @ArquillianResource ManagementClient}.
 */
public final class ServerTimers {

    private ServerTimers() {
    }

    /** Triggers every timer of the singleton bean {@code bean} (simple class name) in any deployment; fails if there is none. */
    public static void trigger(ManagementClient management, String bean) throws IOException {
        ModelNode service = new ModelNode();
        service.add("deployment", "*").add("subsystem", "ejb3").add("singleton-bean", bean).add("service", "timer-service");
        ModelNode read = Operations.createReadResourceOperation(service);
        read.get("include-runtime").set(true);
        int triggered = 0;
        for (ModelNode deployed : execute(management, read).asList()) {
            ModelNode timers = deployed.get("result", "timer");
            if (!timers.isDefined()) {
                continue;
            }
            for (String id : timers.keys()) {
                ModelNode timer = deployed.get("address").clone().add("timer", id);
                execute(management, Operations.createOperation("trigger", timer));
                triggered++;
            }
        }
        if (triggered == 0) {
            throw new AssertionError("no timer of " + bean + " is deployed");
        }
    }

    private static ModelNode execute(ManagementClient management, ModelNode operation) throws IOException {
        ModelNode answer = management.getControllerClient().execute(operation);
        if (!Operations.isSuccessfulOutcome(answer)) {
            throw new AssertionError(operation + " failed: " + Operations.getFailureDescription(answer));
        }
        return Operations.readResult(answer);
    }
}
