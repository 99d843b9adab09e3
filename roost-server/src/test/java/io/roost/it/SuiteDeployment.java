package io.roost.it;

import java.nio.file.Files;
import java.nio.file.Path;
import org.jboss.arquillian.container.spi.client.deployment.DeploymentScenario;
import org.jboss.arquillian.container.spi.event.DeployManagedDeployments;
import org.jboss.arquillian.container.spi.event.UnDeployManagedDeployments;
import org.jboss.arquillian.container.spi.event.container.BeforeStop;
import org.jboss.arquillian.container.test.impl.client.deployment.event.GenerateDeployment;
import org.jboss.arquillian.core.api.Event;
import org.jboss.arquillian.core.api.Instance;
import org.jboss.arquillian.core.api.InstanceProducer;
import org.jboss.arquillian.core.api.annotation.Inject;
import org.jboss.arquillian.core.api.annotation.Observes;
import org.jboss.arquillian.core.spi.EventContext;
import org.jboss.arquillian.core.spi.LoadableExtension;
import org.jboss.arquillian.test.spi.TestClass;
import org.jboss.arquillian.test.spi.annotation.ClassScoped;
import org.jboss.arquillian.test.spi.annotation.SuiteScoped;
import org.jboss.arquillian.test.spi.context.ClassContext;
import org.jboss.arquillian.test.spi.event.suite.BeforeSuite;

/**
 * One deployment for every Arquillian test class of a Failsafe execution, instead of one per class:
 * {@link Deployments#suite()} (roost.war, the in-container test classes and their helpers) is
 * generated once when the suite starts, deployed when the first class starts, and undeployed when
 * the container stops. A class declares no deployment of its own; each class's deploy and
 * undeploy are skipped, and Arquillian finds the suite's deployment (its URL, its protocol) where
 * it would look for the class's. Deploying Roost starts its whole application (migrations checked,
 * consumers, timers), so a deployment per class cost the suite several seconds a class.
 *
 * <p>While developing, {@code -Droost.it.hold-server=true} keeps the execution's server running
 * after its last class (undeployed, with its dev services), until {@link #HOLD_FILE} is deleted; a
 * second build with {@code -Droost.it.reuse-server=true} then runs its classes against it instead of
 * starting one (docs/testing.md).
 *
 * <p>Registered in {@code META-INF/services/org.jboss.arquillian.core.spi.LoadableExtension}.
 */
public final class SuiteDeployment implements LoadableExtension {

    /** While it exists, a held server keeps running ({@code -Droost.it.hold-server=true}). */
    static final Path HOLD_FILE = Path.of(System.getProperty("basedir", "."), "target", "hold-server");

    @Override
    public void register(ExtensionBuilder builder) {
        builder.observer(Deployer.class);
    }

    /** The observer that generates, deploys and undeploys the suite's deployment and skips the classes' own. */
    public static final class Deployer {

        @Inject
        private Instance<ClassContext> classContext;

        @Inject
        @ClassScoped
        private InstanceProducer<DeploymentScenario> classScenario;

        @Inject
        @SuiteScoped
        private InstanceProducer<DeploymentScenario> suiteScenario;

        @Inject
        private Event<GenerateDeployment> generate;

        @Inject
        private Event<UnDeployManagedDeployments> undeploy;

        /** Set on the thread of this observer's own generating and undeploying, so that it lets those events through. */
        private final ThreadLocal<Boolean> own = ThreadLocal.withInitial(() -> false);
        private boolean deployed;
        private Throwable deployFailure;

        /** After the containers started (lower precedence runs later): the suite's deployment, generated once. */
        public void generateSuiteDeployment(@Observes(precedence = -100) BeforeSuite event) {
            ClassContext context = classContext.get();
            context.activate(Deployments.class);
            own.set(true);
            try {
                generate.fire(new GenerateDeployment(new TestClass(Deployments.class)));
                suiteScenario.set(classScenario.get());
            } finally {
                own.set(false);
                context.deactivate();
                context.destroy(Deployments.class);
            }
        }

        public void skipClassGeneration(@Observes EventContext<GenerateDeployment> event) {
            if (own.get()) {
                event.proceed();
            }
        }

        /**
         * The first class deploys the suite's deployment; a class that starts meanwhile waits for it
         * (classes may run side by side); a failure to deploy fails every class, not only the first.
         */
        public synchronized void deployOnce(@Observes EventContext<DeployManagedDeployments> event) {
            if (deployFailure != null) {
                throw new IllegalStateException("the suite's deployment failed to deploy", deployFailure);
            }
            if (deployed) {
                return;
            }
            try {
                event.proceed();
                deployed = true;
            } catch (RuntimeException | Error e) {
                deployFailure = e;
                throw e;
            }
        }

        public void skipClassUndeploy(@Observes EventContext<UnDeployManagedDeployments> event) {
            if (own.get()) {
                event.proceed();
            }
        }

        /** Undeployed before the server stops (or is held for the next build, which deploys its own). */
        public synchronized void undeployBeforeStop(@Observes BeforeStop event) throws Exception {
            if (deployed) {
                own.set(true);
                try {
                    undeploy.fire(new UnDeployManagedDeployments());
                } finally {
                    own.set(false);
                    deployed = false;
                }
            }
            if (Boolean.getBoolean("roost.it.hold-server")) {
                hold();
            }
        }

        private static void hold() throws Exception {
            Files.createDirectories(HOLD_FILE.getParent());
            Files.writeString(HOLD_FILE, "delete this file to stop the held test server\n");
            System.out.println("[SuiteDeployment] the server keeps running for -Droost.it.reuse-server=true builds; rm "
                    + HOLD_FILE + " stops it");
            while (Files.exists(HOLD_FILE)) {
                Thread.sleep(1_000);
            }
        }
    }
}
