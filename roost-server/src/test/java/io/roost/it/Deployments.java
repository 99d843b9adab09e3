package io.roost.it;

import java.io.File;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.URISyntaxException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.stream.Stream;
import org.jboss.arquillian.container.test.api.Deployment;
import org.jboss.shrinkwrap.api.ShrinkWrap;
import org.jboss.shrinkwrap.api.spec.WebArchive;

/** The integration tests deploy the real roost.war that Maven built, plus their own classes. */
public final class Deployments {

    /** What the in-container tests use besides Roost's own classes (each with its nested classes). */
    private static final List<Class<?>> IN_CONTAINER_HELPERS = List.of(Wait.class, Database.class, LockOrder.class, Routes.class,
            BrokerAdmin.class, ProbeConsumer.class, DeadlockLog.class, InContainerUsers.class,
            InContainer.class, SerialArquillian.class, io.roost.it.media.MediaFiles.class);

    private Deployments() {
    }

    /** roost.war as Maven built it. */
    public static WebArchive roost() {
        String war = System.getProperty("roost.war", "target/roost.war");
        return ShrinkWrap.createFromZipFile(WebArchive.class, new File(war));
    }

    /**
     * The one deployment of a Failsafe execution ({@link SuiteDeployment}): roost.war with every
     * {@code *InContainerIT} class of the build and the helpers they use. Client-side tests call it
     * over HTTP and WebSockets as apps and back ends do; the in-container classes run inside it.
     */
    @Deployment
    public static WebArchive suite() {
        WebArchive war = roost();
        IN_CONTAINER_HELPERS.forEach(war::addClass);
        inContainerTests().forEach(war::addClass);
        return war;
    }

    /** Every {@code *InContainerIT} class among the compiled tests, found by name so that a new one cannot be left out. */
    static List<Class<?>> inContainerTests() {
        try {
            Path classes = Path.of(Deployments.class.getProtectionDomain().getCodeSource().getLocation().toURI());
            try (Stream<Path> files = Files.walk(classes)) {
                return files.map(f -> classes.relativize(f).toString())
                        .filter(f -> f.endsWith("InContainerIT.class"))
                        .map(f -> f.substring(0, f.length() - ".class".length()).replace(File.separatorChar, '.'))
                        .sorted()
                        .<Class<?>>map(Deployments::load)
                        .toList();
            }
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        } catch (URISyntaxException e) {
            throw new IllegalStateException(e);
        }
    }

    private static Class<?> load(String name) {
        try {
            return Class.forName(name, false, Deployments.class.getClassLoader());
        } catch (ClassNotFoundException e) {
            throw new IllegalStateException(e);
        }
    }
}
